"""Connecting to Oracle while the database opens, against a fake listener (runs everywhere).

python-oracledb 26.1 in thin mode answers a listener's REFUSE packet with DPY-6001 (service not
registered, like ORA-12514) or DPY-6000 ("Listener refused connection. (Similar to
ORA-<code>)"), and wraps every failure of the first connect phase, a closed port included, as
DPY-6005 (``impl/thin/messages/connect.pyx``, ``impl/thin/connection.pyx``). The fake listener
below speaks just enough TNS for that: it reads the client's CONNECT packet and sends a REFUSE
packet whose text carries ``(ERR=<code>)``, as Oracle's listener does. Nothing is faked on the
client side: the real driver parses the packet and raises its real errors.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import oracledb
import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.oracle import connection
from agent_harness.backends.oracle.errors import database_is_opening, full_code
from agent_harness.foundation.config import Settings

TNS_REFUSE = 4


def _refuse_packet(code: int) -> bytes:
    text = f"(DESCRIPTION=(TMP=)(VSNNUM=0)(ERR={code})(ERROR_STACK=(ERROR=(CODE={code})(EMFI=4))))"
    data = text.encode("ascii")
    body = bytes([1, 0]) + struct.pack(">H", len(data)) + data  # reasons, length, text
    return struct.pack(">HHBBH", 8 + len(body), 0, TNS_REFUSE, 0, 0) + body


class FakeListener:
    """A TCP listener on 127.0.0.1 that refuses every connect with one TNS error code."""

    def __init__(self, code: int):
        self.code = code
        self.attempts = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            with client:
                header = client.recv(8)
                if len(header) < 8:
                    continue
                length, got = struct.unpack(">H", header[:2])[0], len(header)
                while got < length:
                    chunk = client.recv(length - got)
                    if not chunk:
                        break
                    got += len(chunk)
                self.attempts += 1
                client.sendall(_refuse_packet(self.code))

    def dsn(self) -> str:
        return f"127.0.0.1:{self.port}/FREEPDB1"

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def listener(request):
    fake = FakeListener(request.param)
    yield fake
    fake.close()


def _connect_error(dsn: str) -> oracledb.Error:
    with pytest.raises(oracledb.Error) as raised:
        oracledb.connect(user="workshop", password="x", dsn=dsn, tcp_connect_timeout=2)
    return raised.value


@pytest.mark.parametrize(
    ("listener", "inner"),
    [(12514, "DPY-6001"), (12528, "DPY-6000"), (12521, "DPY-6000")],
    indirect=["listener"],
)
def test_a_listener_refusal_while_opening_is_recognised_inside_dpy_6005(listener, inner):
    error = _connect_error(listener.dsn())
    assert full_code(error) == "DPY-6005"  # the outer code alone cannot tell: read the text
    assert inner in str(error) and f"ORA-{listener.code}" in str(error)
    assert database_is_opening(error)


@pytest.mark.parametrize("listener", [12505], indirect=True)
def test_a_wrong_sid_is_not_mistaken_for_a_database_that_opens(listener):
    assert not database_is_opening(_connect_error(listener.dsn()))


def test_a_closed_port_is_not_mistaken_for_a_database_that_opens():
    error = _connect_error("127.0.0.1:1/FREEPDB1")
    assert full_code(error) == "DPY-6005"
    assert not database_is_opening(error)


def _settings(monkeypatch, dsn: str) -> Settings:
    monkeypatch.setenv("WORKSHOP_ORACLE_DSN", dsn)
    return Settings.from_env(backend="oracle")


@pytest.mark.parametrize("listener", [12514, 12528], indirect=True)
def test_connect_user_keeps_trying_while_the_database_opens(listener, monkeypatch):
    monkeypatch.setattr(connection, "STARTUP_POLL_S", 0.2)
    settings = _settings(monkeypatch, listener.dsn())
    started = time.monotonic()
    with pytest.raises(BackendError) as raised:
        connection.connect_user(settings, "workshop", "x", "harness owner", wait_s=1.5)
    assert 1.0 < time.monotonic() - started < 10
    assert listener.attempts >= 4, f"only {listener.attempts} attempt(s): it did not wait"
    message = str(raised.value)
    assert "still opening after 1.5 s" in message and f"ORA-{listener.code}" in message
    assert "docker compose up -d oracle" in message


def test_connect_user_fails_at_once_when_nothing_listens(monkeypatch):
    monkeypatch.setattr(connection, "STARTUP_POLL_S", 0.2)
    settings = _settings(monkeypatch, "127.0.0.1:1/FREEPDB1")
    started = time.monotonic()
    with pytest.raises(BackendError) as raised:
        connection.connect_user(settings, "workshop", "x", "harness owner", wait_s=60)
    assert time.monotonic() - started < 5  # no 60 s wait for a port nobody listens on
    assert "still opening" not in str(raised.value)
    assert "127.0.0.1:1/FREEPDB1" in str(raised.value)

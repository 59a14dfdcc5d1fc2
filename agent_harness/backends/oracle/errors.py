"""Reading python-oracledb errors: codes, a one-line message, a fix worth saying, and whether a
failed connect means "the database is still opening" (worth waiting for).

No SQL in here. How thin mode reports a connect failure (python-oracledb 26.1,
``impl/thin/messages/connect.pyx`` and ``connection.pyx``): a listener's REFUSE packet becomes
DPY-6001 (service not registered, like ORA-12514), DPY-6003 (SID, like ORA-12505) or DPY-6000
("Listener refused connection. (Similar to ORA-<code>)"), and every failure of that first phase
is then wrapped as DPY-6005 ("cannot connect to database"), the cause's text on the next line.
So the wrapped error's ``full_code`` is DPY-6005 whatever the cause, and only its message says
which one it was; a closed port is DPY-6005 with the OS error text ("Connection refused").
"""

from __future__ import annotations

import re

__all__ = [
    "HINTS",
    "database_is_opening",
    "error_code",
    "first_line",
    "full_code",
    "hint",
    "whole_text",
]

# Error codes with a fix worth saying (ORA-nnnnn).
HINTS = {
    51962: "the vector memory pool is 0 or full: as SYSDBA run ALTER SYSTEM SET"
    " vector_memory_size=512M SCOPE=SPFILE and restart the database (docker compose restart"
    " oracle)",
    51950: "the vector memory pool is not enabled: as SYSDBA run ALTER SYSTEM SET"
    " vector_memory_size=512M SCOPE=SPFILE and restart the database",
    1031: "the user lacks a privilege: the harness owner needs DB_DEVELOPER_ROLE (the init"
    " scripts in setup/oracle/ grant it on the container's first start)",
    1950: "no quota on the tablespace: ALTER USER ... QUOTA UNLIMITED ON USERS (as SYSDBA)",
    # SQL Language Reference 23, "Oracle SQL Reserved Words": not a bind name either.
    1745: "a bind name is an Oracle reserved word (date, size, level, mode, start, user, rows,"
    " ...) or starts with _: rename it, e.g. :start -> :start_date",
    1017: "wrong user name or password: check the WORKSHOP_ORACLE_*_USER / _PASSWORD variables;"
    " the users are created by setup/oracle/ on the container's first start",
}

# What a connect error says while the database opens: the listener is up but the service is
# not registered yet (DPY-6001 ~ ORA-12514), the listener blocks or does not know the instance
# (DPY-6000 with ORA-12528 / ORA-12521), or the session reaches an instance that is starting
# (ORA-01033) or a PDB that is not open (ORA-01109). A refused TCP port matches none of these.
_OPENING = re.compile(r"\b(DPY-600[01]|ORA-125(?:14|21|28)|ORA-01033|ORA-01109)\b")


def error_code(error: Exception) -> int:
    """The ORA error number (0 for driver errors)."""
    detail = error.args[0] if error.args else None
    return int(getattr(detail, "code", 0) or 0)


def full_code(error: Exception) -> str:
    """``ORA-01017``, ``DPY-6005``, ...: the outermost code of the error."""
    detail = error.args[0] if error.args else None
    return str(getattr(detail, "full_code", "") or "")


def first_line(error: Exception) -> str:
    """The error's first line (its code and message)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def whole_text(error: Exception) -> str:
    """All lines of an error but Oracle's "Help: <url>" line, as one sentence."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = " ".join(line for line in lines if not line.startswith("Help:"))
    return text.rstrip(".") or type(error).__name__


def hint(error: Exception) -> str:
    """`` (what to do)`` for an error code with a known fix, else ""."""
    known = HINTS.get(error_code(error))
    return f" ({known})" if known else ""


def database_is_opening(error: Exception) -> bool:
    """True when a connect error means the database is still opening, so a retry can work.

    Reads the whole message, wrapped causes included (see the module docstring): the outer
    code alone is DPY-6005 for a database that is opening and for a port nobody listens on.
    """
    return bool(_OPENING.search(str(error)))

"""Two identities and the module-scoped harnesses the identity-policy tests share: a copy of
the session's prepared database, its owner, and Ana and Fay connected to it
(tests/test_guardrails.py, tests/test_policy_copies.py). ``folder, owner, ana, fay =
harness_fixtures("name")`` at a module's top level gives that module its own copy."""

from __future__ import annotations

import shutil

import pytest

ANA = {"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]}
FIN = {"user": "fay", "roles": ["finance"], "regions": ["PACIFIC", "INDIAN"]}


def _connect(folder, identity=None):
    import agent_harness

    return agent_harness.connect(backend="embedded", data_dir=folder, identity=identity)


def harness_fixtures(name: str):
    """The module's ``folder``, ``owner``, ``ana`` and ``fay`` fixtures (module scope)."""

    @pytest.fixture(scope="module")
    def folder(tmp_path_factory, template):
        data_dir = tmp_path_factory.mktemp(name)
        shutil.copytree(template, data_dir, dirs_exist_ok=True)
        return data_dir

    @pytest.fixture(scope="module")
    def owner(folder):
        h = _connect(folder)
        yield h
        h.close()

    @pytest.fixture(scope="module")
    def ana(folder, owner):
        h = _connect(folder, ANA)
        yield h
        h.close()

    @pytest.fixture(scope="module")
    def fay(folder, owner):
        h = _connect(folder, FIN)
        yield h
        h.close()

    return folder, owner, ana, fay

"""What a cell the attendee added may not change: the state the instructor's checks rely on.

Loaded by ``runner.py`` in the student's process (a plain file beside it; it imports nothing
from the ``grader`` package). The runner runs the attendee's added cells in their place; around
each one the guard takes a snapshot of the protected state and puts it back after the cell, so
a check cell cannot be passed by state an added cell prepared. What it put back is reported
(the feedback says so). Protected:

* names the instructor's cells (pre-built cells and check cells) bound: rebinding or deleting
  one is undone (a helper of the checks such as ``call_todo``, the harness ``h``);
* the builtins (``AssertionError``, ``isinstance``...);
* the functions, classes and methods of the ``agent_harness`` and ``IPython`` modules and of the
  modules the instructor's cells bound to a name, and callables set on the ``agent_harness``
  objects those names reach (``h.backend.query = ...``); the code, defaults and keyword
  defaults of those functions and of the instructor's own (``helper.__code__ = ...``);
* IPython's input and AST transformers, event callbacks, custom exception handlers and the
  shell's own methods; Python's trace and profile hooks, ``sys.excepthook``,
  ``sys.displayhook``, ``sys.meta_path``, ``sys.path_hooks``, ``gc.callbacks``.

Not protected (README, "Grading"): state that is data (the database, an object's plain
attributes, other libraries), code that re-applies a change later (a thread, an audit hook,
which Python cannot remove), and the TODO cells themselves. None of these can earn points: a
grade cell also needs its value checks, which are compared outside the student's process.
"""

from __future__ import annotations

import builtins
import gc
import re
import sys
import threading
import types

__all__ = ["Guard"]

_MISSING = object()
_IPYTHON_NAME = re.compile(r"_+|_\d+|_i+\d*|_[odis]h|In|Out|exit|quit|get_ipython")
_MAX_OBJECTS = 500


def _is_code(value) -> bool:
    """A value a monkeypatch replaces: a function, class, method, descriptor or module."""
    return callable(value) or isinstance(
        value, (staticmethod, classmethod, property, types.ModuleType)
    )


def _same(a, b) -> bool:
    """Same items, by identity (an object of the notebook may claim to equal anything)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _code_of(namespace) -> dict:
    return {k: v for k, v in list(namespace.items()) if _is_code(v)}


class Guard:
    """Snapshots and restores the protected state around the attendee's added cells.

    Args:
        shell: The notebook's IPython shell.
    """

    def __init__(self, shell):
        self.shell = shell
        self.names: dict[str, object] = {}  # as the instructor's cells last bound them
        self._handlers_kept: dict | None = None

    def keep_handlers(self) -> None:
        """Remember the shell's handlers as the runner set them (before any notebook code)."""
        self._handlers_kept = self._handlers()

    # --- around one cell ---------------------------------------------------------------------
    def before(self, kind: str | None):
        """What to compare with after a cell of this kind (instructor, check, added...)."""
        if kind == "added":
            return self._snapshot()
        if kind in ("instructor", "check"):
            return dict(self.shell.user_ns)
        return None

    def after(self, kind: str | None, before) -> list[str]:
        """Record an instructor cell's bindings, or undo an added cell's changes (returned)."""
        if kind == "added":
            return self._restore(before)
        if kind in ("instructor", "check"):
            namespace = self.shell.user_ns
            for name, value in list(namespace.items()):
                if _IPYTHON_NAME.fullmatch(name):
                    continue
                if before.get(name, _MISSING) is not value:
                    self.names[name] = value
            for name in set(before) - set(namespace):
                self.names.pop(name, None)
        return []

    # --- the snapshot ------------------------------------------------------------------------
    def _modules(self) -> dict[str, types.ModuleType]:
        chosen = {
            name: module
            for name, module in list(sys.modules.items())
            if isinstance(module, types.ModuleType)
            and (name.split(".")[0] in ("agent_harness", "IPython", "builtins"))
        }
        for value in self.names.values():
            if isinstance(value, types.ModuleType):
                chosen.setdefault(value.__name__, value)
        return chosen

    def _objects(self) -> list:
        """agent_harness objects reachable from the instructor's names (three levels)."""
        found, seen, level = [], set(), list(self.names.values())
        for _ in range(3):
            following = []
            for value in level:
                kind = type(value)
                module = getattr(kind, "__module__", "") or ""
                if id(value) in seen or not module.startswith("agent_harness"):
                    continue
                attributes = getattr(value, "__dict__", None)
                if not isinstance(attributes, dict) or len(found) >= _MAX_OBJECTS:
                    continue
                seen.add(id(value))
                found.append(value)
                following += list(attributes.values())
            level = following
        return found

    def _handlers(self) -> dict:
        shell, manager = self.shell, self.shell.input_transformer_manager
        return {
            "ast_transformers": list(shell.ast_transformers),
            "input_transformers_post": list(shell.input_transformers_post),
            "cleanup_transforms": list(manager.cleanup_transforms),
            "line_transforms": list(manager.line_transforms),
            "token_transformers": list(manager.token_transformers),
            "events": {name: list(cbs) for name, cbs in shell.events.callbacks.items()},
            "custom_exceptions": shell.custom_exceptions,
            "shell_code": _code_of(vars(shell)),
        }

    def _snapshot(self) -> dict:
        modules = self._modules()
        classes = [
            value
            for module in modules.values()
            for value in list(vars(module).values())
            if isinstance(value, type) and value.__module__ == module.__name__
        ]
        snapshot = {
            "builtins": dict(vars(builtins)),
            "modules": {name: (m, _code_of(vars(m))) for name, m in modules.items()},
            "classes": [(c, _code_of(c.__dict__)) for c in classes],
            "objects": [(o, _code_of(vars(o))) for o in self._objects()],
            "handlers": self._handlers(),
            "hooks": self._hooks(),
        }
        functions = {id(f): f for f in self.names.values() if isinstance(f, types.FunctionType)}
        for _, code in [*snapshot["modules"].values(), *snapshot["classes"]]:
            for value in code.values():
                if isinstance(value, types.FunctionType):
                    functions[id(value)] = value
        snapshot["functions"] = [
            (f, f.__code__, f.__defaults__, f.__kwdefaults__) for f in functions.values()
        ]
        return snapshot

    @staticmethod
    def _hooks() -> dict:
        return {
            "trace": sys.gettrace(),
            "profile": sys.getprofile(),
            "thread_trace": getattr(threading, "gettrace", lambda: None)(),
            "thread_profile": getattr(threading, "getprofile", lambda: None)(),
            "excepthook": sys.excepthook,
            "displayhook": sys.displayhook,
            "meta_path": list(sys.meta_path),
            "path_hooks": list(sys.path_hooks),
            "gc_callbacks": list(gc.callbacks),
        }

    # --- the restore -------------------------------------------------------------------------
    def _restore(self, snapshot: dict) -> list[str]:
        undone: list[str] = []
        self._restore_names(undone)
        self._restore_builtins(snapshot["builtins"], undone)
        for name, (module, code) in snapshot["modules"].items():
            if sys.modules.get(name, module) is not module:
                sys.modules[name] = module
                undone.append(f"sys.modules[{name!r}]")
            self._restore_code(module, name, code, undone, remove_new=False)
        for cls, code in snapshot["classes"]:
            self._restore_code(cls, f"{cls.__module__}.{cls.__qualname__}", code, undone)
        for obj, code in snapshot["objects"]:
            self._restore_code(obj, f"a {type(obj).__name__} object", code, undone)
        for function, code, defaults, kwdefaults in snapshot["functions"]:
            if (
                function.__code__ is not code
                or function.__defaults__ is not defaults
                or function.__kwdefaults__ is not kwdefaults
            ):
                function.__code__, function.__defaults__ = code, defaults
                function.__kwdefaults__ = kwdefaults
                undone.append(f"the code of {function.__qualname__}")
        self._restore_handlers(snapshot["handlers"], undone)
        self._restore_hooks(snapshot["hooks"], undone)
        return undone

    def _restore_names(self, undone: list[str]) -> None:
        namespace = self.shell.user_ns
        for name, value in self.names.items():
            if namespace.get(name, _MISSING) is not value:
                namespace[name] = value
                undone.append(name)

    @staticmethod
    def _restore_builtins(saved: dict, undone: list[str]) -> None:
        current = vars(builtins)
        for name in [n for n in current if n not in saved]:
            del current[name]
            undone.append(f"builtins.{name}")
        for name, value in saved.items():
            if current.get(name, _MISSING) is not value:
                current[name] = value
                undone.append(f"builtins.{name}")

    @staticmethod
    def _restore_code(owner, label: str, saved: dict, undone, remove_new: bool = True) -> None:
        try:
            current = _code_of(owner.__dict__)
        except (AttributeError, TypeError):
            return
        for name, value in saved.items():
            if current.get(name, _MISSING) is not value:
                try:
                    setattr(owner, name, value)
                    undone.append(f"{label}.{name}")
                except (AttributeError, TypeError):
                    pass
        for name in [n for n in current if n not in saved] if remove_new else []:
            try:
                delattr(owner, name)
                undone.append(f"{label}.{name}")
            except (AttributeError, TypeError):
                pass

    def _restore_handlers(self, saved: dict, undone: list[str]) -> None:
        shell, manager = self.shell, self.shell.input_transformer_manager
        lists = {
            "ast_transformers": shell.ast_transformers,
            "input_transformers_post": shell.input_transformers_post,
            "cleanup_transforms": manager.cleanup_transforms,
            "line_transforms": manager.line_transforms,
            "token_transformers": manager.token_transformers,
        }
        for name, current in lists.items():
            if not _same(current, saved[name]):
                current[:] = saved[name]
                undone.append(f"IPython {name.replace('_', ' ')}")
        for name, callbacks in shell.events.callbacks.items():
            if not _same(callbacks, saved["events"].get(name, [])):
                callbacks[:] = saved["events"].get(name, [])
                undone.append(f"IPython {name} callbacks")
        kept = self._handlers_kept or saved
        if not _same(tuple(shell.custom_exceptions), tuple(kept["custom_exceptions"])):
            shell.custom_exceptions = kept["custom_exceptions"]
            undone.append("IPython custom exception handlers")
        self._restore_code(shell, "the IPython shell", saved["shell_code"], undone)

    @staticmethod
    def _restore_hooks(saved: dict, undone: list[str]) -> None:
        if sys.gettrace() is not saved["trace"]:
            sys.settrace(saved["trace"])
            undone.append("sys.settrace")
        if sys.getprofile() is not saved["profile"]:
            sys.setprofile(saved["profile"])
            undone.append("sys.setprofile")
        if getattr(threading, "gettrace", lambda: None)() is not saved["thread_trace"]:
            threading.settrace(saved["thread_trace"])
            undone.append("threading.settrace")
        if getattr(threading, "getprofile", lambda: None)() is not saved["thread_profile"]:
            threading.setprofile(saved["thread_profile"])
            undone.append("threading.setprofile")
        for name in ("excepthook", "displayhook"):
            if getattr(sys, name) is not saved[name]:
                setattr(sys, name, saved[name])
                undone.append(f"sys.{name}")
        for name, current in (
            ("meta_path", sys.meta_path),
            ("path_hooks", sys.path_hooks),
            ("gc_callbacks", gc.callbacks),
        ):
            if not _same(current, saved[name]):
                current[:] = saved[name]
                undone.append(name.replace("_", "."))

"""Generated code, compiled ahead of time where a build did so, else at run time.

`pygen.py` (the successors) and `pycheck.py` (the property tests and screens) write Python text specialised to
their bounds, reading and rules, and run it through `namespace(code, filename, names)`: the text `exec`'d in a
copy of `names`, as ever, unless a build wrote that very text as a module of `pausecheck.model.generated`
(named by the SHA-256 of the text: `module_name`), which is then imported instead. The text is the same either
way, so the results are too; only the compiler differs (an optional build, `checks/build.py`, compiles those
modules with mypyc). The pure-Python package has no `generated` folder, and every text is `exec`'d.

`recording()` collects every text generated while it is open (the build runs searches under it to learn which
texts to write).
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["PACKAGE", "module_name", "namespace", "recording", "prebuilt"]

PACKAGE = f"{__package__}.generated"  # the build's modules; absent from the pure-Python package

_INDEX: list[frozenset[str]] = []  # the names of the modules the build wrote (`generated.MODULES`), once read
_RECORDING: list[dict[str, str]] = []  # the texts generated under `recording()`: module name -> text


def module_name(code: str) -> str:
    """The name of the module that holds this text in a build: `g_` and the first 32 hex digits of its SHA-256."""
    return "g_" + hashlib.sha256(code.encode()).hexdigest()[:32]


def prebuilt() -> frozenset[str]:
    """The names of the modules a build wrote, if any (read once)."""
    if not _INDEX:
        try:
            package = importlib.import_module(PACKAGE)
        except ModuleNotFoundError as error:
            if error.name not in (PACKAGE, __package__):
                raise  # the package is there but broken: say so
            package = None
        _INDEX.append(frozenset(getattr(package, "MODULES", ())))
    return _INDEX[0]


def namespace(code: str, filename: str, names: dict[str, Any]) -> dict[str, Any]:
    """The names `code` defines: from the module a build wrote for this text, else by `exec` in a copy of `names`."""
    name = module_name(code) if _RECORDING or prebuilt() else None
    for texts in _RECORDING:
        texts.setdefault(name, code)
    if name is not None and name in prebuilt():
        return vars(importlib.import_module(f"{PACKAGE}.{name}"))
    found = dict(names)
    exec(compile(code, filename, "exec"), found)  # our own generated code
    return found


@contextmanager
def recording() -> Iterator[dict[str, str]]:
    """Collect every text generated until the block ends: module name -> text, in the order first generated."""
    texts: dict[str, str] = {}
    _RECORDING.append(texts)
    try:
        yield texts
    finally:
        _RECORDING.remove(texts)

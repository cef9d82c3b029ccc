"""Which build of pausecheck runs: interpreted, or with the search's hot modules compiled by mypyc.

`HOT` is the one list of those modules: `benchmarks/compiled.py` compiles them, and `pausecheck --version`
says how many of them were loaded compiled (`build`).
"""

from __future__ import annotations

import importlib
import importlib.machinery

__all__ = ["HOT", "build"]

# The search's hot path. Not model/machine.py: mypyc does not keep `functools.cached_property` (the compiled
# `Machine.successors` got the successor function back, not its list), and its one line costs nothing
# interpreted.
HOT = ("pausecheck.model.properties", "pausecheck.model.witnesses", "pausecheck.model.state",
       "pausecheck.checks.explore")


def build() -> str:
    """"interpreted", or "compiled with mypyc" and how many of the hot modules are."""
    native = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    compiled = [name for name in HOT if (importlib.import_module(name).__file__ or "").endswith(native)]
    return f"compiled with mypyc: {len(compiled)} of {len(HOT)} hot modules" if compiled else "interpreted"

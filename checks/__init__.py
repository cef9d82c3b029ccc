"""The engines over the model: exhaustive search, reports, mutants, and the command line.

Rooms: `search/` (the explicit search and what it stands on), `mutants/` (the mutants and what is built from
them), `symbolic/` (z3), `spin/` (Spin), `oracle/` (runtimes held to the model), `report/`, `browse/` (the
explorer) and `cli/` (the command line, the top floor). Loose here: what several rooms share (`console.py`,
`drafts.py`, `build.py`) and the commands' own engines (`diff.py`, `shrink.py`, `composition.py`).

A module moved into a room is still importable by its old name (`pausecheck.checks.explore` is
`pausecheck.checks.search.explore`): `_Moved` below maps the old names to the new.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

MOVED = {name: f"{__name__}.search.{name}" for name in (
    "budget", "checkpoint", "cluster", "codec", "compact", "explore", "graph", "limits", "liveness", "packed",
    "parallel", "partition", "reference", "restore", "sealing", "spread")}
MOVED.update({name: f"{__name__}.mutants.{name}" for name in (
    "deviations", "evidence", "flipbounds", "flips", "golden", "killmatrix", "strength")})


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `pausecheck.checks.X` (an old name) as the module it moved to: the same module object."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        return importlib.import_module(MOVED[spec.name.rpartition(".")[2]])

    def exec_module(self, module: Any) -> None:
        pass  # the module it moved to ran already


if not any(isinstance(finder, _Moved) for finder in sys.meta_path):
    sys.meta_path.append(_Moved())

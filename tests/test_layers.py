"""The house's order (issue 42): the modules of `model/` and `checks/` import each other without a circle and
never from a floor above their own, counting imports inside functions too; at most eight modules stand loose
in `checks/`; a module moved into a room still imports by its old name."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import networkx as nx
import pytest
from pausecheck.checks import MOVED

ROOT = Path(__file__).resolve().parent.parent
TOPS = {"model": "pausecheck.model", "checks": "pausecheck.checks", "traces": "pausecheck.traces"}
# Floors, lowest first: a module may import its own floor and those below, never one above.
FLOORS = [
    ("pausecheck.model",),
    ("pausecheck.traces", "pausecheck.checks.drafts", "pausecheck.checks.flags"),
    ("pausecheck.checks.search",),
    ("pausecheck.checks.console", "pausecheck.checks.verdict"),
    ("pausecheck.checks.symbolic", "pausecheck.checks.spin", "pausecheck.checks.oracle",
     "pausecheck.checks.mutants", "pausecheck.checks.shrink", "pausecheck.checks.composition",
     "pausecheck.checks.build", "pausecheck.checks.compare"),
    ("pausecheck.checks.report", "pausecheck.checks.diff", "pausecheck.checks.browse"),
    ("pausecheck.checks.cli",),
]


def _name(path: Path) -> str:
    top, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [TOPS[top], *rest]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str) -> set[str]:
    """Every project module `path` imports, anywhere in it (a function's own imports included)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
            found.update(n if _known(n) else base for n in names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {n for n in found if n.startswith("pausecheck.") and _known(n)}


MODULES = {_name(p): p for top in TOPS for p in (ROOT / top).rglob("*.py")}


def _known(name: str) -> bool:
    return name in MODULES


def _floor(module: str) -> int:
    best = max((prefix for floor in FLOORS for prefix in floor if module == prefix or module.startswith(prefix + ".")),
               key=len)
    return next(i for i, floor in enumerate(FLOORS) if best in floor)


GRAPH = nx.DiGraph((module, imported) for module, path in MODULES.items() for imported in _imports(path, module)
                   if imported != module)


def test_the_import_graph_has_no_circle() -> None:
    # a package's __init__ importing its own modules (a re-export) is no circle of the house's rooms
    rooms = nx.DiGraph((a, b) for a, b in GRAPH.edges if not b.startswith(a + "."))
    assert list(nx.simple_cycles(rooms)) == []


def _room(module: str) -> str:
    """The room a module stands in: its package under `checks` (or `model`, `traces`), or itself if loose."""
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[1] == "checks" and len(parts) > 3 else ".".join(parts[:2]) \
        if parts[1] != "checks" else module


def test_no_arrow_between_rooms_runs_both_ways() -> None:
    """Counted by rooms, not modules: no two rooms import each other, by any path (the verdict of a check in
    `verdict/` below `mutants/`, its renderings in `report/` above it)."""
    rooms = nx.DiGraph((_room(a), _room(b)) for a, b in GRAPH.edges if _room(a) != _room(b))
    assert list(nx.simple_cycles(rooms)) == []


def test_no_module_imports_from_a_floor_above_its_own() -> None:
    upward = sorted(f"{a} -> {b}" for a, b in GRAPH.edges if _floor(b) > _floor(a))
    assert upward == []


def test_at_most_eight_modules_stand_loose_in_checks() -> None:
    loose = sorted(p.name for p in (ROOT / "checks").glob("*.py"))
    assert len(loose) <= 8, loose


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_still_imports_by_its_old_name(old: str) -> None:
    assert importlib.import_module(f"pausecheck.checks.{old}") is importlib.import_module(MOVED[old])

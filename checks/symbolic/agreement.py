"""Agreement between the engines: the breadth-first search and bounded model checking, property by property.

Both engines judge the same variant; for each property the BFS gives its verdict over every reachable
state and the length of its shortest counterexample or witness, BMC its verdict over every behaviour
up to the search's depth plus one step (so that every reachable state and every step out of one is
covered) and the minimal depth at which z3 finds one. Engines that disagree reveal a bug in one of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pausecheck.model import Bounds, Machine
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.property import SOMETIMES

from ..explore import Limits, Result, explore
from ..parallel import run_all
from .bmc import KIND, NAMES, BmcResult, bmc
from .induction import lemmas
from .rules import Semantics

__all__ = ["Row", "Agreement", "agreement", "verdict_word", "SHALLOW", "mutant_depth", "Variant", "variants",
           "compare_engines", "reading_depth"]

SHALLOW = 14  # depths up to which bounded model checking runs as fast without lemmas


def verdict_word(kind: str, depth: int | None) -> str:
    """The verdict a depth stands for: found at a depth, or not."""
    if kind == SOMETIMES:
        return "not witnessed" if depth is None else "witnessed"
    if kind == DEADLOCK:
        return "none" if depth is None else "deadlock"
    return "holds" if depth is None else "violated"


@dataclass(frozen=True, slots=True)
class Row:
    """One property of one variant as both engines judged it."""

    variant: str
    property: str
    bfs: str
    bmc: str
    bfs_depth: int | None
    bmc_depth: int | None

    @property
    def agree(self) -> bool:
        return self.bfs == self.bmc and self.bfs_depth == self.bmc_depth

    def to_json(self) -> dict[str, object]:
        return {"variant": self.variant, "property": self.property, "bfs": self.bfs, "bmc": self.bmc,
                "bfs_depth": self.bfs_depth, "bmc_depth": self.bmc_depth}


@dataclass(frozen=True, slots=True)
class Agreement:
    """Both engines on one variant: the rows, the depths searched, the time each took."""

    variant: str
    rows: tuple[Row, ...]
    bfs_states: int
    bfs_depth: int  # the depth of the search's deepest state
    bmc_depth: int  # the depth both engines are compared to
    bfs_seconds: float
    bmc_seconds: float
    lemmas: bool


def _bfs_depth(result: Result, name: str) -> int | None:
    if name == DEADLOCK:
        found = result.deadlock
    elif KIND[name] == SOMETIMES:
        found = result.witnesses.get(name)
    else:
        found = result.violations.get(name)
    return None if found is None else len(found.actions)


def agreement(variant: str, machine: Machine, m: Semantics, names: tuple[str, ...] = NAMES,
              depth: int | None = None) -> Agreement:
    """Run both engines on one variant (its explicit machine and its symbolic semantics) and compare.

    Without `depth`, over everything: the whole reachable graph, and BMC to its depth plus one step.
    With it, over the behaviours of up to `depth` steps: the search stops there, and what either engine
    finds deeper does not count (nor a deadlock at that depth, which the search does not expand)."""
    started = time.perf_counter()
    bounded = depth is not None
    result = explore(machine, Limits(max_depth=depth))
    if not result.complete and depth is None:
        raise RuntimeError(f"the breadth-first search of {variant} did not complete ({result.stopped})")
    searched = time.perf_counter() - started
    # Deep unrollings need the proved invariants as lemmas; shallow ones are quicker without proving them.
    proved = lemmas(m) if depth is None or depth > SHALLOW else None
    if depth is None:
        depth = result.depth + 1  # every reachable state, and every step out of one
    found: BmcResult = bmc(m, machine, depth, names, lemmas=proved)
    rows = []
    for name in names:
        kind = KIND[name]
        bfs_at, bmc_at = _bfs_depth(result, name), found.found[name].depth
        # A bounded search judges deadlock only in the states it expands: those before the last depth.
        last = depth - 1 if bounded and kind == DEADLOCK else depth
        bfs_at = bfs_at if bfs_at is not None and bfs_at <= last else None
        bmc_at = bmc_at if bmc_at is not None and bmc_at <= last else None
        rows.append(Row(variant, name, verdict_word(kind, bfs_at), verdict_word(kind, bmc_at), bfs_at, bmc_at))
    return Agreement(variant, tuple(rows), result.states, result.depth, depth, searched, found.seconds,
                     proved is not None)


def mutant_depth(mutant: object) -> int:
    """The depth a mutant is compared to: one step past its target counterexample (so that a deadlock
    there is judged too), or SHALLOW for an equivalent mutant."""
    shortest = getattr(mutant, "shortest", None)
    return SHALLOW if shortest is None else shortest + 1


@dataclass(frozen=True, slots=True)
class Variant:
    """What `check --engines` compares: the default, one mutant or one reading, at what depth (None: all;
    for a reading, one step past its deepest counterexample, found by a first search)."""

    name: str
    bounds: Bounds
    mutant: str | None
    depth: int | None
    reading: str | None = None


def variants(bounds: Bounds, readings: bool = True) -> tuple[tuple[Variant, ...], tuple[str, ...]]:
    """The default at `bounds`, every mutant with a symbolic twin (at its own bounds, else `bounds`) and,
    with `readings`, every single-switch reading with one; and the names of the mutants without one."""
    from ..mutants import MUTANTS, bounds_of
    from .mutants import SYMBOLIC_MUTANTS
    from .readings import encoded_readings
    found = [Variant("default", bounds, None, None)]
    found += [Variant(m.name, bounds_of(m, bounds), m.name, mutant_depth(m)) for m in MUTANTS
              if m.name in SYMBOLIC_MUTANTS]
    if readings:
        found += [Variant(r.name.removeprefix("conformant+"), bounds, None, None, r.name) for r in encoded_readings()]
    return tuple(found), tuple(m.name for m in MUTANTS if m.name not in SYMBOLIC_MUTANTS)


def reading_depth(machine: Machine) -> int:
    """The depth a reading is compared to: one step past its deepest shortest counterexample (a search of
    the whole graph finds it), or SHALLOW when it breaks nothing."""
    result = explore(machine, Limits())
    deepest = [len(v.actions) for v in result.violations.values()]
    return max(deepest) + 1 if deepest else SHALLOW


def _compare(variant: Variant) -> Agreement:
    from ..mutants import mutant_named, mutate
    from .mutants import mutant_semantics
    from .readings import reading_semantics
    if variant.reading is not None:
        from pausecheck.model.reading import reading_named
        reading = reading_named(variant.reading)
        machine = Machine(variant.bounds, reading)
        return agreement(variant.name, machine, reading_semantics(variant.bounds, reading),
                         depth=variant.depth or reading_depth(machine))
    if variant.mutant is None:
        return agreement(variant.name, Machine(variant.bounds), Semantics.of(variant.bounds))
    mutant = mutant_named(variant.mutant)
    return agreement(variant.name, mutate(Machine(variant.bounds), mutant),
                     mutant_semantics(variant.mutant, variant.bounds), depth=variant.depth)


def compare_engines(chosen: tuple[Variant, ...], jobs: int | None = None,
                    done: Callable[[Agreement], None] | None = None) -> list[Agreement]:
    """Both engines on each variant, `jobs` at once (default: every core), the default first; the
    results in the order given. `done` is told of each as it finishes."""
    return run_all(_compare, chosen, jobs=jobs, done=None if done is None else lambda _, result: done(result))

"""Agreement between the engines: the breadth-first search and bounded model checking, property by property.

Both engines judge the same variant (the default, a mutant's rule table, a reading); for each property the
BFS gives its verdict and the length of its shortest counterexample or witness, BMC (`unrolled.py`, over the
relation derived from the variant's rule table, `relation.py`) its verdict over every behaviour up to a depth
and the minimal depth at which z3 finds one. The depth is one step past the deepest discovery of the whole
search, so that BMC must reproduce every verdict of the search at its depth and find nothing shallower; where
that reaches the search's own depth, every reachable state and every step out of one is covered: the whole
graph. (A deeper unrolling costs z3 far more than the search: at the default bounds the whole graph is 26
steps deep, its deepest witness 11.) A mutant is compared up to one step past its target's counterexample.
Engines that disagree reveal a bug in one of them. A mutant that deviates only in the wire view (`show`) has
no rule table of its own: BMC cannot run it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.property import SOMETIMES
from pausecheck.model.reading import SWITCH_OF, SWITCHES, reading_named
from pausecheck.model.state import State

from ..drafts import base_of
from ..search.explore import Limits, Result, explore
from ..search.parallel import in_order
from .relation import Caps
from .unrolled import KIND, NAMES, BmcResult, Drift, bmc

__all__ = ["Row", "Agreement", "agreement", "verdict_word", "mutant_depth", "Variant", "variants", "unexercised",
           "compare_engines", "deepest", "reached"]


def verdict_word(kind: str, depth: int | None) -> str:
    """The verdict a depth stands for: found at a depth, or not."""
    if kind == SOMETIMES:
        return "not witnessed" if depth is None else "witnessed"
    if kind == DEADLOCK:
        return "none" if depth is None else "deadlock"
    return "no violation" if depth is None else "violated"  # not "holds": a property these bounds cannot exercise
    # is not violated either (check's own table says "not exercised" of it)


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
    """Both engines on one variant: the rows, the depths searched, the time each took; `drift` when a path
    z3 found is no path of the explicit model (then there are no rows: BMC gave no verdict)."""

    variant: str
    rows: tuple[Row, ...]
    bfs_states: int
    bfs_depth: int  # the depth of the search's deepest state
    bmc_depth: int  # the depth both engines are compared to
    bfs_seconds: float
    bmc_seconds: float
    drift: str | None = None

    @property
    def agree(self) -> bool:
        return self.drift is None and all(r.agree for r in self.rows)

    @property
    def whole(self) -> bool:
        """Compared over the whole graph: BMC went a step past the search's deepest state."""
        return self.bmc_depth > self.bfs_depth


def deepest(result: Result) -> int | None:
    """The length of the search's deepest discovery: shortest counterexample, witness or deadlock (None: none)."""
    found = [*result.violations.values(), *result.witnesses.values()] + ([result.deadlock] if result.deadlock else [])
    return max((len(d.actions) for d in found), default=None)


def _bfs_depth(result: Result, name: str) -> int | None:
    if name == DEADLOCK:
        found = result.deadlock
    elif KIND[name] == SOMETIMES:
        found = result.witnesses.get(name)
    else:
        found = result.violations.get(name)
    return None if found is None else len(found.actions)


def reached(machine: Machine, depth: int | None = None) -> list[State]:
    """The states `machine` reaches in at most `depth` steps (every reachable state without one), breadth first."""
    order = list(machine.init_states())
    seen = set(order)
    frontier, steps = list(order), 0
    while frontier and (depth is None or steps < depth):
        following = []
        for state in frontier:
            for _, post in machine.successors(state):
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        order += following
        frontier, steps = following, steps + 1
    return order


def agreement(variant: str, machine: Machine, names: tuple[str, ...] = NAMES, depth: int | None = None,
              whole: bool = False) -> Agreement:
    """Run both engines on one variant (its machine: bounds, reading and rule table) and compare.

    Without `depth`, the whole reachable graph is searched and BMC goes one step past the search's deepest
    discovery, or its deepest state if that comes first (then every reachable state and every step out of
    one is covered); with `whole`, past its deepest state. With `depth`, over the behaviours of up to `depth`
    steps: the search stops there, and what either engine finds deeper does not count (nor a deadlock at
    that depth, which the search does not expand)."""
    started = time.perf_counter()
    bounded = depth is not None
    result = explore(machine, Limits(max_depth=depth))
    if not result.complete and depth is None:
        raise RuntimeError(f"the breadth-first search of {variant} did not complete ({result.stopped})")
    if depth is None:
        found_at = deepest(result)
        depth = result.depth + 1 if found_at is None or whole else min(result.depth + 1, found_at + 1)
    # A mutant's states may hold longer sequences than the bounds' capacities: widen them to cover every
    # state BMC meets, including the successors of the deepest ones (which it checks fit).
    caps = Caps.of(machine.bounds, machine.reading).covering(reached(machine, None if not bounded else depth + 1))
    searched = time.perf_counter() - started
    try:
        found: BmcResult = bmc(machine, depth, names, rules=machine.rules, caps=caps)
    except Drift as drift:
        return Agreement(variant, (), result.states, result.depth, depth, searched,
                         time.perf_counter() - started - searched, str(drift))
    rows = []
    for name in names:
        kind = KIND[name]
        bfs_at, bmc_at = _bfs_depth(result, name), found.found[name].depth
        # A bounded search judges deadlock only in the states it expands: those before the last depth.
        last = depth - 1 if bounded and kind == DEADLOCK else depth
        bfs_at = bfs_at if bfs_at is not None and bfs_at <= last else None
        bmc_at = bmc_at if bmc_at is not None and bmc_at <= last else None
        rows.append(Row(variant, name, verdict_word(kind, bfs_at), verdict_word(kind, bmc_at), bfs_at, bmc_at))
    return Agreement(variant, tuple(rows), result.states, result.depth, depth, searched, found.seconds)


def mutant_depth(mutant: object) -> int | None:
    """The depth a mutant is compared to: one step past its target counterexample (so that a deadlock
    there is judged too); None for an equivalent mutant (compared as the default is)."""
    shortest = getattr(mutant, "shortest", None)
    return None if shortest is None else shortest + 1


@dataclass(frozen=True, slots=True)
class Variant:
    """What `check --engines` compares: the default, one mutant or one reading, at what depth (None: one step
    past the deepest discovery of the whole search, `agreement`)."""

    name: str
    bounds: Bounds
    mutant: str | None
    depth: int | None
    reading: str | None = None
    draft: Any = None  # the base table: a spec author's Draft (`checks/drafts.py`), or None for the rules


def variants(bounds: Bounds, readings: bool = True, draft: Any = None) -> tuple[tuple[Variant, ...], tuple[str, ...]]:
    """The default at `bounds`, every mutant with a rule table of its own (at its own bounds, else `bounds`)
    and, with `readings`, every single-switch reading the bounds exercise (`unexercised` names the others);
    and the names of the mutants that deviate only in the wire view, which BMC cannot run. Mutants deviate
    from `draft` (else the rules); those whose edits no longer fit it are left out (`not_applying`)."""
    from ..mutants import bounds_of, catalogue
    base = base_of(draft)
    found = [Variant("default", bounds, None, None, draft=draft)]
    found += [Variant(m.name, bounds_of(m, bounds), m.name, mutant_depth(m), draft=draft) for m in catalogue()
              if m.deviation is not None and m.problem(base) is None]
    if readings:
        left_out = unexercised(bounds)
        found += [Variant(name, bounds, None, None, f"conformant+{name}", draft) for name in _singles()
                  if name not in left_out]
    return tuple(found), tuple(m.name for m in catalogue() if m.deviation is None)


def not_applying(draft: Any = None) -> dict[str, str]:
    """The mutants whose edits no longer fit the base (`draft`, else the rules), each with why."""
    from ..mutants import catalogue
    base = base_of(draft)
    return {m.name: problem for m in catalogue() if (problem := m.problem(base)) is not None}


def _singles() -> list[str]:
    return [f"{s.ambiguity}={value}" for s in SWITCHES for value in s.values if value != s.default]


def unexercised(bounds: Bounds) -> dict[str, tuple[str, ...]]:
    """The single-switch readings whose switch needs a fault these bounds leave off (a crash, an expiry, a
    race, a node failure), with the bound flags that would turn it on: under these bounds each is the default, compared
    already. (Turning the fault on is the user's choice, `--crashes 1` and the like: at the default bounds a
    race makes the deepest counterexample 15 steps long, and z3 did not finish A-T7 racy in 40 minutes.)"""
    out = {}
    for name in _singles():
        needs = tuple(f for f in SWITCH_OF[name.split("=")[0]].needs if getattr(bounds, f) < 1)
        if needs:
            out[name] = tuple(f"--{f.replace('_', '-')} 1" for f in needs)
    return out


def _compare(variant: Variant) -> Agreement:
    from ..mutants import mutant_named, mutate
    base = base_of(variant.draft)
    if variant.reading is not None:
        return agreement(variant.name, Machine(variant.bounds, reading_named(variant.reading), base),
                         depth=variant.depth)
    if variant.mutant is None:
        return agreement(variant.name, Machine(variant.bounds, rules=base), depth=variant.depth)
    return agreement(variant.name, mutate(Machine(variant.bounds, rules=base), mutant_named(variant.mutant)),
                     depth=variant.depth)


def compare_engines(chosen: tuple[Variant, ...], jobs: int | None = None,
                    done: Callable[[Agreement], None] | None = None) -> list[Agreement]:
    """Both engines on each variant, `jobs` at once (default: every core), the default first; the
    results in the order given. `done` is told of each in that order (`in_order`)."""
    return in_order(_compare, chosen, jobs=jobs, done=done)

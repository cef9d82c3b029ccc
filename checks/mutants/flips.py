"""The flip matrix: which property verdicts each reading of an ambiguity changes, with the shortest
behaviour that shows each change.

A *variant* is a reading (the conformant one with some switches set otherwise) at bounds that turn on
the faults its switches need (a crash for A-T6, an expiry for A-T8, ...). The matrix checks:

- the conformant reading at each variant's bounds (no fault, a crash, an expiry, a consent race): the
  baseline a variant is compared with, which must itself break nothing, crashes included;
- each single change from the default, and every pair of changes (of two ambiguities) whose members
  break nothing alone, so that interactions show (A-T5's put-back only matters beside a racing
  resume of A-T7).

A flip is a property whose status under the variant differs from the baseline's at the same bounds:
an invariant that now breaks (its counterexample, replayable at that reading, is a behaviour the two
readings disagree on) or a witness no longer found. Independent searches run in parallel, one
process each (a search's graph is large: a fresh process returns its memory when it ends).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, FAULTS, SWITCH_OF, SWITCHES, Bounds, reading_named

from ..drafts import Draft, base_of
from ..search.explore import Limits
from ..search.parallel import run_all, workers
from ..verdict import check
from .evidence import evidence_of

__all__ = ["Variant", "Outcome", "Flip", "Row", "Matrix", "flip_matrix", "singles", "run_variant", "workers"]

BROKEN = ("VIOLATED",)  # the statuses that count as breaking a property


@dataclass(frozen=True, slots=True)
class Variant:
    """One search of the matrix: a reading (switches set otherwise than the default) at some bounds."""

    switches: tuple[tuple[str, str], ...]
    bounds: Bounds
    draft: Draft | None = None  # the table read: a spec author's draft, or the rules

    @property
    def reading(self) -> str:
        return reading_named("+".join(["conformant"] + [f"{a}={v}" for a, v in self.switches])).name


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one search found, small enough to send back from a worker process."""

    variant: Variant
    statuses: dict[str, str]
    clauses: dict[str, tuple[str, ...]]
    lengths: dict[str, int | None]  # the shortest counterexample's length, for a property now broken
    messages: dict[str, str | None]
    documents: dict[str, dict[str, Any]]  # property -> the ITF trace of its counterexample
    states: int
    seconds: float
    complete: bool

    @property
    def broken(self) -> tuple[str, ...]:
        return tuple(name for name, status in self.statuses.items() if status in BROKEN)


@dataclass(frozen=True, slots=True)
class Flip:
    """One property whose verdict a variant changes from its baseline's."""

    property: str
    clauses: tuple[str, ...]
    was: str
    now: str
    steps: int | None
    message: str | None


@dataclass(frozen=True, slots=True)
class Row:
    """One variant, its baseline, and what flips."""

    outcome: Outcome
    baseline: Outcome
    flips: tuple[Flip, ...]

    @property
    def reading(self) -> str:
        return self.outcome.variant.reading

    @property
    def switches(self) -> tuple[tuple[str, str], ...]:
        return self.outcome.variant.switches


@dataclass(frozen=True, slots=True)
class Matrix:
    """The whole matrix: the conformant reading at each set of faults the variants need, and one row per variant."""

    bounds: Bounds
    defaults: tuple[Outcome, ...]  # the conformant reading: without faults, then with each fault set needed
    rows: tuple[Row, ...]
    seconds: float = 0.0
    workers: int = 1
    pairs_skipped: tuple[str, ...] = field(default=())  # singles left out of the pairs, as they break something


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 0


def _with_faults(bounds: Bounds, switches: Iterable[tuple[str, str]]) -> Bounds:
    """The bounds with every fault the switches need turned on (kept where the user set it higher)."""
    needs = {fault for ambiguity, _ in switches for fault in SWITCH_OF[ambiguity].needs}
    return bounds.replace(**{fault: max(1, getattr(bounds, fault)) for fault in needs})


def singles(bounds: Bounds, draft: Draft | None = None) -> list[Variant]:
    """Each single change from the default reading, at the bounds its switch needs."""
    return [Variant(((s.ambiguity, value),), _with_faults(bounds, [(s.ambiguity, value)]), draft)
            for s in SWITCHES for value in s.values if value != s.default]


def run_variant(variant: Variant, limits: Limits | None = None) -> Outcome:
    """Check one variant and keep what the matrix needs (run in a worker process)."""
    report = check(variant.bounds, variant.reading, limits=limits or Limits(), rules=base_of(variant.draft))
    documents = {e.name: e.document for e in evidence_of(report) if e.counterexample}
    return Outcome(
        variant=variant,
        statuses={p.name: p.status for p in report.properties},
        clauses={p.name: p.clauses for p in report.properties},
        lengths={p.name: (len(p.discovery.actions) if p.status in BROKEN and p.discovery else None)
                 for p in report.properties},
        messages={p.name: p.message for p in report.properties},
        documents=documents,
        states=report.result.states,
        seconds=report.result.seconds,
        complete=report.result.complete,
    )


def _flips(outcome: Outcome, baseline: Outcome) -> tuple[Flip, ...]:
    return tuple(Flip(name, outcome.clauses[name], baseline.statuses.get(name, "-"), status,
                      outcome.lengths.get(name), outcome.messages.get(name))
                 for name, status in outcome.statuses.items() if status != baseline.statuses.get(name))


def _run_all(variants: list[Variant], jobs: int, limits: Limits | None,
             done: Callable[[Outcome], Any] | None) -> dict[Variant, Outcome]:
    """Run each variant once, `jobs` at a time, each in a fresh process."""
    unique = list(dict.fromkeys(variants))
    outcomes = run_all(run_variant, unique, jobs=jobs, args=(limits,),
                       key=lambda v: -sum(getattr(v.bounds, name) for name in FAULTS),  # faults: the largest
                       done=None if done is None else lambda _, outcome: done(outcome))
    return dict(zip(unique, outcomes, strict=True))


def flip_matrix(bounds: Bounds = DEFAULT_BOUNDS, *, jobs: int | None = None, pairs: bool = True,
                limits: Limits | None = None, done: Callable[[Outcome], Any] | None = None,
                draft: Draft | None = None) -> Matrix:
    """The conformant reading at every fault set needed, each single change, and the pairs of harmless ones.

    `jobs`: searches at once (default: every core); `done(outcome)` is called as each search ends; `draft`:
    the rule table read (default the rules).
    """
    start = time.monotonic()
    jobs = jobs or workers()
    if limits is None:  # keep the searches running at once within three quarters of the memory
        limits = Limits(max_memory=_physical_memory() * 3 // 4 // jobs or None)
    first = singles(bounds, draft)
    baselines = [Variant((), bounds, draft)] + [Variant((), v.bounds, draft) for v in first]
    results = _run_all(baselines + first, jobs, limits, done)
    harmless = [v for v in first if not results[v].broken]
    second: list[Variant] = []
    if pairs:
        for a, b in combinations(harmless, 2):
            if a.switches[0][0] != b.switches[0][0]:
                joined = a.switches + b.switches
                second.append(Variant(joined, _with_faults(bounds, joined), draft))
        results.update(_run_all([Variant((), v.bounds, draft) for v in second] + second, jobs, limits, done))
    rows = tuple(Row(results[v], results[Variant((), v.bounds, draft)],
                     _flips(results[v], results[Variant((), v.bounds, draft)])) for v in first + second)
    skipped = tuple(v.reading.removeprefix(f"{CONFORMANT.name}+") for v in first if results[v].broken)
    defaults = tuple(results[v] for v in dict.fromkeys(baselines + [Variant((), v.bounds, draft) for v in second]))
    return Matrix(bounds, defaults, rows, time.monotonic() - start, jobs, skipped)


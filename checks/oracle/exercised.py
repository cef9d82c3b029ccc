"""What a run against a runtime exercised, and what its bounds left out.

A conformance run, a set of vectors or a runtime's log judges the steps it takes, no others. Two things
say whether those steps exercised the rules: the clauses of RT-TOOL-7 and RT-GATE-6 some judged step
enacts (`clauses_of`), and the model's witnesses (`sometimes` properties: an overflow, a second pause, a
put-back followed by a delivery, ...) some judged step reaches. A clause or witness left out is "not
exercised", as in `pausecheck check`, with what would exercise it: the bound flag (from `to_cover` for a
clause, `missing_bound` for a witness), or, where the bounds already allow it, what the run lacked (a
complete run, every vector, a log with such a step). A clause no step of the model enacts at any bound
(a rationale such as G6.5) cannot be exercised by a run and is left to the standing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from pausecheck.model import CLAUSES, Machine
from pausecheck.model.properties import missing_bound
from pausecheck.model.property import SOMETIMES
from pausecheck.model.rules import clauses_of

from .macros import fine
from .uncovered import to_cover

__all__ = ["RULES", "Tally", "Unexercised", "unexercised", "summary"]

RULES = ("RT-TOOL-7", "RT-GATE-6")


class Tally:
    """The clauses enacted and the witnesses reached by the judged steps of a run, step by step."""

    def __init__(self, machine: Machine) -> None:
        self.context = machine.context()
        self.wanted = [p for p in machine.properties if p.kind == SOMETIMES]
        self.clauses: Counter[str] = Counter()
        self.witnessed: set[str] = set()

    def add(self, steps: Iterable[tuple[object, object, object]]) -> None:
        """Count what these judged steps (pre, action, post) of the model enact and reach."""
        for pre, action, post in fine(steps):
            self.clauses.update(clauses_of(pre, action, post))  # type: ignore[arg-type]
            if self.wanted:
                found = [p for p in self.wanted if (not p.on or type(action) in p.on)
                         and p.check(pre, action, post, self.context)]
                if found:
                    self.witnessed.update(p.name for p in found)
                    self.wanted = [p for p in self.wanted if p not in found]


@dataclass(frozen=True, slots=True)
class Unexercised:
    """Clauses and witnesses no judged step exercised, and what would exercise them."""

    need: str  # bound flags ("--calls 2"), or what the run lacked ("a complete run at these bounds")
    clauses: tuple[str, ...]
    witnesses: tuple[str, ...]


def unexercised(machine: Machine, clause_edges: Iterable[tuple[str, int]], witnessed: Iterable[str],
                here: str | None = None) -> tuple[Unexercised, ...]:
    """The clauses of both rules and the witnesses a run did not exercise, grouped by what would.

    `here`: what the run lacked, for what the bounds already allow (None: the run took every edge at
    these bounds, so what it missed needs other bounds)."""
    enacted = {c for c, n in clause_edges if n}
    missing = [c.id for c in CLAUSES if c.rule in RULES and c.id not in enacted]
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for clause, cover in to_cover(missing, machine, here).items():
        if cover.need is not None:
            groups.setdefault(cover.need, ([], []))[0].append(clause)
    seen = set(witnessed)
    for prop in machine.properties:
        if prop.kind == SOMETIMES and prop.name not in seen:
            need = missing_bound(prop, machine.bounds, machine.properties) or here
            if need is not None:
                groups.setdefault(need, ([], []))[1].append(prop.name)
    order = sorted(groups, key=lambda need: (need.startswith("--") is False, need.count("--"), need))
    return tuple(Unexercised(need, tuple(groups[need][0]), tuple(groups[need][1])) for need in order)


def summary(items: Iterable[Unexercised]) -> list[str]:
    """One line per need: `not exercised: T7.13, T7.14 (clauses); warned_drop (witnesses); to exercise: --calls 2`."""
    lines = []
    for item in items:
        parts = ([f"{', '.join(item.clauses)} (clause{'s' * (len(item.clauses) > 1)})"] if item.clauses else []) + (
            [f"{', '.join(item.witnesses)} (witness{'es' * (len(item.witnesses) > 1)})"] if item.witnesses else [])
        lines.append(f"not exercised: {'; '.join(parts)}; to exercise: {item.need}")
    return lines

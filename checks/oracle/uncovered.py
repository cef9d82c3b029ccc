"""What would cover the clauses a conformance run did not: bound flags, derived and then checked.

A clause is covered when some step the runtime took enacts it (`clauses_of`). For one that is not,
the candidate flags are what the bounds lack (`missing_bound`, from each witness's `requires`) for
the properties citing the clause, and for the witnesses of the actions whose rules cite it. A
candidate is kept only if the model, searched breadth-first at the bounds it raises (at most `LIMIT`
states), has a step enacting the clause; the one with the fewest flags is named. Never a list kept by
hand: a new witness or rule changes the answer by itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import NamedTuple

from pausecheck.model import Bounds, Machine, Reading
from pausecheck.model.lang import Rule
from pausecheck.model.properties import PROPERTIES, missing_bound
from pausecheck.model.property import SOMETIMES
from pausecheck.model.rules import RULES, clauses_of
from pausecheck.model.tablecache import PerTable

__all__ = ["LIMIT", "Cover", "candidates", "raised", "enacted", "to_cover"]

LIMIT = 20_000  # states searched per candidate: enough to reach a clause a flag or two away at small bounds
COMPLETE = "a complete run at these bounds: it stopped before any step enacting it"


class Cover(NamedTuple):
    """What would cover a clause: `need`, the flags (or what the run lacked), None when nothing known
    does; `text`, the same said in a standing."""

    need: str | None
    text: str


def candidates(clause: str, bounds: Bounds, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """The flags the bounds lack for a property citing `clause`, or a witness of a step of a rule of `rules`
    citing it, to be exercised: fewest flags first."""
    kinds = {rule.action for rule in rules if clause in rule.clauses}
    props = [p for p in PROPERTIES if clause in p.clauses or (p.kind == SOMETIMES and kinds & set(p.on))]
    return sorted({n for p in props if (n := missing_bound(p, bounds))}, key=lambda n: (n.count("--"), n))


def raised(bounds: Bounds, flags: str) -> Bounds:
    """The bounds with each `--name N` of `flags` raised to at least N (the first of `A (or B)`)."""
    changes = {name.replace("-", "_"): int(n) for name, n in re.findall(r"--([a-z-]+) (\d+)", flags.split("(or")[0])}
    return dataclasses.replace(bounds, **{k: max(v, getattr(bounds, k)) for k, v in changes.items()})


def enacted(bounds: Bounds, reading: Reading, wanted: Iterable[str], limit: int = LIMIT,
            rules: tuple[Rule, ...] = RULES) -> set[str]:
    """Which of `wanted` some step of the model (under `rules`) enacts at `bounds`, searched breadth-first up to
    `limit` states. Remembered per process: it depends on nothing else, and a run of `validate` or `conform`
    asks it the same questions."""
    wanted = frozenset(wanted)
    return set(_ENACTED.get(rules, (bounds, reading, wanted, limit),
                            lambda: _enacted(Machine(bounds, reading, rules), wanted, limit)))


def _enacted(machine: Machine, wanted: frozenset[str], limit: int) -> frozenset[str]:
    found: set[str] = set()
    level = list(machine.init_states())
    seen = set(level)
    while level and found != wanted and len(seen) <= limit:
        deeper = []
        for pre in level:
            for action, post in machine.successors(pre):
                found.update(wanted.intersection(clauses_of(pre, action, post)))
                if post not in seen:
                    seen.add(post)
                    deeper.append(post)
        level = deeper
    return frozenset(found)


_ENACTED: PerTable[frozenset[str]] = PerTable(256)


def to_cover(uncovered: Iterable[str], machine: Machine, here: str | None = None) -> dict[str, Cover]:
    """For each clause not covered, the fewest flags that make a step of the model enact it, or why none.

    `here`: what the run lacked (it did not take every edge at these bounds); a clause some step of the
    model enacts at these bounds is then covered by that. None: the run took every edge."""
    rules = machine.rules
    options = {c: candidates(c, machine.bounds, rules) for c in uncovered}
    inside = set() if here is None else enacted(machine.bounds, machine.reading, options, rules=rules)
    reached: dict[str, set[str]] = {}
    for need in sorted({n for needs in options.values() for n in needs}):
        wanted = {c for c, needs in options.items() if need in needs}
        reached[need] = enacted(raised(machine.bounds, need), machine.reading, wanted, rules=rules)
    answer = {}
    for clause, needs in options.items():
        need = next((n for n in needs if clause in reached[n]), None)
        if clause in inside:
            answer[clause] = Cover(here, here)
        elif need is not None:
            answer[clause] = Cover(need, need)
        elif needs:
            answer[clause] = Cover(None, f"no bound flag found: with none of {'; '.join(needs)} does a step of the "
                                   f"model enact it within {LIMIT:,} states")
        else:
            answer[clause] = Cover(None, "no bound flag: the situations of the properties citing it are within these "
                                   "bounds, yet no step of the model enacts it")
    return answer

"""Which catalogued mutant, or which reading, a draft behaves as: decided by behaviour, not by the tables' text.

`diff` names the catalogued mutant a draft *is* when their tables are equal node by node. A draft written
otherwise (an `Also` that counts a tool failure unhandled, where the mutant reads A-G4 one way) says the same
thing in other words; `behaves_as` finds it by walking the draft together with each candidate at the bounds
(`walk.walk_together`): the same state graph (every pair of states one state), or the same visible behaviours
(what a client sees after every step alike). The candidates are few and cheap to rule out:
- the catalogued mutants whose edits of the other table touch only rules the draft changes too;
- the other table under each other value of an ambiguity that a rule the draft changes reads.
A candidate whose walk is cut by `max_pairs` is not named: only a finished walk decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pausecheck.model import Bounds, Machine, Reading, reading_named
from pausecheck.model.lang import Rule
from pausecheck.model.reading import SWITCH_OF

from .walk import changed_rules, walk_together

__all__ = ["behaves_as"]


def behaves_as(bounds: Bounds, reading: Reading, draft: tuple[Rule, ...], against: tuple[Rule, ...],
               catalogue: Iterable[Any], changed: list[str], touched: list[str],
               max_pairs: int | None = None, deadline: float | None = None) -> list[dict[str, str]]:
    """The candidates the draft behaves as at these bounds: `{name, kind: mutant|reading, decided_by}`."""
    mine = Machine(bounds, reading, draft)
    out = []
    kinds = set(changed)
    for m in catalogue:
        if m.deviation is None or m.show is not None or m.problem(against) is not None:
            continue
        table = m.table(against)
        if table is draft or not kinds.issuperset(changed_rules(against, table)) or not changed_rules(against, table):
            continue
        found = _decided(walk_together(Machine(bounds, reading, table), mine, max_pairs, deadline=deadline))
        if found:
            out.append({"name": m.name, "kind": "mutant", "decided_by": found})
    for ambiguity in touched:
        for value in SWITCH_OF[ambiguity].values:
            if value == reading.value(ambiguity):
                continue
            other = reading_named("+".join([reading.name.split("+")[0]] + [
                f"{a}={v}" for a, v in reading.switches if a != ambiguity] + [f"{ambiguity}={value}"]))
            found = _decided(walk_together(Machine(bounds, other, against), mine, max_pairs, deadline=deadline))
            if found:
                out.append({"name": f"{ambiguity}={value}", "kind": "reading", "decided_by": found})
    return out


def _decided(walk: Any) -> str:
    if not walk.same:
        return ""
    return "the same state graph" if walk.same_states else "the same visible behaviours"

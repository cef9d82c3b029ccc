"""The strength of every clause, checked against the properties and the mutant catalogue.

`model/clauses.py` labels each clause `full`, `partial`, `by-construction` or `excused`. A label is a
claim; `strength_problems` lists every claim the code does not back:

- a `full` clause needs a killing mutant: one that names the clause, is not marked equivalent, and
  whose target is a property that cites the clause (this is a static check: that the target really
  kills the mutant is what the kill matrix tests);
- a `full` or `partial` clause is formalised: some `always` or `transition` property cites it;
- an `excused` clause is formalised by no property (a `sometimes` witness may cite it: it shows the
  situation occurs and formalises nothing);
- a `by-construction` clause is cited by no `always` or `transition` property, and broken by no
  mutant that such a property catches: if it is, the model can express its failure after all;
- a `partial`, `by-construction` or `excused` clause has a note saying why; the strength is known.
"""

from __future__ import annotations

from collections.abc import Sequence

from pausecheck.model import CLAUSES, PROPERTIES, Clause, Property
from pausecheck.model.clauses import BY_CONSTRUCTION, EXCUSED, FULL, PARTIAL, STRENGTHS
from pausecheck.model.properties import SOMETIMES

from . import MUTANTS, Mutant

__all__ = ["strength_problems", "killing_mutants"]


def killing_mutants(clause_id: str, catalogue: Sequence[Mutant] = MUTANTS,
                    properties: Sequence[Property] = PROPERTIES) -> list[str]:
    """The mutants that show this clause can fail: each names it, is not equivalent, and its target is
    a property citing it."""
    cites = {p.name: p.clauses for p in properties}
    return [m.name for m in catalogue
            if clause_id in m.clauses and not m.equivalent and clause_id in cites.get(m.target or "", ())]


def strength_problems(catalogue: Sequence[Mutant] | None = None, clauses: Sequence[Clause] | None = None,
                      properties: Sequence[Property] | None = None) -> list[str]:
    """Every inconsistency between the clauses' strengths and the properties and mutants (by default
    the model's own `CLAUSES`, `PROPERTIES` and `checks.mutants.MUTANTS`); empty when all agree."""
    catalogue = MUTANTS if catalogue is None else catalogue
    clauses = CLAUSES if clauses is None else clauses
    properties = PROPERTIES if properties is None else properties
    problems = []
    for c in clauses:
        formal = [p.name for p in properties if c.id in p.clauses and p.kind != SOMETIMES]
        if c.strength not in STRENGTHS:
            problems.append(f"{c.id}: unknown strength {c.strength!r} (one of {', '.join(STRENGTHS)})")
            continue
        if c.strength != FULL and not c.note.strip():
            problems.append(f"{c.id}: {c.strength} without a note saying why")
        if c.strength in (FULL, PARTIAL) and not formal:
            problems.append(f"{c.id}: {c.strength}, but no always or transition property cites it")
        if c.strength == FULL and not killing_mutants(c.id, catalogue, properties):
            problems.append(f"{c.id}: full, but no mutant shows it can fail (none names {c.id}, is not "
                            f"equivalent and targets a property citing {c.id})")
        if c.strength == EXCUSED and formal:
            problems.append(f"{c.id}: excused, but cited by {', '.join(formal)}")
        if c.strength == BY_CONSTRUCTION and formal:
            problems.append(f"{c.id}: by-construction, but cited by {', '.join(formal)} (a property that can fail "
                            "on it makes it partial or full)")
        if c.strength == BY_CONSTRUCTION:
            broken = killing_mutants(c.id, catalogue, properties)
            if broken:
                problems.append(f"{c.id}: by-construction, but the mutant(s) {', '.join(broken)} break it and "
                                "a property citing it catches them")
    known = {c.id for c in clauses}
    for m in catalogue:
        unknown = [cid for cid in m.clauses if cid not in known]
        if unknown:
            problems.append(f"mutant {m.name} names clauses the catalogue lacks: {', '.join(unknown)}")
    return problems

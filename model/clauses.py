"""The clause catalogue: each clause id this model meets (docs/clauses.md), its text, and how strongly
the model checks it.

The strength of a clause says what its verdict is worth:

- `full`: a property can fail on the clause's own subject, and a mutant shows it (a mutant of
  `checks/mutants/catalogue.py` names the clause and is caught by its target property, which cites the clause);
- `partial`: formalised, but some part of the clause cannot fail in the model as it is (`note` says
  which part);
- `by-construction`: the model cannot express the clause's failure at all (`note` says why);
- `excused`: out of scope (`note` says why).

Which properties formalise a clause is derived from the property registry, never written here.
`checks/mutants/strength.py` checks these labels against the properties and the mutant catalogue.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Clause", "CLAUSES", "clause", "FULL", "PARTIAL", "BY_CONSTRUCTION", "EXCUSED", "STRENGTHS"]

FULL, PARTIAL, BY_CONSTRUCTION, EXCUSED = "full", "partial", "by-construction", "excused"
STRENGTHS: tuple[str, ...] = (FULL, PARTIAL, BY_CONSTRUCTION, EXCUSED)


class Clause(NamedTuple):
    """One clause: id, rule, quoted fragment, its strength in the model and a one-line note (what a
    partial clause leaves uncovered, why a by-construction one cannot fail, why an excused one is out
    of scope; empty for a full one)."""

    id: str
    rule: str
    text: str
    strength: str = FULL
    note: str = ""

    @property
    def excused(self) -> str | None:
        """Why the clause is out of scope, if it is excused; else None."""
        return self.note if self.strength == EXCUSED else None


def _c(id: str, rule: str, text: str, strength: str = FULL, note: str = "") -> Clause:
    return Clause(id, rule, text, strength, note)


T7, G6 = "RT-TOOL-7", "RT-GATE-6"

CLAUSES: tuple[Clause, ...] = (
    _c("T7.1", T7, "Artifacts produced before a run pauses are held durably ... rather than discarded", PARTIAL,
       "'durably' can fail only under the crash fault (--crashes, and A-T6 in pausecheck readings); the default "
       "check has no crash; 'rather than discarded' can fail"),
    _c("T7.2", T7, "[held] against the turn that produced them"),
    _c("T7.3", T7, "[they] are never exposed on the wire while they are held", PARTIAL,
       "the wire is the turn's assistant messages (A-T3): job outputs, pause responses and snapshots are not "
       "modelled, so exposure there cannot fail"),
    _c("T7.4", T7, "The next write-back for the same execution takes them"),
    _c("T7.5", T7, "[it] prepends them to whatever the resumed run collected"),
    _c("T7.6", T7, "[it] delivers the merged list on the resumed turn's assistant message"),
    _c("T7.7", T7, "Taking is destructive"),
    _c("T7.8", T7, "so a delivered artifact is never delivered a second time"),
    _c("T7.9", T7, "a resume that pauses again holds everything for the next one"),
    _c("T7.10", T7, "A write-back that fails after taking them puts them back"),
    _c("T7.11", T7, "[it puts them back] before it reports the failure"),
    _c("T7.12", T7, "so a failed write postpones delivery rather than destroying it"),
    _c("T7.13", T7, "The held list is itself bounded"),
    _c("T7.14", T7, "where it would exceed the bound, the newest entries are dropped"),
    _c("T7.15", T7, "[dropped] with a warning"),
    _c("G6.1", G6, "An interrupt escaping a tool invocation records the attempt as interrupted"),
    _c("G6.2", G6, "[records the attempt as interrupted,] not failed"),
    _c("G6.3", G6, "When the call is resumed it records itself as a new attempt"),
    _c("G6.4", G6, "[it] closes the superseded interrupted one as cancelled"),
    _c("G6.5", G6, "(rationale) an attempt left interrupted would hold a finished run paused"),
    _c("G6.6", G6, "A failed tool call is recorded as a handled failure by construction"),
    _c("G6.7", G6, "(rationale) it is delivered to the consumer as a model-recoverable result", PARTIAL,
       "the result handed to the consumer is not modelled (E9.6); only its effect, that the run carries on "
       "and completes, can fail"),
    _c("G6.8", G6, "so it must not count towards the run's unhandled failures (ERR-9)"),
    _c("G6.9", G6,
       "One pause raises exactly one question, however many times the tool plane observes the same interrupt"),
    _c("E9.1", "ERR-9",
       "A run finishes with status completed when every failed unit of work in it carries the error-routed marker",
       ),
    _c("E9.5", "ERR-9", "A failed tool invocation always counts as handled"),
    _c("E9.6", "ERR-9", "a tool failure is delivered to its consumer as a recoverable result", EXCUSED,
       "the consumer's prompt is not modelled; its effect (the run carries on) is E9.5/G6.7"),
    _c("O11.1", "ORC-11", "an unhandled failure makes the run failed"),
    _c("O11.2", "ORC-11", "otherwise an interrupt pauses the run with no reason recorded", PARTIAL,
       "no reason is modelled, so 'with no reason recorded' cannot fail; 'pauses the run' can"),
    _c("O11.4", "ORC-11", "otherwise the run is completed"),
    _c("G5.1", "RT-GATE-5", "a declined call: the consumer receives a structured denial as a tool error result",
       EXCUSED, "the consumer's tool result is not modelled; the decline's effect on the trail is G6.4 (A-G1)"),
    _c("G5.2", "RT-GATE-5", "and the run continues to its own completion"),
    _c("G5.3", "RT-GATE-5", "Where the call is approved, the consumer is re-fired", EXCUSED,
       "modelled as the new attempt of G6.3; the consumer's own job record is not modelled (A-G10)"),
    _c("T2.3", "RT-TOOL-2", "artifacts are lifted only off a successful call", BY_CONSTRUCTION,
       "only a tool that returns mints artifacts: a failing or interrupting call has none to lift"),
    _c("T6.2", "RT-TOOL-6", "[the run's bound is enforced] at the single point of collection", EXCUSED,
       "the per-run collection bound is the artifacts/per-call search bound, not a system rule"),
)

_BY_ID = {c.id: c for c in CLAUSES}


def clause(clause_id: str) -> Clause:
    """The clause with this id (KeyError if the catalogue lacks it)."""
    return _BY_ID[clause_id]

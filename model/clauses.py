"""The clause catalogue: each clause id this model meets (docs/clauses.md), its text, and either the
properties that formalise it (derived from the property registry) or why it is not modelled."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Clause", "CLAUSES", "clause"]


class Clause(NamedTuple):
    """One clause: id, rule, quoted fragment, and a reason when it is deliberately not modelled."""

    id: str
    rule: str
    text: str
    excused: str | None = None  # why no property formalises it


CLAUSES: tuple[Clause, ...] = (
    Clause("T7.1", "RT-TOOL-7", "Artifacts produced before a run pauses are held durably ... rather than discarded"),
    Clause("T7.2", "RT-TOOL-7", "[held] against the turn that produced them"),
    Clause("T7.3", "RT-TOOL-7", "[they] are never exposed on the wire while they are held"),
    Clause("T7.4", "RT-TOOL-7", "The next write-back for the same execution takes them"),
    Clause("T7.5", "RT-TOOL-7", "[it] prepends them to whatever the resumed run collected"),
    Clause("T7.6", "RT-TOOL-7", "[it] delivers the merged list on the resumed turn's assistant message"),
    Clause("T7.7", "RT-TOOL-7", "Taking is destructive"),
    Clause("T7.8", "RT-TOOL-7", "so a delivered artifact is never delivered a second time"),
    Clause("T7.9", "RT-TOOL-7", "a resume that pauses again holds everything for the next one"),
    Clause("T7.10", "RT-TOOL-7", "A write-back that fails after taking them puts them back"),
    Clause("T7.11", "RT-TOOL-7", "[it puts them back] before it reports the failure"),
    Clause("T7.12", "RT-TOOL-7", "so a failed write postpones delivery rather than destroying it"),
    Clause("T7.13", "RT-TOOL-7", "The held list is itself bounded"),
    Clause("T7.14", "RT-TOOL-7", "where it would exceed the bound, the newest entries are dropped"),
    Clause("T7.15", "RT-TOOL-7", "[dropped] with a warning"),
    Clause("G6.1", "RT-GATE-6", "An interrupt escaping a tool invocation records the attempt as interrupted"),
    Clause("G6.2", "RT-GATE-6", "[records the attempt as interrupted,] not failed"),
    Clause("G6.3", "RT-GATE-6", "When the call is resumed it records itself as a new attempt"),
    Clause("G6.4", "RT-GATE-6", "[it] closes the superseded interrupted one as cancelled"),
    Clause("G6.5", "RT-GATE-6", "(rationale) an attempt left interrupted would hold a finished run paused"),
    Clause("G6.6", "RT-GATE-6", "A failed tool call is recorded as a handled failure by construction"),
    Clause("G6.7", "RT-GATE-6", "(rationale) it is delivered to the consumer as a model-recoverable result"),
    Clause("G6.8", "RT-GATE-6", "so it must not count towards the run's unhandled failures (ERR-9)"),
    Clause("G6.9", "RT-GATE-6",
           "One pause raises exactly one question, however many times the tool plane observes the same interrupt"),
    Clause("E9.1", "ERR-9",
           "A run finishes with status completed when every failed unit of work in it carries the error-routed marker"),
    Clause("E9.5", "ERR-9", "A failed tool invocation always counts as handled"),
    Clause("E9.6", "ERR-9", "a tool failure is delivered to its consumer as a recoverable result",
           excused="the consumer's prompt is not modelled; its effect (the run carries on) is E9.5/G6.7"),
    Clause("O11.1", "ORC-11", "an unhandled failure makes the run failed",
           excused="no unhandled failure is reachable in this model (every failure is a tool failure)"),
    Clause("O11.2", "ORC-11", "otherwise an interrupt pauses the run with no reason recorded"),
    Clause("O11.4", "ORC-11", "otherwise the run is completed"),
    Clause("G5.1", "RT-GATE-5", "a declined call: the consumer receives a structured denial as a tool error result",
           excused="the consumer's tool result is not modelled; the decline's effect on the trail is G6.4 (A-G1)"),
    Clause("G5.2", "RT-GATE-5", "and the run continues to its own completion"),
    Clause("G5.3", "RT-GATE-5", "Where the call is approved, the consumer is re-fired",
           excused="modelled as the new attempt of G6.3; the consumer's own job record is not modelled (A-G10)"),
    Clause("T2.3", "RT-TOOL-2", "artifacts are lifted only off a successful call",
           excused="by construction: only tool-returns mints artifacts"),
    Clause("T6.2", "RT-TOOL-6", "[the run's bound is enforced] at the single point of collection",
           excused="the per-run collection bound is the artifacts/per-call search bound, not a system rule"),
)

_BY_ID = {c.id: c for c in CLAUSES}


def clause(clause_id: str) -> Clause:
    """The clause with this id (KeyError if the catalogue lacks it)."""
    return _BY_ID[clause_id]

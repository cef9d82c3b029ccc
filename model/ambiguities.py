"""The 32 ambiguities of the spec notes (section 5) and one the model found (A-X5, ORC-11's precedence of
an unhandled failure over an interrupt), each either modelled as a switch of `reading.py`
or named with the one-line reason it is not, and, for a modelled one, the sentence the rule would need
to rule the bad readings out.

A spec author reads this table in `pausecheck readings --list` and in the readings section of
`pausecheck report`; the ids, clauses and wording follow `spec-notes.md` section 5.
"""

from __future__ import annotations

from typing import NamedTuple

from .reading import SWITCH_OF, Switch

__all__ = ["Ambiguity", "AMBIGUITIES", "ambiguity_named"]


class Ambiguity(NamedTuple):
    """One ambiguity: its id, question, the clauses it involves, and either `fix` (modelled: the
    sentence the rule would need) or `reason` (why it is not modelled)."""

    id: str
    question: str
    clauses: tuple[str, ...]
    fix: str = ""
    reason: str = ""

    @property
    def switch(self) -> Switch | None:
        """The switch the rules branch on for it, if it is modelled."""
        return SWITCH_OF.get(self.id)

    @property
    def modelled(self) -> bool:
        return self.id in SWITCH_OF


def _a(id: str, question: str, clauses: tuple[str, ...], fix: str = "", reason: str = "") -> Ambiguity:
    return Ambiguity(id, question, clauses, fix, reason)


AMBIGUITIES: tuple[Ambiguity, ...] = (
    _a("A-T1", "What is the held list keyed by: the turn or the execution?", ("T7.2", "T7.4"),
       fix="RT-TOOL-7 would say: held artifacts are kept against the execution, and the resumed execution's next "
           "write-back takes them whichever turn carries the answer."),
    _a("A-T2", "Which pauses count (interrupt, budget, signal)?", ("T7.1",),
       reason="budget and signal pauses are not modelled: only gate interrupts pause a run"),
    _a("A-T3", "What is 'the wire'?", ("T7.3",),
       reason="job outputs, pause responses and snapshots are not modelled; the wire is the turn's messages"),
    _a("A-T4", "Does a failed write-back keep the resumed segment's own artifacts?", ("T7.10", "T7.12"),
       fix="RT-TOOL-7 would say: a failed write-back destroys nothing the resumed run collected; that run keeps "
           "it and delivers it with the retried write-back."),
    _a("A-T5", "Is put-back an assignment, a prepend or an append?", ("T7.10", "T7.5"),
       fix="RT-TOOL-7 would say: a failed write-back puts what it took back in front of the held list, keeping "
           "whatever was held since."),
    _a("A-T6", "Is the destructive take atomic with the write, across a crash?", ("T7.1", "T7.7", "T7.8"),
       fix="RT-TOOL-7 would say, as RT-GATE-2 does of consents: taking the held list and writing the message "
           "that delivers it must be atomic."),
    _a("A-T7", "May two resumes or write-backs of one execution run at once?", ("T7.7", "T7.8"),
       fix="RT-TOOL-7 (or INT-3) would say: checking that a run is paused and resuming it are atomic, and "
           "taking the held list is a single atomic read-and-clear."),
    _a("A-T8", "What becomes of held artifacts when the execution never resumes?", ("T7.1", "T7.4", "T7.15"),
       fix="RT-TOOL-7 would say: when a paused execution is cancelled or expires, what it holds is dropped, one "
           "warning per artifact."),
    _a("A-T9", "What does the held bound count, and when is it checked?", ("T7.13", "T7.14"),
       fix="RT-TOOL-7 would say: the bound counts artifacts and applies to the held list after every hold, a "
           "re-pause's included, and to nothing else (not a put-back, not the delivered merge)."),
    _a("A-T10", "Nothing bounds the merged list delivered on one message", ("T7.5", "T7.6"),
       reason="modelled as the value A-T9=merge (the delivered merge bounded too)"),
    _a("A-T11", "Does an interim assistant message take the held list?", ("T7.4", "T7.9"),
       fix="RT-TOOL-7 would say which: the next write-back of the execution, interim or last, takes the held "
           "list (reading A), or only the last one does (reading B)."),
    _a("A-T12", "Do re-emitted results of already-executed calls carry their artifacts?", ("T7.8",),
       fix="RT-TOOL-9 would say: a re-emitted stored result carries no artifacts; its artifacts reach the resumed "
           "turn only through the held list."),
    _a("A-T13", "Artifacts arriving after release, and RT-TOOL-5 being optional", ("T7.1",),
       reason="calls run one at a time, so no sibling call returns after its segment paused"),
    _a("A-T14", "What does 'fails' mean for a write-back (an ambiguous failure)?", ("T7.10", "T7.8"),
       fix="RT-TOOL-7 would say: a write-back that may have stored its message does not put back; the write "
           "is idempotent or its failure definite."),
    _a("A-T15", "In what order does a re-pause hold the old list and the new artifacts?", ("T7.9", "T7.5"),
       fix="RT-TOOL-7 would say: a re-pause appends what the resumed run collected after what was already held."),
    _a("A-T16", "'A delivered artifact' without artifact identity", ("T7.8",),
       reason="the model gives each artifact a ghost identity; content deduplication is not modelled"),
    _a("A-G1", "Does a decline (or expiry) close the interrupted attempt?", ("G6.3", "G6.4", "G6.5"),
       fix="RT-GATE-6 would say: when the question is answered either way, the interrupted attempt is closed "
           "as cancelled."),
    _a("A-G2", "INT-3 returns the job to pending; G6.4 cancels it", ("G6.4",),
       reason="the interrupt is stamped with the tool attempt, which G6.4 governs; INT-3's reset is not modelled"),
    _a("A-G3", "Are 'new attempt' and 'close the superseded one' atomic, across a crash?", ("G6.3", "G6.4", "G6.5"),
       fix="RT-GATE-6 would say: recording the new attempt and closing the superseded one are one atomic step."),
    _a("A-G4", "How is a failed tool call recorded as a handled failure?", ("G6.6", "G6.8", "E9.5"),
       fix="RT-GATE-6 would say: a failed tool call is recorded failed and never counts as unhandled, whether or "
           "not the node has an error edge."),
    _a("A-G5", "ERR-1's lifecycle record versus ERR-7's job record", ("G6.6",),
       reason="the model keeps job records only; no lifecycle broadcast is modelled"),
    _a("A-G6", "'Attempt' versus the ERR-11 retry count", ("G6.3",),
       reason="retries and their budget are not modelled"),
    _a("A-G7", "One question per pause: per what, with two gated calls in a batch?", ("G6.9",),
       reason="calls run one at a time: a pause stops at the first gated call, and the next asks in a later pause"),
    _a("A-G8", "What makes two observations 'the same interrupt'?", ("G6.9",),
       reason="sameness is the execution's pending question; expiry times are not modelled"),
    _a("A-G9", "A consent race leaves two interrupted attempts and one question", ("G6.4", "G6.5"),
       fix="RT-GATE-6 would say: answering the question closes every interrupted attempt of the call."),
    _a("A-G10", "Consumer re-fired versus tool attempt superseded", ("G6.3",),
       reason="the consumer's own job record is not modelled"),
    _a("A-G11", "Is an interrupted attempt 'still-active' when its run expires?", ("G6.5",),
       fix="INT-18 would say: expiry cancels the execution's interrupted attempts too."),
    _a("A-G12", "Does RT-GATE-6 cover every interrupt escaping a tool, or gates only?", ("G6.1",),
       reason="only gate interrupts are modelled"),
    _a("A-X1", "ERR-9 read literally versus the ORC-11 ladder", ("E9.1", "O11.2"),
       reason="the model takes ORC-11 as the verdict function, so the literal reading has no separate outcome"),
    _a("A-X2", "'Run' means a segment or the pipeline record", ("T7.1",),
       reason="a vocabulary point: the model carries both (Segment, Execution) and picks per clause"),
    _a("A-X3", "'Turn' means an exchange or a buffer message", ("T7.2",),
       reason="a vocabulary point: the model uses the glossary's exchange"),
    _a("A-X4", "The conformance levels do not line up", ("G6.3",),
       reason="levels are not behaviour; every clause is checked at the level it has"),
    _a("A-X5", "Is the work after an unhandled failure skipped at once, or run until the ladder decides?",
       ("O11.1", "O11.2"),
       fix="ORC-11 would say: an unhandled failure skips the run's remaining work at once, so a run that has "
           "failed never pauses on a later interrupt."),
)
_BY_ID = {a.id: a for a in AMBIGUITIES}


def ambiguity_named(ambiguity_id: str) -> Ambiguity:
    """The ambiguity with this id (KeyError if none)."""
    return _BY_ID[ambiguity_id]

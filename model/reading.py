"""Readings: one named choice per ambiguity (docs/readings.md lists all 33), passed to `step` as data.

The conformant reading makes, for each ambiguity the model meets, the choice under which nothing is
lost and nothing is delivered twice. A *switch* is an ambiguity the rules branch on (never a fork of
the model code): it has named values, each documented, and a default, the conformant one. A reading
is the conformant one with some switches set otherwise; its name says which, e.g.
`conformant+A-G1=leave`, and `reading_named` parses such a name back.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Choice", "Reading", "Switch", "SWITCHES", "SWITCH_OF", "CONFORMANT", "READINGS",
           "reading_named", "ReadingError"]


@dataclass(frozen=True, slots=True)
class Choice:
    """The reading of one ambiguity: its id, the choice made, and why."""

    ambiguity: str
    choice: str
    reason: str


@dataclass(frozen=True, slots=True)
class Switch:
    """An ambiguity the rules branch on: its values (value -> what it means), the conformant default,
    and the faults (bound names) without which its values cannot differ."""

    ambiguity: str
    values: dict[str, str]
    default: str
    needs: tuple[str, ...] = ()


SWITCHES: tuple[Switch, ...] = (
    Switch("A-G1", {
        "cancel": "a decline closes the interrupted attempt as cancelled (the conformant reading)",
        "leave": "a decline leaves the interrupted attempt interrupted: the tool never ran, so nothing closes it",
    }, "cancel"),
    Switch("A-T15", {
        "old-first": "a re-pause holds the old held list first, then the new segment's (arrival order)",
        "new-first": "a re-pause holds the new segment's artifacts first, then the old held list",
    }, "old-first"),
    Switch("A-T11", {
        "take": "reading A: an interim assistant message is a write-back that takes the held list",
        "hold": "reading B: an interim assistant message takes nothing; the held list waits for the last "
                "write-back of the execution",
    }, "take"),
    Switch("A-T1", {
        "execution": "the held list is kept per execution: the resumed write-back takes it, whichever turn "
                     "the answer arrived in",
        "turn": "the held list is kept per turn: the answer arrives as a new turn, whose write-back finds "
                "nothing held under it",
    }, "execution"),
    Switch("A-T4", {
        "keep": "after a failed write-back the resumed segment keeps what it collected and retries",
        "release": "the segment releases what it collected when its write-back fails (T5.8): lost, unwarned",
        "merge": "the put-back returns the merged list (taken ++ collected) to the held list",
    }, "keep"),
    Switch("A-T5", {
        "prepend": "put-back prepends what was taken to the held list",
        "append": "put-back appends what was taken to the held list",
        "assign": "put-back assigns what was taken to the held list, replacing it",
    }, "prepend"),
    Switch("A-T6", {
        "atomic": "take and write commit together: a crash before the write commits rolls the take back",
        "take-first": "the take commits, then the write: a crash between them loses what was taken",
        "write-first": "the message is written, then the held list cleared: a crash between them leaves "
                       "delivered artifacts held",
    }, "atomic", ("crashes",)),
    Switch("A-T7", {
        "atomic": "checking that the run is paused and resuming it is atomic: a second tab's answer changes "
                  "nothing",
        "racy": "two tabs both see the run paused and both resume it; each write-back's take is atomic",
        "racy-read-then-clear": "two tabs both resume the run; a take reads the held list, then clears it",
    }, "atomic", ("races",)),
    Switch("A-T8", {
        "warn": "a cancelled or expired execution drops what it holds, one warning per artifact",
        "deliver": "a cancelled or expired execution delivers what it holds on a closing message",
        "discard": "a cancelled or expired execution discards what it holds, without a warning",
        "strand": "a cancelled or expired execution keeps what it holds, forever",
    }, "warn", ("expiries",)),
    Switch("A-T9", {
        "every-hold": "the bound counts artifacts and is checked at every hold, a re-pause's merge included",
        "first-hold": "the bound is checked when a pause holds a segment's artifacts, not at a re-pause's merge",
        "put-back": "the bound is checked at every hold and again at a put-back",
        "merge": "the bound is checked at every hold and again on the delivered merge (H ++ collected)",
    }, "every-hold"),
    Switch("A-T12", {
        "bare": "a resume re-emits the stored results of calls already executed without their artifacts",
        "with-artifacts": "re-emitted stored results carry their artifacts, which are collected again",
    }, "bare"),
    Switch("A-T14", {
        "definite": "a failed write-back failed definitely: nothing of it was persisted",
        "ambiguous": "a write-back may fail ambiguously: the message was stored, the acknowledgement lost",
    }, "definite"),
    Switch("A-G3", {
        "atomic": "recording the new attempt and closing the superseded one is one step",
        "new-first": "the new attempt is recorded and the run resumed, then the superseded attempt closed: a "
                     "crash between them leaves it interrupted",
    }, "atomic", ("crashes",)),
    Switch("A-G4", {
        "failed-handled": "a failed tool call is an attempt recorded failed that never counts as unhandled",
        "failed-unmarked": "ERR-8 read literally: a failed tool call with no error edge counts as unhandled",
        "completed-with-error": "ERR-1: a failed tool call is recorded completed, with an error output",
    }, "failed-handled"),
    Switch("A-G9", {
        "close-all": "an answer closes every interrupted attempt of the call, the race loser's too",
        "close-one": "an answer closes only the superseded attempt it resumes (G6.4's singular)",
    }, "close-all", ("races",)),
    Switch("A-G11", {
        "cancel": "expiry cancels the interrupted attempt with the execution",
        "leave": "expiry cancels the execution; its interrupted attempt stays interrupted (not still-active)",
    }, "cancel", ("expiries",)),
    Switch("A-X5", {
        "skip": "an unhandled failure skips the run's remaining work at once: no tool is called and no node "
                "runs after it, so the run cannot pause; it writes back and fails (O11.1 as written)",
        "carry-on": "the remaining work still runs after an unhandled failure: a later tool call may interrupt "
                    "and pause a run that has already failed (the ladder applied only when the run ends)",
    }, "skip", ("node_failures",)),
)
SWITCH_OF: dict[str, Switch] = {s.ambiguity: s for s in SWITCHES}


class ReadingError(ValueError):
    """A reading name that names no reading: the message says what is accepted."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A named set of choices, one per ambiguity the model meets, and the switches set otherwise."""

    name: str
    choices: tuple[Choice, ...]
    switches: tuple[tuple[str, str], ...] = ()  # (ambiguity, value) where it differs from the default

    def value(self, ambiguity: str) -> str:
        """The value of a switch under this reading (its default unless set)."""
        for key, value in self.switches:
            if key == ambiguity:
                return value
        return SWITCH_OF[ambiguity].default

    def choice(self, ambiguity: str) -> str:
        """The choice made for an ambiguity id (KeyError if the reading does not meet it)."""
        for c in self.choices:
            if c.ambiguity == ambiguity:
                return c.choice
        raise KeyError(ambiguity)

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready form: name and {ambiguity: choice}."""
        return {"name": self.name, "choices": {c.ambiguity: c.choice for c in self.choices}}


CONFORMANT = Reading(
    name="conformant",
    choices=(
        Choice("A-T1", "held per execution; a pause and its resume stay in one turn",
               "the turn that produced them and the execution that takes them coincide"),
        Choice("A-T4", "a failed write-back leaves the segment's own artifacts collected; the segment "
               "does no more work and retries the write-back",
               "only what was taken is put back; nothing the resumed segment collected is lost"),
        Choice("A-T2", "only interrupt (gate) pauses; no budget or signal pauses",
               "the pauses RT-TOOL-7's narrative has in view; others arrive with the readings issue"),
        Choice("A-T3", "the wire is the turn's assistant messages (their toolArtifacts, the turn result)",
               "job outputs, pause responses and snapshots are not modelled, so cannot expose anything"),
        Choice("A-T5", "put-back prepends what was taken to the held list",
               "only prepend keeps both no-loss and arrival order when a hold arrives in between (a racing "
               "resume, A-T7); without one, the three readings coincide"),
        Choice("A-T6", "take and write commit together; put-back and report are separate steps; other "
               "executions' steps, polls and crashes may fall between any two steps",
               "a crash before the write commits rolls the take back, as a transaction would"),
        Choice("A-T9", "the bound counts artifacts and is checked at every hold; newest = last to arrive",
               "one warning per dropped artifact, kept in a ghost set so no-loss holds modulo drops"),
        Choice("A-T11", "reading A: a segment may write interim assistant messages before its last; each is "
               "a write-back that takes the held list (the next write-back, T7.4), and the segment carries "
               "on and may pause again",
               "an execution then performs several write-backs, so never delivering twice (T7.8) has a subject"),
        Choice("A-T7", "checking that the run is paused and resuming it is one atomic step",
               "a second tab's answer then finds the question settled (INT-19); no two segments of one "
               "execution run at once"),
        Choice("A-T8", "a cancelled or expired execution drops what it holds, one warning per artifact",
               "the artifacts are not destroyed silently (T7.15's warning) and nothing is stranded"),
        Choice("A-T12", "a resume re-emits the stored results of calls already executed without their artifacts",
               "so the held list is the only way those artifacts reach the resumed turn"),
        Choice("A-T14", "a failed write-back failed definitely: nothing of it was persisted",
               "an ambiguous failure would put back what a stored message already carries"),
        Choice("A-T15", "a re-pause holds the old held list first, then the new segment's",
               "arrival order, as RT-TOOL-6's narrative keeps it"),
        Choice("INT-19", "an answer names its question; an answer to a question no longer pending (a second "
               "tab, a retried request) changes nothing: checking and resuming are atomic (A-T7)",
               "the latest settled question may be answered again the other way; the first answer stands"),
        Choice("A-G1", "a decline closes the interrupted attempt as cancelled and records no new attempt",
               "the tool never ran; the denial reaches the consumer as a tool error result (G5.1)"),
        Choice("A-G2", "the gate interrupt is stamped with the tool attempt; on answer it is cancelled, "
               "never returned to pending",
               "INT-3's reset is not modelled; G6.4 governs the tool attempt"),
        Choice("A-G3", "recording the new attempt and cancelling the superseded one is one atomic step",
               "no crash can fall between them"),
        Choice("A-G4", "a tool failure is an attempt recorded failed that never counts as unhandled",
               "E9.5 and G6.8 exempt tool invocations; ERR-7/8 apply to graph nodes, whose failures the model "
               "has as a step of their own (NodeFails)"),
        Choice("A-G9", "an answer closes every interrupted attempt of the call, a race loser's too",
               "otherwise the loser's attempt holds the finished run paused (G6.5)"),
        Choice("A-G11", "expiry cancels the interrupted attempt with the execution",
               "an interrupted attempt is still-active work (I18.1); nothing is left interrupted"),
        Choice("A-G7", "one gated call per pause: the pause stops at the first interrupt",
               "a later call is asked in a later pause, so G6.9 holds literally"),
        Choice("A-G8", "the same interrupt = the same pending question of the execution",
               "re-observation never creates a question or changes the one pending"),
        Choice("A-G12", "only gate interrupts escape tool invocations",
               "RT-GATE-6's title scope; other interrupts invoked as tools are not modelled"),
        Choice("A-X5", "an unhandled failure skips the remaining work at once: no tool call and no node after it",
               "ORC-11 ranks the failure above an interrupt and skips the remaining work, so a failed run never "
               "pauses"),
        Choice("G1.3", "a resumed attempt passed the gate and cannot interrupt again",
               "the gate applies only to a first execution; a second pause needs a fresh call"),
    ),
)

READINGS = {CONFORMANT.name: CONFORMANT}


def _closest(word: str, known: Sequence[str]) -> str:
    """`; did you mean X?` for the known word closest to a misspelt one, or nothing."""
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _with(reading: Reading, ambiguity: str, value: str) -> Reading:
    switch = SWITCH_OF.get(ambiguity)
    if switch is None:
        known = [s.ambiguity for s in SWITCHES]
        raise ReadingError(f"{ambiguity} is not an ambiguity the model switches on{_closest(ambiguity, known)} "
                           f"({', '.join(known)})")
    if value not in switch.values:
        raise ReadingError(f"{ambiguity}={value}: the values are {', '.join(switch.values)}"
                           f"{_closest(value, switch.values)}")
    switches = tuple((a, v) for a, v in reading.switches if a != ambiguity)
    if value != switch.default:
        switches += ((ambiguity, value),)
    switches = tuple(sorted(switches, key=lambda item: [s.ambiguity for s in SWITCHES].index(item[0])))
    chosen = dict(switches)
    choices = tuple(Choice(c.ambiguity, SWITCH_OF[c.ambiguity].values[chosen[c.ambiguity]], "set by the reading's name")
                    if c.ambiguity in chosen else c for c in CONFORMANT.choices)
    name = "+".join([CONFORMANT.name] + [f"{a}={v}" for a, v in switches])
    return Reading(name, choices, switches)


def reading_named(name: str) -> Reading:
    """The reading a name stands for: `conformant`, optionally followed by `+AMBIGUITY=VALUE` parts (the
    `conformant+` may be left out). Raises ReadingError naming what is wrong."""
    if not isinstance(name, str) or not name:
        raise ReadingError(f"a reading is a name such as conformant or conformant+A-G1=leave, got {name!r}")
    parts = name.split("+")
    if parts[0] == CONFORMANT.name:
        parts = parts[1:]
    reading = CONFORMANT
    for part in parts:
        ambiguity, _, value = part.partition("=")
        if not value:
            raise ReadingError(f"{part!r}: a switch is set as AMBIGUITY=VALUE, e.g. A-G1=leave")
        reading = _with(reading, ambiguity, value)
    return reading

"""Mutants: named, minimal deviations a real runtime could make, each a deviation of the rule table.

A mutant never edits `model/rules.py`. It is a few named edits of a rule table (`model/deviate.py`: a guard
or an effect replaced, an action added or withheld; the edits are in `checks/mutants/deviations.py`), applied to
the table of the machine it mutates (`mutate`: the rules, or a spec author's draft), so that every engine
derived from a table runs it: the explicit successors, `pygen.step` (a counterexample replays step by
step), the z3 relation, the Promela. The catalogue is built when first asked for (`catalogue()`), and a
mutant's table only when it is used: an edit of the rules (or a draft) that leaves one of its edits
naming nothing is reported as that mutant no longer applying (`Mutant.problem`), never raised when a
command starts. One mutant
deviates in the wire view instead (`show`): what a caller is shown is not part of the rule table. Each
names the clauses it breaks, the property meant to catch it (`target`, or "deadlock") and the number of
steps in that property's shortest counterexample, at the default bounds or at the mutant's own `bounds`
where it needs others (two live executions, say). A mutant no property can catch is marked
`equivalent`, with the reason.

Every deviation keeps the search finite: it never enables more than the bounds allow (a mutant that
adds questions, say, still lets the observation and pause bounds end the search).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.deviate import Deviation
from pausecheck.model.lang import Rule
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.rules import RULES
from pausecheck.model.state import State

from ..drafts import derived
from .flipbounds import read_shown

__all__ = ["DEADLOCK", "WITNESS_LOST", "LARGE", "Mutant", "catalogue", "catalogue_problem", "mutant_named",
           "unknown_mutant",
           "mutant_rules", "mutate", "bounds_of", "NoLongerApplies"]

# The killer named by a mutant that only removes behaviour: a witness the rules reach and it does not.
WITNESS_LOST = "witness lost: "


@dataclass(frozen=True, slots=True)
class Mutant:
    """One deviation: what it does, which clauses it breaks, and what must catch it."""

    name: str
    clauses: tuple[str, ...]
    doc: str
    target: str | None  # the property meant to catch it ("deadlock" allowed); None if equivalent
    shortest: int | None  # steps in the target's shortest counterexample at `bounds_of(mutant)`
    deviation: Deviation | None = None  # its edits of a rule table (`model/deviate.py`), applied when used
    show: Callable[[State], tuple] | None = None  # a deviant wire view, where it deviates in what callers see
    bounds: Bounds | None = None  # bounds it needs to be caught, where the defaults are not enough
    equivalent: bool = False  # no property can catch it: it behaves like the default at these bounds
    reason: str = ""  # why it is equivalent
    # Where the ladder (`flipbounds.smallest_flip`, from the tiniest bounds) tells an equivalent mutant apart from
    # the rules by a verdict: its flags, with `--reading ...` where another reading must be set beside it; None
    # where it finds none. Recomputed by `benchmarks/flip_bounds.py --mutants`, checked by tests/test_flipbounds.py.
    parts_at: str | None = None
    # Its deviation treats every session alike (it never tells sessions apart by number), so the kill
    # matrix searches it with session symmetry where its bounds have several sessions: the same kills
    # and shortest lengths on about half the states (tests/test_symmetry.py compares both searches).
    symmetric: bool = False
    # Its search reaches far more states than the default's at the same bounds (over LARGE times as many:
    # it adds behaviour), so the kill matrix starts it first; a scheduling hint only, which
    # tests/test_mutants.py checks against the matrix's own counts.
    large: bool = False

    def __post_init__(self) -> None:
        if not self.clauses:
            raise ValueError(f"mutant {self.name!r}: clauses must name at least one clause")
        if self.deviation is None and self.show is None:
            raise ValueError(f"mutant {self.name!r}: needs a deviation of the rules or a show, else it is the default")
        if self.equivalent:
            if not self.reason or self.target is not None or self.shortest is not None:
                raise ValueError(f"mutant {self.name!r}: an equivalent mutant has a reason and no target")
            if self.parts_at is not None and not read_shown(self.parts_at)[1]:
                raise ValueError(f"mutant {self.name!r}: told apart under its own reading, it is not equivalent")
        elif self.target is None or self.shortest is None or self.shortest < 1:
            raise ValueError(f"mutant {self.name!r}: needs a target and a shortest length >= 1")

    @property
    def claim(self) -> str:
        """An equivalent mutant's reason, with the bounds up to which it holds (the ladder's answer)."""
        if not self.equivalent:
            return ""
        if self.parts_at is None:
            return f"{self.reason}; the ladder finds no bounds that tell it apart from the rules"
        beside = "+".join(f"{a}={v}" for a, v in read_shown(self.parts_at)[1])
        return (f"{self.reason}; under this reading the ladder tells it apart at no bounds it tries; beside "
                f"{beside} a verdict does, at {self.parts_at}")

    def table(self, base: tuple[Rule, ...] = RULES) -> tuple[Rule, ...]:
        """Its rule table: `base` (the rules, or a draft) with its edits; the same object for the same base.
        NoLongerApplies where an edit no longer fits the base."""
        if self.deviation is None:
            return base
        try:
            return derived(self.deviation.table(base), base)
        except Exception as error:  # an edit naming nothing (DeviationError), or an edit the base cannot take
            raise NoLongerApplies(self.name, error) from None

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Its table against the rules themselves (`table(RULES)`)."""
        return self.table(RULES)

    def problem(self, base: tuple[Rule, ...] = RULES) -> str | None:
        """Why it no longer applies to `base` (an edit that names nothing there), or None."""
        try:
            self.table(base)
        except NoLongerApplies as error:
            return error.why
        return None


class NoLongerApplies(ValueError):
    """A mutant whose edits do not fit the table it deviates from (the rules were edited, or a draft differs)."""

    def __init__(self, name: str, error: Exception | str) -> None:
        self.name, self.why = name, str(error) or type(error).__name__
        super().__init__(f"mutant {name} no longer applies: {self.why}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Raised in a worker process, it reaches the parent whole."""
        return NoLongerApplies, (self.name, self.why)


def bounds_of(mutant: Mutant, default: Bounds | None = None) -> Bounds:
    """The bounds a mutant is checked at: its own, else `default`, else the default bounds."""
    return mutant.bounds or default or Bounds()


def mutate(machine: Machine, mutant: Mutant) -> Machine:
    """The machine running the mutant's edits of the machine's own table (and its wire view); its bounds
    are the machine's own. NoLongerApplies where the edits do not fit that table."""
    changes = {"rules": mutant.table(machine.rules)} | ({"show": mutant.show} if mutant.show is not None else {})
    return dataclasses.replace(machine, **changes)


_TWO_SESSIONS = Bounds(sessions=2, calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0)
_ROOMY_HELD = Bounds(artifacts=2, held_bound=2)  # room to hold two, so order shows without drops
_SMALL = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
_NODE_FAILURE = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, node_failures=1,
                       held_bound=1)  # a node fails (the defaults have none), with an artifact held

_NEW_TURN = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1,
                   new_turns=1)  # a turn started while the session's previous turn is paused
# Writes that may fail without limit (`--write-failures any`): the graph has cycles, and liveness kills.
_ENDLESS = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1,
                  endless_writes=1)
_INTERIM = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, interim_writes=1,
                  held_bound=1)  # an interim write-back before the segment's last call
LARGE = 1.5  # how many times the default's states a mutant marked `large` searches, at least


def _catalogue() -> tuple[Mutant, ...]:
    """Every mutant, in the order the kill matrix shows them (the deviations imported only now)."""
    from . import deviations as d

    M = Mutant
    return (
        # the write-back
        M("take_keeps_held", ("T7.7",), "a successful write-back reads the held list without clearing it",
          "write_back_delivers", 7, d.TAKE_KEEPS_HELD),
        M("write_back_skips_held", ("T7.4", "T7.6"), "the write-back delivers only the segment's own artifacts; "
          "the held list is never taken", "write_back_delivers", 7, d.WRITE_BACK_SKIPS_HELD),
        M("held_merged_after", ("T7.5",), "the write-back appends the held list after the resumed segment's artifacts",
          "merge_order", 9, d.HELD_MERGED_AFTER),
        M("held_on_separate_message", ("T7.6",), "held artifacts are delivered on a message of their own, "
          "not merged into the resumed turn's message", "write_back_delivers", 9,
          d.HELD_ON_SEPARATE_MESSAGE),
        M("resume_reemits_artifacts", ("T7.8",), "on approve, calls that already ran re-emit their results with "
          "their artifacts, collected again: double delivery in one message (A-T12, RT-TOOL-9)",
          "no_double_delivery", 9, d.RESUME_REEMITS_ARTIFACTS),
        # a failed write-back
        M("no_put_back", ("T7.10", "T7.12"), "a failed write-back does not put back what it took",
          "failed_write_back_restores", 9, d.NO_PUT_BACK),
        M("read_then_clear_take", ("T7.7", "T7.8"), "the take only reads and clears after a successful write; a "
          "failure puts back in front of the uncleared list, so the held artifacts are delivered twice",
          "no_double_delivery", 12,
          d.READ_THEN_CLEAR_TAKE),
        M("report_before_put_back", ("T7.11", "T7.10"), "a failed write-back reports while what it took is only in "
          "the segment's memory; it is put back with the retry", "failed_write_back_restores", 9,
          d.REPORT_BEFORE_PUT_BACK),
        M("failure_not_reported", ("T7.11",), "a failed write-back puts back and retries but never reports the failure",
          "failed_write_back_restores", 5, d.FAILURE_NOT_REPORTED),
        M("failed_write_lands", ("T7.8", "T7.12"), "a write reported failed was persisted (lost acknowledgement); "
          "the put-back makes the retry deliver the same artifacts again (A-T14)", "no_double_delivery", 9,
          d.FAILED_WRITE_LANDS),
        M("failed_write_back_releases_collected", ("T7.12",), "a failed write-back puts back what it took but the "
          "segment releases what it collected itself (A-T4, letter)", "no_loss", 7,
          d.FAILED_WRITE_BACK_RELEASES_COLLECTED),
        M("put_back_by_assignment", ("T7.10",), "the put-back assigns the taken list instead of prepending it (A-T5)",
          None, None, d.PUT_BACK_BY_ASSIGNMENT, equivalent=True,
          reason="between an execution's take and its put-back no step adds to its held list (holds happen only at "
          "a pause, and a segment in a write-back makes no call; concurrent segments are A-T7): assigning and "
          "prepending coincide", parts_at="--calls 1 --artifacts 1 --observations 0 --held-bound 1 --races 1 "
          "--reading conformant+A-T7=racy"),
        M("put_back_merged_bounded", ("T7.12",), "a failed write-back puts back the merged list (what it took and "
          "what the segment collected, A-T4 reading B) under the held bound, dropping the newest with warnings",
          "failed_write_back_restores", 6, d.PUT_BACK_MERGED_BOUNDED),
        # the hold at a pause
        M("drop_oldest", ("T7.14",), "an overflowing held list drops its oldest entries, not its newest",
          "drops_newest_with_warning", 11, d.DROP_OLDEST),
        M("drop_all_on_overflow", ("T7.14",), "an overflowing pause drops everything it brought in, not only the "
          "excess over the bound", "drops_newest_with_warning", 11, d.DROP_ALL_ON_OVERFLOW),
        M("drop_without_warning", ("T7.15",), "an overflowing held list drops the newest entries silently",
          "no_loss", 11, d.DROP_WITHOUT_WARNING),
        M("unbounded_held", ("T7.13",), "the held list has no bound", "held_bounded", 11,
          d.UNBOUNDED_HELD),
        M("repause_holds_only_new", ("T7.9",), "a resume that pauses again holds only its own segment's artifacts",
          "repause_holds_everything", 8, d.REPAUSE_HOLDS_ONLY_NEW),
        M("repause_prepends_new", ("T7.9", "T7.5"), "a re-pause holds the new segment's artifacts before the old "
          "held list (A-T15)", "merge_order", 12, d.REPAUSE_PREPENDS_NEW, bounds=_ROOMY_HELD),
        M("pause_discards_collected", ("T7.1",), "a pause discards what its segment collected",
          "no_loss", 5, d.PAUSE_DISCARDS_COLLECTED),
        M("pause_writes_interim_message", ("T7.1", "T7.9"), "the pausing segment writes an interim message with what "
          "it would hold, so nothing is held for the resume (A-T11, reading A)", "repause_holds_everything", 5,
          d.PAUSE_WRITES_INTERIM_MESSAGE),
        M("poll_delivers_held", ("T7.3", "T7.4"), "a poll of the paused turn delivers its held artifacts on a "
          "message of their own", "messages_only_from_write_back", 6, d.POLL_DELIVERS_HELD, large=True),
        M("poll_shows_held", ("T7.3",), "a poll of the paused turn shows its held artifacts",
          "held_hidden", 5, show=d.poll_shows_held),
        M("held_keyed_per_workflow", ("T7.2", "T7.4"), "the held list is one record per workflow, shared by every "
          "session's execution and re-homed to whichever paused last", "isolation", 8,
          d.HELD_KEYED_PER_WORKFLOW, bounds=_TWO_SESSIONS, symmetric=True),
        M("held_keyed_per_session", ("T7.2",), "the held list is keyed by the session, not the execution (A-T1): a "
          "turn started while the session's previous turn is paused (INT-13) shares that turn's held list",
          "isolation", 8, d.HELD_KEYED_PER_SESSION, bounds=_NEW_TURN),
        # the attempt trail
        M("interrupt_recorded_failed", ("G6.1", "G6.2"), "an interrupt escaping a tool records the attempt as failed",
          "interrupted_not_failed", 3, d.INTERRUPT_RECORDED_FAILED),
        M("interrupt_keeps_running", ("O11.2",), "an interrupt raises its question but leaves the run running: "
          "the run is never paused", "no_phantom_pause", 3, d.INTERRUPT_KEEPS_RUNNING),
        M("interrupt_closes_attempt", ("G6.1",), "an interrupt closes the attempt as cancelled at the pause "
          "instead of recording it interrupted", "interrupted_not_failed", 3,
          d.INTERRUPT_CLOSES_ATTEMPT),
        M("resume_flips_attempt", ("G6.3", "G6.4"), "a resume flips the interrupted attempt back to running "
          "instead of adding a new one", "resume_supersedes", 4, d.RESUME_FLIPS_ATTEMPT),
        M("resume_as_fresh_call", ("G6.3",), "on approve the consumer re-issues the call under a fresh call id",
          "resume_supersedes", 4, d.RESUME_AS_FRESH_CALL),
        M("superseded_left_interrupted", ("G6.4", "G6.5"), "on approve the new attempt is recorded but the "
          "superseded one is left interrupted, holding the finished run paused", "no_phantom_pause", 7,
          d.SUPERSEDED_LEFT_INTERRUPTED),
        M("decline_leaves_interrupted", ("G6.4", "G6.5"), "the superseded attempt is cancelled only on approve; a "
          "decline leaves it interrupted (A-G1)", "no_phantom_pause", 6, d.DECLINE_LEAVES_INTERRUPTED),
        M("decline_reissues_call", ("G6.3",), "a decline re-fires the consumer like an approval: the declined call "
          "runs as a new attempt (G5.1)", "resume_supersedes", 4, d.DECLINE_REISSUES_CALL, large=True),
        # failures and the verdict
        M("tool_failure_unhandled", ("G6.6", "G6.8", "E9.5"),
          "a tool failure counts towards the run's unhandled failures", "tool_failures_handled", 3,
          d.TOOL_FAILURE_UNHANDLED),
        M("tool_failure_recorded_cancelled", ("G6.6",), "a failed tool call is recorded cancelled, not as a handled "
          "failure", "failure_recorded_failed", 3, d.TOOL_FAILURE_RECORDED_CANCELLED),
        M("tool_failure_recorded_completed", ("G6.6",), "a failed tool call is recorded completed with an error "
          "output (A-G4 (iii)): the trail hides the failure", "failure_recorded_failed", 3,
          d.TOOL_FAILURE_RECORDED_COMPLETED),
        M("failures_relabelled_on_resume", ("G6.6",), "resuming relabels the execution's failed attempts as "
          "completed: a failure sitting in the trail waiting to be relabelled", "trail_never_relabelled", 6,
          d.FAILURES_RELABELLED_ON_RESUME),
        M("tool_failure_fails_run", ("G6.7", "E9.5", "O11.4"), "the verdict fails a run with any failed attempt, as "
          "if a tool failure were unrouted (ERR-8 read literally, A-G4)", "handled_run_completes", 5,
          d.TOOL_FAILURE_FAILS_RUN),
        M("unrouted_failure_handled", ("O11.1",), "a node failure without an error edge is treated as handled",
          "handled_run_completes", 4, d.UNROUTED_FAILURE_HANDLED, bounds=_NODE_FAILURE),
        M("calls_after_unhandled_failure", ("O11.1", "O11.2"), "the consumer keeps calling tools after a node failed "
          "without an error edge (A-X5 carry-on): a later interrupt pauses a run that has failed",
          "work_skipped_after_unhandled_failure", 3, d.CALLS_AFTER_UNHANDLED_FAILURE, bounds=_NODE_FAILURE),
        M("routed_failure_counted", ("E9.1",), "a node failure routed along its error edge still counts as unhandled",
          "handled_run_completes", 4, d.ROUTED_FAILURE_COUNTED, bounds=_NODE_FAILURE),
        M("failed_run_strands_held", ("T7.4", "T7.12"), "a run headed for failure ends without taking its held list "
          "(A-T8 for a failed run)", "finished_holds_nothing", 9, d.FAILED_RUN_STRANDS_HELD,
          bounds=_NODE_FAILURE),
        M("stale_answer_overrides", ("G6.9",), "a late answer to a question already settled overwrites the "
          "recorded answer (a second tab wins)", "stale_answer_changes_nothing", 5, d.STALE_ANSWER_OVERRIDES,
          large=True),
        M("decline_fails_run", ("G5.2",), "a decline fails the run instead of handing the consumer a denial",
          "handled_run_completes", 4, d.DECLINE_FAILS_RUN),
        M("decline_stalls", ("G5.2",), "a decline marks the run running but never re-fires the consumer",
          DEADLOCK, 4, d.DECLINE_STALLS),
        # questions
        M("question_per_observation", ("G6.9",), "each observation of the same interrupt raises another question",
          "one_question_per_pause", 4, d.QUESTION_PER_OBSERVATION),
        M("observation_reraises_question", ("G6.9",), "each observation withdraws the pending question and "
          "raises a fresh one in its place (A-G8: a re-raise that refreshes the interrupt)",
          "one_question_per_pause", 4, d.OBSERVATION_RERAISES_QUESTION),
        M("question_per_gated_call", ("G6.9",),
          "a pause raises a question for every call of the segment's batch (A-G7)", "one_question_per_pause", 5,
          d.QUESTION_PER_GATED_CALL),
        M("answer_leaves_question_pending", ("G6.9",), "the run resumes but the answered question stays pending",
          "no_phantom_pause", 4, d.ANSWER_LEAVES_QUESTION_PENDING),
        # behaviour removed or added (the rules' actions withheld, or actions the rules do not have)
        M("decline_not_offered", ("G5.2",), "the runtime offers only approval: a question cannot be declined",
          WITNESS_LOST + "decline", 4, d.DECLINE_NOT_OFFERED),
        M("write_never_fails", ("T7.10", "T7.11"), "the runtime's writes never fail (a store that cannot fail "
          "hides the put-back path)", WITNESS_LOST + "write_back_fails_with_held", 8, d.WRITE_NEVER_FAILS),
        M("retry_always_fails", ("T7.12", "G5.2"), "a failed write-back's retries all fail too (retried over the "
          "connection that failed): with writes that may fail without limit, the run never ends",
          "no_stuck_execution", 8, d.RETRY_ALWAYS_FAILS, bounds=_ENDLESS),
        M("held_write_refused", ("T7.1", "T7.12"), "the store refuses every message that carries held artifacts: "
          "the resumed run's write-back is retried forever and never delivers them", "eventual_delivery", 13,
          d.HELD_WRITE_REFUSED, bounds=_ENDLESS),
        M("resume_without_answer", ("G6.9", "G6.5"), "a paused run may resume on its own (a timer), leaving its "
          "question pending", "no_phantom_pause", 4, d.RESUME_WITHOUT_ANSWER, bounds=_SMALL),
        # what a client sees, step by step (frame conditions)
        M("observe_records_attempt", ("G6.9", "G6.1"), "observing a paused run records the interrupt again: two "
          "interrupted attempts for one interrupt", "observing_changes_nothing_visible", 4, d.OBSERVE_RECORDS_ATTEMPT),
        M("stops_calling_after_failure", ("G6.7",), "the consumer stops calling tools once one has failed",
          WITNESS_LOST + "calls_after_a_failure", 4, d.STOPS_CALLING_AFTER_FAILURE),
        M("status_at_interim_write", ("O11.4", "G5.2"), "an interim write-back decides the run's status: a client sees "
          "it completed while its segment works on", "status_decided_when_the_segment_ends", 3,
          d.STATUS_AT_INTERIM_WRITE, bounds=_INTERIM),
        M("resume_moves_held", ("T7.4", "T7.7"), "the resume moves the held list into the resumed segment instead of "
          "leaving it for the write-back to take (the message reads the same)",
          "held_changes_only_at_hold_take_put_back", 6, d.RESUME_MOVES_HELD),
        M("timer_outlives_run", ("G5.2", "O11.4"), "an answered question's expiry timer is never cancelled: it fires "
          "after the run completed and cancels it", "finished_status_is_final", 7, d.TIMER_OUTLIVES_RUN,
          bounds=_SMALL.replace(expiries=1)),
    )


_BUILT: list[tuple[tuple[Mutant, ...], str | None]] = []  # the catalogue, once built, and why it could not be


def _built() -> tuple[tuple[Mutant, ...], str | None]:
    if not _BUILT:
        try:
            _BUILT.append((_catalogue(), None))
        except Exception as error:  # the rules lost a statement the deviations name (an ImportError, say)
            _BUILT.append(((), f"the mutant catalogue cannot be built against these rules: "
                               f"{type(error).__name__}: {error}"))
    return _BUILT[0]


def catalogue() -> tuple[Mutant, ...]:
    """Every mutant (empty where the catalogue cannot be built against the rules: `catalogue_problem`)."""
    return _built()[0]


def catalogue_problem() -> str | None:
    """Why the catalogue could not be built (the rules were edited so that `deviations.py` no longer
    imports), or None."""
    return _built()[1]


def __getattr__(name: str) -> tuple[Mutant, ...]:
    """`MUTANTS`, the catalogue, built when first read (a module attribute computed on access)."""
    if name == "MUTANTS":
        return catalogue()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def mutant_named(name: str) -> Mutant:
    """The mutant with this name (KeyError if none)."""
    for m in catalogue():
        if m.name == name:
            return m
    raise KeyError(name)


def unknown_mutant(name: str) -> str:
    """What to say of a mutant name no mutant has: the closest name, and where the names are listed."""
    close = difflib.get_close_matches(name, [m.name for m in catalogue()], n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"unknown mutant {name!r}{hint} (pausecheck mutants --list names them all)"


def mutant_rules(name: str, base: tuple[Rule, ...] = RULES) -> tuple[Rule, ...]:
    """The rule table of the mutant with this name (KeyError if none) against `base`: what every engine
    derived from a table runs for it (`successor_function(bounds, reading, rules)`, `moves(..., rules)`).
    The same object each time, so that the engines' caches, keyed by the table's identity, hit."""
    return mutant_named(name).table(base)

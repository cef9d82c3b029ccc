"""Mutants: named, minimal deviations a real runtime could make, applied on top of the default rules.

A mutant never edits `model/rules.py`. It is a `patch` of the default successor (what the deviant
runtime does instead, computed from the bounds, the pre-state, the action and the default
post-state) and/or a deviant wire view (`show`). Each names the clauses it breaks, the property
meant to catch it (`target`, or "deadlock") and the number of steps in that property's shortest
counterexample, at the default bounds or at the mutant's own `bounds` where it needs others (two
live executions, say). A mutant no property can catch is marked `equivalent`, with the reason.

Every patch keeps the search finite: it never enables more than the bounds allow (a mutant that
adds questions, say, still lets the observation and pause bounds end the search).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from model import Bounds, Machine, Patch
from model.actions import Answer, FinishSegment, ObserveAgain, Poll, ToolFails, ToolInterrupts
from model.rules import hold
from model.state import (
    CANCELLED,
    COMPLETED,
    FAILED,
    INTERRUPTED,
    PENDING,
    RUNNING,
    Attempt,
    Question,
    State,
    Warning,
    find_execution,
    find_segment,
    with_execution,
    with_segment,
)

__all__ = ["DEADLOCK", "Mutant", "MUTANTS", "mutant_named", "mutate", "bounds_of"]

DEADLOCK = "deadlock"  # the pseudo-property a mutant breaks when some unfinished run can never move


@dataclass(frozen=True, slots=True)
class Mutant:
    """One deviation: what it does, which clauses it breaks, and what must catch it."""

    name: str
    clauses: tuple[str, ...]
    doc: str
    target: str | None  # the property meant to catch it ("deadlock" allowed); None if equivalent
    shortest: int | None  # steps in the target's shortest counterexample at `bounds_of(mutant)`
    patch: Patch | None = None
    show: Callable[[State], tuple] | None = None
    bounds: Bounds | None = None  # bounds it needs to be caught, where the defaults are not enough
    equivalent: bool = False  # no property can catch it: it behaves like the default at these bounds
    reason: str = ""  # why it is equivalent

    def __post_init__(self) -> None:
        if not self.clauses:
            raise ValueError(f"mutant {self.name!r}: clauses must name at least one clause")
        if self.patch is None and self.show is None:
            raise ValueError(f"mutant {self.name!r}: needs a patch or a show, else it is the default")
        if self.equivalent:
            if not self.reason or self.target is not None or self.shortest is not None:
                raise ValueError(f"mutant {self.name!r}: an equivalent mutant has a reason and no target")
        elif self.target is None or self.shortest is None or self.shortest < 1:
            raise ValueError(f"mutant {self.name!r}: needs a target and a shortest length >= 1")


def bounds_of(mutant: Mutant, default: Bounds | None = None) -> Bounds:
    """The bounds a mutant is checked at: its own, else `default`, else the default bounds."""
    return mutant.bounds or default or Bounds()


def mutate(machine: Machine, mutant: Mutant) -> Machine:
    """The machine with the mutant's deviation applied (its bounds are the machine's own)."""
    changes: dict[str, Any] = {}
    if mutant.patch is not None:
        changes["patch"] = mutant.patch
    if mutant.show is not None:
        changes["show"] = mutant.show
    return dataclasses.replace(machine, **changes)


def _on(kind: type, deviate: Callable[[Bounds, State, Any, State], State]) -> Patch:
    """A patch that deviates on one action kind and leaves every other step alone."""
    def patch(bounds: Bounds, pre: State, action: Any, post: State) -> State:
        return deviate(bounds, pre, action, post) if type(action) is kind else post
    patch.__name__ = deviate.__name__
    return patch


def _set(state: State, execution_id: str, **fields: Any) -> State:
    return with_execution(state, find_execution(state, execution_id)._replace(**fields))


def _held(state: State, execution_id: str) -> tuple[int, ...]:
    return find_execution(state, execution_id).held


def _collected(state: State, execution_id: str) -> tuple[int, ...]:
    segment = find_segment(state, execution_id)
    return segment.collected if segment is not None else ()


def _rehold(post: State, pre: State, eid: str, kept: tuple[int, ...], dropped: tuple[int, ...]) -> State:
    """The pause's post-state with a deviant held list and one warning per deviant drop."""
    post = _set(post, eid, held=kept)
    return post._replace(warnings=pre.warnings + tuple(Warning(eid, r) for r in dropped))


# ---------------------------------------------------------------------------------------------
# The write-back: take, merge, deliver (T7.4-T7.8)


def _take_keeps_held(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # A successful write-back reads the held list but never clears it.
    return _set(post, a.execution, held=_held(pre, a.execution)) if a.write_ok else post


def _write_back_skips_held(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The write-back writes only what the segment collected and leaves the held list stranded.
    if not a.write_ok:
        return post
    e = find_execution(post, a.execution)
    return _set(post, a.execution, held=_held(pre, a.execution),
                messages=e.messages[:-1] + (_collected(pre, a.execution),))


def _held_merged_after(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The merge appends the held list after the resumed segment's own artifacts.
    if not a.write_ok:
        return post
    e = find_execution(post, a.execution)
    merged = _collected(pre, a.execution) + _held(pre, a.execution)
    return _set(post, a.execution, messages=e.messages[:-1] + (merged,))


def _held_on_separate_message(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # Held artifacts go out on a message of their own, before the one with the segment's artifacts.
    held, collected = _held(pre, a.execution), _collected(pre, a.execution)
    if not a.write_ok or not held or not collected:
        return post
    e = find_execution(post, a.execution)
    return _set(post, a.execution, messages=e.messages[:-1] + (held, collected))


def _resume_reemits_artifacts(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the batch is re-sent; calls that already ran re-emit their stored results with
    # their artifacts, which the resumed segment collects again (A-T12).
    if not a.approve:
        return post
    again = tuple(r for r, origin in enumerate(post.artifacts, 1) if origin.execution == a.execution)
    return with_segment(post, a.execution, find_segment(post, a.execution)._replace(collected=again))


# ---------------------------------------------------------------------------------------------
# A failed write-back: put back, then report (T7.10-T7.12)


def _no_put_back(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # A failed write-back reports the failure with what it took still in hand: it is gone.
    return post if a.write_ok else _set(post, a.execution, held=())


def _put_back_by_assignment(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The put-back assigns the taken list to the held list instead of prepending it (A-T5).
    return post if a.write_ok else _set(post, a.execution, held=_held(pre, a.execution))


def _read_then_clear_take(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The take only reads (it clears after a successful write); the failure path still "puts
    # back" in front of the list it never cleared, so the held list now carries everything twice.
    if a.write_ok:
        return post
    held = _held(pre, a.execution)
    return _set(post, a.execution, held=held + held)


def _report_before_put_back(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The failure is reported while the taken list is still in the segment's memory; it goes back
    # only with the retry. Durably, nothing is held while the failure is reported.
    if a.write_ok:
        return post
    segment = find_segment(post, a.execution)
    post = with_segment(post, a.execution, segment._replace(collected=_held(pre, a.execution) + segment.collected))
    return _set(post, a.execution, held=())


def _failure_not_reported(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The write-back puts back and retries silently: the failure is never reported on the run.
    if a.write_ok:
        return post
    return _set(post, a.execution, write_failures=find_execution(pre, a.execution).write_failures)


def _failed_write_lands(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The write is persisted but its acknowledgement is lost: reported failed and put back, yet
    # the message exists, so the retry delivers the same artifacts again (A-T14).
    if a.write_ok:
        return post
    e = find_execution(post, a.execution)
    merged = _held(pre, a.execution) + _collected(pre, a.execution)
    return _set(post, a.execution, messages=e.messages + (merged,))


def _failed_write_back_releases_collected(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # Only the taken list is put back; the segment releases what it collected (A-T4, letter).
    if a.write_ok:
        return post
    return with_segment(post, a.execution, find_segment(post, a.execution)._replace(collected=()))


# ---------------------------------------------------------------------------------------------
# The hold at a pause: hold everything, bounded, newest dropped with a warning (T7.1, T7.9, T7.13-15)


def _drop_oldest(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow keeps the newest entries and drops the oldest.
    merged = _held(pre, a.execution) + _collected(pre, a.execution)
    cut = max(len(merged) - b.held_bound, 0)
    return _rehold(post, pre, a.execution, merged[cut:], merged[:cut])


def _drop_all_on_overflow(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow drops everything the pause brought in, not just what exceeds the bound (with warnings).
    held, collected = _held(pre, a.execution), _collected(pre, a.execution)
    if len(held) + len(collected) <= b.held_bound:
        return post
    return _rehold(post, pre, a.execution, held[:b.held_bound], held[b.held_bound:] + collected)


def _drop_without_warning(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow drops the newest entries silently.
    return post._replace(warnings=pre.warnings)


def _unbounded_held(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The held list has no bound at all.
    return _rehold(post, pre, a.execution, _held(pre, a.execution) + _collected(pre, a.execution), ())


def _repause_holds_only_new(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # A re-pause overwrites the held list with the new segment's artifacts.
    kept, dropped = hold((), _collected(pre, a.execution), b.held_bound)
    return _rehold(post, pre, a.execution, kept, dropped)


def _repause_prepends_new(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # A re-pause puts the new segment's artifacts in front of the old held list (A-T15).
    kept, dropped = hold(_collected(pre, a.execution), _held(pre, a.execution), b.held_bound)
    return _rehold(post, pre, a.execution, kept, dropped)


def _pause_discards_collected(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The pause discards what the segment collected (only an older held list survives).
    return _rehold(post, pre, a.execution, _held(pre, a.execution), ())


def _pause_writes_interim_message(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The pausing segment writes an interim assistant message carrying everything it would hold
    # (A-T11, reading A): nothing is held across the pause.
    merged = _held(pre, a.execution) + _collected(pre, a.execution)
    post = _rehold(post, pre, a.execution, (), ())
    return _set(post, a.execution, messages=find_execution(post, a.execution).messages + (merged,))


def _shared_hold(same: Callable[[Any, Any], bool]) -> Callable[[Bounds, State, ToolInterrupts, State], State]:
    """A hold into one list shared by every execution `same` relates to the pausing one; the list
    lives with the execution that paused last, and its take stays the default one (own record)."""
    def deviate(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
        me = find_execution(pre, a.execution)
        sharing = [e for e in pre.executions if same(e, me)]
        shared = tuple(sorted(r for e in sharing for r in e.held))
        kept, dropped = hold(shared, _collected(pre, a.execution), b.held_bound)
        for e in sharing:
            post = _set(post, e.id, held=())
        return _rehold(post, pre, a.execution, kept, dropped)
    return deviate


_held_keyed_per_workflow = _shared_hold(lambda e, me: True)
_held_keyed_per_workflow.__name__ = "_held_keyed_per_workflow"
_held_keyed_per_session = _shared_hold(lambda e, me: e.session == me.session)
_held_keyed_per_session.__name__ = "_held_keyed_per_session"


def _poll_delivers_held(b: Bounds, pre: State, a: Poll, post: State) -> State:
    # A poll of a paused turn "helpfully" delivers its held artifacts on a message of their own.
    e = find_execution(post, a.execution)
    if not e.held:
        return post
    return _set(post, a.execution, held=(), messages=e.messages + (e.held,))


def _poll_shows_held(state: State) -> tuple:
    # The turn's poll serves the held list as part of the turn's artifacts.
    return tuple((e.id, tuple(r for m in e.messages for r in m) + e.held) for e in state.executions)


# ---------------------------------------------------------------------------------------------
# The attempt trail (G6.1-G6.5)


def _attempts(post: State, eid: str, call: str, statuses: list[str]) -> State:
    """The state with the attempts of `call` in `eid` given these statuses, in order."""
    e, it = find_execution(post, eid), iter(statuses)
    return _set(post, eid, attempts=tuple(Attempt(c, next(it)) if c == call else Attempt(c, s)
                                          for c, s in e.attempts))


def _trail(state: State, eid: str, call: str) -> list[str]:
    return [a.status for a in find_execution(state, eid).attempts if a.call == call]


def _relabel(state: State, eid: str, call: str, old: str, new: str) -> State:
    """The state with every attempt of `call` in `eid` that has status `old` given status `new`."""
    return _attempts(state, eid, call, [new if s == old else s for s in _trail(state, eid, call)])


def _interrupt_recorded_failed(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The interrupt escapes the tool invocation as an exception and is recorded failed.
    return _relabel(post, a.execution, a.call, INTERRUPTED, FAILED)


def _interrupt_closes_attempt(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The interrupt ends the attempt: it is closed as cancelled at the pause, never interrupted.
    return _relabel(post, a.execution, a.call, INTERRUPTED, CANCELLED)


def _asked(pre: State, a: Answer) -> str:
    return find_execution(pre, a.execution).questions[-1].call


def _resume_flips_attempt(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the same interrupted record is flipped back to running: no new attempt.
    if not a.approve:
        return post
    call = _asked(pre, a)
    e = find_execution(post, a.execution)
    post = _set(post, a.execution, attempts=e.attempts[:-1])  # drop the new attempt
    return _relabel(post, a.execution, call, CANCELLED, RUNNING)


def _resume_as_fresh_call(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the consumer re-issues the call under a fresh call id (a new sample, not the same
    # call): the new attempt belongs to another call.
    if not a.approve:
        return post
    e = find_execution(post, a.execution)
    fresh = f"c{e.calls + 1}"
    return _set(post, a.execution, calls=e.calls + 1, attempts=e.attempts[:-1] + (Attempt(fresh, RUNNING),))


def _keep_interrupted(pre: State, a: Answer, post: State) -> State:
    call = _asked(pre, a)
    before = _trail(pre, a.execution, call)
    return _attempts(post, a.execution, call, before + _trail(post, a.execution, call)[len(before):])


def _superseded_left_interrupted(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the new attempt is recorded but the superseded one is never closed.
    return _keep_interrupted(pre, a, post) if a.approve else post


def _decline_leaves_interrupted(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # The superseded attempt is cancelled only on approve; a decline leaves it interrupted (A-G1).
    return post if a.approve else _keep_interrupted(pre, a, post)


def _decline_reissues_call(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline re-fires the consumer like an approval: the declined call runs as a new attempt.
    if a.approve:
        return post
    e = find_execution(post, a.execution)
    return _set(post, a.execution, attempts=e.attempts + (Attempt(_asked(pre, a), RUNNING),))


# ---------------------------------------------------------------------------------------------
# Failures and the verdict (G6.6-G6.8, E9.1, E9.5, G5.2)


def _tool_failure_unhandled(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A tool failure is counted towards the run's unhandled failures.
    return _set(post, a.execution, unhandled=find_execution(post, a.execution).unhandled + 1)


def _tool_failure_recorded_cancelled(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A failed tool call is recorded cancelled rather than as a (handled) failure.
    return _relabel(post, a.execution, a.call, FAILED, CANCELLED)


def _tool_failure_recorded_completed(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A failed tool call is recorded completed with an error output (ERR-1 read for tools, A-G4 (iii)).
    return _relabel(post, a.execution, a.call, FAILED, COMPLETED)


def _tool_failure_fails_run(b: Bounds, pre: State, a: FinishSegment, post: State) -> State:
    # The verdict fails a run with any failed attempt, routed or not (ERR-8 read literally, A-G4).
    e = find_execution(post, a.execution)
    if a.write_ok and e.status == COMPLETED and any(t.status == FAILED for t in e.attempts):
        return _set(post, a.execution, status=FAILED)
    return post


def _decline_fails_run(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline fails the whole run instead of handing the consumer a denial to carry on with.
    return post if a.approve else with_segment(_set(post, a.execution, status=FAILED), a.execution, None)


def _decline_stalls(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline marks the run running but never re-fires the consumer: no segment carries on.
    return post if a.approve else with_segment(post, a.execution, None)


# ---------------------------------------------------------------------------------------------
# Questions (G6.9)


def _question_per_observation(b: Bounds, pre: State, a: ObserveAgain, post: State) -> State:
    # Every observation of the same interrupt raises a fresh question (which inherits the count of
    # observations, so the observation bound still ends the search).
    e = find_execution(post, a.execution)
    last = e.questions[-1]
    return _set(post, a.execution, questions=e.questions + (Question(last.call, PENDING, last.observations),))


def _question_per_gated_call(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Every call of the pausing segment's batch is gated and asked about: one question per fresh
    # call of the segment, the interrupting one last (A-G7).
    e, segment = find_execution(post, a.execution), find_segment(pre, a.execution)
    others = [f"c{i}" for i in range(e.calls - segment.calls + 1, e.calls + 1) if f"c{i}" != a.call]
    extra = tuple(Question(c, PENDING) for c in others)
    return _set(post, a.execution, questions=e.questions[:-1] + extra + e.questions[-1:])


def _answer_leaves_question_pending(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # The run resumes but the answered question record is never closed: it stays pending.
    e = find_execution(post, a.execution)
    return _set(post, a.execution, questions=e.questions[:-1] + (e.questions[-1]._replace(status=PENDING),))


# ---------------------------------------------------------------------------------------------

_TWO_SESSIONS = Bounds(sessions=2, calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0)
_TWO_TURNS = Bounds(turns=2, calls=2, per_call=1, artifacts=2, pauses=1, write_failures=0, observations=0)
_ROOMY_HELD = Bounds(artifacts=2, held_bound=2)  # room to hold two, so order shows without drops

M = Mutant
MUTANTS: tuple[Mutant, ...] = (
    # the write-back
    M("take_keeps_held", ("T7.7",), "a successful write-back reads the held list without clearing it",
      "write_back_delivers", 7, _on(FinishSegment, _take_keeps_held)),
    M("write_back_skips_held", ("T7.4", "T7.6"), "the write-back delivers only the segment's own artifacts; "
      "the held list is never taken", "write_back_delivers", 7, _on(FinishSegment, _write_back_skips_held)),
    M("held_merged_after", ("T7.5",), "the write-back appends the held list after the resumed segment's artifacts",
      "merge_order", 8, _on(FinishSegment, _held_merged_after)),
    M("held_on_separate_message", ("T7.6",), "held artifacts are delivered on a message of their own, "
      "not merged into the resumed turn's message", "write_back_delivers", 8,
      _on(FinishSegment, _held_on_separate_message)),
    M("resume_reemits_artifacts", ("T7.8",), "on approve, calls that already ran re-emit their results with "
      "their artifacts, collected again: double delivery in one message (A-T12, RT-TOOL-9)",
      "no_double_delivery", 8, _on(Answer, _resume_reemits_artifacts)),
    # a failed write-back
    M("no_put_back", ("T7.10", "T7.12"), "a failed write-back does not put back what it took",
      "failed_write_back_restores", 7, _on(FinishSegment, _no_put_back)),
    M("read_then_clear_take", ("T7.7", "T7.8"), "the take only reads and clears after a successful write; a "
      "failure puts back in front of the uncleared list, so the held artifacts are delivered twice",
      "no_double_delivery", 8, _on(FinishSegment, _read_then_clear_take)),
    M("report_before_put_back", ("T7.11", "T7.10"), "a failed write-back reports while what it took is only in "
      "the segment's memory; it is put back with the retry", "failed_write_back_restores", 7,
      _on(FinishSegment, _report_before_put_back)),
    M("failure_not_reported", ("T7.11",), "a failed write-back puts back and retries but never reports the failure",
      "failed_write_back_restores", 2, _on(FinishSegment, _failure_not_reported)),
    M("failed_write_lands", ("T7.8", "T7.12"), "a write reported failed was persisted (lost acknowledgement); "
      "the put-back makes the retry deliver the same artifacts again (A-T14)", "no_double_delivery", 5,
      _on(FinishSegment, _failed_write_lands)),
    M("failed_write_back_releases_collected", ("T7.12",), "a failed write-back puts back what it took but the "
      "segment releases what it collected itself (A-T4, letter)", "no_loss", 4,
      _on(FinishSegment, _failed_write_back_releases_collected)),
    M("put_back_by_assignment", ("T7.10",), "the put-back assigns the taken list instead of prepending it (A-T5)",
      None, None, _on(FinishSegment, _put_back_by_assignment), equivalent=True,
      reason="take, write and put-back are one atomic step (A-T6), so nothing is added to the held list "
      "between the take and the put-back: assigning and prepending coincide"),
    # the hold at a pause
    M("drop_oldest", ("T7.14",), "an overflowing held list drops its oldest entries, not its newest",
      "drops_newest_with_warning", 5, _on(ToolInterrupts, _drop_oldest)),
    M("drop_all_on_overflow", ("T7.14",), "an overflowing pause drops everything it brought in, not only the "
      "excess over the bound", "drops_newest_with_warning", 5, _on(ToolInterrupts, _drop_all_on_overflow)),
    M("drop_without_warning", ("T7.15",), "an overflowing held list drops the newest entries silently",
      "no_loss", 5, _on(ToolInterrupts, _drop_without_warning)),
    M("unbounded_held", ("T7.13",), "the held list has no bound", "held_bounded", 5,
      _on(ToolInterrupts, _unbounded_held)),
    M("repause_holds_only_new", ("T7.9",), "a resume that pauses again holds only its own segment's artifacts",
      "repause_holds_everything", 8, _on(ToolInterrupts, _repause_holds_only_new)),
    M("repause_prepends_new", ("T7.9", "T7.5"), "a re-pause holds the new segment's artifacts before the old "
      "held list (A-T15)", "merge_order", 11, _on(ToolInterrupts, _repause_prepends_new), bounds=_ROOMY_HELD),
    M("pause_discards_collected", ("T7.1",), "a pause discards what its segment collected",
      "no_loss", 5, _on(ToolInterrupts, _pause_discards_collected)),
    M("pause_writes_interim_message", ("T7.1", "T7.9"), "the pausing segment writes an interim message with what "
      "it would hold, so nothing is held for the resume (A-T11, reading A)", "repause_holds_everything", 5,
      _on(ToolInterrupts, _pause_writes_interim_message)),
    M("poll_delivers_held", ("T7.3", "T7.4"), "a poll of the paused turn delivers its held artifacts on a "
      "message of their own", "messages_only_from_write_back", 6, _on(Poll, _poll_delivers_held)),
    M("poll_shows_held", ("T7.3",), "a poll of the paused turn shows its held artifacts",
      "held_hidden", 5, show=_poll_shows_held),
    M("held_keyed_per_workflow", ("T7.2", "T7.4"), "the held list is one record per workflow, shared by every "
      "session's execution and re-homed to whichever paused last", "isolation", 8,
      _on(ToolInterrupts, _held_keyed_per_workflow), bounds=_TWO_SESSIONS),
    M("held_keyed_per_session", ("T7.2",), "the held list is keyed by the session, not the execution (A-T1)",
      None, None, _on(ToolInterrupts, _held_keyed_per_session), bounds=_TWO_TURNS, equivalent=True,
      reason="a session runs one turn at a time and a turn ends only by a successful write-back, which "
      "empties its held list; so a session's list never holds two turns' artifacts"),
    # the attempt trail
    M("interrupt_recorded_failed", ("G6.1", "G6.2"), "an interrupt escaping a tool records the attempt as failed",
      "interrupted_not_failed", 3, _on(ToolInterrupts, _interrupt_recorded_failed)),
    M("interrupt_closes_attempt", ("G6.1",), "an interrupt closes the attempt as cancelled at the pause "
      "instead of recording it interrupted", "interrupted_not_failed", 3,
      _on(ToolInterrupts, _interrupt_closes_attempt)),
    M("resume_flips_attempt", ("G6.3", "G6.4"), "a resume flips the interrupted attempt back to running "
      "instead of adding a new one", "resume_supersedes", 4, _on(Answer, _resume_flips_attempt)),
    M("resume_as_fresh_call", ("G6.3",), "on approve the consumer re-issues the call under a fresh call id",
      "resume_supersedes", 4, _on(Answer, _resume_as_fresh_call)),
    M("superseded_left_interrupted", ("G6.4", "G6.5"), "on approve the new attempt is recorded but the "
      "superseded one is left interrupted, holding the finished run paused", "no_phantom_pause", 6,
      _on(Answer, _superseded_left_interrupted)),
    M("decline_leaves_interrupted", ("G6.4", "G6.5"), "the superseded attempt is cancelled only on approve; a "
      "decline leaves it interrupted (A-G1)", "no_phantom_pause", 5, _on(Answer, _decline_leaves_interrupted)),
    M("decline_reissues_call", ("G6.3",), "a decline re-fires the consumer like an approval: the declined call "
      "runs as a new attempt (G5.1)", "resume_supersedes", 4, _on(Answer, _decline_reissues_call)),
    # failures and the verdict
    M("tool_failure_unhandled", ("G6.6", "G6.8", "E9.5"), "a tool failure counts towards the run's unhandled failures",
      "tool_failures_handled", 3, _on(ToolFails, _tool_failure_unhandled)),
    M("tool_failure_recorded_cancelled", ("G6.6",), "a failed tool call is recorded cancelled, not as a handled "
      "failure", "failure_recorded_failed", 3, _on(ToolFails, _tool_failure_recorded_cancelled)),
    M("tool_failure_recorded_completed", ("G6.6",), "a failed tool call is recorded completed with an error "
      "output (A-G4 (iii)): the trail hides the failure", "failure_recorded_failed", 3,
      _on(ToolFails, _tool_failure_recorded_completed)),
    M("tool_failure_fails_run", ("G6.7", "E9.5"), "the verdict fails a run with any failed attempt, as if a tool "
      "failure were unrouted (ERR-8 read literally, A-G4)", "handled_run_completes", 4,
      _on(FinishSegment, _tool_failure_fails_run)),
    M("decline_fails_run", ("G5.2",), "a decline fails the run instead of handing the consumer a denial",
      "handled_run_completes", 4, _on(Answer, _decline_fails_run)),
    M("decline_stalls", ("G5.2",), "a decline marks the run running but never re-fires the consumer",
      DEADLOCK, 4, _on(Answer, _decline_stalls)),
    # questions
    M("question_per_observation", ("G6.9",), "each observation of the same interrupt raises another question",
      "one_question_per_pause", 4, _on(ObserveAgain, _question_per_observation)),
    M("question_per_gated_call", ("G6.9",), "a pause raises a question for every call of the segment's batch (A-G7)",
      "one_question_per_pause", 5, _on(ToolInterrupts, _question_per_gated_call)),
    M("answer_leaves_question_pending", ("G6.9",), "the run resumes but the answered question stays pending",
      "no_phantom_pause", 4, _on(Answer, _answer_leaves_question_pending)),
)
del M


def mutant_named(name: str) -> Mutant:
    """The mutant with this name (KeyError if none)."""
    for m in MUTANTS:
        if m.name == name:
            return m
    raise KeyError(name)

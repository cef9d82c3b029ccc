"""Deviations: what a mutant runtime does instead of a default rule, one pure function each.

Each takes (bounds, pre-state, action, default post-state) and returns the deviant post-state; `on`
makes one into a `Patch` that deviates on a single action kind. The catalogue that names them, with
the clauses they break and what must catch them, is `checks/mutants.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pausecheck.model import Bounds, Patch
from pausecheck.model.actions import (
    Answer,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    WriteMessage,
)
from pausecheck.model.rules import hold
from pausecheck.model.state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    FAILED,
    INTERRUPTED,
    PENDING,
    PUT_BACK,
    RUNNING,
    Attempt,
    Question,
    Segment,
    State,
    Warning,
    find_execution,
    find_segment,
    with_execution,
    with_segment,
)


def on(kind: type, deviate: Callable[[Bounds, State, Any, State], State]) -> Patch:
    """A patch that deviates on one action kind and leaves every other step alone."""
    def patch(bounds: Bounds, pre: State, action: Any, post: State) -> State:
        return deviate(bounds, pre, action, post) if type(action) is kind else post
    patch.__name__ = deviate.__name__
    return patch


def both(*patches: Patch) -> Patch:
    """A patch that applies each of `patches` in turn (each deviates on its own action kind)."""
    def patch(bounds: Bounds, pre: State, action: Any, post: State) -> State:
        for p in patches:
            post = p(bounds, pre, action, post)
        return post
    patch.__name__ = "_and_".join(p.__name__ for p in patches)
    return patch


def _question(state: State, a: Answer) -> Question:
    """The question an answer names (a settled stand-in if the execution has none by that number)."""
    found = (q for q in find_execution(state, a.execution).questions if q.id == a.question)
    return next(found, Question("", DECLINED, 0, a.question))


def answering(deviate: Callable[[Bounds, State, Answer, State], State]) -> Patch:
    """A patch on answers to the pending question only (a late answer to a settled one is left alone)."""
    def patch(bounds: Bounds, pre: State, action: Any, post: State) -> State:
        if type(action) is Answer and _question(pre, action).status == PENDING:
            return deviate(bounds, pre, action, post)
        return post
    patch.__name__ = deviate.__name__
    return patch


def _set(state: State, execution_id: str, **fields: Any) -> State:
    return with_execution(state, find_execution(state, execution_id)._replace(**fields))


def _held(state: State, execution_id: str) -> tuple[int, ...]:
    return find_execution(state, execution_id).held


def _collected(state: State, execution_id: str) -> tuple[int, ...]:
    segment = find_segment(state, execution_id)
    return segment.collected if segment is not None else ()


def _taken(state: State, execution_id: str) -> tuple[int, ...]:
    segment = find_segment(state, execution_id)
    return segment.taken if segment is not None else ()


def _segment(state: State, execution_id: str, **fields: Any) -> State:
    return with_segment(state, execution_id, find_segment(state, execution_id)._replace(**fields))


def _last_message(post: State, eid: str, *messages: tuple[int, ...]) -> State:
    """The post-state with the message just written replaced by `messages`."""
    e = find_execution(post, eid)
    return _set(post, eid, messages=e.messages[:-1] + messages)


def _rehold(post: State, pre: State, eid: str, kept: tuple[int, ...], dropped: tuple[int, ...]) -> State:
    """The pause's post-state with a deviant held list and one warning per deviant drop."""
    post = _set(post, eid, held=kept)
    return post._replace(warnings=pre.warnings + tuple(Warning(eid, r) for r in dropped))


# ---------------------------------------------------------------------------------------------
# The write-back: take, merge, deliver (T7.4-T7.8)


def take_keeps_held(b: Bounds, pre: State, a: StartWriteBack, post: State) -> State:
    # The write-back copies the held list instead of taking it: the list is never cleared.
    return _set(post, a.execution, held=_held(pre, a.execution))


def write_back_skips_held(b: Bounds, pre: State, a: StartWriteBack, post: State) -> State:
    # The write-back takes nothing: it writes only what the segment collected; the held list is stranded.
    return _segment(_set(post, a.execution, held=_held(pre, a.execution)), a.execution, taken=())


def held_merged_after(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # The merge appends what was taken after the resumed segment's own artifacts.
    return _last_message(post, a.execution, _collected(pre, a.execution) + _taken(pre, a.execution)) if a.ok else post


def held_on_separate_message(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # What was taken goes out on a message of its own, before the one with the segment's artifacts.
    taken, collected = _taken(pre, a.execution), _collected(pre, a.execution)
    if not a.ok or not taken or not collected:
        return post
    return _last_message(post, a.execution, taken, collected)


def resume_reemits_artifacts(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the batch is re-sent; calls that already ran re-emit their stored results with
    # their artifacts, which the resumed segment collects again (A-T12).
    if not a.approve:
        return post
    again = tuple(r for r, origin in enumerate(post.artifacts, 1) if origin.execution == a.execution)
    return _segment(post, a.execution, collected=again)


# ---------------------------------------------------------------------------------------------
# A failed write-back: write nothing, put back, then report (T7.10-T7.12)


def no_put_back(b: Bounds, pre: State, a: PutBack, post: State) -> State:
    # The put-back forgets what the write-back took: it is gone.
    return _set(post, a.execution, held=_held(pre, a.execution))


def put_back_by_assignment(b: Bounds, pre: State, a: PutBack, post: State) -> State:
    # The put-back assigns the taken list to the held list instead of prepending it (A-T5).
    return _set(post, a.execution, held=_taken(pre, a.execution))


def clear_after_write(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # With a take that only reads, a successful write clears the held list afterwards.
    return _set(post, a.execution, held=()) if a.ok else post


def report_before_put_back(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # The failure goes straight to reporting while what was taken stays in the segment's memory.
    return post if a.ok else _segment(post, a.execution, phase=PUT_BACK)


def retry_takes_from_memory(b: Bounds, pre: State, a: StartWriteBack, post: State) -> State:
    # ... and the retry takes what it still had in memory together with the held list.
    return _segment(post, a.execution, taken=_taken(pre, a.execution) + _taken(post, a.execution))


def failure_not_reported(b: Bounds, pre: State, a: ReportFailure, post: State) -> State:
    # The write-back puts back and retries silently: the failure is never reported on the run.
    return _set(post, a.execution, write_failures=find_execution(pre, a.execution).write_failures)


def failed_write_lands(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # The write is persisted but its acknowledgement is lost: reported failed and put back, yet
    # the message exists, so the retry delivers the same artifacts again (A-T14).
    if a.ok:
        return post
    e = find_execution(post, a.execution)
    return _set(post, a.execution, messages=e.messages + (_taken(pre, a.execution) + _collected(pre, a.execution),))


def failed_write_back_releases_collected(b: Bounds, pre: State, a: ReportFailure, post: State) -> State:
    # Only the taken list is put back; the segment releases what it collected (A-T4, letter).
    return _segment(post, a.execution, collected=())


def put_back_merged_bounded(b: Bounds, pre: State, a: PutBack, post: State) -> State:
    # The put-back holds the merged list (what was taken and what the segment collected, A-T4 reading
    # B) and applies the held bound to it, dropping the newest with warnings (A-T9).
    kept, dropped = hold(_taken(pre, a.execution) + _collected(pre, a.execution), _held(pre, a.execution),
                         b.held_bound)
    post = _segment(_set(post, a.execution, held=kept), a.execution, collected=())
    return post._replace(warnings=post.warnings + tuple(Warning(a.execution, r) for r in dropped))


# ---------------------------------------------------------------------------------------------
# The hold at a pause: hold everything, bounded, newest dropped with a warning (T7.1, T7.9, T7.13-15)


def drop_oldest(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow keeps the newest entries and drops the oldest.
    merged = _held(pre, a.execution) + _collected(pre, a.execution)
    cut = max(len(merged) - b.held_bound, 0)
    return _rehold(post, pre, a.execution, merged[cut:], merged[:cut])


def drop_all_on_overflow(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow drops everything the pause brought in, not just what exceeds the bound (with warnings).
    held, collected = _held(pre, a.execution), _collected(pre, a.execution)
    if len(held) + len(collected) <= b.held_bound:
        return post
    return _rehold(post, pre, a.execution, held[:b.held_bound], held[b.held_bound:] + collected)


def drop_without_warning(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Overflow drops the newest entries silently.
    return post._replace(warnings=pre.warnings)


def unbounded_held(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The held list has no bound at all.
    return _rehold(post, pre, a.execution, _held(pre, a.execution) + _collected(pre, a.execution), ())


def repause_holds_only_new(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # A re-pause overwrites the held list with the new segment's artifacts.
    kept, dropped = hold((), _collected(pre, a.execution), b.held_bound)
    return _rehold(post, pre, a.execution, kept, dropped)


def repause_prepends_new(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # A re-pause puts the new segment's artifacts in front of the old held list (A-T15).
    kept, dropped = hold(_collected(pre, a.execution), _held(pre, a.execution), b.held_bound)
    return _rehold(post, pre, a.execution, kept, dropped)


def pause_discards_collected(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The pause discards what the segment collected (only an older held list survives).
    return _rehold(post, pre, a.execution, _held(pre, a.execution), ())


def pause_writes_interim_message(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
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


held_keyed_per_workflow = _shared_hold(lambda e, me: True)
held_keyed_per_workflow.__name__ = "held_keyed_per_workflow"
held_keyed_per_session = _shared_hold(lambda e, me: e.session == me.session)
held_keyed_per_session.__name__ = "held_keyed_per_session"


def poll_delivers_held(b: Bounds, pre: State, a: Poll, post: State) -> State:
    # A poll of a paused turn "helpfully" delivers its held artifacts on a message of their own.
    e = find_execution(post, a.execution)
    if not e.held:
        return post
    return _set(post, a.execution, held=(), messages=e.messages + (e.held,))


def poll_shows_held(state: State) -> tuple:
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


def failures_relabelled_on_resume(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # Resuming "cleans up" the trail: every failed attempt of the execution is relabelled completed.
    e = find_execution(post, a.execution)
    attempts = tuple(Attempt(t.call, COMPLETED) if t.status == FAILED else t for t in e.attempts)
    return _set(post, a.execution, attempts=attempts)


def interrupt_recorded_failed(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The interrupt escapes the tool invocation as an exception and is recorded failed.
    return _relabel(post, a.execution, a.call, INTERRUPTED, FAILED)


def interrupt_keeps_running(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The interrupt is recorded and asked about, but the run's status stays running (O11.2 skipped).
    return _set(post, a.execution, status=RUNNING)


def interrupt_closes_attempt(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # The interrupt ends the attempt: it is closed as cancelled at the pause, never interrupted.
    return _relabel(post, a.execution, a.call, INTERRUPTED, CANCELLED)


def _asked(pre: State, a: Answer) -> str:
    return _question(pre, a).call


def resume_flips_attempt(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the same interrupted record is flipped back to running: no new attempt.
    if not a.approve:
        return post
    call = _asked(pre, a)
    e = find_execution(post, a.execution)
    post = _set(post, a.execution, attempts=e.attempts[:-1])  # drop the new attempt
    return _relabel(post, a.execution, call, CANCELLED, RUNNING)


def resume_as_fresh_call(b: Bounds, pre: State, a: Answer, post: State) -> State:
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


def superseded_left_interrupted(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # On approve the new attempt is recorded but the superseded one is never closed.
    return _keep_interrupted(pre, a, post) if a.approve else post


def decline_leaves_interrupted(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # The superseded attempt is cancelled only on approve; a decline leaves it interrupted (A-G1).
    return post if a.approve else _keep_interrupted(pre, a, post)


def decline_reissues_call(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline re-fires the consumer like an approval: the declined call runs as a new attempt.
    if a.approve:
        return post
    e = find_execution(post, a.execution)
    return _set(post, a.execution, attempts=e.attempts + (Attempt(_asked(pre, a), RUNNING),))


# ---------------------------------------------------------------------------------------------
# Failures and the verdict (G6.6-G6.8, E9.1, E9.5, G5.2)


def tool_failure_unhandled(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A tool failure is counted towards the run's unhandled failures.
    return _set(post, a.execution, unhandled=find_execution(post, a.execution).unhandled + 1)


def tool_failure_recorded_cancelled(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A failed tool call is recorded cancelled rather than as a (handled) failure.
    return _relabel(post, a.execution, a.call, FAILED, CANCELLED)


def tool_failure_recorded_completed(b: Bounds, pre: State, a: ToolFails, post: State) -> State:
    # A failed tool call is recorded completed with an error output (ERR-1 read for tools, A-G4 (iii)).
    return _relabel(post, a.execution, a.call, FAILED, COMPLETED)


def tool_failure_fails_run(b: Bounds, pre: State, a: WriteMessage, post: State) -> State:
    # The verdict fails a run with any failed attempt, routed or not (ERR-8 read literally, A-G4).
    e = find_execution(post, a.execution)
    if a.ok and e.status == COMPLETED and any(t.status == FAILED for t in e.attempts):
        return _set(post, a.execution, status=FAILED)
    return post


def unrouted_failure_handled(b: Bounds, pre: State, a: NodeFails, post: State) -> State:
    # A node failure without an error edge is treated as handled: it never counts (O11.1 ignored).
    return post if a.routed else _set(post, a.execution, unhandled=find_execution(pre, a.execution).unhandled)


def routed_failure_counted(b: Bounds, pre: State, a: NodeFails, post: State) -> State:
    # A node failure routed along its error edge still counts as unhandled (E9.1 ignored).
    return _set(post, a.execution, unhandled=find_execution(pre, a.execution).unhandled + 1) if a.routed else post


def failed_run_strands_held(b: Bounds, pre: State, a: StartWriteBack, post: State) -> State:
    # A run headed for failure (an unhandled failure) ends without taking its held list: the held
    # artifacts are stranded on a finished run (A-T8 for failed runs).
    if a.final and find_execution(pre, a.execution).unhandled:
        return write_back_skips_held(b, pre, a, post)
    return post


def stale_answer_overrides(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A late answer to a question already settled overwrites the recorded answer (a second tab wins).
    question = _question(pre, a)
    if question.status == PENDING:
        return post
    e = find_execution(post, a.execution)
    verdict = APPROVED if a.approve else DECLINED
    return _set(post, a.execution, questions=tuple(q._replace(status=verdict) if q.id == a.question else q
                                                  for q in e.questions))


def decline_fails_run(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline fails the whole run instead of handing the consumer a denial to carry on with.
    return post if a.approve else with_segment(_set(post, a.execution, status=FAILED), a.execution, None)


def decline_stalls(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # A decline marks the run running but never re-fires the consumer: no segment carries on.
    return post if a.approve else with_segment(post, a.execution, None)


# ---------------------------------------------------------------------------------------------
# Questions (G6.9)


def question_per_observation(b: Bounds, pre: State, a: ObserveAgain, post: State) -> State:
    # Every observation of the same interrupt raises a fresh question (which inherits the count of
    # observations, so the observation bound still ends the search).
    e = find_execution(post, a.execution)
    last = e.questions[-1]
    fresh = Question(last.call, PENDING, last.observations, len(e.questions) + 1)
    return _set(post, a.execution, questions=e.questions + (fresh,))


def observation_reraises_question(b: Bounds, pre: State, a: ObserveAgain, post: State) -> State:
    # Each observation withdraws the pending question and raises a fresh one in its place (a new
    # interrupt identity, say to refresh its expiry: A-G8); the count of questions stays one.
    e = find_execution(post, a.execution)
    last = e.questions[-1]
    return _set(post, a.execution, questions=e.questions[:-1] + (last._replace(id=last.id + 1),))


def question_per_gated_call(b: Bounds, pre: State, a: ToolInterrupts, post: State) -> State:
    # Every call of the pausing segment's batch is gated and asked about: one question per fresh
    # call of the segment, the interrupting one last (A-G7).
    e, segment = find_execution(post, a.execution), find_segment(pre, a.execution)
    others = [f"c{i}" for i in range(e.calls - segment.calls + 1, e.calls + 1) if f"c{i}" != a.call]
    extra = tuple(Question(c, PENDING, 0, n) for n, c in enumerate(others, len(e.questions) + 1))
    return _set(post, a.execution, questions=e.questions[:-1] + extra + e.questions[-1:])


def answer_leaves_question_pending(b: Bounds, pre: State, a: Answer, post: State) -> State:
    # The run resumes but the answered question record is never closed: it stays pending.
    e = find_execution(post, a.execution)
    return _set(post, a.execution, questions=tuple(q._replace(status=PENDING) if q.id == a.question else q
                                                  for q in e.questions))


# ---------------------------------------------------------------------------------------------
# Behaviour removed or added


def declines(b: Bounds, pre: State, a: Any) -> bool:
    # Withheld: every decline.
    return type(a) is Answer and not a.approve


def failing_writes(b: Bounds, pre: State, a: Any) -> bool:
    # Withheld: every failing write of an assistant message.
    return type(a) is WriteMessage and not a.ok


def resume_without_answer(b: Bounds, pre: State) -> Iterator[tuple[Answer, State]]:
    # Added: a paused run resumes by itself (its answer names no question, q0) and re-fires nothing;
    # the pending question is left as it was. Only before the run wrote a message, so that the run,
    # which the ladder pauses again at its end, cannot loop writing messages.
    for e in pre.executions:
        if e.status == "paused" and not e.messages:
            post = with_segment(_set(pre, e.id, status=RUNNING), e.id, Segment(e.id, 0, ()))
            yield Answer(e.id, 0, True), post


# =============================================================================================
# The same deviations as edits of the rule table (`model/deviate.py`): every engine runs them.

from pausecheck.model.deviate import After, Also, Drop, Effect, First, Only, Reads, Replace, deviate  # noqa: E402
from pausecheck.model.deviate import on as in_rule  # noqa: E402
from pausecheck.model.lang import B, End, Let, Rule, When, call_id, ite, lift, minimum, new, span, var  # noqa: E402
from pausecheck.model.lang import Set as SetTo  # noqa: E402
from pausecheck.model.rules import (  # noqa: E402
    EXECUTIONS,
    S,
    approve,
    close_superseded,
    e,
    final,
    g,
    merged,
    message,
    moved,
    ok,
    q,
    reissue,
    run,
    warned,
)
from pausecheck.model.state import INTERRUPTED as _INTERRUPTED  # noqa: E402
from pausecheck.model.state import PAUSED as _PAUSED  # noqa: E402
from pausecheck.model.state import Execution as _Execution  # noqa: E402

_m = merged.ref  # what a pause holds: the held list, then what the segment collected
_call = var("call", str)  # the call the answered question asked about

# The write-back: take, merge, deliver (T7.4-T7.8)
TAKE_KEEPS_HELD = deviate(in_rule(StartWriteBack, Drop(e.held)))
WRITE_BACK_SKIPS_HELD = deviate(in_rule(StartWriteBack, Drop(e.held), Replace(g.taken, ())))
HELD_MERGED_AFTER = deviate(in_rule(WriteMessage, Replace(message, g.collected + g.taken)))
HELD_ON_SEPARATE_MESSAGE = deviate(in_rule(WriteMessage, Replace(
    e.messages, e.messages.append(g.taken).append(g.collected), when=(g.taken.size > 0) & (g.collected.size > 0))))
_again = span(1, S.artifacts.size + 1).filter(lambda r: S.artifacts.at(r - 1).execution == e.id)
RESUME_REEMITS_ARTIFACTS = deviate(in_rule(Answer, Replace(
    S.segments, lambda old: old.update_where(lambda y: y.execution == e.id, lambda y: y.but(collected=_again)),
    when=approve.ref)))

# A failed write-back: write nothing, put back, then report (T7.10-T7.12)
NO_PUT_BACK = deviate(in_rule(PutBack, Drop(e.held)))
READ_THEN_CLEAR_TAKE = deviate(in_rule(StartWriteBack, Drop(e.held)),
                               in_rule(WriteMessage, Also(When(ok.ref, (SetTo(e.held, ()),)))))
REPORT_BEFORE_PUT_BACK = deviate(in_rule(WriteMessage, Replace(g.phase, PUT_BACK, when=~ok.ref)),
                                 in_rule(StartWriteBack, Replace(g.taken, lambda old: g.taken + old)))
FAILURE_NOT_REPORTED = deviate(in_rule(ReportFailure, Drop(e.write_failures)))
FAILED_WRITE_LANDS = deviate(in_rule(WriteMessage, Reads("A-T14", "ambiguous")))
FAILED_WRITE_BACK_RELEASES_COLLECTED = deviate(in_rule(ReportFailure, Reads("A-T4", "release")))
PUT_BACK_BY_ASSIGNMENT = deviate(in_rule(PutBack, Reads("A-T5", "assign")))
PUT_BACK_MERGED_BOUNDED = deviate(in_rule(PutBack, Reads("A-T4", "merge"), Reads("A-T9", "put-back")))

# The hold at a pause (T7.1, T7.9, T7.13-T7.15)
_cut = _m.size - minimum(_m.size, B.held_bound)  # how far the held list overflows
DROP_OLDEST = deviate(in_rule(ToolInterrupts, Replace("dropped", _m.prefix(_cut)), Replace(e.held, _m.suffix(_cut))))
_overflows = B.held_bound < _m.size
DROP_ALL_ON_OVERFLOW = deviate(in_rule(
    ToolInterrupts, Replace("dropped", e.held.suffix(B.held_bound) + g.collected, when=_overflows),
    Replace(e.held, e.held.prefix(B.held_bound), when=_overflows)))
DROP_WITHOUT_WARNING = deviate(in_rule(ToolInterrupts, Drop(S.warnings)))
UNBOUNDED_HELD = deviate(in_rule(ToolInterrupts, Replace("dropped", ()), Replace(e.held, _m)))
REPAUSE_HOLDS_ONLY_NEW = deviate(in_rule(ToolInterrupts, Replace("merged", g.collected)))
REPAUSE_PREPENDS_NEW = deviate(in_rule(ToolInterrupts, Reads("A-T15", "new-first")))
PAUSE_DISCARDS_COLLECTED = deviate(in_rule(ToolInterrupts, Drop(e.held), Drop(S.warnings)))
PAUSE_WRITES_INTERIM_MESSAGE = deviate(in_rule(
    ToolInterrupts, Replace(e.held, ()), Drop(S.warnings), Also(SetTo(e.messages, e.messages.append(_m)))))
POLL_DELIVERS_HELD = deviate(in_rule(Poll, Also(When(e.held.size > 0, (
    SetTo(e.messages, e.messages.append(e.held)), SetTo(e.held, ()))))))


def _pooled_hold(shares: Callable[[Any], Any]) -> tuple[Rule, ...]:
    """A pause that holds into one list shared by every execution x with `shares(x)` (its own included):
    the pooled refs, oldest first, then what the segment collected, bounded; the list lives with the
    execution that paused last, the others' emptied. The rule language lets an effect edit its own
    execution or the state's list of executions, not both, so the pause is restated on the list."""
    pooled = span(1, S.artifacts.size + 1).filter(
        lambda r: S.executions.any_of(lambda x: shares(x) & x.held.contains(r)))
    paused = e.but(held=_m.prefix(B.held_bound), attempts=moved(e.attempts, run.call, RUNNING, _INTERRUPTED),
                   status=_PAUSED, questions=e.questions.append(new(Question, run.call, PENDING, 0,
                                                                    e.questions.size + 1)))
    return deviate(in_rule(ToolInterrupts, Effect(
        Let("merged", pooled + g.collected),
        Let("dropped", _m.suffix(B.held_bound)),
        Let("paused", paused),
        SetTo(S.executions, S.executions.map(lambda x: ite(x.id == e.id, var("paused", _Execution),
                                                             ite(shares(x), x.but(held=()), x)))),
        warned(e.id, var("dropped", _m.t)),
        End(),
    )))


HELD_KEYED_PER_WORKFLOW = _pooled_hold(lambda x: x.id == x.id)
HELD_KEYED_PER_SESSION = _pooled_hold(lambda x: x.session == e.session)

# The attempt trail (G6.1-G6.5)
INTERRUPT_RECORDED_FAILED = deviate(in_rule(ToolInterrupts, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, FAILED))))
INTERRUPT_KEEPS_RUNNING = deviate(in_rule(ToolInterrupts, Replace(e.status, RUNNING)))
INTERRUPT_CLOSES_ATTEMPT = deviate(in_rule(ToolInterrupts, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, CANCELLED))))
_flipped = e.attempts.update_where(lambda a: (a.call == _call) & (a.status == INTERRUPTED),
                                   lambda a: a.but(status=RUNNING))
RESUME_FLIPS_ATTEMPT = deviate(in_rule(Answer, Replace(close_superseded, SetTo(e.attempts, _flipped), when=approve.ref),
                                       Drop(reissue)))
RESUME_AS_FRESH_CALL = deviate(in_rule(Answer, Replace(reissue, When(approve.ref, (
    SetTo(e.attempts, e.attempts.append(new(Attempt, call_id(e.calls + 1), RUNNING))),
    SetTo(e.calls, e.calls + 1))))))
SUPERSEDED_LEFT_INTERRUPTED = deviate(in_rule(Answer, Drop(close_superseded, when=approve.ref)))
DECLINE_LEAVES_INTERRUPTED = deviate(in_rule(Answer, Reads("A-G1", "leave")))
DECLINE_REISSUES_CALL = deviate(in_rule(Answer, Replace(reissue, reissue.then)))

# Failures and the verdict (G6.6-G6.8, E9.1, E9.5, G5.2)
TOOL_FAILURE_UNHANDLED = deviate(in_rule(ToolFails, Reads("A-G4", "failed-unmarked")))
TOOL_FAILURE_RECORDED_CANCELLED = deviate(in_rule(ToolFails, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, CANCELLED))))
TOOL_FAILURE_RECORDED_COMPLETED = deviate(in_rule(ToolFails, Reads("A-G4", "completed-with-error")))
FAILURES_RELABELLED_ON_RESUME = deviate(in_rule(Answer, After(reissue, SetTo(e.attempts, e.attempts.update_where(
    lambda a: a.status == FAILED, lambda a: a.but(status=COMPLETED))))))
_any_failed = e.attempts.any_of(lambda a: a.status == FAILED)
TOOL_FAILURE_FAILS_RUN = deviate(in_rule(WriteMessage, Replace(
    e.status, lambda old: ite((old == COMPLETED) & _any_failed, FAILED, old))))
UNROUTED_FAILURE_HANDLED = deviate(in_rule(NodeFails, Drop(e.unhandled)))
ROUTED_FAILURE_COUNTED = deviate(in_rule(NodeFails, Replace(e.unhandled, e.unhandled + 1)))
_stranding = final.ref & (e.unhandled > 0)
FAILED_RUN_STRANDS_HELD = deviate(in_rule(StartWriteBack, Drop(e.held, when=_stranding),
                                          Replace(g.taken, (), when=_stranding)))
STALE_ANSWER_OVERRIDES = deviate(in_rule(Answer, First(When(q.status != PENDING, (
    SetTo(e.questions, e.questions.set_last(q.but(status=ite(approve.ref, APPROVED, DECLINED)))),)))))
DECLINE_FAILS_RUN = deviate(in_rule(Answer, Replace(e.status, FAILED, when=~approve.ref),
                                    Drop(S.segments, when=~approve.ref)))
DECLINE_STALLS = deviate(in_rule(Answer, Drop(S.segments, when=~approve.ref)))

# Questions (G6.9)
QUESTION_PER_OBSERVATION = deviate(in_rule(ObserveAgain, Also(SetTo(e.questions, e.questions.append(
    new(Question, q.call, PENDING, q.observations, e.questions.size + 1))))))
OBSERVATION_RERAISES_QUESTION = deviate(in_rule(ObserveAgain, Also(SetTo(
    e.questions, e.questions.set_last(q.but(id=q.id + 1))))))
_batch = span(e.calls - g.calls + 1, e.calls + 1).filter(lambda n: call_id(n) != run.call)  # the segment's other calls
QUESTION_PER_GATED_CALL = deviate(in_rule(ToolInterrupts, Replace(e.questions, _batch.fold(
    e.questions, lambda qs, n: qs.append(new(Question, call_id(n), PENDING, 0, qs.size + 2))).append(
    new(Question, run.call, PENDING, 0, e.questions.size + 1)))))
ANSWER_LEAVES_QUESTION_PENDING = deviate(in_rule(Answer, Drop(e.questions)))

# Behaviour removed or added
DECLINE_NOT_OFFERED = deviate(in_rule(Answer, Only(approve.ref)))
WRITE_NEVER_FAILS = deviate(in_rule(WriteMessage, Only(ok.ref)))
# A paused run resumes by itself (its answer names no question, q0) and re-fires nothing; the pending
# question is left as it was. Only before the run wrote a message, so that the run, which the ladder
# pauses again at its end, cannot loop writing messages.
RESUME_ALONE = Rule(
    Answer, EXECUTIONS,
    guard=(e.status == _PAUSED, e.messages.size == 0),
    fields=(e.id, lift(0), lift(True)),
    effect=(SetTo(e.status, RUNNING), SetTo(S.segments, S.segments.insert(new(Segment, e.id, 0, ())))),
    clauses=(), doc="a paused run resumes by itself, its question left pending")
RESUME_WITHOUT_ANSWER = deviate(add=(RESUME_ALONE,))

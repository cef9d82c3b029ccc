"""The rules as they were hand-written before the rule table became data (`model/rules.py`): kept
here, in the tests only, as an independent reference for the successors derived from the table
(`tests/test_successors.py`) until the z3 relation derived from the same table is cross-checked
against them (issue 24); then this file goes.

Each `Rule` pairs a guard, written as a generator of the enabled actions of its kind, with a pure
effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pausecheck.model.actions import (
    Action,
    Answer,
    CallTool,
    ClearHeld,
    CloseSuperseded,
    Crash,
    Expire,
    LoseRace,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    ResumeAgain,
    StartTurn,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)
from pausecheck.model.config import Bounds
from pausecheck.model.reading import Reading
from pausecheck.model.state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    EXPIRED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    PUT_BACK,
    READ,
    RUNNING,
    TAKEN,
    WORKING,
    WRITE_FAILED,
    WRITTEN,
    Artifact,
    Attempt,
    Execution,
    Question,
    Segment,
    State,
    Warning,
    base_id,
    find_execution,
    find_segment,
    with_execution,
    with_segment,
)

__all__ = ["Rule", "RULES", "generic_successors"]

Guard = Callable[[Bounds, Reading, State], Iterator[Action]]
Effect = Callable[[Bounds, Reading, State, Action], State]


@dataclass(frozen=True, slots=True)
class Rule:
    """One action kind: the clauses it enacts, its guard (enabled actions) and its effect."""

    action: type
    clauses: tuple[str, ...]
    guard: Guard
    effect: Effect
    doc: str


# ---------------------------------------------------------------------------------------------
# Shared pieces


def hold(held: tuple[int, ...], incoming: tuple[int, ...], bound: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Append `incoming` to a held list in arrival order, keep at most `bound`, drop the newest.

    Returns (kept, dropped). T7.9 (holds everything), T7.13 (bounded), T7.14 (newest dropped).
    """
    merged = held + incoming
    return merged[:bound], merged[bound:]


def verdict(execution: Execution) -> str:
    """The ORC-11 ladder at the end of a segment: failed, else paused on an interrupt, else completed.

    O11.1 (an unhandled failure fails the run), O11.2 (an interrupted attempt pauses it: this is how
    a phantom interrupt "holds a finished run paused", G6.5), O11.4 (completed). O11.3 (ready work)
    never applies: a segment finishes only when it has no running attempt.
    """
    if execution.unhandled > 0:
        return FAILED
    if any(a.status == INTERRUPTED for a in execution.attempts):
        return PAUSED
    return COMPLETED


def running_attempt(execution: Execution) -> Attempt | None:
    """The attempt currently running in this execution, if any (calls run one at a time)."""
    for attempt in execution.attempts:
        if attempt.status == RUNNING:
            return attempt
    return None


def _with_attempt(execution: Execution, call: str, old: str, new: str) -> Execution:
    """The execution with the latest attempt of `call` moved from status `old` to `new`.

    Total on purpose: where no such attempt exists (only a mutant's deviant state has none), the
    execution is returned unchanged, so that a deviation shows up as a broken property, not a crash.
    """
    attempts = list(execution.attempts)
    for i in range(len(attempts) - 1, -1, -1):
        if attempts[i].call == call and attempts[i].status == old:
            attempts[i] = Attempt(call, new)
            return execution._replace(attempts=tuple(attempts))
    return execution


def _live(state: State) -> Iterator[tuple[Execution, Segment]]:
    """Each segment in flight, with its execution (a racing resume's segment `e1'` with `e1`)."""
    for segment in state.segments:
        yield find_execution(state, segment.execution), segment


def _racing(segment: Segment) -> bool:
    """Is this the segment of a racing second resume (A-T7)? It only writes back, calling no tool."""
    return segment.execution.endswith("'")


def _tooling(state: State) -> Iterator[tuple[Execution, Segment]]:
    """Each segment that runs the execution's tool calls (a racing resume's does not; one whose resume is
    not complete, A-G3, does nothing before closing the superseded attempt), with its execution."""
    for execution, segment in _live(state):
        if not _racing(segment) and not segment.closing:
            yield execution, segment


def _working(state: State) -> Iterator[tuple[Execution, Segment]]:
    """Each segment that may do work (no write-back in progress, none failed to retry), with its execution."""
    for execution, segment in _tooling(state):
        if segment.phase == WORKING and not segment.write_failed:
            yield execution, segment


def _at(state: State, *phases: str) -> Iterator[Segment]:
    """Each segment whose write-back stands at one of `phases`."""
    for segment in state.segments:
        if segment.phase in phases:
            yield segment


def _asking(state: State) -> Iterator[Execution]:
    """Each execution paused on a pending question."""
    for execution in state.executions:
        if execution.status == PAUSED and execution.questions and execution.questions[-1].status == PENDING:
            yield execution


def _split_take(reading: Reading) -> bool:
    """Does this reading read the held list first and clear it in a later step (A-T6, A-T7)?"""
    return reading.value("A-T6") == "write-first" or reading.value("A-T7") == "racy-read-then-clear"


def _cancel_interrupted(execution: Execution, call: str, every: bool) -> Execution:
    """The execution with the interrupted attempt(s) of `call` closed as cancelled: the latest, or `every` one."""
    if not every:
        return _with_attempt(execution, call, INTERRUPTED, CANCELLED)
    return execution._replace(attempts=tuple(Attempt(a.call, CANCELLED) if a.call == call and
                                                    a.status == INTERRUPTED else a for a in execution.attempts))


# ---------------------------------------------------------------------------------------------
# Start a turn: a session runs one turn at a time; each turn launches one execution. With the
# new-turn fault a caller may start a turn while its previous one is paused, instead of answering
# (INT-13, INT-14: this is not a resumption; the paused execution stays paused and answerable).


def _start_turn_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for session in range(1, bounds.sessions + 1):
        own = [e for e in state.executions if e.session == session]
        if all(e.status in FINISHED for e in own):
            if len(own) - state.new_turns.count(session) < bounds.turns:
                yield StartTurn(session)
        elif len(state.new_turns) < bounds.new_turns and own[-1].status == PAUSED:
            yield StartTurn(session)  # a new turn instead of an answer: it counts against new_turns


def _start_turn(bounds: Bounds, reading: Reading, state: State, action: StartTurn) -> State:
    if any(e.session == action.session and e.status not in FINISHED for e in state.executions):
        state = state._replace(new_turns=state.new_turns + (action.session,))
    new_id = f"e{len(state.executions) + 1}"
    execution = Execution(new_id, action.session, RUNNING, 0, (), (), (), (), 0, 0)
    state = state._replace(executions=state.executions + (execution,))
    return with_segment(state, new_id, Segment(new_id, 0, ()))


# ---------------------------------------------------------------------------------------------
# Call a tool: a fresh call, its first attempt running.


def _call_tool_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution, segment in _working(state):
        if segment.calls < bounds.calls and running_attempt(execution) is None:
            yield CallTool(segment.execution)


def _call_tool(bounds: Bounds, reading: Reading, state: State, action: CallTool) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    call = f"c{execution.calls + 1}"
    execution = execution._replace(calls=execution.calls + 1, attempts=execution.attempts + (Attempt(call, RUNNING),))
    state = with_execution(state, execution)
    return with_segment(state, action.execution, segment._replace(calls=segment.calls + 1))


# ---------------------------------------------------------------------------------------------
# A tool returns with artifacts: collected by the segment in arrival order (T6.2).


def _tool_returns_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    room = min(bounds.per_call, bounds.artifacts - len(state.artifacts))
    for execution, segment in _tooling(state):
        attempt = running_attempt(execution)
        if attempt is not None:
            for count in range(room + 1):
                yield ToolReturns(segment.execution, attempt.call, count)


def _tool_returns(bounds: Bounds, reading: Reading, state: State, action: ToolReturns) -> State:
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, COMPLETED)
    segment = find_segment(state, action.execution)
    first = len(state.artifacts) + 1
    refs = tuple(range(first, first + action.artifacts))
    origin = Artifact(execution.id, action.call if reading.value("A-T12") == "with-artifacts" else "")
    state = state._replace(artifacts=state.artifacts + (origin,) * action.artifacts)
    state = with_execution(state, execution)
    return with_segment(state, action.execution, segment._replace(collected=segment.collected + refs))


# ---------------------------------------------------------------------------------------------
# A tool fails: recorded failed, handled by construction, never counted unhandled (G6.6-G6.8, E9.5).
# A-G4 "failed-unmarked" counts it unhandled (ERR-8 read literally); "completed-with-error" records
# it completed (ERR-1).


def _tool_fails_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution, segment in _tooling(state):
        attempt = running_attempt(execution)
        if attempt is not None:
            yield ToolFails(segment.execution, attempt.call)


def _tool_fails(bounds: Bounds, reading: Reading, state: State, action: ToolFails) -> State:
    # The consumer receives a recoverable error result and carries on; a failed call carries no
    # artifacts (T2.6); the unhandled-failure count is left alone (E9.5, G6.8).
    recorded = reading.value("A-G4")
    status = COMPLETED if recorded == "completed-with-error" else FAILED
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, status)
    if recorded == "failed-unmarked":
        execution = execution._replace(unhandled=execution.unhandled + 1)
    return with_execution(state, execution)


# ---------------------------------------------------------------------------------------------
# A tool interrupts: the attempt is interrupted, one question is raised, the run pauses and what the
# segment collected is held (G6.1, G6.2, G6.9, T7.1, T7.2, T7.9, T7.13-T7.15, O11.2).


def _tool_interrupts_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution, segment in _tooling(state):
        attempt = running_attempt(execution)
        if attempt is None or len(execution.questions) >= bounds.pauses:
            continue
        # The gate applies only to a first execution (G1.3): a resumed attempt cannot ask again.
        if sum(1 for a in execution.attempts if a.call == attempt.call) == 1:
            yield ToolInterrupts(segment.execution, attempt.call)


def _tool_interrupts(bounds: Bounds, reading: Reading, state: State, action: ToolInterrupts) -> State:
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, INTERRUPTED)
    segment = find_segment(state, action.execution)
    if reading.value("A-T15") == "new-first":  # the new segment's artifacts before the old held list
        kept, dropped = hold(segment.collected, execution.held, bounds.held_bound)
    else:
        kept, dropped = hold(execution.held, segment.collected, bounds.held_bound)
    if execution.held and reading.value("A-T9") == "first-hold":  # a re-pause's merge is not bounded
        kept, dropped = kept + dropped, ()
    execution = execution._replace(
        status=PAUSED, held=kept,
        questions=execution.questions + (Question(action.call, PENDING, 0, len(execution.questions) + 1),),
    )
    state = with_execution(state, execution)
    state = state._replace(warnings=state.warnings + tuple(Warning(execution.id, r) for r in dropped))
    return with_segment(state, action.execution, None)


# ---------------------------------------------------------------------------------------------
# The same interrupt observed again: no new question (G6.9).


def _observe_again_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution in state.executions:
        if execution.status == PAUSED and execution.questions:
            question = execution.questions[-1]
            if question.status == PENDING and question.observations < bounds.observations:
                yield ObserveAgain(execution.id)


def _observe_again(bounds: Bounds, reading: Reading, state: State, action: ObserveAgain) -> State:
    execution = find_execution(state, action.execution)
    question = execution.questions[-1]
    question = question._replace(observations=question.observations + 1)
    return with_execution(state, execution._replace(questions=execution.questions[:-1] + (question,)))


# ---------------------------------------------------------------------------------------------
# Poll: a caller reads a live turn; nothing changes (what it sees is `observe`, T7.3).


def _poll_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution in state.executions:
        if execution.status not in FINISHED:
            yield Poll(execution.id)


def _poll(bounds: Bounds, reading: Reading, state: State, action: Poll) -> State:
    return state


# ---------------------------------------------------------------------------------------------
# Answer: the question is settled, the superseded attempt is closed as cancelled, an approved call
# records a new attempt, and the execution resumes in a new segment (G6.3, G6.4, G5.1-G5.6, A-G1).


def _answer_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution in state.executions:
        if execution.status in FINISHED or not execution.questions:
            continue
        question = execution.questions[-1]
        if question.status == PENDING:
            if execution.status == PAUSED:
                yield Answer(execution.id, question.id, False)
                yield Answer(execution.id, question.id, True)
        else:  # a second tab answers the latest question again, the other way: it comes too late
            yield Answer(execution.id, question.id, question.status != APPROVED)


def _answer(bounds: Bounds, reading: Reading, state: State, action: Answer) -> State:
    execution = find_execution(state, action.execution)
    question = next(q for q in execution.questions if q.id == action.question)
    if question.status != PENDING:
        return state  # an answer to a question no longer pending changes nothing (INT-19, G6.9)
    settled = question._replace(status=APPROVED if action.approve else DECLINED)
    every = reading.value("A-G9") == "close-all"
    closing = ""
    if action.approve and reading.value("A-G3") == "new-first":
        closing = question.call  # closed by a later step (CloseSuperseded)
    elif action.approve or reading.value("A-G1") == "cancel":  # A-G1 "leave": a decline closes nothing
        execution = _cancel_interrupted(execution, question.call, every)
    if action.approve:
        # The consumer is re-fired and re-issues the same call: a new attempt of its own (G6.3).
        execution = execution._replace(attempts=execution.attempts + (Attempt(question.call, RUNNING),))
    questions = tuple(settled if q.id == question.id else q for q in execution.questions)
    execution = execution._replace(status=RUNNING, questions=questions)
    state = with_execution(state, execution)
    return with_segment(state, execution.id, Segment(execution.id, 0, _reemitted(reading, state, execution),
                                                     closing=closing))


def _reemitted(reading: Reading, state: State, execution: Execution) -> tuple[int, ...]:
    """What a resumed segment collects at once: nothing, or (A-T12 "with-artifacts") the artifacts of the
    calls the execution already ran, carried again by their re-emitted stored results."""
    if reading.value("A-T12") != "with-artifacts":
        return ()
    done = {a.call for a in execution.attempts if a.status == COMPLETED}
    return tuple(r for r, a in enumerate(state.artifacts, 1) if a.execution == execution.id and a.call in done)


def _close_superseded_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for segment in state.segments:
        if segment.closing:
            yield CloseSuperseded(segment.execution)


def _close_superseded(bounds: Bounds, reading: Reading, state: State, action: CloseSuperseded) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    execution = _cancel_interrupted(execution, segment.closing, reading.value("A-G9") == "close-all")
    return with_segment(with_execution(state, execution), action.execution, segment._replace(closing=""))


# ---------------------------------------------------------------------------------------------
# A graph-node unit fails: along an error edge it is handled; without one it counts towards the
# run's unhandled failures, which fail the run at its end (E9.1, O11.1).


def _node_fails_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    if sum(len(e.node_failures) for e in state.executions) >= bounds.node_failures:
        return
    for execution, segment in _working(state):
        if running_attempt(execution) is None:
            yield NodeFails(segment.execution, False)
            yield NodeFails(segment.execution, True)


def _node_fails(bounds: Bounds, reading: Reading, state: State, action: NodeFails) -> State:
    execution = find_execution(state, action.execution)
    execution = execution._replace(node_failures=execution.node_failures + (action.routed,),
                                   unhandled=execution.unhandled + (0 if action.routed else 1))
    return with_execution(state, execution)


# ---------------------------------------------------------------------------------------------
# The write-back, step by step (T7.4-T7.12): take the held list; write the assistant message (taken
# ++ collected) or fail; on failure put back what was taken, then report. A final write-back ends
# the segment and the ORC-11 ladder decides the status; an interim one lets the segment carry on.
# Where a reading splits the take (A-T6 write-first, A-T7 read-then-clear), the held list is first
# read, and a ClearHeld step removes what was read, after the write or before it.


def _start_write_back_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for execution, segment in _live(state):
        if segment.phase != WORKING or segment.closing or (running_attempt(execution) and not _racing(segment)):
            continue
        if segment.write_failed:
            yield StartWriteBack(segment.execution, segment.final)  # a retry of the same write-back
            continue
        if len(execution.messages) < bounds.interim_writes:
            yield StartWriteBack(segment.execution, False)
        yield StartWriteBack(segment.execution, True)


def _start_write_back(bounds: Bounds, reading: Reading, state: State, action: StartWriteBack) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    if not action.final and reading.value("A-T11") == "hold":  # reading B: an interim message takes nothing
        return with_segment(state, action.execution, segment._replace(phase=TAKEN, taken=(), final=False))
    if reading.value("A-T1") == "turn" and any(q.status != PENDING for q in execution.questions):
        # The answer arrived as a new turn: nothing is held under it; the paused turn's list stays.
        return with_segment(state, action.execution, segment._replace(phase=TAKEN, taken=(), final=action.final))
    if _split_take(reading):  # read now, clear later: what the segment has in hand is a copy
        return with_segment(state, action.execution,
                            segment._replace(phase=READ, taken=execution.held, final=action.final))
    state = with_execution(state, execution._replace(held=()))  # taking is destructive (T7.7)
    return with_segment(state, action.execution,
                        segment._replace(phase=TAKEN, taken=execution.held, final=action.final))


def _write_message_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    phase = READ if reading.value("A-T6") == "write-first" else TAKEN
    for segment in state.segments:
        if segment.phase == phase or (phase == READ and segment.phase == TAKEN):
            if state.write_failures < bounds.write_failures:
                yield WriteMessage(segment.execution, False)
            yield WriteMessage(segment.execution, True)


def _write_message(bounds: Bounds, reading: Reading, state: State, action: WriteMessage) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    message = segment.taken + segment.collected
    if not action.ok:
        state = state._replace(write_failures=state.write_failures + 1)
        if reading.value("A-T14") == "ambiguous":  # stored after all; only the acknowledgement was lost
            state = with_execution(state, execution._replace(messages=execution.messages + (message,)))
        # Write-first: the held list was never cleared, so nothing is in hand to put back.
        taken = () if segment.phase == READ else segment.taken
        return with_segment(state, action.execution, segment._replace(phase=WRITE_FAILED, taken=taken))
    if reading.value("A-T9") == "merge":  # the delivered merge is bounded too: the newest are dropped
        message, dropped = message[:bounds.held_bound], message[bounds.held_bound:]
        state = state._replace(warnings=state.warnings + tuple(Warning(execution.id, r) for r in dropped))
    execution = execution._replace(messages=execution.messages + (message,))
    if segment.phase == READ:  # write-first: the held list is cleared by a later step
        return with_segment(with_execution(state, execution), action.execution, segment._replace(phase=WRITTEN))
    return _finish_write(state, execution, action.execution, segment)


def _finish_write(state: State, execution: Execution, key: str, segment: Segment) -> State:
    """After the message is written: an interim write-back lets the segment carry on with nothing in
    hand; a final one ends the segment, and the ORC-11 ladder decides the execution's status."""
    if not segment.final:
        state = with_execution(state, execution)
        return with_segment(state, key, segment._replace(phase=WORKING, taken=(), collected=(), write_failed=False))
    if not any(base_id(s.execution) == execution.id and s.execution != key for s in state.segments):
        execution = execution._replace(status=verdict(execution))  # its last segment ends: the ladder decides
    return with_segment(with_execution(state, execution), key, None)


def _clear_held_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    write_first = reading.value("A-T6") == "write-first"
    for segment in _at(state, WRITTEN if write_first else READ):
        yield ClearHeld(segment.execution)


def _clear_held(bounds: Bounds, reading: Reading, state: State, action: ClearHeld) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    execution = execution._replace(held=tuple(r for r in execution.held if r not in segment.taken))
    if segment.phase == WRITTEN:
        return _finish_write(state, execution, action.execution, segment)
    return with_segment(with_execution(state, execution), action.execution, segment._replace(phase=TAKEN))


def _put_back_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for segment in _at(state, WRITE_FAILED):
        yield PutBack(segment.execution)


def _put_back(bounds: Bounds, reading: Reading, state: State, action: PutBack) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    returned, collected = segment.taken, segment.collected
    if reading.value("A-T4") == "merge":  # the merged list goes back; the segment keeps nothing
        returned, collected = returned + collected, ()
    held = {"prepend": returned + execution.held, "append": execution.held + returned,
            "assign": returned}[reading.value("A-T5")]
    dropped: tuple[int, ...] = ()
    if reading.value("A-T9") == "put-back":
        held, dropped = held[:bounds.held_bound], held[bounds.held_bound:]
    state = with_execution(state, execution._replace(held=held))
    state = state._replace(warnings=state.warnings + tuple(Warning(execution.id, r) for r in dropped))
    return with_segment(state, action.execution, segment._replace(phase=PUT_BACK, taken=(), collected=collected))


def _report_failure_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    for segment in _at(state, PUT_BACK):
        yield ReportFailure(segment.execution)


def _report_failure(bounds: Bounds, reading: Reading, state: State, action: ReportFailure) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    state = with_execution(state, execution._replace(write_failures=execution.write_failures + 1))
    # The segment keeps what it collected and does nothing more but retry (A-T4); "release": it lets go.
    collected = () if reading.value("A-T4") == "release" else segment.collected
    return with_segment(state, action.execution,
                        segment._replace(phase=WORKING, write_failed=True, collected=collected))


# ---------------------------------------------------------------------------------------------
# Faults. A crash loses every segment in flight and what it holds in memory; what it collected and
# never held dies with it (T5.8), kept in a ghost list so that no-loss can tell it from a loss of a
# held artifact. A-T6 decides what becomes of a take in flight. Each running execution restarts in a
# fresh segment that has issued the calls its run records show; its running attempt stays running
# (the recovered run waits for it again).


def _crash_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    # A crash falls between two steps of a write-back or of an answer: where a segment's write-back is
    # under way (or failed, to be retried), or its resume is not yet complete. Elsewhere a crash only
    # loses what a segment collected and never held, which RT-TOOL-7 does not protect (T5.8).
    if state.crashes < bounds.crashes and any(s.phase != WORKING or s.write_failed or s.closing
                                              for s in state.segments):
        yield Crash()


def _crash(bounds: Bounds, reading: Reading, state: State, action: Crash) -> State:
    executions = {e.id: e for e in state.executions}
    crashed = state.crashed
    for segment in state.segments:
        execution = executions[base_id(segment.execution)]
        if segment.phase != WRITTEN:  # a written message already carries what the segment collected
            crashed += segment.collected
        if segment.phase in (TAKEN, WRITE_FAILED) and reading.value("A-T6") == "atomic":
            executions[execution.id] = execution._replace(held=segment.taken + execution.held)  # rolled back
    # The recovered pass knows from the run's job records which fresh calls it issued already.
    issued = {base_id(s.execution): s.calls for s in state.segments}
    restarted = tuple(Segment(e.id, issued.get(e.id, 0), ()) for e in state.executions
                      if executions[e.id].status == RUNNING)
    return state._replace(executions=tuple(executions[e.id] for e in state.executions), segments=restarted,
                          crashes=state.crashes + 1, crashed=crashed)


# Expiry (I18.1, G1.8): the pending question expires and the paused execution is cancelled; A-T8
# decides what becomes of what it holds, A-G11 whether its interrupted attempt is cancelled too.


def _expire_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    if sum(1 for e in state.executions if e.status == CANCELLED) < bounds.expiries:
        yield from (Expire(execution.id) for execution in _asking(state))


def _expire(bounds: Bounds, reading: Reading, state: State, action: Expire) -> State:
    execution = find_execution(state, action.execution)
    question = execution.questions[-1]
    if reading.value("A-G11") == "cancel":
        execution = _cancel_interrupted(execution, question.call, every=True)
    held, fate = execution.held, reading.value("A-T8")
    if fate == "warn":
        state = state._replace(warnings=state.warnings + tuple(Warning(execution.id, r) for r in held))
    if fate == "deliver" and held:
        execution = execution._replace(messages=execution.messages + (held,))
    execution = execution._replace(status=CANCELLED, held=held if fate == "strand" else (),
                                   questions=execution.questions[:-1] + (question._replace(status=EXPIRED),))
    return with_execution(state, execution)


# A consent race (G2.6, A-G9): a second path reaches the same gated call while its question is
# pending; its own attempt is recorded interrupted and it pauses on the winner's question.


def _lose_race_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    if state.races >= bounds.races:
        return
    for execution in _asking(state):
        call = execution.questions[-1].call
        if sum(1 for a in execution.attempts if a.call == call and a.status == INTERRUPTED) == 1:
            yield LoseRace(execution.id)


def _lose_race(bounds: Bounds, reading: Reading, state: State, action: LoseRace) -> State:
    execution = find_execution(state, action.execution)
    call = execution.questions[-1].call
    state = with_execution(state, execution._replace(attempts=execution.attempts + (Attempt(call, INTERRUPTED),)))
    return state._replace(races=state.races + 1)


# A second tab's approval (A-T7): where checking and resuming are not atomic, an approval that saw the
# run paused resumes it again, beside the first resume, while that one has done nothing yet: a second
# segment `e1'` of the same execution. The model keeps the race to what RT-TOOL-7 governs: the second
# segment runs no tool (the call executes once, RT-TOOL-9) and only writes back its reply.


def _resume_again_guard(bounds: Bounds, reading: Reading, state: State) -> Iterator[Action]:
    if reading.value("A-T7") == "atomic" or state.races >= bounds.races:
        return
    for execution, segment in _live(state):
        question = execution.questions[-1] if execution.questions else None
        if (segment.execution == execution.id and question is not None and question.status == APPROVED
                and segment.phase == WORKING and not segment.calls and not segment.collected
                and find_segment(state, execution.id + "'") is None
                and [a.status for a in execution.attempts if a.call == question.call][-2:] == [CANCELLED, RUNNING]):
            yield ResumeAgain(execution.id, question.id)


def _resume_again(bounds: Bounds, reading: Reading, state: State, action: ResumeAgain) -> State:
    state = state._replace(races=state.races + 1)
    return with_segment(state, action.execution + "'", Segment(action.execution + "'", 0, ()))


# ---------------------------------------------------------------------------------------------

RULES: tuple[Rule, ...] = (
    Rule(StartTurn, (), _start_turn_guard, _start_turn,
         "a session with no live turn starts one; it launches an execution and its first segment"),
    Rule(CallTool, (), _call_tool_guard, _call_tool,
         "the consumer issues a fresh call; its first attempt runs"),
    Rule(ToolReturns, (), _tool_returns_guard, _tool_returns,
         "the attempt completes; its artifacts are collected by the segment in arrival order"),
    Rule(ToolFails, ("G6.6", "G6.7", "G6.8", "E9.5"), _tool_fails_guard, _tool_fails,
         "the attempt is recorded failed, handled: the unhandled count is untouched"),
    Rule(ToolInterrupts, ("G6.1", "G6.2", "G6.9", "T7.1", "T7.2", "T7.9", "T7.13", "T7.14", "T7.15", "O11.2"),
         _tool_interrupts_guard, _tool_interrupts,
         "the attempt is interrupted, one question raised, the run pauses, its artifacts held"),
    Rule(ObserveAgain, ("G6.9",), _observe_again_guard, _observe_again,
         "the same interrupt is seen again: no new question"),
    Rule(Poll, ("T7.3",), _poll_guard, _poll, "a caller reads the live turn; nothing changes"),
    Rule(Answer, ("G6.3", "G6.4", "G5.2", "G6.9"), _answer_guard, _answer,
         "the pending question is settled, the superseded attempt cancelled, the run resumes; an answer to a "
         "question no longer pending changes nothing"),
    Rule(NodeFails, ("E9.1", "O11.1"), _node_fails_guard, _node_fails,
         "a graph node fails: handled along an error edge, else counted unhandled"),
    Rule(StartWriteBack, ("T7.4", "T7.7"), _start_write_back_guard, _start_write_back,
         "the write-back takes the held list"),
    Rule(WriteMessage, ("T7.5", "T7.6", "T7.8", "O11.1", "O11.4", "G6.5"), _write_message_guard, _write_message,
         "the message carries taken ++ collected; a final one ends the segment, the ladder decides the status"),
    Rule(PutBack, ("T7.10", "T7.12"), _put_back_guard, _put_back,
         "a failed write-back puts what it took back in front of the held list"),
    Rule(ReportFailure, ("T7.11",), _report_failure_guard, _report_failure,
         "then it reports the failure; the segment only retries"),
    Rule(ClearHeld, ("T7.7",), _clear_held_guard, _clear_held,
         "where the take is split (A-T6 write-first, A-T7 read-then-clear), what was read leaves the held list"),
    Rule(CloseSuperseded, ("G6.4",), _close_superseded_guard, _close_superseded,
         "where the resume is split (A-G3 new-first), the superseded attempt is closed as cancelled"),
    Rule(Crash, ("T7.1",), _crash_guard, _crash,
         "fault: segments in flight are lost, durable records survive, running executions restart"),
    Rule(Expire, (), _expire_guard, _expire,
         "fault: a pending question expires and its paused execution is cancelled"),
    Rule(LoseRace, (), _lose_race_guard, _lose_race,
         "fault: a second path pauses on the same pending question; its attempt is interrupted"),
    Rule(ResumeAgain, (), _resume_again_guard, _resume_again,
         "fault: a second tab's approval resumes the run again, where check and resume are not atomic"),
)
RULE_OF: dict[type, Rule] = {rule.action: rule for rule in RULES}


def generic_successors(bounds: Bounds, reading: Reading, state: State) -> list[tuple[Action, State]]:
    """Every enabled action with its successor, rule by rule, in the table's order."""
    return [(action, rule.effect(bounds, reading, state, action))
            for rule in RULES for action in rule.guard(bounds, reading, state)]

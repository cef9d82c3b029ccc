"""The transition rules, clause by clause: for each action kind, when it is enabled and what it does.

Each `Rule` pairs a guard, written as a generator of the enabled actions of its kind, with a pure
effect. `step` and `enabled` are the only entry points; both are deterministic and never mutate.
The rules are the default (conformant) ones; mutants in `checks/` deviate from them from outside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .actions import (
    Action,
    Answer,
    CallTool,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    StartTurn,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)
from .config import Bounds
from .reading import Reading
from .state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    PUT_BACK,
    RUNNING,
    TAKEN,
    WORKING,
    WRITE_FAILED,
    Artifact,
    Attempt,
    Execution,
    Question,
    Segment,
    State,
    Warning,
    find_execution,
    find_segment,
    with_execution,
    with_segment,
)

__all__ = ["Rule", "RULES", "RULE_OF", "enabled", "step", "hold", "verdict", "running_attempt", "clauses_of"]

Guard = Callable[[Bounds, State], Iterator[Action]]
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
    """Each execution with a segment in flight, with that segment."""
    for segment in state.segments:
        yield find_execution(state, segment.execution), segment


def _working(state: State) -> Iterator[tuple[Execution, Segment]]:
    """Each execution whose segment may do work: no write-back in progress, none failed to retry."""
    for execution, segment in _live(state):
        if segment.phase == WORKING and not segment.write_failed:
            yield execution, segment


def _at(state: State, phase: str) -> Iterator[Execution]:
    """Each execution whose segment's write-back stands at `phase`."""
    for execution, segment in _live(state):
        if segment.phase == phase:
            yield execution


# ---------------------------------------------------------------------------------------------
# Start a turn: a session runs one turn at a time; each turn launches one execution.


def _start_turn_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for session in range(1, bounds.sessions + 1):
        own = [e for e in state.executions if e.session == session]
        if len(own) < bounds.turns and all(e.status in FINISHED for e in own):
            yield StartTurn(session)


def _start_turn(bounds: Bounds, reading: Reading, state: State, action: StartTurn) -> State:
    new_id = f"e{len(state.executions) + 1}"
    execution = Execution(new_id, action.session, RUNNING, 0, (), (), (), (), 0, 0)
    state = state._replace(executions=state.executions + (execution,))
    return with_segment(state, new_id, Segment(new_id, 0, ()))


# ---------------------------------------------------------------------------------------------
# Call a tool: a fresh call, its first attempt running.


def _call_tool_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution, segment in _working(state):
        if segment.calls < bounds.calls and running_attempt(execution) is None:
            yield CallTool(execution.id)


def _call_tool(bounds: Bounds, reading: Reading, state: State, action: CallTool) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    call = f"c{execution.calls + 1}"
    execution = execution._replace(calls=execution.calls + 1, attempts=execution.attempts + (Attempt(call, RUNNING),))
    state = with_execution(state, execution)
    return with_segment(state, execution.id, segment._replace(calls=segment.calls + 1))


# ---------------------------------------------------------------------------------------------
# A tool returns with artifacts: collected by the segment in arrival order (T6.2).


def _tool_returns_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    room = min(bounds.per_call, bounds.artifacts - len(state.artifacts))
    for execution, _ in _live(state):
        attempt = running_attempt(execution)
        if attempt is not None:
            for count in range(room + 1):
                yield ToolReturns(execution.id, attempt.call, count)


def _tool_returns(bounds: Bounds, reading: Reading, state: State, action: ToolReturns) -> State:
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, COMPLETED)
    segment = find_segment(state, action.execution)
    first = len(state.artifacts) + 1
    refs = tuple(range(first, first + action.artifacts))
    state = state._replace(artifacts=state.artifacts + (Artifact(execution.id, action.call),) * action.artifacts)
    state = with_execution(state, execution)
    return with_segment(state, execution.id, segment._replace(collected=segment.collected + refs))


# ---------------------------------------------------------------------------------------------
# A tool fails: recorded failed, handled by construction, never counted unhandled (G6.6-G6.8, E9.5).


def _tool_fails_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution, _ in _live(state):
        attempt = running_attempt(execution)
        if attempt is not None:
            yield ToolFails(execution.id, attempt.call)


def _tool_fails(bounds: Bounds, reading: Reading, state: State, action: ToolFails) -> State:
    # The consumer receives a recoverable error result and carries on; a failed call carries no
    # artifacts (T2.6); the unhandled-failure count is left alone (E9.5, G6.8).
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, FAILED)
    return with_execution(state, execution)


# ---------------------------------------------------------------------------------------------
# A tool interrupts: the attempt is interrupted, one question is raised, the run pauses and what the
# segment collected is held (G6.1, G6.2, G6.9, T7.1, T7.2, T7.9, T7.13-T7.15, O11.2).


def _tool_interrupts_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution, _ in _live(state):
        attempt = running_attempt(execution)
        if attempt is None or len(execution.questions) >= bounds.pauses:
            continue
        # The gate applies only to a first execution (G1.3): a resumed attempt cannot ask again.
        if sum(1 for a in execution.attempts if a.call == attempt.call) == 1:
            yield ToolInterrupts(execution.id, attempt.call)


def _tool_interrupts(bounds: Bounds, reading: Reading, state: State, action: ToolInterrupts) -> State:
    execution = _with_attempt(find_execution(state, action.execution), action.call, RUNNING, INTERRUPTED)
    segment = find_segment(state, action.execution)
    if reading.value("A-T15") == "new-first":  # the new segment's artifacts before the old held list
        kept, dropped = hold(segment.collected, execution.held, bounds.held_bound)
    else:
        kept, dropped = hold(execution.held, segment.collected, bounds.held_bound)
    execution = execution._replace(
        status=PAUSED, held=kept,
        questions=execution.questions + (Question(action.call, PENDING, 0, len(execution.questions) + 1),),
    )
    state = with_execution(state, execution)
    state = state._replace(warnings=state.warnings + tuple(Warning(execution.id, r) for r in dropped))
    return with_segment(state, execution.id, None)


# ---------------------------------------------------------------------------------------------
# The same interrupt observed again: no new question (G6.9).


def _observe_again_guard(bounds: Bounds, state: State) -> Iterator[Action]:
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


def _poll_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution in state.executions:
        if execution.status not in FINISHED:
            yield Poll(execution.id)


def _poll(bounds: Bounds, reading: Reading, state: State, action: Poll) -> State:
    return state


# ---------------------------------------------------------------------------------------------
# Answer: the question is settled, the superseded attempt is closed as cancelled, an approved call
# records a new attempt, and the execution resumes in a new segment (G6.3, G6.4, G5.1-G5.6, A-G1).


def _answer_guard(bounds: Bounds, state: State) -> Iterator[Action]:
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
    if action.approve or reading.value("A-G1") == "cancel":  # A-G1 "leave": a decline closes nothing
        execution = _with_attempt(execution, question.call, INTERRUPTED, CANCELLED)
    if action.approve:
        # The consumer is re-fired and re-issues the same call: a new attempt of its own (G6.3).
        execution = execution._replace(attempts=execution.attempts + (Attempt(question.call, RUNNING),))
    questions = tuple(settled if q.id == question.id else q for q in execution.questions)
    execution = execution._replace(status=RUNNING, questions=questions)
    state = with_execution(state, execution)
    return with_segment(state, execution.id, Segment(execution.id, 0, ()))


# ---------------------------------------------------------------------------------------------
# A graph-node unit fails: along an error edge it is handled; without one it counts towards the
# run's unhandled failures, which fail the run at its end (E9.1, O11.1).


def _node_fails_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    if sum(len(e.node_failures) for e in state.executions) >= bounds.node_failures:
        return
    for execution, _ in _working(state):
        if running_attempt(execution) is None:
            yield NodeFails(execution.id, False)
            yield NodeFails(execution.id, True)


def _node_fails(bounds: Bounds, reading: Reading, state: State, action: NodeFails) -> State:
    execution = find_execution(state, action.execution)
    execution = execution._replace(node_failures=execution.node_failures + (action.routed,),
                                   unhandled=execution.unhandled + (0 if action.routed else 1))
    return with_execution(state, execution)


# ---------------------------------------------------------------------------------------------
# The write-back, step by step (T7.4-T7.12): take the held list; write the assistant message (taken
# ++ collected) or fail; on failure put back what was taken, then report. A final write-back ends
# the segment and the ORC-11 ladder decides the status; an interim one lets the segment carry on.


def _start_write_back_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution, segment in _live(state):
        if segment.phase != WORKING or running_attempt(execution) is not None:
            continue
        if segment.write_failed:
            yield StartWriteBack(execution.id, segment.final)  # a retry of the same write-back
            continue
        if len(execution.messages) < bounds.interim_writes:
            yield StartWriteBack(execution.id, False)
        yield StartWriteBack(execution.id, True)


def _start_write_back(bounds: Bounds, reading: Reading, state: State, action: StartWriteBack) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    if not action.final and reading.value("A-T11") == "hold":  # reading B: an interim message takes nothing
        return with_segment(state, execution.id, segment._replace(phase=TAKEN, taken=(), final=False))
    state = with_execution(state, execution._replace(held=()))  # taking is destructive (T7.7)
    return with_segment(state, execution.id,
                        segment._replace(phase=TAKEN, taken=execution.held, final=action.final))


def _write_message_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution in _at(state, TAKEN):
        if state.write_failures < bounds.write_failures:
            yield WriteMessage(execution.id, False)
        yield WriteMessage(execution.id, True)


def _write_message(bounds: Bounds, reading: Reading, state: State, action: WriteMessage) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    if not action.ok:
        state = state._replace(write_failures=state.write_failures + 1)
        return with_segment(state, execution.id, segment._replace(phase=WRITE_FAILED))
    execution = execution._replace(messages=execution.messages + (segment.taken + segment.collected,))
    if not segment.final:  # an interim message: the segment carries on with nothing in hand
        state = with_execution(state, execution)
        return with_segment(state, execution.id, segment._replace(phase=WORKING, taken=(), collected=(),
                                                                  write_failed=False))
    execution = execution._replace(status=verdict(execution))
    return with_segment(with_execution(state, execution), execution.id, None)


def _put_back_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution in _at(state, WRITE_FAILED):
        yield PutBack(execution.id)


def _put_back(bounds: Bounds, reading: Reading, state: State, action: PutBack) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    state = with_execution(state, execution._replace(held=segment.taken + execution.held))  # in front (A-T5)
    return with_segment(state, execution.id, segment._replace(phase=PUT_BACK, taken=()))


def _report_failure_guard(bounds: Bounds, state: State) -> Iterator[Action]:
    for execution in _at(state, PUT_BACK):
        yield ReportFailure(execution.id)


def _report_failure(bounds: Bounds, reading: Reading, state: State, action: ReportFailure) -> State:
    execution = find_execution(state, action.execution)
    segment = find_segment(state, action.execution)
    state = with_execution(state, execution._replace(write_failures=execution.write_failures + 1))
    # The segment keeps what it collected and does nothing more but retry (A-T4).
    return with_segment(state, execution.id, segment._replace(phase=WORKING, write_failed=True))


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
)
RULE_OF: dict[type, Rule] = {rule.action: rule for rule in RULES}


def clauses_of(pre: State, action: Action, post: State) -> tuple[str, ...]:
    """The clauses this particular step enacts: the branch of its rule that was taken.

    Used to explain traces step by step; the rule's `clauses` are the union over its branches.
    """
    match action:
        case ToolInterrupts(execution=eid):
            before = find_execution(pre, eid)
            cites = ["G6.1", "G6.2", "G6.9", "O11.2"]
            segment = find_segment(pre, eid)
            if before.held or (segment is not None and segment.collected):
                cites += ["T7.1", "T7.2"] + (["T7.9"] if before.held else [])
            if len(post.warnings) > len(pre.warnings):
                cites += ["T7.13", "T7.14", "T7.15"]
            return tuple(cites)
        case Answer() if pre == post:
            return ("G6.9",)
        case Answer(approve=True):
            return ("G6.3", "G6.4")
        case Answer(approve=False):
            return ("G6.4", "G5.2")
        case NodeFails(routed=True):
            return ("E9.1",)
        case NodeFails(routed=False):
            return ("O11.1",)
        case WriteMessage(ok=False):
            return ()
        case WriteMessage(execution=eid):
            after = find_execution(post, eid)
            if after.status == RUNNING:  # an interim message
                return ("T7.5", "T7.6", "T7.8")
            ladder = {COMPLETED: "O11.4", FAILED: "O11.1", PAUSED: "O11.2"}[after.status]
            return ("T7.5", "T7.6", "T7.8", ladder)
    return RULE_OF[type(action)].clauses


def enabled(bounds: Bounds, reading: Reading, state: State) -> list[Action]:
    """Every enabled action in canonical order (rule table order, then the guard's order)."""
    actions: list[Action] = []
    for rule in RULES:
        actions.extend(rule.guard(bounds, state))
    return actions


def step(bounds: Bounds, reading: Reading, state: State, action: Action) -> State | None:
    """The successor of `state` under `action`, or None if the action is not enabled there."""
    rule = RULE_OF.get(type(action))
    if rule is None or action not in set(rule.guard(bounds, state)):
        return None
    return rule.effect(bounds, reading, state, action)

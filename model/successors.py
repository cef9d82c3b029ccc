"""The conformant reading's successors in one pass: the rule table, specialised for speed.

`rules.py` is the readable source of truth: one guard and one effect per rule, each guard rescanning
the state. This module computes exactly what `rules.RULES` computes under the conformant reading
(every ambiguity at its default), as `Machine.successors` needs it: every enabled action with its
successor, in the rule table's order. It finds each segment's execution and running attempt once per
state, builds each successor with one constructor per changed record, and reuses action objects.

It is an optimisation only: `tests/test_successors.py` compares it with the rule table on every
reachable state of several bound sets and of every mutant. It applies to any reading that sets no
switch (every value its default). Where a state has a racing segment (A-T7, never under such a
reading) it hands the state to the rule table; the fault rules (crash, expiry, race) are always
taken from the rule table, after the others, as there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import (
    Action,
    Answer,
    CallTool,
    ClearHeld,
    CloseSuperseded,
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
from .rules import RULES, _cancel_interrupted, _with_attempt, verdict
from .state import (
    APPROVED,
    COMPLETED,
    DECLINED,
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
    Artifact,
    Attempt,
    Execution,
    Question,
    Segment,
    State,
    Warning,
    edit_execution,
    edit_segment,
    with_segment,
)

__all__ = ["conformant_successors", "generic_successors"]

Pairs = list[tuple[Action, State]]
FAULT_RULES = tuple(rule for rule in RULES if rule.action.__name__ in ("Crash", "Expire", "LoseRace", "ResumeAgain"))
_FIRST_FAULT = RULES.index(FAULT_RULES[0])
assert RULES[_FIRST_FAULT:] == FAULT_RULES, "the fault rules come last in the rule table"

_ACTIONS: dict[tuple[Any, ...], Action] = {}


def _act(kind: Callable[..., Action], *fields: Any) -> Action:
    """One shared action object per distinct action (they are immutable values)."""
    key = (kind, *fields)
    action = _ACTIONS.get(key)
    if action is None:
        action = _ACTIONS[key] = kind(*fields)
    return action


def generic_successors(bounds: Bounds, reading: Reading, state: State, rules: tuple = RULES) -> Pairs:
    """Every enabled action of these rules with its successor, from the rule table (any state)."""
    return [(action, rule.effect(bounds, reading, state, action))
            for rule in rules for action in rule.guard(bounds, reading, state)]


def _state(s: State, executions: tuple, segments: tuple, warnings: tuple | None = None,
           artifacts: tuple | None = None, write_failures: int | None = None) -> State:
    return State(executions, segments, s.warnings if warnings is None else warnings,
                 s.artifacts if artifacts is None else artifacts,
                 s.write_failures if write_failures is None else write_failures,
                 s.crashes, s.crashed, s.new_turns, s.races)


def conformant_successors(bounds: Bounds, reading: Reading, s: State) -> Pairs:
    """The rule table's successors under a reading that sets no switch, as a list, in the table's order."""
    executions, segments = s.executions, s.segments
    index = {e.id: i for i, e in enumerate(executions)}
    live = []  # (segment position, segment, execution position, execution, first running attempt)
    for j, g in enumerate(segments):
        if g.execution[-1] == "'":  # a racing resume's segment: only the rule table knows it
            return generic_successors(bounds, reading, s)
        i = index[g.execution]
        e = executions[i]
        running = next((a for a in e.attempts if a.status == RUNNING), None)
        live.append((j, g, i, e, running))

    def put(i: int, e: Execution, j: int, g: Segment | None, **fields: Any) -> State:
        """The state with execution i and segment j replaced (g None: the segment ends). Records left
        as they were stay the same objects, so that properties can skip them by identity."""
        segs = segments[:j] + segments[j + 1:] if g is None else segments[:j] + (g,) + segments[j + 1:]
        return _state(s, executions if executions[i] is e else executions[:i] + (e,) + executions[i + 1:], segs,
                      **fields)

    def put_execution(i: int, e: Execution, **fields: Any) -> State:
        return _state(s, executions[:i] + (e,) + executions[i + 1:], segments, **fields)

    out: Pairs = []
    # StartTurn
    for session in range(1, bounds.sessions + 1):
        own = [e for e in executions if e.session == session]
        if all(e.status in FINISHED for e in own):
            if len(own) - s.new_turns.count(session) < bounds.turns:
                out.append((_act(StartTurn, session), _start_turn(s, session)))
        elif len(s.new_turns) < bounds.new_turns and own[-1].status == PAUSED:
            out.append((_act(StartTurn, session), _start_turn(s, session)))
    # CallTool: a working segment with no attempt running issues a fresh call.
    for j, g, i, e, running in live:
        if g.phase == WORKING and not g.write_failed and not g.closing and g.calls < bounds.calls and running is None:
            call = f"c{e.calls + 1}"
            e2 = edit_execution(e, calls=e.calls + 1, attempts=e.attempts + (Attempt(call, RUNNING),))
            out.append((_act(CallTool, g.execution), put(i, e2, j, edit_segment(g, calls=g.calls + 1))))
    # ToolReturns, with 0..room artifacts collected in arrival order.
    room = min(bounds.per_call, bounds.artifacts - len(s.artifacts))
    for j, g, i, e, running in live:
        if running is not None and not g.closing:
            e2 = _with_attempt(e, running.call, RUNNING, COMPLETED)
            first = len(s.artifacts) + 1
            for count in range(room + 1):
                refs = tuple(range(first, first + count))
                post = put(i, e2, j, edit_segment(g, collected=g.collected + refs),
                           artifacts=s.artifacts + (Artifact(e.id, ""),) * count)
                out.append((_act(ToolReturns, g.execution, running.call, count), post))
    # ToolFails: recorded failed, handled.
    for _j, g, i, e, running in live:
        if running is not None and not g.closing:
            out.append((_act(ToolFails, g.execution, running.call),
                        put_execution(i, _with_attempt(e, running.call, RUNNING, FAILED))))
    # ToolInterrupts: a first attempt asks; the run pauses, the segment's artifacts are held.
    for j, g, i, e, running in live:
        if running is None or g.closing or len(e.questions) >= bounds.pauses:
            continue
        if sum(1 for a in e.attempts if a.call == running.call) == 1:
            out.append((_act(ToolInterrupts, g.execution, running.call), _interrupt(bounds, s, put, j, g, i, e,
                                                                                     running.call)))
    # ObserveAgain, Poll, Answer: per execution.
    for i, e in enumerate(executions):
        if e.status == PAUSED and e.questions:
            q = e.questions[-1]
            if q.status == PENDING and q.observations < bounds.observations:
                seen = q._replace(observations=q.observations + 1)
                e2 = edit_execution(e, questions=e.questions[:-1] + (seen,))
                out.append((_act(ObserveAgain, e.id), put_execution(i, e2)))
    for e in executions:
        if e.status not in FINISHED:
            out.append((_act(Poll, e.id), s))
    for i, e in enumerate(executions):
        if e.status in FINISHED or not e.questions:
            continue
        q = e.questions[-1]
        if q.status == PENDING:
            if e.status == PAUSED:
                out.append((_act(Answer, e.id, q.id, False), _answer(s, put_execution, i, e, q, False)))
                out.append((_act(Answer, e.id, q.id, True), _answer(s, put_execution, i, e, q, True)))
        else:  # a late answer: changes nothing
            out.append((_act(Answer, e.id, q.id, q.status != APPROVED), s))
    # NodeFails, while the node-failure bound allows.
    if sum(len(e.node_failures) for e in executions) < bounds.node_failures:
        for _j, g, i, e, running in live:
            if g.phase == WORKING and not g.write_failed and not g.closing and running is None:
                for routed in (False, True):
                    e2 = edit_execution(e, node_failures=e.node_failures + (routed,),
                                        unhandled=e.unhandled + (not routed))
                    out.append((_act(NodeFails, g.execution, routed), put_execution(i, e2)))
    # StartWriteBack: the take empties the held list into the segment's hands.
    for j, g, i, e, running in live:
        if g.phase != WORKING or g.closing or running is not None:
            continue
        interim = len(e.messages) < bounds.interim_writes
        finals = (g.final,) if g.write_failed else ((False, True) if interim else (True,))
        for final in finals:
            out.append((_act(StartWriteBack, g.execution, final),
                        put(i, edit_execution(e, held=()), j, edit_segment(g, phase=TAKEN, taken=e.held, final=final))))
    # WriteMessage: fails (while the bound allows) or delivers taken ++ collected.
    for j, g, i, e, _running in live:
        if g.phase == TAKEN:
            if s.write_failures < bounds.write_failures:
                out.append((_act(WriteMessage, g.execution, False),
                            put(i, e, j, edit_segment(g, phase=WRITE_FAILED), write_failures=s.write_failures + 1)))
            out.append((_act(WriteMessage, g.execution, True), _write(s, put, live, j, g, i, e)))
    # PutBack, ReportFailure, ClearHeld, CloseSuperseded: one step of a write-back or a resume each.
    for j, g, i, e, _running in live:
        if g.phase == WRITE_FAILED:
            out.append((_act(PutBack, g.execution),
                        put(i, edit_execution(e, held=g.taken + e.held), j, edit_segment(g, phase=PUT_BACK, taken=()))))
    for j, g, i, e, _running in live:
        if g.phase == PUT_BACK:
            out.append((_act(ReportFailure, g.execution),
                        put(i, edit_execution(e, write_failures=e.write_failures + 1), j,
                            edit_segment(g, phase=WORKING, write_failed=True))))
    for j, g, i, e, _running in live:
        if g.phase == READ:
            e2 = edit_execution(e, held=tuple(r for r in e.held if r not in g.taken))
            out.append((_act(ClearHeld, g.execution), put(i, e2, j, edit_segment(g, phase=TAKEN))))
    for j, g, i, e, _running in live:
        if g.closing:
            out.append((_act(CloseSuperseded, g.execution),
                        put(i, _cancel_interrupted(e, g.closing, True), j, edit_segment(g, closing=""))))
    if bounds.crashes or bounds.expiries or bounds.races:
        out.extend(generic_successors(bounds, reading, s, FAULT_RULES))
    return out


def _start_turn(s: State, session: int) -> State:
    new_turns = s.new_turns + (session,) if any(e.session == session and e.status not in FINISHED
                                                for e in s.executions) else s.new_turns
    new_id = f"e{len(s.executions) + 1}"
    execution = Execution(new_id, session, RUNNING, 0, (), (), (), (), 0, 0)
    s = s._replace(executions=s.executions + (execution,), new_turns=new_turns)
    return with_segment(s, new_id, Segment(new_id, 0, ()))


def _interrupt(bounds: Bounds, s: State, put: Callable[..., State], j: int, g: Segment, i: int, e: Execution,
               call: str) -> State:
    merged = e.held + g.collected  # old held list first, then the segment's, bounded: the newest dropped
    kept, dropped = merged[:bounds.held_bound], merged[bounds.held_bound:]
    e2 = _with_attempt(e, call, RUNNING, INTERRUPTED)
    e2 = edit_execution(e2, status=PAUSED, held=kept,
               questions=e2.questions + (Question(call, PENDING, 0, len(e2.questions) + 1),))
    warnings = s.warnings + tuple(Warning(e.id, r) for r in dropped) if dropped else None
    return put(i, e2, j, None, warnings=warnings)


def _answer(s: State, put_execution: Callable[..., State], i: int, e: Execution, q: Question, approve: bool) -> State:
    settled = q._replace(status=APPROVED if approve else DECLINED)
    e2 = _cancel_interrupted(e, q.call, True)  # the superseded attempt(s) of the call close as cancelled
    if approve:  # the call is re-issued: a new attempt of its own
        e2 = edit_execution(e2, attempts=e2.attempts + (Attempt(q.call, RUNNING),))
    e2 = edit_execution(e2, status=RUNNING, questions=tuple(settled if x.id == q.id else x for x in e2.questions))
    return with_segment(put_execution(i, e2), e.id, Segment(e.id, 0, ()))


def _write(s: State, put: Callable[..., State], live: list, j: int, g: Segment, i: int, e: Execution) -> State:
    e2 = edit_execution(e, messages=e.messages + (g.taken + g.collected,))
    if not g.final:  # an interim message: the segment carries on with nothing in hand
        return put(i, e2, j, edit_segment(g, phase=WORKING, taken=(), collected=(), write_failed=False))
    if not any(other.execution.rstrip("'") == e.id and other.execution != g.execution for _, other, *_ in live):
        e2 = edit_execution(e2, status=verdict(e2))  # its last segment ends: the ladder decides
    return put(i, e2, j, None)

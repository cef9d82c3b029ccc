"""The transition rules as z3 terms: one function per rule of `model/rules.py`, in its table order.

Each function yields the `Move`s of its action kind from a symbolic pre-state: the action's concrete
parameters (execution slot, artifact count, flag), its guard as a term, and the successor as a
symbolic state. They mirror the explicit rules line for line under the conformant reading with every
fault off; anything else raises `NotEncoded` rather than be checked against the wrong semantics.
The no-drift tests hold the two rule tables together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import z3
from pausecheck.model.actions import (
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
from pausecheck.model.config import FAULTS, Bounds
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    FAILED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    PUT_BACK,
    RUNNING,
    TAKEN,
    WORKING,
    WRITE_FAILED,
)

from .state import SExecution, SSegment, SState, Universe, code, no_segment
from .vec import FALSE, ONE, TRUE, ZERO, Row, Vec, num, pick

__all__ = ["Move", "Semantics", "Deviation", "NotEncoded", "SYMBOLIC_RULES", "moves", "finished", "running", "is_final",
           "verdict"]


class NotEncoded(ValueError):
    """A reading, fault or deviation the symbolic engine does not encode."""


@dataclass(frozen=True, slots=True)
class Semantics:
    """What the symbolic rules are instantiated with: the bounds, the universe, and optional limits.

    `call_cap` (induction only) bounds the tool calls of one execution over all its segments; with it,
    pauses, write failures and observations may go unbounded (None), as `prove --induction` asks."""

    bounds: Bounds
    universe: Universe
    pauses: int | None
    write_failures: int | None
    observations: int | None
    call_cap: int | None = None
    deviation: Deviation | None = None  # a mutant's, from `symbolic.mutants`

    @staticmethod
    def of(bounds: Bounds, reading: Reading = CONFORMANT) -> Semantics:
        if reading != CONFORMANT:
            raise NotEncoded(f"the reading {reading.name} is not encoded symbolically (only the conformant one)")
        faults = [name for name in FAULTS if getattr(bounds, name)]
        if faults:
            raise NotEncoded(f"faults are not encoded symbolically ({', '.join(faults)})")
        return Semantics(bounds, Universe.of(bounds), bounds.pauses, bounds.write_failures, bounds.observations)


UNASKED = "unasked"  # the param of an Answer move that names no question (q0): a mutant's resume on its own


@dataclass(frozen=True, slots=True)
class Deviation:
    """A mutant as the symbolic rules see it: the symbolic twin of its explicit patch, block, extra and show."""

    patch: Callable[[Semantics, Move, SState], SState] | None = None  # (m, move with the default post, pre)
    block: Callable[[Move, SState], z3.BoolRef] | None = None  # (move, pre) -> withheld?
    extra: Callable[[Semantics, SState], list[Move]] | None = None
    shows_held: bool = False  # the wire shows the held lists too


@dataclass(frozen=True, slots=True)
class Move:
    """One action instance: its kind and parameters, its guard, and the successor it leads to."""

    kind: type
    slot: int  # the execution slot (StartTurn: the session)
    param: int | bool | None
    guard: z3.BoolRef
    post: SState

    def matches(self, action: Action) -> bool:
        """Is `action` the concrete action this move stands for?"""
        if type(action) is not self.kind:
            return False
        if isinstance(action, StartTurn):
            return action.session == self.slot
        if action.execution != f"e{self.slot + 1}":
            return False
        value = {ToolReturns: "artifacts", NodeFails: "routed", StartWriteBack: "final", WriteMessage: "ok",
                 Answer: "approve"}.get(self.kind)
        if self.kind is Answer and self.param is None:  # a stale answer: whichever way it goes
            return True
        if self.kind is Answer and self.param == UNASKED:  # a resume naming no question (a mutant's)
            return action.question == 0 and action.approve
        return value is None or getattr(action, value) == self.param

    def label(self) -> str:
        who = f"s{self.slot}" if self.kind is StartTurn else f"e{self.slot + 1}"
        return f"{self.kind.KIND}({who}{'' if self.param is None else ', ' + str(self.param)})"


# ---------------------------------------------------------------------------------------------
# Shared pieces


def finished(status: z3.ArithRef) -> z3.BoolRef:
    return z3.Or(status == code(COMPLETED), status == code(FAILED), status == code(CANCELLED))


def running(e: SExecution) -> tuple[z3.BoolRef, z3.ArithRef]:
    """(is an attempt running?, the call of the first running attempt)."""
    found, row = e.attempts.first(lambda a: a[1] == code(RUNNING))
    return found, row[0]


def verdict(e: SExecution) -> z3.ArithRef:
    """The ORC-11 ladder: failed, else paused on an interrupted attempt, else completed."""
    interrupted = e.attempts.any(lambda a: a[1] == code(INTERRUPTED))
    return z3.If(e.unhandled > 0, code(FAILED), z3.If(interrupted, code(PAUSED), code(COMPLETED)))


def _with_attempt(e: SExecution, call: z3.ArithRef, old: str, new: str) -> SExecution:
    """The latest attempt of `call` with status `old` moved to `new` (none: unchanged)."""
    return e._replace(attempts=e.attempts.latest(lambda a: z3.And(a[0] == call, a[1] == code(old)),
                                                 lambda a: (a[0], code(new))))


def _exists(s: SState, i: int) -> z3.BoolRef:
    return i < s.n_executions


def _put(s: SState, i: int, e: SExecution | None = None, g: SSegment | None = None) -> SState:
    if e is not None:
        s = s._replace(executions=s.executions[:i] + (e,) + s.executions[i + 1:])
    if g is not None:
        s = s._replace(segments=s.segments[:i] + (g,) + s.segments[i + 1:])
    return s


def _working(g: SSegment) -> z3.BoolRef:
    return z3.And(g.live, g.phase == code(WORKING), z3.Not(g.write_failed))


def _under(count: z3.ArithRef, bound: int | None) -> z3.BoolRef:
    return TRUE if bound is None else count < bound


Rule = Callable[[Semantics, SState], Iterator[Move]]


# ---------------------------------------------------------------------------------------------
# The rules, in the order of model.rules.RULES


def start_turn(m: Semantics, s: SState) -> Iterator[Move]:
    for session in range(1, m.bounds.sessions + 1):
        own = [z3.And(_exists(s, j), e.session == session) for j, e in enumerate(s.executions)]
        idle = z3.And([z3.Implies(o, finished(e.status)) for o, e in zip(own, s.executions, strict=True)])
        guard = z3.And(idle, z3.Sum([z3.If(o, ONE, ZERO) for o in own]) < m.bounds.turns)
        u = m.universe
        new = SExecution(num(session), code(RUNNING), num(0), Vec.empty(u.attempts, 2),
                         Vec.empty(u.questions, 4), Vec.empty(u.lists, 1), num(0),
                         tuple(Vec.empty(u.lists, 1) for _ in range(u.messages)), num(0), num(0),
                         Vec.empty(u.node_failures, 1))
        started = fresh_segment(u)
        post = s._replace(
            n_executions=s.n_executions + 1,
            executions=tuple(pick(s.n_executions == j, new, e) for j, e in enumerate(s.executions)),
            segments=tuple(pick(s.n_executions == j, started, g) for j, g in enumerate(s.segments)))
        yield Move(StartTurn, session, None, guard, post)


def fresh_segment(u: Universe) -> SSegment:
    """A fresh segment in flight: no calls, nothing collected."""
    return no_segment(u)._replace(live=TRUE, phase=code(WORKING))


def call_tool(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, _ = running(e)
        guard = z3.And(_working(g), g.calls < m.bounds.calls, z3.Not(busy), _under(e.calls, m.call_cap))
        call = e.calls + 1
        e2 = e._replace(calls=call, attempts=e.attempts.append((call, code(RUNNING))))
        yield Move(CallTool, i, None, guard, _put(s, i, e2, g._replace(calls=g.calls + 1)))


def tool_returns(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, call = running(e)
        for count in range(m.bounds.per_call + 1):
            guard = z3.And(g.live, busy, count <= m.bounds.artifacts - s.artifacts.length)
            artifacts, collected = s.artifacts, g.collected
            for k in range(count):
                artifacts = artifacts.append((i + 1,))
                collected = collected.append((s.artifacts.length + 1 + k,))
            post = _put(s, i, _with_attempt(e, call, RUNNING, COMPLETED), g._replace(collected=collected))
            yield Move(ToolReturns, i, count, guard, post._replace(artifacts=artifacts))


def tool_fails(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, call = running(e)
        yield Move(ToolFails, i, None, z3.And(g.live, busy), _put(s, i, _with_attempt(e, call, RUNNING, FAILED)))


def tool_interrupts(m: Semantics, s: SState) -> Iterator[Move]:
    held_bound = m.bounds.held_bound
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, call = running(e)
        first = e.attempts.count(lambda a, c=call: a[0] == c) == 1  # the gate applies to a first execution (G1.3)
        guard = z3.And(g.live, busy, _under(e.questions.length, m.pauses), first)
        merged = e.held.extend(g.collected)
        kept, dropped = merged.prefix(held_bound), merged.suffix(held_bound, cap=merged.cap)
        question = (call, code(PENDING), 0, e.questions.length + 1)
        e2 = _with_attempt(e, call, RUNNING, INTERRUPTED)._replace(
            status=code(PAUSED), held=kept, questions=e.questions.append(question))
        post = _put(s, i, e2, no_segment(m.universe))
        yield Move(ToolInterrupts, i, None, guard, post._replace(warnings=s.warnings.extend(dropped.tagged(i + 1))))


def _asked(e: SExecution) -> tuple[z3.BoolRef, Row]:
    """(has a question?, the latest question)."""
    return e.questions.length > 0, e.questions.last()


def observe_again(m: Semantics, s: SState) -> Iterator[Move]:
    for i, e in enumerate(s.executions):
        asked, q = _asked(e)
        guard = z3.And(_exists(s, i), e.status == code(PAUSED), asked, q[1] == code(PENDING),
                       _under(q[2], m.observations))
        questions = e.questions.set_at(e.questions.length - 1, lambda r: (r[0], r[1], r[2] + 1, r[3]))
        yield Move(ObserveAgain, i, None, guard, _put(s, i, e._replace(questions=questions)))


def poll(m: Semantics, s: SState) -> Iterator[Move]:
    for i, e in enumerate(s.executions):
        yield Move(Poll, i, None, z3.And(_exists(s, i), z3.Not(finished(e.status))), s)


def answer(m: Semantics, s: SState) -> Iterator[Move]:
    for i, e in enumerate(s.executions):
        asked, q = _asked(e)
        live = z3.And(_exists(s, i), z3.Not(finished(e.status)), asked)
        pending = q[1] == code(PENDING)
        for approve in (False, True):
            guard = z3.And(live, pending, e.status == code(PAUSED))
            settled = code(APPROVED if approve else DECLINED)
            # A-G1 cancel, A-G9 close-all: every interrupted attempt of the call is closed as cancelled.
            attempts = e.attempts.where(lambda a, c=q[0]: z3.And(a[0] == c, a[1] == code(INTERRUPTED)),
                                        lambda a: (a[0], code(CANCELLED)))
            if approve:  # the consumer is re-fired and re-issues the same call: a new attempt (G6.3)
                attempts = attempts.append((q[0], code(RUNNING)))
            questions = e.questions.set_at(e.questions.length - 1, lambda r, v=settled: (r[0], v, r[2], r[3]))
            e2 = e._replace(attempts=attempts, questions=questions, status=code(RUNNING))
            yield Move(Answer, i, approve, guard, _put(s, i, e2, fresh_segment(m.universe)))
        # A second tab answers a question no longer pending: nothing changes (INT-19, G6.9).
        yield Move(Answer, i, None, z3.And(live, z3.Not(pending)), s)


def node_fails(m: Semantics, s: SState) -> Iterator[Move]:
    spent = z3.Sum([e.node_failures.length for e in s.executions])
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, _ = running(e)
        guard = z3.And(spent < m.bounds.node_failures, _working(g), z3.Not(busy))
        for routed in (False, True):
            e2 = e._replace(node_failures=e.node_failures.append((int(routed),)),
                            unhandled=e.unhandled + (0 if routed else 1))
            yield Move(NodeFails, i, routed, guard, _put(s, i, e2))


def start_write_back(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        busy, _ = running(e)
        ready = z3.And(g.live, g.phase == code(WORKING), z3.Not(busy))
        for final in (False, True):
            # A retry repeats the failed write-back; else an interim one while messages stay under the bound.
            allowed = z3.If(g.write_failed, g.final == final,
                            TRUE if final else e.n_messages < m.bounds.interim_writes)
            e2 = e._replace(held=Vec.empty(e.held.cap, 1))  # taking is destructive (T7.7)
            g2 = g._replace(phase=code(TAKEN), taken=e.held, final=z3.BoolVal(final))
            yield Move(StartWriteBack, i, final, z3.And(ready, allowed), _put(s, i, e2, g2))


def write_message(m: Semantics, s: SState) -> Iterator[Move]:
    u = m.universe
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        taken = z3.And(g.live, g.phase == code(TAKEN))
        failed = s._replace(write_failures=s.write_failures + 1)
        yield Move(WriteMessage, i, False, z3.And(taken, _under(s.write_failures, m.write_failures)),
                   _put(failed, i, g=g._replace(phase=code(WRITE_FAILED))))
        message = g.taken.extend(g.collected)
        messages = tuple(pick(e.n_messages == k, message, old) for k, old in enumerate(e.messages))
        e2 = e._replace(n_messages=e.n_messages + 1, messages=messages)
        interim = _put(s, i, e2, g._replace(phase=code(WORKING), taken=Vec.empty(u.lists, 1),
                                            collected=Vec.empty(u.lists, 1), write_failed=FALSE))
        last = _put(s, i, e2._replace(status=verdict(e2)), no_segment(u))  # the ladder decides
        yield Move(WriteMessage, i, True, taken, pick(g.final, last, interim))


def put_back(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        guard = z3.And(g.live, g.phase == code(WRITE_FAILED))
        e2 = e._replace(held=g.taken.extend(e.held))  # A-T5 prepend: what was taken goes back in front
        g2 = g._replace(phase=code(PUT_BACK), taken=Vec.empty(g.taken.cap, 1))
        yield Move(PutBack, i, None, guard, _put(s, i, e2, g2))


def report_failure(m: Semantics, s: SState) -> Iterator[Move]:
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        guard = z3.And(g.live, g.phase == code(PUT_BACK))
        e2 = e._replace(write_failures=e.write_failures + 1)
        yield Move(ReportFailure, i, None, guard, _put(s, i, e2, g._replace(phase=code(WORKING), write_failed=TRUE)))


SYMBOLIC_RULES: tuple[tuple[type, Rule], ...] = (
    (StartTurn, start_turn), (CallTool, call_tool), (ToolReturns, tool_returns), (ToolFails, tool_fails),
    (ToolInterrupts, tool_interrupts), (ObserveAgain, observe_again), (Poll, poll), (Answer, answer),
    (NodeFails, node_fails), (StartWriteBack, start_write_back), (WriteMessage, write_message),
    (PutBack, put_back), (ReportFailure, report_failure),
)


def moves(m: Semantics, s: SState) -> list[Move]:
    """Every action instance from `s`, in rule-table order (a mutant's deviation applied)."""
    found = [move for _, rule in SYMBOLIC_RULES for move in rule(m, s)]
    d = m.deviation
    if d is None:
        return found
    if d.patch is not None:
        found = [Move(mv.kind, mv.slot, mv.param, mv.guard, d.patch(m, mv, s)) for mv in found]
    if d.block is not None:
        found = [Move(mv.kind, mv.slot, mv.param, z3.And(mv.guard, z3.Not(d.block(mv, s))), mv.post) for mv in found]
    return found + (d.extra(m, s) if d.extra is not None else [])


def is_final(m: Semantics, s: SState) -> z3.BoolRef:
    """Every session ran all its turns and every execution finished (as `Machine.is_final`)."""
    done = [z3.Implies(_exists(s, i), finished(e.status)) for i, e in enumerate(s.executions)]
    return z3.And(s.n_executions == m.bounds.sessions * m.bounds.turns, *done)

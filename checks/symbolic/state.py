"""The model's state as z3 terms over a bounded universe, and the way back to concrete states.

A symbolic state mirrors `model.state.State` field by field. Execution `e{n}` lives in slot n-1 (ids
are given in creation order); its segment, if in flight, in the same slot of `segments`; an artifact
ref is its 1-based index; a call `c{n}` is the integer n; statuses and phases are small integers
(`code`). Slots past `n_executions` and absent segments hold zeros, so that symbolic states are equal
exactly when the states they stand for are. `lift` and `decode` are exact inverses on every state the
universe holds: the no-drift tests rely on that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.state import (
    WORDS,
    Artifact,
    Attempt,
    Execution,
    Question,
    Segment,
    State,
    Warning,
)

from .vec import FALSE, ZERO, Vec, num, var

__all__ = ["Universe", "SExecution", "SSegment", "SState", "code", "word", "fresh", "lift", "decode",
           "well_formed", "initial", "TooSmall"]

_CODE = {w: i for i, w in enumerate(WORDS)}


def code(word_: str) -> z3.ArithRef:
    """The integer term of a status or phase."""
    return num(_CODE[word_])


def word(value: int) -> str:
    """The status or phase an integer stands for."""
    return WORDS[value]


class TooSmall(ValueError):
    """A concrete state that the universe cannot hold (a capacity exceeded)."""


@dataclass(frozen=True, slots=True)
class Universe:
    """The capacities of a symbolic state: how many of each thing it can hold."""

    executions: int
    calls: int  # tool calls per execution, in all its segments
    attempts: int  # attempt records per execution
    questions: int  # per execution
    messages: int  # assistant messages per execution
    artifacts: int  # in all
    node_failures: int  # per execution
    refs: int = 0  # the capacity of every list of refs (held, taken, collected, a message, warnings); 0: artifacts

    @property
    def lists(self) -> int:
        return self.refs or self.artifacts

    @staticmethod
    def of(bounds: Bounds) -> Universe:
        """Capacities that every state reachable within `bounds` fits (the default reading)."""
        segments = bounds.pauses + 1  # the first, and one per answer
        calls = bounds.calls * segments
        return Universe(
            executions=bounds.sessions * bounds.turns,
            calls=calls,
            attempts=calls + bounds.pauses,  # every call's first attempt, and one per approval
            questions=bounds.pauses,
            messages=bounds.interim_writes + 1,
            artifacts=bounds.artifacts,
            node_failures=bounds.node_failures,
        )


class SExecution(NamedTuple):
    session: Any
    status: Any
    calls: Any
    attempts: Vec  # (call, status)
    questions: Vec  # (call, status, observations, id)
    held: Vec  # (ref,)
    n_messages: Any
    messages: tuple[Vec, ...]  # each (ref,)
    unhandled: Any
    write_failures: Any
    node_failures: Vec  # (routed 0/1,)


class SSegment(NamedTuple):
    live: Any  # Bool
    calls: Any
    collected: Vec  # (ref,)
    write_failed: Any  # Bool
    phase: Any
    taken: Vec  # (ref,)
    final: Any  # Bool


class SState(NamedTuple):
    n_executions: Any
    executions: tuple[SExecution, ...]
    segments: tuple[SSegment, ...]
    warnings: Vec  # (execution number, ref)
    artifacts: Vec  # (execution number,): the model keeps no producing call under the default reading
    write_failures: Any


def fresh(u: Universe, name: str) -> SState:
    """A state of fresh variables named after `name` (e.g. the step index)."""
    def execution(i: int) -> SExecution:
        p = f"{name}.e{i + 1}"
        return SExecution(
            var(f"{p}.session"), var(f"{p}.status"), var(f"{p}.calls"),
            Vec.fresh(f"{p}.attempts", u.attempts, 2), Vec.fresh(f"{p}.questions", u.questions, 4),
            Vec.fresh(f"{p}.held", u.lists, 1), var(f"{p}.n_messages"),
            tuple(Vec.fresh(f"{p}.message{m}", u.lists, 1) for m in range(u.messages)),
            var(f"{p}.unhandled"), var(f"{p}.write_failures"), Vec.fresh(f"{p}.node_failures", u.node_failures, 1))

    def segment(i: int) -> SSegment:
        p = f"{name}.s{i + 1}"
        return SSegment(z3.Bool(f"{p}.live"), var(f"{p}.calls"), Vec.fresh(f"{p}.collected", u.lists, 1),
                        z3.Bool(f"{p}.write_failed"), var(f"{p}.phase"), Vec.fresh(f"{p}.taken", u.lists, 1),
                        z3.Bool(f"{p}.final"))

    return SState(var(f"{name}.n_executions"), tuple(execution(i) for i in range(u.executions)),
                  tuple(segment(i) for i in range(u.executions)), Vec.fresh(f"{name}.warnings", u.lists, 2),
                  Vec.fresh(f"{name}.artifacts", u.artifacts, 1), var(f"{name}.write_failures"))


def empty_execution(u: Universe) -> SExecution:
    return SExecution(ZERO, ZERO, ZERO, Vec.empty(u.attempts, 2), Vec.empty(u.questions, 4),
                      Vec.empty(u.lists, 1), ZERO, tuple(Vec.empty(u.lists, 1) for _ in range(u.messages)),
                      ZERO, ZERO, Vec.empty(u.node_failures, 1))


def no_segment(u: Universe) -> SSegment:
    return SSegment(FALSE, ZERO, Vec.empty(u.lists, 1), FALSE, ZERO, Vec.empty(u.lists, 1), FALSE)


def initial(u: Universe) -> SState:
    """The symbolic INITIAL state: nothing started."""
    return SState(ZERO, tuple(empty_execution(u) for _ in range(u.executions)),
                  tuple(no_segment(u) for _ in range(u.executions)), Vec.empty(u.lists, 2),
                  Vec.empty(u.artifacts, 1), ZERO)


def well_formed(s: SState) -> z3.BoolRef:
    """Lengths within capacity, padding zero, unused slots empty: the shape every encoded state has."""
    parts = [s.n_executions >= 0, s.n_executions <= len(s.executions), s.warnings.well_formed(),
             s.artifacts.well_formed()]
    for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True)):
        vecs = (e.attempts, e.questions, e.held, *e.messages, e.node_failures, g.collected, g.taken)
        parts += [v.well_formed() for v in vecs]
        parts += [e.n_messages >= 0, e.n_messages <= len(e.messages)]
        parts += [z3.Implies(e.n_messages <= m, msg.length == 0) for m, msg in enumerate(e.messages)]
        unused = z3.And([x == 0 for x in (e.session, e.status, e.calls, e.attempts.length, e.questions.length,
                                           e.held.length, e.n_messages, e.unhandled, e.write_failures,
                                           e.node_failures.length)] + [z3.Not(g.live)])
        parts.append(z3.Implies(s.n_executions <= i, unused))
        gone = z3.And(g.calls == 0, g.collected.length == 0, z3.Not(g.write_failed), g.phase == 0,
                      g.taken.length == 0, z3.Not(g.final))
        parts.append(z3.Implies(z3.Not(g.live), gone))
    return z3.And(parts)


def _refs(refs: tuple[int, ...]) -> list[tuple[int]]:
    return [(r,) for r in refs]


def _call(call: str) -> int:
    return int(call[1:])


def lift(u: Universe, state: State) -> SState:
    """The constant symbolic state of a concrete one (TooSmall if the universe cannot hold it)."""
    if len(state.executions) > u.executions or len(state.artifacts) > u.artifacts:
        raise TooSmall("more executions or artifacts than the universe holds")
    if state.crashes or state.crashed or state.new_turns or state.races:
        raise TooSmall("faults are not encoded")
    if any(len(e.messages) > u.messages for e in state.executions):
        raise TooSmall("more messages than the universe holds")
    try:
        executions = [SExecution(
            num(e.session), code(e.status), num(e.calls),
            Vec.of([(_call(a.call), _CODE[a.status]) for a in e.attempts], u.attempts, 2),
            Vec.of([(_call(q.call), _CODE[q.status], q.observations, q.id) for q in e.questions], u.questions, 4),
            Vec.of(_refs(e.held), u.lists, 1), num(len(e.messages)),
            tuple(Vec.of(_refs(e.messages[m]) if m < len(e.messages) else [], u.lists, 1)
                  for m in range(u.messages)),
            num(e.unhandled), num(e.write_failures),
            Vec.of([(int(r),) for r in e.node_failures], u.node_failures, 1)) for e in state.executions]
        by_slot = {int(g.execution[1:]) - 1: g for g in state.segments}
        if any(g.execution.endswith("'") or g.closing for g in state.segments):
            raise TooSmall("racing or split-resume segments are not encoded")
        segments = [SSegment(z3.BoolVal(True), num(g.calls), Vec.of(_refs(g.collected), u.lists, 1),
                             num(g.write_failed), code(g.phase), Vec.of(_refs(g.taken), u.lists, 1), num(g.final))
                    if i in by_slot and (g := by_slot[i]) else no_segment(u) for i in range(u.executions)]
        return SState(
            num(len(state.executions)), tuple(executions) + (empty_execution(u),) * (u.executions - len(executions)),
            tuple(segments),
            Vec.of([(int(w.execution[1:]), w.ref) for w in state.warnings], u.lists, 2),
            Vec.of([(int(a.execution[1:]),) for a in state.artifacts], u.artifacts, 1),
            num(state.write_failures))
    except ValueError as error:
        raise TooSmall(str(error)) from error


def decode(model: z3.ModelRef, s: SState) -> State:
    """The concrete state a model assigns to a symbolic one."""
    def val(term: Any) -> int:
        value = model.eval(term, model_completion=True)
        return bool(value) if z3.is_bool(value) else value.as_long()

    def rows(v: Vec) -> list[tuple[int, ...]]:
        return [tuple(val(x) for x in v.items[j]) for j in range(val(v.length))]

    def refs(v: Vec) -> tuple[int, ...]:
        return tuple(r for (r,) in rows(v))

    executions = []
    for i in range(val(s.n_executions)):
        e = s.executions[i]
        executions.append(Execution(
            f"e{i + 1}", val(e.session), word(val(e.status)), val(e.calls),
            tuple(Attempt(f"c{c}", word(st)) for c, st in rows(e.attempts)),
            tuple(Question(f"c{c}", word(st), obs, qid) for c, st, obs, qid in rows(e.questions)),
            refs(e.held), tuple(refs(e.messages[m]) for m in range(val(e.n_messages))),
            val(e.unhandled), val(e.write_failures), tuple(bool(r) for (r,) in rows(e.node_failures))))
    segments = tuple(
        Segment(f"e{i + 1}", val(g.calls), refs(g.collected), val(g.write_failed), word(val(g.phase)), refs(g.taken),
                val(g.final))
        for i, g in enumerate(s.segments) if val(g.live))
    return State(tuple(executions), segments,
                 tuple(Warning(f"e{x}", r) for x, r in rows(s.warnings)),
                 tuple(Artifact(f"e{x}") for (x,) in rows(s.artifacts)), val(s.write_failures))

"""The properties' predicates, written once in the rule language (`lang.py`), beside the rules.

Every invariant, transition property and witness of the registry (`properties.py`, `witnesses.py`) is
decided by its formula here; every engine derives its form of the check from it: the explicit search
compiles it to Python (`pycheck.py`), the z3 engines lower it with the relation (`checks/symbolic`),
Spin asserts it. The Python functions of `properties.py` only explain, in words, a failure the
formula found.

Names: `S` is the state (before the step), `P` the state after it, `act.<field>` a field of the
step's action (`act.execution`, `act.call`, `act.ok`, ...), `kind(K)` whether the step is of kind K
(resolved before any engine runs, as a bound is). A field an action kind lacks reads as a neutral
constant ("" , 0 or False). An invariant of each execution record is written as a function of the
record (`each`); its formula over the state is that function of every record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from . import actions as _actions
from .actions import (
    Answer,
    ClearHeld,
    CloseSuperseded,
    Crash,
    Expire,
    PutBack,
    ReportFailure,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)
from .lang import B, Expr, base_of, ite, lift, minimum, span, var
from .state import (
    CANCELLED,
    COMPLETED,
    DECLINED,
    FAILED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    READ,
    RUNNING,
    WRITTEN,
    Execution,
    State,
)

__all__ = ["ACT_FIELDS", "S", "P", "act", "kind", "Part", "Formula", "FORMULAS", "conjoined", "formula_of",
           "ACTION_KINDS", "step_values", "wire", "places", "everywhere", "EACH"]

S = var("S", State)
P = var("P", State)
EACH = var("x", Execution)  # the record an invariant of each execution is written of

ACTION_KINDS: tuple[type, ...] = tuple(getattr(_actions, n) for n in _actions.__all__
                                       if isinstance(getattr(_actions, n), type) and n[0].isupper()
                                       and hasattr(getattr(_actions, n), "__dataclass_fields__"))
ACT_FIELDS: dict[str, type] = {"execution": str, "call": str, "artifacts": int, "question": int, "approve": bool,
                                 "routed": bool, "final": bool, "ok": bool, "session": int}
_NEUTRAL = {str: "", int: 0, bool: False}


class _Act:
    """`act.execution` is the step's action's field `execution` (a variable, bound per step)."""

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__") or name not in ACT_FIELDS:
            raise AttributeError(f"no action has a field {name!r}")
        return var(f"act.{name}", ACT_FIELDS[name])


act = _Act()


def kind(*kinds: type) -> Expr:
    """Is the step of one of these action kinds?"""
    test = var(f"kind:{kinds[0].__name__}", bool)
    for k in kinds[1:]:
        test = test | var(f"kind:{k.__name__}", bool)
    return test


def step_values(action_kind: type) -> dict[str, Any]:
    """The constants a step of this kind gives `kind(...)`, and the fields it lacks (their neutral value)."""
    mine = {f.name for f in fields(action_kind)}
    values: dict[str, Any] = {f"kind:{k.__name__}": k is action_kind for k in ACTION_KINDS}
    values.update({f"act.{n}": _NEUTRAL[t] for n, t in ACT_FIELDS.items() if n not in mine})
    return values


# ---------------------------------------------------------------------------------------------
# Vocabulary


def execution(state: Expr, key: Expr) -> Expr:
    """The execution a key names (a racing segment's key `e1'` names `e1`), as an optional record."""
    return state.executions.first(lambda x: x.id == base_of(key))


def segment(state: Expr, key: Expr) -> Expr:
    """The segment in flight under this key, as an optional record."""
    return state.segments.first(lambda y: y.execution == key)


def finished(status: Expr) -> Expr:
    return status.one_of(COMPLETED, FAILED, CANCELLED)


def wire(x: Expr) -> Expr:
    """The artifact refs a turn shows on the wire: its messages' refs, in order (`observe.shown`)."""
    return x.messages.fold(lift((), x.held.t), lambda acc, m: acc + m)


def _in_hand(y: Expr, of: Callable[[Expr], Expr]) -> Expr:
    """`of` the refs a segment's write-back has in hand, where they are not a copy (READ, WRITTEN)."""
    return ite(y.phase.one_of(READ, WRITTEN), 0, of(y.taken))


def everywhere(s: Expr) -> Expr:
    """Every artifact ref in every place it can be, with repetition: collected by a segment, in hand of a
    write-back (not a copy: READ, WRITTEN), lost in a crash, held, on a message, dropped with a warning."""
    segments = s.segments.fold(lift((), s.crashed.t), lambda acc, y: acc + y.collected + ite(
        y.phase.one_of(READ, WRITTEN), lift((), s.crashed.t), y.taken))
    executions = s.executions.fold(lift((), s.crashed.t), lambda acc, x: acc + x.held + wire(x))
    return segments + s.crashed + executions + s.warnings.map(lambda w: w.ref)


def places(s: Expr, r: Expr) -> Expr:
    """In how many places the artifact `r` is."""
    return everywhere(s).count(lambda a: a == r)


def delivered(s: Expr, r: Expr) -> Expr:
    """On how many messages (counted with repetition) the artifact `r` is."""
    return s.executions.total(lambda x: x.messages.total(lambda m: m.count(lambda a: a == r)))


def owner(s: Expr, r: Expr) -> Expr:
    """The execution that produced the artifact `r`."""
    return s.artifacts.at(r - 1).execution


def unrouted(x: Expr) -> Expr:
    """The node failures of an execution with no error edge: its only unhandled failures."""
    return x.node_failures.count(lambda routed: ~routed)


def trail(x: Expr, call: Expr) -> Expr:
    """The attempts of one call, oldest first."""
    return x.attempts.filter(lambda a: a.call == call)


def implies(a: Expr, b: Expr) -> Expr:
    return ~a | b


# ---------------------------------------------------------------------------------------------
# The formulas


@dataclass(frozen=True, eq=False)
class Part:
    """One conjunct of a property's formula and the clauses it formalises: where a counterexample breaks
    this conjunct, these clauses are violated, and the property's other clauses are only involved.

    `each`: for an invariant of each execution record, the conjunct of the record `EACH`. `by_step`: for an
    invariant, the clauses told apart by the step that broke it (a step formula, over `S`, `P`, `act`,
    `kind`): the first whose test the step meets names the clauses instead of `clauses`. A part may name no
    clause of its own (`clauses` empty): its failure is another rule's, which another property names."""

    test: Expr
    clauses: tuple[str, ...]
    each: Expr | None = None
    by_step: tuple[tuple[Expr, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, eq=False)
class Formula:
    """A property's predicate: over `S` (always), or over `S`, `P`, `act` and `kind` (a step); for an
    invariant of each execution record, also that predicate of the record `EACH`. `parts`, where the
    property's clauses are told apart by conjunct: the formula is their conjunction (`conjoined`); with no
    parts, a failure is every clause of the property's."""

    name: str
    expr: Expr
    each: Expr | None = None
    step: bool = False  # over a step (S, P, act, kind), not a state
    parts: tuple[Part, ...] = ()


def _each(name: str, test: Callable[[Expr], Expr]) -> Formula:
    return Formula(name, S.executions.all_of(test), test(EACH))


def _and(tests: list[Expr]) -> Expr:
    out = tests[0]
    for t in tests[1:]:
        out = out & t
    return out


def conjoined(name: str, *parts: Part, step: bool = False) -> Formula:
    """A formula written as its parts, each a conjunct with its clauses: the formula is their conjunction."""
    each = [p.each for p in parts if p.each is not None]
    if each and len(each) != len(parts):
        raise ValueError(f"{name}: every part of an invariant of each record has its record's form")
    return Formula(name, _and([p.test for p in parts]), _and(each) if each else None, step, parts)


def _of_each(test: Callable[[Expr], Expr], *clauses: str,
             by_step: tuple[tuple[Expr, tuple[str, ...]], ...] = ()) -> Part:
    """A part of an invariant of each execution record: `test` of every record, and of the record `EACH`."""
    return Part(S.executions.all_of(test), clauses, test(EACH), by_step)


def _when(kinds_test: Expr, test: Expr, *clauses: str) -> Part:
    """A part of a step formula that applies to some steps only: `test` where `kinds_test` holds."""
    return Part(implies(kinds_test, test), clauses)


E, E2 = execution(S, act.execution), execution(P, act.execution)  # the step's execution, before and after
G, G2 = segment(S, act.execution), segment(P, act.execution)  # its segment in flight, before and after
NEW_WARNINGS = P.warnings.suffix(S.warnings.size)
Q = E.questions.first(lambda q: q.id == act.question)  # the question an answer names, if any


def _relabel_allowed(x: Expr, old: Expr, new: Expr) -> Expr:
    """An attempt's status changes only by its own event (G6.2, G6.4, G6.6)."""
    mine = x.id == act.execution
    own = mine & (old.status == RUNNING) & (act.call == old.call) & (
        (kind(ToolReturns) & (new.status == COMPLETED)) | (kind(ToolFails) & (new.status == FAILED))
        | (kind(ToolInterrupts) & (new.status == INTERRUPTED)))
    closed = mine & (old.status == INTERRUPTED) & (new.status == CANCELLED)
    asked = x.questions.first(lambda q: q.id == act.question)
    answered = (kind(Answer) & ~asked.is_none & (asked.call == old.call)) | kind(Expire) | (
        kind(CloseSuperseded) & (G.closing == old.call))
    return own | (closed & answered)


def _pausing(y: Expr) -> Expr:
    """Is `y` the execution this step pauses?"""
    return kind(ToolInterrupts) & (y.id == act.execution)


def _writer(y: Expr) -> Expr:
    """Is `y` the execution this step writes a message for (a successful write-back)?"""
    return kind(WriteMessage) & act.ok & (y.id == act.execution)


def _one_more_question_if_pausing(x: Expr, y: Expr) -> Expr:
    """`y` keeps the questions of `x`, and has one more if this step pauses it, else none more (G6.9)."""
    return (y.questions.prefix(x.questions.size).map(lambda q: q.id) == x.questions.map(lambda q: q.id)) & (
        y.questions.size == x.questions.size + ite(_pausing(y), 1, 0))


def _kept_or_relabelled(x: Expr, y: Expr) -> Expr:
    """The record `y` keeps every attempt of `x`, each as it was or relabelled by its own event."""
    return (y.attempts.size >= x.attempts.size) & x.attempts.zip_all(
        y.attempts, lambda old, new: (old == new) | _relabel_allowed(x, old, new))


def _answering() -> Expr:
    """Does the step answer a question still pending?"""
    return ~Q.is_none & (Q.status == PENDING)


def _resume_trails() -> tuple[Expr, Expr]:
    """The answered call's attempt statuses, before and after the answer."""
    return trail(E, Q.call).map(lambda a: a.status), trail(E2, Q.call).map(lambda a: a.status)


def _resume_closes() -> Expr:
    """The answer closes the superseded interrupted attempts as cancelled (G6.4): the trail starts so; under
    A-G3 new-first (an approval whose close comes next) closing is left to that step."""
    before, after = _resume_trails()
    closed = trail(E, Q.call).map(lambda a: ite(a.status == INTERRUPTED, CANCELLED, a.status))
    split = act.approve & ~G2.is_none & (G2.closing == Q.call)  # A-G3 new-first: the close comes next
    return ite(split, after.prefix(before.size) == before, after.prefix(before.size) == closed)


def _resume_reissues() -> Expr:
    """An approval records one new, running attempt; a decline none (G6.3)."""
    before, after = _resume_trails()
    return (after.size == before.size + ite(act.approve, 1, 0)) & (~act.approve | (after.last == RUNNING))


def _unobserved(x: Expr) -> Expr:
    """The record `x` with every question's observation count zeroed: what observing may not change."""
    return x.but(questions=x.questions.map(lambda q: q.but(observations=0)))


def _no_new_execution_holds() -> Expr:
    return P.executions.suffix(S.executions.size).all_of(lambda y: y.held.size == 0)


def _step(name: str, expr: Expr) -> Formula:
    return Formula(name, expr, step=True)


_ALWAYS = (
    Formula("no_double_delivery", S.executions.all_of(
        lambda x: x.messages.all_of(lambda m: m.all_of(lambda r: delivered(S, r) == 1)))),
    conjoined(
        "no_loss",
        # lost: where the step that lost it says whose clause it is
        Part(span(1, S.artifacts.size + 1).all_of(lambda r: places(S, r) >= 1), ("T7.1",), by_step=(
            (kind(StartWriteBack, WriteMessage, PutBack, ReportFailure, ClearHeld), ("T7.12",)),
            (kind(ToolInterrupts) & (E.held.size + G.collected.size > B.held_bound), ("T7.15",)))),
        # no more places than artifacts (with the part above: each in exactly one): else one is in two places,
        # a take or put-back that copies, whose clauses write_back_delivers and the others name
        Part(everywhere(S).size <= S.artifacts.size, ())),
    Formula("held_hidden", S.executions.all_of(
        lambda y: y.held.all_of(lambda r: ~S.executions.any_of(lambda x: wire(x).contains(r))))),
    conjoined("finished_holds_nothing", _of_each(lambda x: ~(finished(x.status) & (x.held.size > 0)), "T7.4", by_step=(
        (kind(PutBack, ReportFailure), ("T7.12",)),
        # a write that finishes it while what its segment took is still held: the take copied (T7.7, which
        # write_back_delivers names), it did not fail to take
        (kind(WriteMessage) & E2.held.any_of(lambda r: G.taken.contains(r)), ())))),
    conjoined(
        "merge_order",
        _of_each(lambda x: x.messages.all_of(lambda m: m.zip_all(m.suffix(1), lambda a, b: a <= b)), "T7.5", "T7.6"),
        # strictly: no artifact twice in a row, which is a double delivery (T7.8, no_double_delivery's)
        _of_each(lambda x: x.messages.all_of(lambda m: m.zip_all(m.suffix(1), lambda a, b: a != b)))),
    _each("held_bounded", lambda x: x.held.size <= B.held_bound),
    conjoined(
        "isolation",
        Part(S.executions.all_of(lambda x: x.held.all_of(lambda r: owner(S, r) == x.id)), ("T7.2",)),
        Part(S.executions.all_of(lambda x: x.messages.all_of(lambda m: m.all_of(lambda r: owner(S, r) == x.id))),
             ("T7.4",)),
        Part(S.warnings.all_of(lambda w: owner(S, w.ref) == w.execution), ("T7.2",))),
    conjoined(
        "no_phantom_pause",
        _of_each(lambda x: ~(finished(x.status) & x.attempts.any_of(lambda a: a.status == INTERRUPTED)), "G6.5"),
        # held paused with no question to answer: what an attempt left interrupted does (G6.5)
        _of_each(lambda x: implies(x.status == PAUSED, x.questions.count(lambda q: q.status == PENDING) == 1), "G6.5"),
        # a question pending on a run that is not paused: if the interrupt did not pause it, O11.2; else the run
        # left its pause with the question open, a phantom pause (G6.5)
        _of_each(lambda x: implies(x.status != PAUSED, ~x.questions.any_of(lambda q: q.status == PENDING)), "G6.5",
                 by_step=((kind(ToolInterrupts), ("O11.2",)),))),
    _each("tool_failures_handled", lambda x: x.unhandled == unrouted(x)),
    _each("failure_outranks_interrupt", lambda x: ~((x.unhandled > 0) & (x.status == PAUSED))),
    conjoined(
        "handled_run_completes",
        _of_each(lambda x: implies(finished(x.status) & (x.status != CANCELLED) & (unrouted(x) > 0),
                                   x.status == FAILED), "O11.1"),
        _of_each(lambda x: implies(finished(x.status) & (x.status != CANCELLED) & (unrouted(x) == 0),
                                   x.status == COMPLETED), "G6.7", "E9.1", "O11.4", "G5.2")),
)

_TRANSITIONS = (
    conjoined(
        "write_back_delivers",
        _when(kind(StartWriteBack), G2.taken == E.held, "T7.4"),  # takes the whole list
        # having taken the whole list, empties it (a read leaves it, to clear after the write)
        _when(kind(StartWriteBack) & (G2.taken == E.held), ite(G2.phase == READ, E2.held == E.held, E2.held.size == 0),
              "T7.7"),
        _when(kind(ClearHeld), E2.held == E.held.filter(lambda r: ~G.taken.contains(r)), "T7.7"),
        _when(~kind(StartWriteBack, ClearHeld) & act.ok, E2.messages.size == E.messages.size + 1, "T7.6"),
        _when(~kind(StartWriteBack, ClearHeld) & act.ok & (E2.messages.size == E.messages.size + 1),
              E2.messages.last == G.taken + G.collected, "T7.5", "T7.6"),  # with one more message: that one
        step=True),
    conjoined(
        "repause_holds_everything",
        Part(E.held.all_of(lambda r: E2.held.contains(r) | NEW_WARNINGS.any_of(lambda w: w.ref == r)), ("T7.9",)),
        Part(G.collected.all_of(lambda r: E2.held.contains(r) | NEW_WARNINGS.any_of(lambda w: w.ref == r)),
             ("T7.1",)),
        step=True),
    conjoined(
        "failed_write_back_restores",
        Part(P.warnings.size == S.warnings.size, ("T7.12",)),  # drops nothing
        _when(kind(WriteMessage), act.ok | (E2.messages == E.messages), "T7.12"),  # a failed write writes nothing
        _when(kind(PutBack), E2.held == G.taken + E.held, "T7.10"),  # puts back what it took, in front
        # reports, once it put back (the count stops at the bound: endless writes, `--write-failures any`)
        _when(~kind(WriteMessage, PutBack),
              (G.taken.size == 0) & (E2.write_failures == minimum(E.write_failures + 1, B.write_failures)), "T7.11"),
        step=True),
    conjoined(
        "drops_newest_with_warning",
        Part(kind(Expire) | NEW_WARNINGS.all_of(lambda w: NEW_WARNINGS.count(lambda v: v.ref == w.ref) == 1),
             ("T7.15",)),  # one warning each
        Part(kind(Expire) | NEW_WARNINGS.all_of(lambda w: execution(P, w.execution).held.all_of(lambda r: r <= w.ref)
                                                  & (execution(P, w.execution).held.size >= B.held_bound)),
             ("T7.14",)),  # the newest, and only past the bound
        step=True),
    _step("one_question_per_pause", S.executions.zip_all(P.executions, lambda x, y: (
        (x == y) & ~_pausing(y)) | ((x.id == y.id) & _one_more_question_if_pausing(x, y)))
        & P.executions.suffix(S.executions.size).all_of(lambda y: y.questions.size == ite(_pausing(y), 1, 0))),
    _step("messages_only_from_write_back", S.executions.zip_all(P.executions, lambda x, y: (
        x == y) | _writer(y) | (x.messages == y.messages))
        & P.executions.suffix(S.executions.size).all_of(lambda y: _writer(y) | (y.messages.size == 0))),
    _step("trail_never_relabelled", (P.executions.size >= S.executions.size) & S.executions.zip_all(
        P.executions, lambda x, y: (x == y) | ((x.id == y.id) & _kept_or_relabelled(x, y)))),
    _step("failure_recorded_failed", trail(E2, act.call).last.status == FAILED),
    _step("interrupted_not_failed", trail(E2, act.call).last.status == INTERRUPTED),
    conjoined(
        "resume_supersedes",
        _when(kind(CloseSuperseded), ~trail(E2, G.closing).any_of(lambda a: a.status == INTERRUPTED), "G6.4"),
        _when(~kind(CloseSuperseded) & _answering(), _resume_closes(), "G6.4"),
        _when(~kind(CloseSuperseded) & _answering(), _resume_reissues(), "G6.3"),
        step=True),
    _step("work_skipped_after_unhandled_failure", E.unhandled == 0),
    _step("stale_answer_changes_nothing", (~Q.is_none & (Q.status == PENDING)) | (P == S)),
    # Frame conditions on what a client sees: what each kind of step may change, the rest unchanged.
    _step("observing_changes_nothing_visible", (P.executions.size == S.executions.size) & S.executions.zip_all(
        P.executions, lambda x, y: _unobserved(x) == _unobserved(y)) & (P.warnings == S.warnings)),
    _step("held_changes_only_at_hold_take_put_back", kind(Crash) | (S.executions.zip_all(
        P.executions, lambda x, y: (x.held == y.held) | (
            (x.id == base_of(act.execution)) & kind(ToolInterrupts, StartWriteBack, ClearHeld, PutBack, Expire)))
        & _no_new_execution_holds())),
    _step("finished_status_is_final", S.executions.zip_all(
        P.executions, lambda x, y: ~finished(x.status) | (y.status == x.status))),
    _step("status_decided_when_the_segment_ends", S.executions.zip_all(P.executions, lambda x, y: (
        x.status == y.status) | (y.status == RUNNING) | ~P.segments.any_of(
            lambda z: base_of(z.execution) == y.id))),
)


def _written(status: str, test: Callable[[Expr], Expr]) -> Expr:
    """A successful write-back finished its execution with `status`, and `test` holds of it."""
    return act.ok & (E2.status == status) & test(E2)


_WITNESSES = (
    _step("delivered_after_pause", act.ok & (G.taken.size > 0)),
    _step("merged_held_and_new", act.ok & (G.taken.size > 0) & (G.collected.size > 0)),
    _step("held_across_pause", E2.held.size > 0),
    _step("repause_with_held", E.held.size > 0),
    _step("two_pauses", E2.questions.size >= 2),
    _step("write_back_fails_with_held", ~act.ok & (G.taken.size > 0)),
    _step("warned_drop", P.warnings.size > S.warnings.size),
    _step("poll_while_holding", E.held.size > 0),
    _step("interrupt_observed_twice", lift(True)),
    _step("approve", act.approve),
    _step("decline", ~act.approve),
    _step("two_calls_in_segment", G2.calls >= 2),
    _step("tool_failure", lift(True)),
    _step("calls_after_a_failure", (E.attempts.size > 0) & (E.attempts.last.status == FAILED)),
    _step("delivers_after_a_put_back", act.ok & (G.taken.size > 0) & (E.write_failures > 0)),
    _step("completes_after_pause", _written(COMPLETED, lambda x: x.questions.size > 0)),
    _step("completes_after_failure", _written(COMPLETED, lambda x: x.attempts.any_of(lambda a: a.status == FAILED)
                                                & (unrouted(x) == 0))),
    _step("completes_after_decline", _written(COMPLETED, lambda x: x.questions.any_of(
        lambda q: q.status == DECLINED))),
    _step("two_write_backs", act.ok & (E2.messages.size >= 2)),
    _step("interim_write_delivers_held", act.ok & ~G.final & (G.taken.size > 0)),
    _step("stale_answer", E.questions.any_of(lambda q: (q.id == act.question) & (q.status != PENDING))),
    _step("routed_node_failure", act.routed),
    _step("fails_after_unrouted_failure", _written(FAILED, lambda x: unrouted(x) > 0)),
    _step("artifact_beside_another_execution", (P.executions.size >= 2) & P.executions.any_of(
        lambda x: (x.held.size > 0) | x.messages.any_of(lambda m: m.size > 0))),
)

FORMULAS: dict[str, Formula] = {f.name: f for f in _ALWAYS + _TRANSITIONS + _WITNESSES}


def formula_of(name: str) -> Formula:
    """The formula of a property (KeyError if it has none)."""
    return FORMULAS[name]

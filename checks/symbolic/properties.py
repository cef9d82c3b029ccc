"""The properties as z3 terms: every invariant, transition property and witness of `model/properties.py`
and `model/witnesses.py`, by name, with the deadlock pseudo-property.

A state check says that the property holds in a symbolic state. A step check is given the concrete
move (its kind and execution slot are Python values) and the pre- and post-states, and says that the
step keeps a transition property, or that it shows a witness. The action kinds a step check looks at
are the explicit property's own `on`, so the two cannot disagree on where a property applies.
"""

from __future__ import annotations

from collections.abc import Callable

import z3
from pausecheck.model.actions import (
    Answer,
    NodeFails,
    PutBack,
    ReportFailure,
    StartTurn,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import ALWAYS
from pausecheck.model.state import (
    APPROVED,
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
)

from .rules import UNASKED, Move, Semantics, finished, is_final, running
from .state import SExecution, SState, code
from .vec import FALSE, TRUE, ZERO, Vec, pick, same, total

__all__ = ["places", "STATE_CHECKS", "STEP_CHECKS", "WITNESS_CHECKS", "holds", "step_holds", "step_shows",
           "deadlocked",
           "applies"]

StateCheck = Callable[[Semantics, SState], z3.BoolRef]
StepCheck = Callable[[Semantics, Move, SState, SState], z3.BoolRef]
_ON = {p.name: p.on for p in PROPERTIES}


def _exists(s: SState) -> list[tuple[int, z3.BoolRef, SExecution]]:
    return [(i, i < s.n_executions, e) for i, e in enumerate(s.executions)]


def _messages(e: SExecution) -> list[Vec]:
    return list(e.messages)  # slots past n_messages are empty, so they add nothing


def _occurrences(s: SState, ref: int) -> z3.ArithRef:
    return total(m.count(lambda r: r[0] == ref) for e in s.executions for m in _messages(e))


def places(s: SState, ref: int) -> z3.ArithRef:
    """In how many places the artifact is: collected, taken (not a copy), held, on a message, warned."""
    is_ref = lambda r: r[0] == ref  # noqa: E731
    counts = [g.collected.count(is_ref) for g in s.segments]
    counts += [z3.If(z3.Or(g.phase == code(READ), g.phase == code(WRITTEN)), ZERO, g.taken.count(is_ref))
               for g in s.segments]
    counts += [e.held.count(is_ref) for e in s.executions]
    counts += [_occurrences(s, ref), s.warnings.count(lambda w: w[1] == ref)]
    return total(counts)


def _origin(s: SState, ref: z3.ArithRef) -> z3.ArithRef:
    return s.artifacts.at(ref - 1)[0]


def _unrouted(e: SExecution) -> z3.ArithRef:
    return e.node_failures.count(lambda r: r[0] == 0)


def _shows_held(m: Semantics) -> bool:
    return m.deviation is not None and m.deviation.shows_held


# ---------------------------------------------------------------------------------------------
# always


def no_double_delivery(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([_occurrences(s, r) <= 1 for r in range(1, m.universe.artifacts + 1)])


def no_loss(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([z3.Implies(r <= s.artifacts.length, places(s, r) == 1)
                   for r in range(1, m.universe.artifacts + 1)])


def held_hidden(m: Semantics, s: SState) -> z3.BoolRef:
    lists = [v for e in s.executions for v in (*_messages(e), *((e.held,) if _shows_held(m) else ()))]
    shown = lambda r: z3.Or([v.contains(r) for v in lists])  # noqa: E731
    return z3.And([e.held.all(lambda h: z3.Not(shown(h[0]))) for e in s.executions])


def finished_holds_nothing(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([z3.Implies(z3.And(there, finished(e.status)), e.held.length == 0) for _, there, e in _exists(s)])


def merge_order(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([z3.Implies(msg.present(j + 1), msg.items[j][0] < msg.items[j + 1][0])
                   for e in s.executions for msg in _messages(e) for j in range(msg.cap - 1)])


def held_bounded(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([e.held.length <= m.bounds.held_bound for e in s.executions])


def isolation(m: Semantics, s: SState) -> z3.BoolRef:
    own = [z3.And([v.all(lambda r, n=i + 1: _origin(s, r[0]) == n) for v in (e.held, *_messages(e))])
           for i, _, e in _exists(s)]
    return z3.And(*own, s.warnings.all(lambda w: _origin(s, w[1]) == w[0]))


def no_phantom_pause(m: Semantics, s: SState) -> z3.BoolRef:
    parts = []
    for _, there, e in _exists(s):
        pending = e.questions.count(lambda q: q[1] == code(PENDING))
        interrupted = e.attempts.any(lambda a: a[1] == code(INTERRUPTED))
        parts.append(z3.Implies(there, z3.And(
            z3.Implies(finished(e.status), z3.Not(interrupted)),
            z3.If(e.status == code(PAUSED), pending == 1, pending == 0))))
    return z3.And(parts)


def tool_failures_handled(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([e.unhandled == _unrouted(e) for e in s.executions])


def handled_run_completes(m: Semantics, s: SState) -> z3.BoolRef:
    parts = []
    for _, there, e in _exists(s):
        judged = z3.And(there, finished(e.status), e.status != code(CANCELLED))
        parts.append(z3.Implies(judged, e.status == z3.If(_unrouted(e) > 0, code(FAILED), code(COMPLETED))))
    return z3.And(parts)


# ---------------------------------------------------------------------------------------------
# transition: each says the step keeps the property


def one_question_per_pause(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    parts = []
    for i, (old, new) in enumerate(zip(pre.executions, post.executions, strict=True)):
        raised = 1 if mv.kind is ToolInterrupts and mv.slot == i else 0
        kept = [z3.Implies(j < old.questions.length, new.questions.items[j][3] == old.questions.items[j][3])
                for j in range(old.questions.cap)]
        parts.append(z3.And(new.questions.length == old.questions.length + raised, *kept))
    return z3.And(parts)


def messages_only_from_write_back(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    writer = mv.slot if mv.kind is WriteMessage and mv.param else None
    return z3.And([same((old.n_messages, old.messages), (new.n_messages, new.messages))
                   for i, (old, new) in enumerate(zip(pre.executions, post.executions, strict=True)) if i != writer])


_OWN_EVENT = {ToolReturns: COMPLETED, ToolFails: FAILED, ToolInterrupts: INTERRUPTED}


def _question(e: SExecution, qid: z3.ArithRef) -> tuple[z3.BoolRef, tuple]:
    """(is there a question with this id?, the first such)."""
    return e.questions.first(lambda q: q[3] == qid)


def _answered(mv: Move, pre: SState) -> tuple[z3.BoolRef, tuple]:
    """The question an Answer move names: the latest question's id, looked up as `_answered` does."""
    e = pre.executions[mv.slot]
    if mv.param == UNASKED:
        return FALSE, e.questions.last()
    return _question(e, e.questions.last()[3])


def trail_never_relabelled(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    parts = []
    for i, (old_e, new_e) in enumerate(zip(pre.executions, post.executions, strict=True)):
        mine = mv.slot == i and mv.kind is not StartTurn
        _, call = running(old_e)  # the action's call, for the tool events
        asked_call = _answered(mv, pre)[1][0] if mine and mv.kind is Answer else None
        for j in range(min(old_e.attempts.cap, new_e.attempts.cap)):
            old, new = old_e.attempts.items[j], new_e.attempts.items[j]
            both = z3.And(old_e.attempts.present(j), new_e.attempts.present(j))
            changed = z3.Or(old[0] != new[0], old[1] != new[1])
            own = FALSE
            if mine and mv.kind in _OWN_EVENT:
                own = z3.And(old[1] == code(RUNNING), old[0] == call, new[1] == code(_OWN_EVENT[mv.kind]))
            answered = FALSE
            if asked_call is not None:
                answered = z3.And(old[1] == code(INTERRUPTED), new[1] == code(CANCELLED), asked_call == old[0])
            parts.append(z3.Implies(z3.And(both, changed), z3.Or(own, answered)))
        parts.append(new_e.attempts.length >= old_e.attempts.length)
    return z3.And(parts)


def _trail(e: SExecution, call: z3.ArithRef) -> Vec:
    """The statuses of one call's attempts, oldest first."""
    return e.attempts.only(lambda a: a[0] == call, column=1)


def _records(status: str) -> StepCheck:
    def check(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
        _, call = running(pre.executions[mv.slot])
        found, last = post.executions[mv.slot].attempts.last_where(lambda a: a[0] == call)
        return z3.And(found, last[1] == code(status))
    return check


def write_back_delivers(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    before, after = pre.executions[mv.slot], post.executions[mv.slot]
    segment = pre.segments[mv.slot]
    if mv.kind is StartWriteBack:
        read = post.segments[mv.slot]
        left = z3.If(read.phase == code(READ), before.held.length, 0)
        return z3.And(same(read.taken, before.held), after.held.length == left,
                      z3.Or(left == 0, same(after.held, before.held)))
    if not mv.param:
        return TRUE
    expected = segment.taken.extend(segment.collected)
    written = _message_at(after, before.n_messages)
    return z3.And(after.n_messages == before.n_messages + 1, same(written, expected))


def _message_at(e: SExecution, index: z3.ArithRef) -> Vec:
    chosen = e.messages[-1]
    for k in range(len(e.messages) - 2, -1, -1):
        chosen = pick(index == k, e.messages[k], chosen)
    return chosen


def failed_write_back_restores(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    before, after = pre.executions[mv.slot], post.executions[mv.slot]
    segment = pre.segments[mv.slot]
    quiet = post.warnings.length == pre.warnings.length
    if mv.kind is WriteMessage:
        unchanged = same((before.n_messages, before.messages), (after.n_messages, after.messages))
        return z3.And(quiet, TRUE if mv.param else unchanged)
    if mv.kind is PutBack:
        return z3.And(quiet, same(after.held, segment.taken.extend(before.held)))
    assert mv.kind is ReportFailure
    return z3.And(quiet, segment.taken.length == 0, after.write_failures == before.write_failures + 1)


def stale_answer_changes_nothing(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    found, question = _answered(mv, pre)
    return z3.Implies(z3.Or(z3.Not(found), question[1] != code(PENDING)), same(pre, post))


def repause_holds_everything(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    before, after = pre.executions[mv.slot], post.executions[mv.slot]
    incoming = before.held.extend(pre.segments[mv.slot].collected)
    dropped = post.warnings.suffix_at(pre.warnings.length)
    return incoming.all(lambda r: z3.Or(after.held.contains(r[0]), dropped.any(lambda w: w[1] == r[0])))


def drops_newest_with_warning(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    new = post.warnings.suffix_at(pre.warnings.length)
    parts = []
    for j, (present, w) in enumerate(new.rows()):
        unique = z3.And([z3.Implies(new.present(k), new.items[k][1] != w[1]) for k in range(j + 1, new.cap)])
        kept = [z3.Implies(w[0] == i + 1, z3.And(e.held.all(lambda r, ref=w[1]: r[0] <= ref),
                                                  e.held.length >= m.bounds.held_bound))
                for i, e in enumerate(post.executions)]
        parts.append(z3.Implies(present, z3.And(unique, *kept)))
    return z3.And(parts)


def resume_supersedes(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    found, question = _answered(mv, pre)
    before, after = pre.executions[mv.slot], post.executions[mv.slot]
    call = question[0]
    closed = _trail(before, call).where(lambda r: r[0] == code(INTERRUPTED), lambda r: (code(CANCELLED),))
    approve = _approving(mv, pre)
    expected = closed.append((code(RUNNING),), when=approve)
    trail = _trail(after, call)
    if expected.cap != trail.cap:
        expected = expected.resized(trail.cap)
    return z3.Implies(z3.And(found, question[1] == code(PENDING)), same(trail, expected))


# ---------------------------------------------------------------------------------------------
# witnesses: each says the step shows the situation


def _ok(mv: Move) -> bool:
    return bool(mv.param)


def _written(status: str, test: Callable[[SExecution], z3.BoolRef]) -> StepCheck:
    def shows(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
        e = post.executions[mv.slot]
        return z3.And(_ok(mv), e.status == code(status), test(e))
    return shows


def _approving(mv: Move, pre: SState) -> z3.BoolRef:
    if mv.param == UNASKED:
        return TRUE
    if mv.param is not None:
        return z3.BoolVal(mv.param)
    return pre.executions[mv.slot].questions.last()[1] != code(APPROVED)


def _taken(s: SState, mv: Move) -> z3.BoolRef:
    return s.segments[mv.slot].taken.length > 0


def _held(s: SState, mv: Move) -> z3.BoolRef:
    return s.executions[mv.slot].held.length > 0


def _stale(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    found, question = _answered(mv, pre)
    return z3.And(found, question[1] != code(PENDING))


def _beside(m: Semantics, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    busy = [z3.Or(e.held.length > 0, *[msg.length > 0 for msg in _messages(e)]) for e in post.executions]
    return z3.And(post.n_executions >= 2, z3.Or(busy))


WITNESS_CHECKS: dict[str, StepCheck] = {
    "delivered_after_pause": lambda m, mv, pre, post: z3.And(_ok(mv), _taken(pre, mv)),
    "merged_held_and_new": lambda m, mv, pre, post: z3.And(_ok(mv), _taken(pre, mv),
                                                           pre.segments[mv.slot].collected.length > 0),
    "held_across_pause": lambda m, mv, pre, post: _held(post, mv),
    "repause_with_held": lambda m, mv, pre, post: _held(pre, mv),
    "two_pauses": lambda m, mv, pre, post: post.executions[mv.slot].questions.length >= 2,
    "write_back_fails_with_held": lambda m, mv, pre, post: z3.And(not _ok(mv), _taken(pre, mv)),
    "warned_drop": lambda m, mv, pre, post: post.warnings.length > pre.warnings.length,
    "poll_while_holding": lambda m, mv, pre, post: _held(pre, mv),
    "interrupt_observed_twice": lambda m, mv, pre, post: TRUE,
    "approve": lambda m, mv, pre, post: _approving(mv, pre),
    "decline": lambda m, mv, pre, post: z3.Not(_approving(mv, pre)),
    "two_calls_in_segment": lambda m, mv, pre, post: post.segments[mv.slot].calls >= 2,
    "tool_failure": lambda m, mv, pre, post: TRUE,
    "completes_after_pause": _written(COMPLETED, lambda e: e.questions.length > 0),
    "completes_after_failure": _written(COMPLETED, lambda e: z3.And(e.attempts.any(lambda a: a[1] == code(FAILED)),
                                                                    _unrouted(e) == 0)),
    "completes_after_decline": _written(COMPLETED, lambda e: e.questions.any(lambda q: q[1] == code(DECLINED))),
    "two_write_backs": lambda m, mv, pre, post: z3.And(_ok(mv), post.executions[mv.slot].n_messages >= 2),
    "interim_write_delivers_held": lambda m, mv, pre, post: z3.And(_ok(mv), z3.Not(pre.segments[mv.slot].final),
                                                                   _taken(pre, mv)),
    "stale_answer": _stale,
    "routed_node_failure": lambda m, mv, pre, post: z3.BoolVal(bool(mv.param)) if mv.kind is NodeFails else FALSE,
    "fails_after_unrouted_failure": _written(FAILED, lambda e: _unrouted(e) > 0),
    "artifact_beside_another_execution": _beside,
}

STATE_CHECKS: dict[str, StateCheck] = {
    "no_double_delivery": no_double_delivery, "no_loss": no_loss, "held_hidden": held_hidden,
    "finished_holds_nothing": finished_holds_nothing, "merge_order": merge_order, "held_bounded": held_bounded,
    "isolation": isolation, "no_phantom_pause": no_phantom_pause, "tool_failures_handled": tool_failures_handled,
    "handled_run_completes": handled_run_completes,
}

STEP_CHECKS: dict[str, StepCheck] = {
    "write_back_delivers": write_back_delivers, "repause_holds_everything": repause_holds_everything,
    "failed_write_back_restores": failed_write_back_restores, "drops_newest_with_warning": drops_newest_with_warning,
    "one_question_per_pause": one_question_per_pause, "messages_only_from_write_back": messages_only_from_write_back,
    "trail_never_relabelled": trail_never_relabelled, "failure_recorded_failed": _records(FAILED),
    "interrupted_not_failed": _records(INTERRUPTED), "resume_supersedes": resume_supersedes,
    "stale_answer_changes_nothing": stale_answer_changes_nothing,
    **WITNESS_CHECKS,
}


def applies(name: str, mv: Move) -> bool:
    """Does the step property `name` look at this move's kind (the explicit property's `on`)?"""
    on = _ON[name]
    return not on or mv.kind in on


def holds(m: Semantics, name: str, s: SState) -> z3.BoolRef:
    """The `always` property `name` holds in `s`."""
    return STATE_CHECKS[name](m, s)


def step_holds(m: Semantics, name: str, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    """The step keeps the transition property `name` (true where the property does not look)."""
    return STEP_CHECKS[name](m, mv, pre, post) if applies(name, mv) else TRUE


def step_shows(m: Semantics, name: str, mv: Move, pre: SState, post: SState) -> z3.BoolRef:
    """The step shows the witness `name` (false where the witness does not look)."""
    return WITNESS_CHECKS[name](m, mv, pre, post) if applies(name, mv) else FALSE


def deadlocked(m: Semantics, s: SState, all_moves: list[Move]) -> z3.BoolRef:
    """Not final, and every move is disabled or leads back to `s` (as `Machine.deadlocked`)."""
    return z3.And(z3.Not(is_final(m, s)), *[z3.Or(z3.Not(mv.guard), same(mv.post, s)) for mv in all_moves])


assert set(STATE_CHECKS) == {p.name for p in PROPERTIES if p.kind == ALWAYS}
assert set(STEP_CHECKS) == {p.name for p in PROPERTIES if p.kind != ALWAYS}

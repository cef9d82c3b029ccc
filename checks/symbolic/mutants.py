"""The mutants as z3 terms: for each mutant of `checks/mutants.py` encoded so far, the symbolic twin of its
deviation (`checks/deviations.py`), applied to the default successor of the moves it deviates on.

A mutant that is not here is not encoded yet: `check --engines bfs,bmc` names it and does not claim
agreement on it. The agreement test holds each twin to its explicit mutant (same verdicts, same minimal
depths), so a twin that drifts from its deviation fails there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import z3
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
from pausecheck.model.config import Bounds
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
)

from .rules import UNASKED, Deviation, Move, Semantics, fresh_segment, running
from .state import SExecution, SSegment, SState, code, no_segment
from .vec import ZERO, Vec, num, pick

__all__ = ["SYMBOLIC_MUTANTS", "mutant_semantics"]

Patch = Callable[[Semantics, Move, SState], SState]


def _on(kind: type, deviate: Patch) -> Patch:
    def patch(m: Semantics, mv: Move, pre: SState) -> SState:
        return deviate(m, mv, pre) if mv.kind is kind else mv.post
    return patch


def _answering(deviate: Patch) -> Patch:
    """On answers to the pending question only (the stale-answer move, param None, is left alone)."""
    def patch(m: Semantics, mv: Move, pre: SState) -> SState:
        return deviate(m, mv, pre) if mv.kind is Answer and mv.param is not None else mv.post
    return patch


def _both(*patches: Patch) -> Patch:
    def patch(m: Semantics, mv: Move, pre: SState) -> SState:
        for p in patches:
            mv = Move(mv.kind, mv.slot, mv.param, mv.guard, p(m, mv, pre))
        return mv.post
    return patch


def _e(s: SState, mv: Move) -> SExecution:
    return s.executions[mv.slot]


def _g(s: SState, mv: Move) -> SSegment:
    return s.segments[mv.slot]


def _set(s: SState, mv: Move, **fields: object) -> SState:
    i = mv.slot
    return s._replace(executions=s.executions[:i] + (s.executions[i]._replace(**fields),) + s.executions[i + 1:])


def _seg(s: SState, mv: Move, segment: SSegment) -> SState:
    i = mv.slot
    return s._replace(segments=s.segments[:i] + (segment,) + s.segments[i + 1:])


def _relabel(e: SExecution, call: z3.ArithRef, old: str, new: str) -> Vec:
    return e.attempts.where(lambda a: z3.And(a[0] == call, a[1] == code(old)), lambda a: (a[0], code(new)))


def _written(post: SExecution, pre: SExecution, message: Vec) -> tuple[Vec, ...]:
    """The post-state's messages with the one just written (at the pre-state's count) replaced."""
    return tuple(pick(pre.n_messages == k, message, old) for k, old in enumerate(post.messages))


def _appended(e: SExecution, message: Vec, when: z3.BoolRef | bool = True) -> dict[str, object]:
    grown = tuple(pick(z3.And(when, e.n_messages == k), message, old) for k, old in enumerate(e.messages))
    return {"messages": grown, "n_messages": z3.If(when, e.n_messages + 1, e.n_messages)}


def _rehold(m: Semantics, mv: Move, pre: SState, kept: Vec, dropped: Vec) -> SState:
    post = _set(mv.post, mv, held=kept.resized(_e(pre, mv).held.cap))
    return post._replace(warnings=pre.warnings.extend(dropped.tagged(mv.slot + 1)))


def _merged(pre: SState, mv: Move) -> Vec:
    return _e(pre, mv).held.extend(_g(pre, mv).collected)


def _asked(pre: SState, mv: Move) -> tuple:
    """The question an answer names (the latest)."""
    return _e(pre, mv).questions.last()


# --- the write-back ---------------------------------------------------------------------------

def _take_keeps_held(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, held=_e(pre, mv).held)


def _write_back_skips_held(m: Semantics, mv: Move, pre: SState) -> SState:
    post = _set(mv.post, mv, held=_e(pre, mv).held)
    return _seg(post, mv, _g(post, mv)._replace(taken=Vec.empty(_g(post, mv).taken.cap, 1)))


def _held_merged_after(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    g = _g(pre, mv)
    return _set(mv.post, mv, messages=_written(_e(mv.post, mv), _e(pre, mv), g.collected.extend(g.taken)))


def _held_on_separate_message(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    g, e = _g(pre, mv), _e(pre, mv)
    split = z3.And(g.taken.length > 0, g.collected.length > 0)
    post_e = _e(mv.post, mv)
    messages = tuple(pick(z3.And(split, e.n_messages == k), g.taken,
                          pick(z3.And(split, e.n_messages + 1 == k), g.collected, old))
                     for k, old in enumerate(post_e.messages))
    return _set(mv.post, mv, messages=messages, n_messages=z3.If(split, post_e.n_messages + 1, post_e.n_messages))


def _resume_reemits_artifacts(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    arts = mv.post.artifacts
    refs = Vec(arts.length, [(z3.If(present, num(j + 1), ZERO), row[0])
                             for j, (present, row) in enumerate(arts.rows())], 2)
    again = refs.only(lambda r: r[1] == mv.slot + 1, column=0)
    return _seg(mv.post, mv, _g(mv.post, mv)._replace(collected=again.resized(_g(mv.post, mv).collected.cap)))


# --- a failed write-back --------------------------------------------------------------------------

def _no_put_back(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, held=_e(pre, mv).held)


def _put_back_by_assignment(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, held=_g(pre, mv).taken)


def _clear_after_write(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, held=Vec.empty(_e(pre, mv).held.cap, 1)) if mv.param else mv.post


def _report_before_put_back(m: Semantics, mv: Move, pre: SState) -> SState:
    return mv.post if mv.param else _seg(mv.post, mv, _g(mv.post, mv)._replace(phase=code(PUT_BACK)))


def _retry_takes_from_memory(m: Semantics, mv: Move, pre: SState) -> SState:
    g = _g(mv.post, mv)
    return _seg(mv.post, mv, g._replace(taken=_g(pre, mv).taken.extend(g.taken)))


def _failure_not_reported(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, write_failures=_e(pre, mv).write_failures)


def _failed_write_lands(m: Semantics, mv: Move, pre: SState) -> SState:
    if mv.param:
        return mv.post
    g = _g(pre, mv)
    return _set(mv.post, mv, **_appended(_e(mv.post, mv), g.taken.extend(g.collected)))


def _releases_collected(m: Semantics, mv: Move, pre: SState) -> SState:
    g = _g(mv.post, mv)
    return _seg(mv.post, mv, g._replace(collected=Vec.empty(g.collected.cap, 1)))


def _put_back_merged_bounded(m: Semantics, mv: Move, pre: SState) -> SState:
    g, bound = _g(pre, mv), m.bounds.held_bound
    merged = g.taken.extend(g.collected).extend(_e(pre, mv).held)
    post = _seg(mv.post, mv, _g(mv.post, mv)._replace(collected=Vec.empty(g.collected.cap, 1)))
    post = _set(post, mv, held=merged.prefix(bound))
    return post._replace(warnings=pre.warnings.extend(merged.suffix(bound, cap=merged.cap).tagged(mv.slot + 1)))


# --- the hold at a pause --------------------------------------------------------------------------

def _drop_oldest(m: Semantics, mv: Move, pre: SState) -> SState:
    merged = _merged(pre, mv)
    cut = z3.If(merged.length > m.bounds.held_bound, merged.length - m.bounds.held_bound, ZERO)
    return _rehold(m, mv, pre, merged.suffix_at(cut), merged.upto(cut))


def _drop_all_on_overflow(m: Semantics, mv: Move, pre: SState) -> SState:
    held, bound = _e(pre, mv).held, m.bounds.held_bound
    over = _rehold(m, mv, pre, held.prefix(bound), held.suffix(bound, cap=held.cap).extend(_g(pre, mv).collected))
    return pick(_merged(pre, mv).length <= bound, mv.post, over)


def _drop_without_warning(m: Semantics, mv: Move, pre: SState) -> SState:
    return mv.post._replace(warnings=pre.warnings)


def _unbounded_held(m: Semantics, mv: Move, pre: SState) -> SState:
    return _rehold(m, mv, pre, _merged(pre, mv), Vec.empty(1, 1))


def _hold_from(m: Semantics, mv: Move, pre: SState, first: Vec, then: Vec) -> SState:
    merged, bound = first.extend(then), m.bounds.held_bound
    return _rehold(m, mv, pre, merged.prefix(bound), merged.suffix(bound, cap=merged.cap))


def _repause_holds_only_new(m: Semantics, mv: Move, pre: SState) -> SState:
    g = _g(pre, mv)
    return _hold_from(m, mv, pre, Vec.empty(g.collected.cap, 1), g.collected)


def _repause_prepends_new(m: Semantics, mv: Move, pre: SState) -> SState:
    return _hold_from(m, mv, pre, _g(pre, mv).collected, _e(pre, mv).held)


def _pause_discards_collected(m: Semantics, mv: Move, pre: SState) -> SState:
    return _rehold(m, mv, pre, _e(pre, mv).held, Vec.empty(1, 1))


def _pause_writes_interim_message(m: Semantics, mv: Move, pre: SState) -> SState:
    post = _rehold(m, mv, pre, Vec.empty(1, 1), Vec.empty(1, 1))
    return _set(post, mv, **_appended(_e(post, mv), _merged(pre, mv)))


def _poll_delivers_held(m: Semantics, mv: Move, pre: SState) -> SState:
    e = _e(mv.post, mv)
    holding = e.held.length > 0
    return pick(holding, _set(mv.post, mv, held=Vec.empty(e.held.cap, 1), **_appended(e, e.held)), mv.post)


def _shared_hold(same_session: bool) -> Patch:
    """A hold into one list shared by every execution (of the pausing one's session, or of all): the
    sorted refs of their held lists (a multiset), then what the segment collected, bounded; the list
    lives with the pausing execution, the others are emptied."""
    def deviate(m: Semantics, mv: Move, pre: SState) -> SState:
        me = _e(pre, mv)
        sharing = [z3.And(i < pre.n_executions, e.session == me.session if same_session else z3.BoolVal(True))
                   for i, e in enumerate(pre.executions)]
        copies = [(r, sum_) for r in range(1, m.universe.artifacts + 1)
                  for sum_ in [sum((z3.If(z3.And(share, e.held.contains(r)), 1, 0) for share, e in
                                    zip(sharing, pre.executions, strict=True)), z3.IntVal(0))]]
        rows = [(num(r), z3.If(z3.IntVal(k) < count, num(1), ZERO)) for r, count in copies for k in range(len(sharing))]
        shared = Vec(num(len(rows)), rows, 2).only(lambda row: row[1] == 1, column=0)
        merged = shared.extend(_g(pre, mv).collected)
        bound = m.bounds.held_bound
        post = mv.post
        for i, share in enumerate(sharing):
            e = post.executions[i]
            emptied = e._replace(held=Vec.empty(e.held.cap, 1))
            post = post._replace(executions=post.executions[:i] + (pick(share, emptied, e),) + post.executions[i + 1:])
        kept, dropped = merged.prefix(bound), merged.suffix(bound, cap=merged.cap)
        post = _set(post, mv, held=kept.resized(me.held.cap))
        return post._replace(warnings=pre.warnings.extend(dropped.tagged(mv.slot + 1)))
    return deviate


def _question_per_gated_call(m: Semantics, mv: Move, pre: SState) -> SState:
    e, g = _e(mv.post, mv), _g(pre, mv)
    _, call = running(_e(pre, mv))
    first = e.calls - g.calls + 1  # the segment's first fresh call
    candidates = Vec(num(m.bounds.calls), [(first + k, z3.If(z3.And(k < g.calls, first + k != call), num(1), ZERO))
                                           for k in range(m.bounds.calls)], 2)
    others = candidates.only(lambda row: row[1] == 1, column=0)
    extra = Vec(others.length, [(c, z3.If(others.present(j), code(PENDING), ZERO), ZERO,
                                 z3.If(others.present(j), e.questions.length + 1 + j, ZERO))
                                for j, (c,) in enumerate(others.items)], 4)
    last = e.questions.last()
    questions = e.questions.pop().extend(extra).append(last)
    return _set(mv.post, mv, questions=questions)


# --- the attempt trail ----------------------------------------------------------------------------

def _call_relabelled(old: str, new: str) -> Patch:
    """The step's call (the one running before it) has its attempts of status `old` recorded `new`."""
    def deviate(m: Semantics, mv: Move, pre: SState) -> SState:
        _, call = running(_e(pre, mv))
        return _set(mv.post, mv, attempts=_relabel(_e(mv.post, mv), call, old, new))
    return deviate


def _interrupt_keeps_running(m: Semantics, mv: Move, pre: SState) -> SState:
    return _set(mv.post, mv, status=code(RUNNING))


def _resume_flips_attempt(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    e = _e(mv.post, mv)
    popped = e._replace(attempts=e.attempts.pop())
    return _set(mv.post, mv, attempts=_relabel(popped, _asked(pre, mv)[0], CANCELLED, RUNNING))


def _resume_as_fresh_call(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    e = _e(mv.post, mv)
    return _set(mv.post, mv, calls=e.calls + 1, attempts=e.attempts.pop().append((e.calls + 1, code(RUNNING))))


def _keep_interrupted(when: bool) -> Patch:
    def deviate(m: Semantics, mv: Move, pre: SState) -> SState:
        if mv.param != when:
            return mv.post
        return _set(mv.post, mv, attempts=_e(mv.post, mv).attempts.over(_e(pre, mv).attempts))
    return deviate


def _decline_reissues_call(m: Semantics, mv: Move, pre: SState) -> SState:
    if mv.param:
        return mv.post
    e = _e(mv.post, mv)
    return _set(mv.post, mv, attempts=e.attempts.append((_asked(pre, mv)[0], code(RUNNING))))


# --- failures and the verdict ---------------------------------------------------------------------

def _unhandled(delta: int, when: Callable[[Move], bool] = lambda mv: True, base_pre: bool = False) -> Patch:
    def deviate(m: Semantics, mv: Move, pre: SState) -> SState:
        if not when(mv):
            return mv.post
        base = (_e(pre, mv) if base_pre else _e(mv.post, mv)).unhandled
        return _set(mv.post, mv, unhandled=base + delta)
    return deviate


def _failures_relabelled_on_resume(m: Semantics, mv: Move, pre: SState) -> SState:
    e = _e(mv.post, mv)
    return _set(mv.post, mv, attempts=e.attempts.where(lambda a: a[1] == code(FAILED),
                                                       lambda a: (a[0], code(COMPLETED))))


def _tool_failure_fails_run(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    e = _e(mv.post, mv)
    failed = z3.And(e.status == code(COMPLETED), e.attempts.any(lambda a: a[1] == code(FAILED)))
    return _set(mv.post, mv, status=z3.If(failed, code(FAILED), e.status))


def _failed_run_strands_held(m: Semantics, mv: Move, pre: SState) -> SState:
    if not mv.param:
        return mv.post
    return pick(_e(pre, mv).unhandled > 0, _write_back_skips_held(m, mv, pre), mv.post)


def _stale_answer_overrides(m: Semantics, mv: Move, pre: SState) -> SState:
    if mv.param is not None:
        return mv.post
    last = _asked(pre, mv)
    verdict = z3.If(last[1] == code(APPROVED), code(DECLINED), code(APPROVED))  # the stale answer's way
    e = _e(mv.post, mv)
    settled = e.questions.where(lambda q: q[3] == last[3], lambda q: (q[0], verdict, q[2], q[3]))
    return _set(mv.post, mv, questions=settled)


def _decline_ends(status: str | None) -> Patch:
    def deviate(m: Semantics, mv: Move, pre: SState) -> SState:
        if mv.param:
            return mv.post
        post = _seg(mv.post, mv, no_segment(m.universe))
        return post if status is None else _set(post, mv, status=code(status))
    return deviate


# --- questions --------------------------------------------------------------------------------------

def _question_per_observation(m: Semantics, mv: Move, pre: SState) -> SState:
    e = _e(mv.post, mv)
    last = e.questions.last()
    return _set(mv.post, mv, questions=e.questions.append((last[0], code(PENDING), last[2], e.questions.length + 1)))


def _observation_reraises_question(m: Semantics, mv: Move, pre: SState) -> SState:
    e = _e(mv.post, mv)
    return _set(mv.post, mv, questions=e.questions.set_at(e.questions.length - 1,
                                                          lambda q: (q[0], q[1], q[2], q[3] + 1)))


def _answer_leaves_question_pending(m: Semantics, mv: Move, pre: SState) -> SState:
    e, qid = _e(mv.post, mv), _asked(pre, mv)[3]
    return _set(mv.post, mv, questions=e.questions.where(lambda q: q[3] == qid,
                                                         lambda q: (q[0], code(PENDING), q[2], q[3])))


# --- behaviour removed or added -----------------------------------------------------------------------

def _declines(mv: Move, pre: SState) -> z3.BoolRef:
    if mv.kind is not Answer:
        return z3.BoolVal(False)
    if mv.param is None:  # a stale answer goes the other way from the settled one
        return _asked(pre, mv)[1] == code(APPROVED)
    return z3.BoolVal(not mv.param)


def _failing_writes(mv: Move, pre: SState) -> z3.BoolRef:
    return z3.BoolVal(mv.kind is WriteMessage and not mv.param)


def _resume_without_answer(m: Semantics, s: SState) -> list[Move]:
    from pausecheck.model.state import PAUSED
    found = []
    for i, e in enumerate(s.executions):
        guard = z3.And(i < s.n_executions, e.status == code(PAUSED), e.n_messages == 0)
        post = s._replace(executions=s.executions[:i] + (e._replace(status=code(RUNNING)),) + s.executions[i + 1:],
                          segments=s.segments[:i] + (fresh_segment(m.universe),) + s.segments[i + 1:])
        found.append(Move(Answer, i, UNASKED, guard, post))
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class SymbolicMutant:
    """A mutant's deviation as terms, and how much larger than the default its states may grow."""

    deviation: Deviation
    grow: tuple[tuple[str, int], ...] = ()  # Universe field -> extra capacity


_P = lambda kind, f, *grow: SymbolicMutant(Deviation(patch=_on(kind, f)), grow)  # noqa: E731
_A = lambda f, *grow: SymbolicMutant(Deviation(patch=_answering(f)), grow)  # noqa: E731

SYMBOLIC_MUTANTS: dict[str, SymbolicMutant] = {
    "take_keeps_held": _P(StartWriteBack, _take_keeps_held),
    "write_back_skips_held": _P(StartWriteBack, _write_back_skips_held),
    "held_merged_after": _P(WriteMessage, _held_merged_after),
    "held_on_separate_message": _P(WriteMessage, _held_on_separate_message, ("messages", 2)),
    "resume_reemits_artifacts": _A(_resume_reemits_artifacts),
    "no_put_back": _P(PutBack, _no_put_back),
    "read_then_clear_take": SymbolicMutant(Deviation(patch=_both(_on(StartWriteBack, _take_keeps_held),
                                                                 _on(WriteMessage, _clear_after_write)))),
    "report_before_put_back": SymbolicMutant(Deviation(patch=_both(_on(WriteMessage, _report_before_put_back),
                                                                   _on(StartWriteBack, _retry_takes_from_memory)))),
    "failure_not_reported": _P(ReportFailure, _failure_not_reported),
    "failed_write_lands": _P(WriteMessage, _failed_write_lands, ("messages", 2)),
    "failed_write_back_releases_collected": _P(ReportFailure, _releases_collected),
    "put_back_by_assignment": _P(PutBack, _put_back_by_assignment),
    "put_back_merged_bounded": _P(PutBack, _put_back_merged_bounded),
    "drop_oldest": _P(ToolInterrupts, _drop_oldest),
    "drop_all_on_overflow": _P(ToolInterrupts, _drop_all_on_overflow),
    "drop_without_warning": _P(ToolInterrupts, _drop_without_warning),
    "unbounded_held": _P(ToolInterrupts, _unbounded_held),
    "repause_holds_only_new": _P(ToolInterrupts, _repause_holds_only_new),
    "repause_prepends_new": _P(ToolInterrupts, _repause_prepends_new),
    "pause_discards_collected": _P(ToolInterrupts, _pause_discards_collected),
    "pause_writes_interim_message": _P(ToolInterrupts, _pause_writes_interim_message, ("messages", 2)),
    "held_keyed_per_workflow": _P(ToolInterrupts, _shared_hold(False)),
    "held_keyed_per_session": _P(ToolInterrupts, _shared_hold(True)),
    "poll_delivers_held": _P(Poll, _poll_delivers_held, ("messages", 2)),
    "poll_shows_held": SymbolicMutant(Deviation(shows_held=True)),
    "interrupt_recorded_failed": _P(ToolInterrupts, _call_relabelled(INTERRUPTED, FAILED)),
    "interrupt_keeps_running": _P(ToolInterrupts, _interrupt_keeps_running),
    "interrupt_closes_attempt": _P(ToolInterrupts, _call_relabelled(INTERRUPTED, CANCELLED)),
    "resume_flips_attempt": _A(_resume_flips_attempt),
    "resume_as_fresh_call": _A(_resume_as_fresh_call, ("calls", 2)),
    "superseded_left_interrupted": _A(_keep_interrupted(True)),
    "decline_leaves_interrupted": _A(_keep_interrupted(False)),
    "decline_reissues_call": _A(_decline_reissues_call, ("attempts", 2)),
    "tool_failure_unhandled": _P(ToolFails, _unhandled(1)),
    "tool_failure_recorded_cancelled": _P(ToolFails, _call_relabelled(FAILED, CANCELLED)),
    "tool_failure_recorded_completed": _P(ToolFails, _call_relabelled(FAILED, COMPLETED)),
    "failures_relabelled_on_resume": _A(_failures_relabelled_on_resume),
    "tool_failure_fails_run": _P(WriteMessage, _tool_failure_fails_run),
    "unrouted_failure_handled": _P(NodeFails, _unhandled(0, lambda mv: not mv.param, base_pre=True)),
    "routed_failure_counted": _P(NodeFails, _unhandled(1, lambda mv: bool(mv.param), base_pre=True)),
    "failed_run_strands_held": _P(StartWriteBack, _failed_run_strands_held),
    "stale_answer_overrides": _P(Answer, _stale_answer_overrides),
    "decline_fails_run": _A(_decline_ends(FAILED)),
    "decline_stalls": _A(_decline_ends(None)),
    "question_per_observation": _P(ObserveAgain, _question_per_observation, ("questions", 2)),
    "observation_reraises_question": _P(ObserveAgain, _observation_reraises_question),
    "question_per_gated_call": _P(ToolInterrupts, _question_per_gated_call, ("questions", 4)),
    "answer_leaves_question_pending": _A(_answer_leaves_question_pending),
    "decline_not_offered": SymbolicMutant(Deviation(block=_declines)),
    "write_never_fails": SymbolicMutant(Deviation(block=_failing_writes)),
    "resume_without_answer": SymbolicMutant(Deviation(extra=_resume_without_answer),
                                            (("messages", 2), ("calls", 2), ("attempts", 2))),
}


def mutant_semantics(name: str, bounds: Bounds) -> Semantics:
    """The symbolic semantics of a mutant at `bounds` (KeyError if it is not encoded)."""
    mutant = SYMBOLIC_MUTANTS[name]
    m = Semantics.of(bounds)
    # A deviant runtime may hold or deliver an artifact twice: room for every ref twice in every list.
    grown = {f: getattr(m.universe, f) + n for f, n in mutant.grow} | {"refs": 2 * m.universe.artifacts}
    universe = dataclasses.replace(m.universe, **grown)
    return dataclasses.replace(m, universe=universe, deviation=mutant.deviation)


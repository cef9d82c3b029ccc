"""Deviations: what each mutant runtime does instead of the rules, as an edit of the rule table.

Each constant is the deviation of one mutant (named as the mutant, in capitals): the edits of
`model/deviate.py` (a statement of a rule replaced or dropped, statements added, an ambiguity read one
way, a guard narrowed, a rule added), applied only when a mutant is used, to whichever base it deviates
from (the rules, or a spec author's draft). Every engine derived from a table runs it (the explicit
successors and `pygen.step`, the z3 relation, the Promela). The catalogue that names them, with the
clauses they break and what must catch them, is `checks/mutants/catalogue.py`; it imports this module only when
it is first asked for, so that an edit of the rules that removes a statement named here is reported
as the mutants no longer applying, not raised by every command.

Names as in `model/rules.py`: `S` the state, `e` an execution, `g` a segment in flight, `run` the first
running attempt of `e`, `q` the latest question of `e`, `B.x` the bound x.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pausecheck.model.actions import (
    Answer,
    CallTool,
    Expire,
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
from pausecheck.model.deviate import After, Also, Deviation, Drop, Effect, First, Only, Reads, Replace, every, on
from pausecheck.model.lang import B, End, Let, Rule, Set, When, call_id, ite, lift, minimum, new, span, var
from pausecheck.model.rules import (
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
    new_first,
    ok,
    q,
    reissue,
    run,
    verdict,
    warned,
)
from pausecheck.model.state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    EXPIRED,
    FAILED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    PUT_BACK,
    RUNNING,
    WORKING,
    Attempt,
    Execution,
    Question,
    Segment,
    State,
)

_m = merged.ref  # what a pause holds: the held list, then what the segment collected
_call = var("call", str)  # the call the answered question asked about

# The write-back: take, merge, deliver (T7.4-T7.8)
# The take copies the held list: it is never cleared.
TAKE_KEEPS_HELD = Deviation(on(StartWriteBack, Drop(e.held)))
# The write-back takes nothing and writes only what the segment collected: the held list is stranded.
WRITE_BACK_SKIPS_HELD = Deviation(on(StartWriteBack, Drop(e.held), Replace(every(g.taken), ())))
# The message carries the segment's artifacts first, then what was taken.
HELD_MERGED_AFTER = Deviation(on(WriteMessage, Replace(message, g.collected + g.taken)))
# What was taken goes out on a message of its own, before the one with the segment's artifacts.
HELD_ON_SEPARATE_MESSAGE = Deviation(on(WriteMessage, Replace(
    every(e.messages), e.messages.append(g.taken).append(g.collected),
    when=(g.taken.size > 0) & (g.collected.size > 0))))
# On approve the resumed segment collects again every artifact its execution produced (re-emitted results).
_again = span(1, S.artifacts.size + 1).filter(lambda r: S.artifacts.at(r - 1).execution == e.id)
RESUME_REEMITS_ARTIFACTS = Deviation(on(Answer, Replace(
    S.segments, lambda old: old.update_where(lambda y: y.execution == e.id, lambda y: y.but(collected=_again)),
    when=approve.ref)))

# A failed write-back: write nothing, put back, then report (T7.10-T7.12)
# The put-back forgets what the write-back took.
NO_PUT_BACK = Deviation(on(PutBack, Drop(e.held)))
# The take only reads; a successful write clears the held list afterwards.
READ_THEN_CLEAR_TAKE = Deviation(on(StartWriteBack, Drop(e.held)),
                               on(WriteMessage, Also(When(ok.ref, (Set(e.held, ()),)))))
# A failed write goes straight to reporting (what was taken stays in hand); the retry takes it again.
REPORT_BEFORE_PUT_BACK = Deviation(on(WriteMessage, Replace(every(g.phase), PUT_BACK, when=~ok.ref)),
                                 on(StartWriteBack, Replace(every(g.taken), lambda old: g.taken + old)))
# The failure is never counted on the run.
FAILURE_NOT_REPORTED = Deviation(on(ReportFailure, Drop(e.write_failures)))
# A failed write was stored after all (A-T14 ambiguous), and what it took is put back.
FAILED_WRITE_LANDS = Deviation(on(WriteMessage, Reads("A-T14", "ambiguous")))
# After a failed write-back the segment lets go of what it collected (A-T4 release).
FAILED_WRITE_BACK_RELEASES_COLLECTED = Deviation(on(ReportFailure, Reads("A-T4", "release")))
# The put-back assigns what was taken to the held list (A-T5 assign).
PUT_BACK_BY_ASSIGNMENT = Deviation(on(PutBack, Reads("A-T5", "assign")))
# The put-back returns taken ++ collected (A-T4 merge), bounded with warnings (A-T9 put-back).
PUT_BACK_MERGED_BOUNDED = Deviation(on(PutBack, Reads("A-T4", "merge"), Reads("A-T9", "put-back")))

# The hold at a pause (T7.1, T7.9, T7.13-T7.15)
_cut = _m.size - minimum(_m.size, B.held_bound)  # how far the held list overflows
# An overflow keeps the newest and drops the oldest.
DROP_OLDEST = Deviation(on(ToolInterrupts, Replace("dropped", _m.prefix(_cut)), Replace(e.held, _m.suffix(_cut))))
# An overflow drops all the pause brought in, not just the excess.
_overflows = B.held_bound < _m.size
DROP_ALL_ON_OVERFLOW = Deviation(on(
    ToolInterrupts, Replace("dropped", e.held.suffix(B.held_bound) + g.collected, when=_overflows),
    Replace(e.held, e.held.prefix(B.held_bound), when=_overflows)))
# An overflow drops silently.
DROP_WITHOUT_WARNING = Deviation(on(ToolInterrupts, Drop(S.warnings)))
# No bound: everything is held, nothing dropped.
UNBOUNDED_HELD = Deviation(on(ToolInterrupts, Replace("dropped", ()), Replace(e.held, _m)))
# A pause holds only what its segment collected: an older held list is overwritten.
REPAUSE_HOLDS_ONLY_NEW = Deviation(on(ToolInterrupts, Replace("merged", g.collected)))
# A re-pause holds the new artifacts before the old held list (A-T15 new-first).
REPAUSE_PREPENDS_NEW = Deviation(on(ToolInterrupts, Reads("A-T15", "new-first")))
# A pause holds nothing new: what the segment collected is gone.
PAUSE_DISCARDS_COLLECTED = Deviation(on(ToolInterrupts, Drop(e.held), Drop(S.warnings)))
# A pause writes what it would hold as a message; nothing is held.
PAUSE_WRITES_INTERIM_MESSAGE = Deviation(on(
    ToolInterrupts, Replace(e.held, ()), Drop(S.warnings), Also(Set(e.messages, e.messages.append(_m)))))
# A poll delivers the held list on a message of its own.
POLL_DELIVERS_HELD = Deviation(on(Poll, Also(When(e.held.size > 0, (
    Set(e.messages, e.messages.append(e.held)), Set(e.held, ()))))))


def _pooled_hold(shares: Callable[[Any], Any]) -> Deviation:
    """A pause that holds into one list shared by every execution x with `shares(x)` (its own included):
    the pooled refs, oldest first (refs are numbered as artifacts arrive), then what the segment
    collected, bounded; the list lives with the execution that paused last, the others' emptied. The rule
    language lets an effect edit its own execution or the state's list of executions, not both, so the
    pause is restated on the list."""
    pooled = span(1, S.artifacts.size + 1).filter(
        lambda r: S.executions.any_of(lambda x: shares(x) & x.held.contains(r)))
    paused = e.but(held=_m.prefix(B.held_bound), attempts=moved(e.attempts, run.call, RUNNING, INTERRUPTED),
                   status=PAUSED, questions=e.questions.append(new(Question, run.call, PENDING, 0,
                                                                    e.questions.size + 1)))
    return Deviation(on(ToolInterrupts, Effect(
        Let("merged", pooled + g.collected),
        Let("dropped", _m.suffix(B.held_bound)),
        Let("paused", paused),
        Set(S.executions, S.executions.map(lambda x: ite(x.id == e.id, var("paused", Execution),
                                                             ite(shares(x), x.but(held=()), x)))),
        warned(e.id, var("dropped", _m.t)),
        End(),
    )))


# One held list per workflow, or per session (A-T1), re-homed to whichever execution paused last.
HELD_KEYED_PER_WORKFLOW = _pooled_hold(lambda x: lift(True))
HELD_KEYED_PER_SESSION = _pooled_hold(lambda x: x.session == e.session)

# The attempt trail (G6.1-G6.5)
# The interrupted attempt is recorded failed.
INTERRUPT_RECORDED_FAILED = Deviation(on(ToolInterrupts, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, FAILED))))
# The run stays running at a pause.
INTERRUPT_KEEPS_RUNNING = Deviation(on(ToolInterrupts, Replace(e.status, RUNNING)))
# The interrupted attempt is closed as cancelled at the pause.
INTERRUPT_CLOSES_ATTEMPT = Deviation(on(ToolInterrupts, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, CANCELLED))))
# On approve the interrupted attempt flips back to running; no new attempt.
_flipped = e.attempts.update_where(lambda a: (a.call == _call) & (a.status == INTERRUPTED),
                                   lambda a: a.but(status=RUNNING))
RESUME_FLIPS_ATTEMPT = Deviation(on(Answer, Replace(close_superseded, Set(e.attempts, _flipped), when=approve.ref),
                                  Drop(reissue)))
# On approve the new attempt belongs to a fresh call.
RESUME_AS_FRESH_CALL = Deviation(on(Answer, Replace(reissue, When(approve.ref, (
    Set(e.attempts, e.attempts.append(new(Attempt, call_id(e.calls + 1), RUNNING))),
    Set(e.calls, e.calls + 1))))))
# On approve the superseded attempt is not closed.
SUPERSEDED_LEFT_INTERRUPTED = Deviation(on(Answer, Drop(close_superseded, when=approve.ref)))
# On decline the superseded attempt is not closed (A-G1 leave).
DECLINE_LEAVES_INTERRUPTED = Deviation(on(Answer, Reads("A-G1", "leave")))
# A decline re-issues the call as an approval does.
DECLINE_REISSUES_CALL = Deviation(on(Answer, Replace(reissue, reissue.then)))

# Failures and the verdict (G6.6-G6.8, E9.1, E9.5, G5.2)
# A tool failure counts as unhandled (A-G4 failed-unmarked).
TOOL_FAILURE_UNHANDLED = Deviation(on(ToolFails, Reads("A-G4", "failed-unmarked")))
# A tool failure is recorded cancelled.
TOOL_FAILURE_RECORDED_CANCELLED = Deviation(on(ToolFails, Replace(
    e.attempts, moved(e.attempts, run.call, RUNNING, CANCELLED))))
# A tool failure is recorded completed (A-G4 completed-with-error).
TOOL_FAILURE_RECORDED_COMPLETED = Deviation(on(ToolFails, Reads("A-G4", "completed-with-error")))
# The consumer keeps calling tools after an unhandled failure (A-X5 carry-on): a later interrupt may pause
# a run that has already failed.
CALLS_AFTER_UNHANDLED_FAILURE = Deviation(on(CallTool, Reads("A-X5", "carry-on")))
# An answer relabels every failed attempt completed.
FAILURES_RELABELLED_ON_RESUME = Deviation(on(Answer, After(reissue, Set(e.attempts, e.attempts.update_where(
    lambda a: a.status == FAILED, lambda a: a.but(status=COMPLETED))))))
# The verdict fails a run that would complete with a failed attempt.
_any_failed = e.attempts.any_of(lambda a: a.status == FAILED)
TOOL_FAILURE_FAILS_RUN = Deviation(on(WriteMessage, Replace(
    e.status, lambda old: ite((old == COMPLETED) & _any_failed, FAILED, old))))
# A node failure never counts as unhandled.
UNROUTED_FAILURE_HANDLED = Deviation(on(NodeFails, Drop(e.unhandled)))
# A node failure always counts as unhandled.
ROUTED_FAILURE_COUNTED = Deviation(on(NodeFails, Replace(e.unhandled, e.unhandled + 1)))
# A final write-back of a run with an unhandled failure takes nothing: its held list is stranded.
_stranding = final.ref & (e.unhandled > 0)
FAILED_RUN_STRANDS_HELD = Deviation(on(StartWriteBack, Drop(e.held, when=_stranding),
                                     Replace(every(g.taken), (), when=_stranding)))
# A late answer to a settled question overwrites its answer.
STALE_ANSWER_OVERRIDES = Deviation(on(Answer, First(When(q.status != PENDING, (
    Set(e.questions, e.questions.set_last(q.but(status=ite(approve.ref, APPROVED, DECLINED)))),)))))
# A decline fails the run and resumes nothing.
DECLINE_FAILS_RUN = Deviation(on(Answer, Replace(e.status, FAILED, when=~approve.ref),
                               Drop(S.segments, when=~approve.ref)))
# A decline marks the run running but resumes nothing.
DECLINE_STALLS = Deviation(on(Answer, Drop(S.segments, when=~approve.ref)))

# Questions (G6.9)
# Each observation raises another question (inheriting the observation count).
QUESTION_PER_OBSERVATION = Deviation(on(ObserveAgain, Also(Set(e.questions, e.questions.append(
    new(Question, q.call, PENDING, q.observations, e.questions.size + 1))))))
# Each observation replaces the pending question by a fresh one.
OBSERVATION_RERAISES_QUESTION = Deviation(on(ObserveAgain, Also(Set(
    e.questions, e.questions.set_last(q.but(id=q.id + 1))))))
# A pause asks about every call of its segment, the interrupting one last.
_batch = span(e.calls - g.calls + 1, e.calls + 1).filter(lambda n: call_id(n) != run.call)  # its other calls
QUESTION_PER_GATED_CALL = Deviation(on(ToolInterrupts, Replace(e.questions, _batch.fold(
    e.questions, lambda qs, n: qs.append(new(Question, call_id(n), PENDING, 0, qs.size + 2))).append(
    new(Question, run.call, PENDING, 0, e.questions.size + 1)))))
# The answer leaves its question pending.
ANSWER_LEAVES_QUESTION_PENDING = Deviation(on(Answer, Drop(e.questions)))


def poll_shows_held(state: State) -> tuple:
    """The wire view of `poll_shows_held`: the turn's poll serves the held list as part of the turn's
    artifacts. (The wire view is not part of the rule table, so this one mutant stays a function.)"""
    return tuple((e.id, tuple(r for m in e.messages for r in m) + e.held) for e in state.executions)


# Behaviour removed or added
# No decline is ever given.
DECLINE_NOT_OFFERED = Deviation(on(Answer, Only(approve.ref)))
# No write ever fails.
WRITE_NEVER_FAILS = Deviation(on(WriteMessage, Only(ok.ref)))
# Killed only by liveness, where writes may fail without limit: a retry that can never succeed (a write-back
# retried over the poisoned connection of the one that failed), and a store that refuses every message
# carrying held artifacts (too large, say). Nothing unsafe is ever shown; the run just never ends.
RETRY_ALWAYS_FAILS = Deviation(on(WriteMessage, Only(~ok.ref | ~g.write_failed)))
HELD_WRITE_REFUSED = Deviation(on(WriteMessage, Only(~ok.ref | (g.taken.size == 0))))
# Added: a paused run resumes by itself (its answer names no question, q0) and re-fires nothing; the pending
# question is left as it was. Only before the run wrote a message, so that the run, which the ladder
# pauses again at its end, cannot loop writing messages.
RESUME_ALONE = Rule(
    Answer, EXECUTIONS,
    guard=(e.status == PAUSED, e.messages.size == 0),
    fields=(e.id, lift(0), lift(True)),
    effect=(Set(e.status, RUNNING), Set(S.segments, S.segments.insert(new(Segment, e.id, 0, ())))),
    clauses=(), doc="a paused run resumes by itself, its question left pending")
RESUME_WITHOUT_ANSWER = Deviation(add=(RESUME_ALONE,))


# What a client sees, step by step (frame conditions)
# Observing a paused run records the interrupt again: a second interrupted attempt for one interrupt.
OBSERVE_RECORDS_ATTEMPT = Deviation(on(ObserveAgain, Also(Set(e.attempts, e.attempts.append(
    new(Attempt, q.call, INTERRUPTED))))))
# The consumer gives up on tools after one fails: no call follows a failed one.
STOPS_CALLING_AFTER_FAILURE = Deviation(on(CallTool, Only(~e.attempts.any_of(lambda a: a.status == FAILED))))
# An interim write-back decides the run's status: a client sees it finished while the segment works on.
# (Whether it is interim is read first: after a final write-back's End there is no `g` to read.)
_interim = Let("interim", ok.ref & ~g.final)
STATUS_AT_INTERIM_WRITE = Deviation(on(WriteMessage, First(_interim),
                                       Also(When(_interim.ref, (Set(e.status, verdict(e)),)))))
# The resume moves the held list into the resumed segment, as if collected again, rather than leaving it
# for the write-back to take (the message is the same: held first, then what the segment collects).
RESUME_MOVES_HELD = Deviation(on(Answer, Replace(S.segments, S.segments.insert(new(
    Segment, e.id, 0, e.held, False, WORKING, (), False, ite(approve.ref & new_first, _call, "")))),
    After(S.segments, Set(e.held, ()))))
# The timer of an answered question is never cancelled: it fires after the run completed, marks the
# question expired and cancels the completed run.
TIMER_OUTLIVES_RUN = Deviation(add=(Rule(
    Expire, EXECUTIONS,
    guard=(S.executions.count(lambda x: x.status == CANCELLED) < B.expiries, e.status == COMPLETED,
           e.questions.size > 0),
    fields=(e.id,),
    effect=(Set(e.questions, e.questions.set_last(q.but(status=EXPIRED))), Set(e.status, CANCELLED)),
    clauses=(), doc="an answered question's timer fires after the run completed and cancels it"),))

"""The transition rules, clause by clause, written once as data in the rule language (`lang.py`).

`pygen.step` and `pygen.enabled` are the entry points; both run the successor function derived from this
table (`pygen.py`), the same code the explorer runs. This module imports nothing that derives from it.

For each action kind: what it ranges over (each session, execution or segment in flight), its
parameters, its guard (a conjunction, tested in order), the action's fields, its effect (statements
run in order, each on the state the ones before it left: `lang.py` states the semantics), the clauses it
enacts and a one-line doc. Readings are choices inside the rules (`pick`, `reads`); faults are rules
(last in the table), enabled only by a non-zero fault bound. Every engine derives from this table:
the explicit successors (`pygen.py`), the z3 relation and the Promela model.

Names: `S` is the state, `e` an execution, `g` a segment in flight (with `e` its execution), `run`
the first running attempt of `e`, `q` the latest question of `e`, `B.x` the bound x.
"""

from __future__ import annotations

from .actions import (
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
from .lang import (
    B,
    Binder,
    Choose,
    End,
    Expr,
    Let,
    Rule,
    Set,
    When,
    base_of,
    call_id,
    exec_id,
    is_race,
    ite,
    minimum,
    new,
    pick,
    race_key,
    reads,
    repeat,
    span,
    var,
)
from .state import (
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
    find_execution,
    find_segment,
)

__all__ = ["RULES", "RULE_OF", "Rule", "SESSIONS", "EXECUTIONS", "SEGMENTS", "ONCE", "S", "e", "g", "run", "verdict",
           "clauses_of", "hold"]

SESSIONS, EXECUTIONS, SEGMENTS, ONCE = Binder("sessions"), Binder("executions"), Binder("segments"), Binder("once")

S = var("S", State)
e = var("e", Execution)
g = var("g", Segment)
session = var("session", int)
run = var("run", Attempt)  # over SEGMENTS: the first running attempt of e, or none (`run.is_none`)
q = e.questions.last  # the latest question (read only where e has one)

def flag(name: str) -> Choose:
    """A boolean parameter, tried False, then True."""
    return Choose(name, lambda bounds: (False, True))


# ---------------------------------------------------------------------------------------------
# Shared pieces


def finished(status: Expr) -> Expr:
    """An execution's terminal statuses (cancelled: expired)."""
    return status.one_of(COMPLETED, FAILED, CANCELLED)


def verdict(x: Expr) -> Expr:
    """The ORC-11 ladder at the end of a segment: failed, else paused on an interrupt, else completed.

    O11.1 (an unhandled failure fails the run), O11.2 (an interrupted attempt pauses it: this is how a
    phantom interrupt "holds a finished run paused", G6.5), O11.4 (completed). O11.3 (ready work) never
    applies: a segment finishes only when it has no running attempt.
    """
    return ite(x.unhandled > 0, FAILED, ite(x.attempts.any_of(lambda a: a.status == INTERRUPTED), PAUSED, COMPLETED))


def moved(attempts: Expr, call: Expr, old: str, new_status: str | Expr) -> Expr:
    """The latest attempt of `call` with status `old` moved to `new_status` (none such: unchanged)."""
    return attempts.update_last(lambda a: (a.call == call) & (a.status == old), lambda a: a.but(status=new_status))


def cancel_interrupted(attempts: Expr, call: Expr) -> Expr:
    """The interrupted attempt(s) of `call` closed as cancelled: every one (A-G9 close-all), or the latest."""
    every = attempts.update_where(lambda a: (a.call == call) & (a.status == INTERRUPTED),
                                  lambda a: a.but(status=CANCELLED))
    return ite(reads("A-G9", "close-all"), every, moved(attempts, call, INTERRUPTED, CANCELLED))


def warned(execution: Expr, dropped: Expr) -> Set:
    """One warning per dropped artifact (T7.15)."""
    return Set(S.warnings, S.warnings + dropped.map(lambda r: new(Warning, execution, r)))


racing = is_race(g.execution)
tooling = ~racing & (g.closing == "")  # runs the execution's calls: not a racing resume, its resume complete
# ORC-11 (A-X5 "skip"): an unhandled failure skips the remaining work: no tool call and no node after it.
skipped = reads("A-X5", "skip") & (e.unhandled > 0)
working = tooling & (g.phase == WORKING) & ~g.write_failed & ~skipped  # may do work: no write-back, none skipped
asking = (e.status == PAUSED) & (e.questions.size > 0) & (q.status == PENDING)  # paused on a pending question
split_take = reads("A-T6", "write-first") | reads("A-T7", "racy-read-then-clear")  # read now, clear later


def finish_write() -> When:
    """After the message is written: an interim write-back lets the segment carry on with nothing in hand;
    a final one ends the segment, and if it is the execution's last the ORC-11 ladder decides its status."""
    sibling = S.segments.any_of(lambda x: (base_of(x.execution) == e.id) & (x.execution != g.execution))
    return When(~g.final, (
        Set(g.phase, WORKING), Set(g.taken, ()), Set(g.collected, ()), Set(g.write_failed, False),
    ), (
        When(~sibling, (Set(e.status, verdict(e)),)),
        End(),
    ))


# ---------------------------------------------------------------------------------------------
# Start a turn: a session runs one turn at a time; each turn launches one execution. With the new-turn
# fault a caller may start a turn while its previous one is paused, instead of answering (INT-13,
# INT-14: not a resumption; the paused execution stays paused and answerable).

own = S.executions.filter(lambda x: x.session == session)
idle = own.all_of(lambda x: finished(x.status))
new_id = exec_id(S.executions.size + 1)

START_TURN = Rule(
    StartTurn, SESSIONS,
    guard=(ite(idle, own.size - S.new_turns.count(lambda n: n == session) < B.turns,
               (S.new_turns.size < B.new_turns) & (own.size > 0) & (own.last.status == PAUSED)),),
    fields=(session,),
    effect=(
        When(~idle, (Set(S.new_turns, S.new_turns.append(session)),)),  # a new turn instead of an answer
        Set(S.segments, S.segments.insert(new(Segment, new_id, 0, ()))),
        Set(S.executions, S.executions.append(new(Execution, new_id, session, RUNNING, 0, (), (), (), (), 0, 0))),
    ),
    clauses=(), doc="a session with no live turn starts one; it launches an execution and its first segment")

# Call a tool: a fresh call, its first attempt running.
CALL_TOOL = Rule(
    CallTool, SEGMENTS,
    guard=(working, g.calls < B.calls, run.is_none),
    fields=(g.execution,),
    effect=(
        Set(e.attempts, e.attempts.append(new(Attempt, call_id(e.calls + 1), RUNNING))),
        Set(e.calls, e.calls + 1),
        Set(g.calls, g.calls + 1),
    ),
    clauses=(), doc="the consumer issues a fresh call; its first attempt runs")

# A tool returns with artifacts: collected by the segment in arrival order (T6.2). Under A-T12
# "with-artifacts" each artifact remembers its producing call (the one rule that reads it).
count = Choose("count", lambda bounds: tuple(range(bounds.per_call + 1)), int)
first_ref = S.artifacts.size + 1
TOOL_RETURNS = Rule(
    ToolReturns, SEGMENTS, choose=(count,),
    guard=(tooling, ~run.is_none, count.ref <= minimum(B.per_call, B.artifacts - S.artifacts.size)),
    fields=(g.execution, run.call, count.ref),
    effect=(
        Set(e.attempts, moved(e.attempts, run.call, RUNNING, COMPLETED)),
        Set(g.collected, g.collected + span(first_ref, first_ref + count.ref)),
        Set(S.artifacts, S.artifacts + repeat(new(Artifact, e.id, ite(reads("A-T12", "with-artifacts"), run.call, "")),
                                              count.ref)),
    ),
    clauses=(), doc="the attempt completes; its artifacts are collected by the segment in arrival order")

# A tool fails: recorded failed, handled by construction, never counted unhandled (G6.6-G6.8, E9.5): the
# consumer receives a recoverable error result and carries on; a failed call carries no artifacts (T2.6).
# A-G4 "failed-unmarked" counts it unhandled (ERR-8 read literally); "completed-with-error" records it
# completed (ERR-1).
TOOL_FAILS = Rule(
    ToolFails, SEGMENTS,
    guard=(tooling, ~run.is_none),
    fields=(g.execution, run.call),
    effect=(
        Set(e.attempts, moved(e.attempts, run.call, RUNNING, pick(
            "A-G4", failed_handled=FAILED, failed_unmarked=FAILED, completed_with_error=COMPLETED))),
        When(reads("A-G4", "failed-unmarked"), (Set(e.unhandled, e.unhandled + 1),)),
    ),
    clauses=("G6.6", "G6.7", "G6.8", "E9.5"), doc="the attempt is recorded failed, handled: the unhandled count is "
                                                  "untouched")

# A tool interrupts: the attempt is interrupted, one question is raised, the run pauses and what the segment
# collected is held (G6.1, G6.2, G6.9, T7.1, T7.2, T7.9, T7.13-T7.15, O11.2). The gate applies only to a
# first execution (G1.3): a resumed attempt cannot ask again.
merged = Let("merged", pick("A-T15", old_first=e.held + g.collected, new_first=g.collected + e.held))
unbounded = reads("A-T9", "first-hold") & (e.held.size > 0)  # a re-pause's merge is not bounded
TOOL_INTERRUPTS = Rule(
    ToolInterrupts, SEGMENTS,
    guard=(tooling, ~run.is_none, e.questions.size < B.pauses, e.attempts.count(lambda a: a.call == run.call) == 1),
    fields=(g.execution, run.call),
    effect=(
        merged,
        Let("dropped", ite(unbounded, (), merged.ref.suffix(B.held_bound))),
        Set(e.held, ite(unbounded, merged.ref, merged.ref.prefix(B.held_bound))),
        Set(e.attempts, moved(e.attempts, run.call, RUNNING, INTERRUPTED)),
        Set(e.status, PAUSED),
        Set(e.questions, e.questions.append(new(Question, run.call, PENDING, 0, e.questions.size + 1))),
        warned(e.id, var("dropped", merged.value.t)),
        End(),
    ),
    clauses=("G6.1", "G6.2", "G6.9", "T7.1", "T7.2", "T7.9", "T7.13", "T7.14", "T7.15", "O11.2"),
    doc="the attempt is interrupted, one question raised, the run pauses, its artifacts held")

# The same interrupt observed again: no new question (G6.9).
OBSERVE_AGAIN = Rule(
    ObserveAgain, EXECUTIONS,
    guard=(asking, q.observations < B.observations),
    fields=(e.id,),
    effect=(Set(e.questions, e.questions.set_last(q.but(observations=q.observations + 1))),),
    clauses=("G6.9",), doc="the same interrupt is seen again: no new question")

# Poll: a caller reads a live turn; nothing changes (what it sees is `observe`, T7.3).
POLL = Rule(
    Poll, EXECUTIONS, guard=(~finished(e.status),), fields=(e.id,), effect=(),
    clauses=("T7.3",), doc="a caller reads the live turn; nothing changes")

# Answer: the question is settled, the superseded attempt is closed as cancelled, an approved call records
# a new attempt, and the execution resumes in a new segment (G6.3, G6.4, G5.1-G5.6, A-G1). A second tab
# may answer the latest question again, the other way: it comes too late and changes nothing (INT-19).
approve = flag("approve")
ok_answer = ite(q.status == PENDING, e.status == PAUSED, approve.ref == (q.status != APPROVED))
done_calls = e.attempts.filter(lambda a: a.status == COMPLETED)
# A-T12 "with-artifacts": the resumed segment collects again the artifacts of the calls already executed,
# carried by their re-emitted stored results.
reemitted = span(1, S.artifacts.size + 1).filter(
    lambda r: (S.artifacts.at(r - 1).execution == e.id)
    & done_calls.any_of(lambda a: a.call == S.artifacts.at(r - 1).call))
new_first = reads("A-G3", "new-first")
# The superseded attempt is closed as cancelled (G6.4); A-G1 "leave": a decline closes nothing. Named, as the
# re-issue is, for the mutants that deviate there (`checks/mutants/catalogue.py`).
close_superseded = When(approve.ref | reads("A-G1", "cancel"),
                        (Set(e.attempts, cancel_interrupted(e.attempts, var("call", str))),))
# The consumer is re-fired and re-issues the same call: a new attempt of its own (G6.3).
reissue = When(approve.ref, (Set(e.attempts, e.attempts.append(new(Attempt, var("call", str), RUNNING))),))
ANSWER = Rule(
    Answer, EXECUTIONS, choose=(approve,),
    guard=(~finished(e.status), e.questions.size > 0, ok_answer),
    fields=(e.id, q.id, approve.ref),
    effect=(When(q.status == PENDING, (
        Let("call", q.call),
        Set(e.questions, e.questions.set_last(q.but(status=ite(approve.ref, APPROVED, DECLINED)))),
        When(approve.ref & new_first, (), (close_superseded,)),  # A-G3 new-first: closed later (CloseSuperseded)
        reissue,
        Set(e.status, RUNNING),
        Set(S.segments, S.segments.insert(new(
            Segment, e.id, 0, ite(reads("A-T12", "with-artifacts"), reemitted, ()), False, WORKING, (), False,
            ite(approve.ref & new_first, var("call", str), "")))),
    )),),
    clauses=("G6.3", "G6.4", "G5.2", "G6.9"),
    doc="the pending question is settled, the superseded attempt cancelled, the run resumes; an answer to a "
        "question no longer pending changes nothing")

# A graph-node unit fails: along an error edge it is handled; without one it counts towards the run's
# unhandled failures, which fail the run at its end (E9.1, O11.1).
routed = flag("routed")
NODE_FAILS = Rule(
    NodeFails, SEGMENTS, choose=(routed,),
    guard=(S.executions.total(lambda x: x.node_failures.size) < B.node_failures, working, run.is_none),
    fields=(g.execution, routed.ref),
    effect=(
        Set(e.node_failures, e.node_failures.append(routed.ref)),
        Set(e.unhandled, e.unhandled + ite(routed.ref, 0, 1)),
    ),
    clauses=("E9.1", "O11.1"), doc="a graph node fails: handled along an error edge, else counted unhandled")

# The write-back, step by step (T7.4-T7.12): take the held list; write the assistant message (taken ++
# collected) or fail; on failure put back what was taken, then report. A final write-back ends the segment
# and the ORC-11 ladder decides the status; an interim one lets the segment carry on (A-T11). Where a
# reading splits the take (A-T6 write-first, A-T7 read-then-clear), the held list is first read, and a
# ClearHeld step removes what was read, after the write or before it. A failed write-back is retried as
# it was (final or not); a racing resume's segment (A-T7) runs no tool and only writes back.
final = flag("final")
START_WRITE_BACK = Rule(
    StartWriteBack, SEGMENTS, choose=(final,),
    guard=(g.phase == WORKING, g.closing == "", racing | run.is_none,
           ite(g.write_failed, final.ref == g.final, final.ref | (e.messages.size < B.interim_writes))),
    fields=(g.execution, final.ref),
    effect=(
        Set(g.final, final.ref),
        When(~final.ref & reads("A-T11", "hold"), (  # reading B: an interim message takes nothing
            Set(g.phase, TAKEN), Set(g.taken, ()),
        ), (When(reads("A-T1", "turn") & e.questions.any_of(lambda x: x.status != PENDING), (
            # The answer arrived as a new turn: nothing is held under it; the paused turn's list stays.
            Set(g.phase, TAKEN), Set(g.taken, ()),
        ), (When(split_take, (  # read now, clear later: what the segment has in hand is a copy
            Set(g.phase, READ), Set(g.taken, e.held),
        ), (  # taking is destructive (T7.7)
            Set(g.phase, TAKEN), Set(g.taken, e.held), Set(e.held, ()),
        )),)),)),
    ),
    clauses=("T7.4", "T7.7"), doc="the write-back takes the held list")

ok = flag("ok")
message = Let("message", g.taken + g.collected)
WRITE_MESSAGE = Rule(
    WriteMessage, SEGMENTS, choose=(ok,),
    guard=(ite(reads("A-T6", "write-first"), g.phase.one_of(READ, TAKEN), g.phase == TAKEN),
           ok.ref | (S.write_failures < B.write_failures) | (B.endless_writes > 0)),
    fields=(g.execution, ok.ref),
    effect=(message, When(~ok.ref, (
        # Endless writes (`--write-failures any`): the count stops at the bound, so a retry can return to a state.
        Set(S.write_failures, minimum(S.write_failures + 1, B.write_failures)),
        # A-T14 "ambiguous": stored after all; only the acknowledgement was lost.
        When(reads("A-T14", "ambiguous"), (Set(e.messages, e.messages.append(message.ref)),)),
        # Write-first: the held list was never cleared, so nothing is in hand to put back.
        When(g.phase == READ, (Set(g.taken, ()),)),
        Set(g.phase, WRITE_FAILED),
    ), (
        When(reads("A-T9", "merge"), (  # the delivered merge is bounded too: the newest are dropped
            warned(e.id, message.ref.suffix(B.held_bound)),
            Let("message", message.ref.prefix(B.held_bound)),
        )),
        Set(e.messages, e.messages.append(message.ref)),
        When(g.phase == READ, (Set(g.phase, WRITTEN),), (finish_write(),)),  # write-first: cleared later
    ))),
    clauses=("T7.5", "T7.6", "T7.8", "O11.1", "O11.4", "G6.5"),
    doc="the message carries taken ++ collected; a final one ends the segment, the ladder decides the status")

PUT_BACK_RULE = Rule(
    PutBack, SEGMENTS,
    guard=(g.phase == WRITE_FAILED,),
    fields=(g.execution,),
    effect=(
        Let("returned", ite(reads("A-T4", "merge"), g.taken + g.collected, g.taken)),  # merge: the merged list
        When(reads("A-T4", "merge"), (Set(g.collected, ()),)),
        Let("held", pick("A-T5", prepend=var("returned", g.taken.t) + e.held,
                         append=e.held + var("returned", g.taken.t), assign=var("returned", g.taken.t))),
        When(reads("A-T9", "put-back"), (
            warned(e.id, var("held", g.taken.t).suffix(B.held_bound)),
            Let("held", var("held", g.taken.t).prefix(B.held_bound)),
        )),
        Set(e.held, var("held", g.taken.t)),
        Set(g.phase, PUT_BACK),
        Set(g.taken, ()),
    ),
    clauses=("T7.10", "T7.12"), doc="a failed write-back puts what it took back in front of the held list")

# The segment keeps what it collected and does nothing more but retry (A-T4); "release": it lets go.
REPORT_FAILURE = Rule(
    ReportFailure, SEGMENTS,
    guard=(g.phase == PUT_BACK,),
    fields=(g.execution,),
    effect=(
        Set(e.write_failures, minimum(e.write_failures + 1, B.write_failures)),
        Set(g.phase, WORKING), Set(g.write_failed, True),
        When(reads("A-T4", "release"), (Set(g.collected, ()),)),
    ),
    clauses=("T7.11",), doc="then it reports the failure; the segment only retries")

CLEAR_HELD = Rule(
    ClearHeld, SEGMENTS,
    guard=(g.phase == ite(reads("A-T6", "write-first"), WRITTEN, READ),),
    fields=(g.execution,),
    effect=(
        Set(e.held, e.held.filter(lambda r: ~g.taken.contains(r))),
        When(g.phase == WRITTEN, (finish_write(),), (Set(g.phase, TAKEN),)),
    ),
    clauses=("T7.7",),
    doc="where the take is split (A-T6 write-first, A-T7 read-then-clear), what was read leaves the held list")

CLOSE_SUPERSEDED = Rule(
    CloseSuperseded, SEGMENTS,
    guard=(g.closing != "",),
    fields=(g.execution,),
    effect=(Set(e.attempts, cancel_interrupted(e.attempts, g.closing)), Set(g.closing, "")),
    clauses=("G6.4",), doc="where the resume is split (A-G3 new-first), the superseded attempt is closed as cancelled")

# ---------------------------------------------------------------------------------------------
# Faults. A crash loses every segment in flight and what it holds in memory; what it collected and never
# held dies with it (T5.8), kept in a ghost list so that no-loss can tell it from a loss of a held
# artifact; a written message already carries what its segment collected. A-T6 decides what becomes of a
# take in flight: "atomic" rolls it back. A crash falls between any two steps while a segment is in
# flight: in a write-back, an answer's resume, or a segment's work (where it only loses what the segment
# collected and never held, which RT-TOOL-7 does not protect, T5.8). Crashing only in a write-back or a
# resume reaches the same states, but not by the same steps: a crash another session's write-back brings
# catches a segment that is only working, and the one-session model must make that step too for each
# session of a many-session run to be a one-session run (`checks/composition.py`). Each running
# execution restarts in a fresh segment that has issued the calls its run records show (the last segment
# of the execution's); its running attempt stays running.


def _rolled_back(x: Expr) -> Expr:
    return S.segments.fold(x.held, lambda held, y: ite(
        reads("A-T6", "atomic") & (base_of(y.execution) == x.id) & y.phase.one_of(TAKEN, WRITE_FAILED),
        y.taken + held, held))


def _issued(x: Expr) -> Expr:
    return S.segments.fold(0, lambda n, y: ite(base_of(y.execution) == x.id, y.calls, n))


CRASH = Rule(
    Crash, ONCE,
    guard=(S.crashes < B.crashes, S.segments.size > 0),
    fields=(),
    effect=(
        Set(S.crashed, S.segments.fold(S.crashed, lambda lost, y: lost + ite(y.phase != WRITTEN, y.collected, ()))),
        Set(S.executions, S.executions.map(lambda x: x.but(held=_rolled_back(x)))),
        Set(S.segments, S.executions.filter(lambda x: x.status == RUNNING).map(
            lambda x: new(Segment, x.id, _issued(x), ()))),
        Set(S.crashes, S.crashes + 1),
    ),
    clauses=("T7.1",), doc="fault: segments in flight are lost, durable records survive, running executions restart")

# Expiry (I18.1, G1.8): the pending question expires and the paused execution is cancelled; A-T8 decides
# what becomes of what it holds, A-G11 whether its interrupted attempt is cancelled too.
EXPIRE = Rule(
    Expire, EXECUTIONS,
    guard=(S.executions.count(lambda x: x.status == CANCELLED) < B.expiries, asking),
    fields=(e.id,),
    effect=(
        When(reads("A-G11", "cancel"), (Set(e.attempts, e.attempts.update_where(
            lambda a: (a.call == q.call) & (a.status == INTERRUPTED), lambda a: a.but(status=CANCELLED))),)),
        When(reads("A-T8", "warn"), (warned(e.id, e.held),)),
        When(reads("A-T8", "deliver") & (e.held.size > 0), (Set(e.messages, e.messages.append(e.held)),)),
        Set(e.questions, e.questions.set_last(q.but(status=EXPIRED))),
        Set(e.status, CANCELLED),
        When(~reads("A-T8", "strand"), (Set(e.held, ()),)),
    ),
    clauses=(), doc="fault: a pending question expires and its paused execution is cancelled")

# A consent race (G2.6, A-G9): a second path reaches the same gated call while its question is pending; its
# own attempt is recorded interrupted and it pauses on the winner's question.
LOSE_RACE = Rule(
    LoseRace, EXECUTIONS,
    guard=(S.races < B.races, asking,
           e.attempts.count(lambda a: (a.call == q.call) & (a.status == INTERRUPTED)) == 1),
    fields=(e.id,),
    effect=(Set(e.attempts, e.attempts.append(new(Attempt, q.call, INTERRUPTED))), Set(S.races, S.races + 1)),
    clauses=(), doc="fault: a second path pauses on the same pending question; its attempt is interrupted")

# A second tab's approval (A-T7): where checking and resuming are not atomic, an approval that saw the run
# paused resumes it again, beside the first resume, while that one has done nothing yet: a second segment
# `e1'` of the same execution. The model keeps the race to what RT-TOOL-7 governs: the second segment runs
# no tool (the call executes once, RT-TOOL-9) and only writes back its reply.
of_call = e.attempts.filter(lambda a: a.call == q.call)
RESUME_AGAIN = Rule(
    ResumeAgain, SEGMENTS,
    guard=(~reads("A-T7", "atomic"), S.races < B.races, ~racing, e.questions.size > 0, q.status == APPROVED,
           g.phase == WORKING, g.calls == 0, g.collected.size == 0,
           ~S.segments.any_of(lambda y: y.execution == race_key(e.id)),
           of_call.size >= 2, of_call.at(of_call.size - 2).status == CANCELLED, of_call.last.status == RUNNING),
    fields=(e.id, q.id),
    effect=(Set(S.races, S.races + 1), Set(S.segments, S.segments.insert(new(Segment, race_key(e.id), 0, ())))),
    clauses=(), doc="fault: a second tab's approval resumes the run again, where check and resume are not atomic")

RULES: tuple[Rule, ...] = (
    START_TURN, CALL_TOOL, TOOL_RETURNS, TOOL_FAILS, TOOL_INTERRUPTS, OBSERVE_AGAIN, POLL, ANSWER, NODE_FAILS,
    START_WRITE_BACK, WRITE_MESSAGE, PUT_BACK_RULE, REPORT_FAILURE, CLEAR_HELD, CLOSE_SUPERSEDED,
    CRASH, EXPIRE, LOSE_RACE, RESUME_AGAIN,
)
RULE_OF: dict[type, Rule] = {rule.action: rule for rule in RULES}


def hold(held: tuple[int, ...], incoming: tuple[int, ...], bound: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Append `incoming` to a held list in arrival order, keep at most `bound`, drop the newest: (kept, dropped).

    What a pause does under the conformant reading (T7.9 holds everything, T7.13 bounded, T7.14 newest
    dropped), for deviations that hold differently."""
    merged = held + incoming
    return merged[:bound], merged[bound:]


def clauses_of(pre: State, action: Action, post: State, rules: tuple[Rule, ...] = RULES) -> tuple[str, ...]:
    """The clauses this particular step enacts: the branch of its rule that was taken.

    Used to explain traces step by step; the rule's `clauses` are the union over its branches. A step of
    an action only a draft's table has (`rules`) cites the clauses its rule names.
    """
    if type(action) not in RULE_OF:
        return next((rule.clauses for rule in rules if rule.action is type(action)), ())
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

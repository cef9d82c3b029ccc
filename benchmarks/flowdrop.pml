/*
 * flowdrop.pml: the pausecheck model (conformant reading, no faults) in Promela, for the benchmark.
 *
 * It is the explicit-state model of `pausecheck.model` (model/state.py, model/rules.py, as specialised
 * in model/successors.py) with every property left out: Spin explores the same reachable states as
 * `explore(Machine(bounds, properties=()))`. At the default bounds: 73,409 states.
 *
 *     spin -a -o2 flowdrop.pml
 *     gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c
 *     ./pan -m100000 -w20
 *
 * gives 73,409 states stored and 197,926 transitions: pausecheck's 197,925 and one more, as pan
 * counts reaching the initial state as a transition. The self-loops (Poll, a late Answer) are kept
 * for that agreement; they add no state. The depth-first search reaches depth 191 (Python's
 * breadth-first search: 25), hence -m. -DNOREDUCE: one process, partial-order reduction has nothing
 * to reduce anyway. BFS (-DBFS) is refused by pan because of the hidden variables.
 *
 * -o2 keeps in the state vector the variables the model only writes, which Spin would otherwise
 * hide (warn_ex, warn_ref, art_ex): with it the state vector holds exactly what the Python state
 * holds. Without it Spin finds the same counts at every bound set tried (the default, the larger
 * set, the three companions, ...): those three are determined by the rest of the state here.
 *
 * The bounds are the fields of `Bounds` (model/config.py), overridable as `spin -a -DCALLS=1 ...`.
 * The faults (crashes, expiries, races, new turns) are not modelled: they are off by default.
 *
 * How the state maps (model/state.py): one process whose control stays at the start of its loop, and
 * global variables holding exactly what a `State` holds under this reading:
 *   - `ex[k]` is execution e{k+1} (executions are created in id order; `nex` is their number), with
 *     its segment inlined (`seg` set: a segment is in flight; at most one per execution, as nothing
 *     races); every list is a fixed array with an explicit length, and unused entries stay 0;
 *   - a call id c{n} is the number n; an artifact ref a{n} is n; an execution id e{k+1} is k+1;
 *   - Question.id is its position + 1 and is not stored; Segment.closing is always "" (A-G3
 *     old-first), Segment.phase never READ or WRITTEN (A-T6 atomic, A-T7 atomic) and
 *     Artifact.call always "" (A-T12 default), so none of them is stored;
 *   - State.crashes, crashed, new_turns, races stay at zero/empty without faults: not stored.
 * Hidden variables (`hidden`, outside the state vector) are temporaries of one atomic step only,
 * reset to 0 at its end. The arrays are as long as a list can grow within the bounds (NATT, NQ, ...);
 * the messages array (NMSG) assumes a final write-back never leaves its execution paused, true under
 * this reading (an answer cancels every interrupted attempt of its call): pan's index checks would
 * report it otherwise.
 *
 * Every action of the Python model is one atomic step: one `do` option per action kind whose first
 * statement, an `if`, is the guard (one option per execution slot, so each enabled (action, slot) is a
 * transition of its own); the effect follows inside the same atomic, whose intermediate states Spin
 * does not store. The guards rely on two invariants of the reachable states (checked by the state
 * count agreeing with Python's): an execution has at most one running attempt, and it is its last one;
 * a running attempt was re-issued by an approval exactly when the attempt before it is of the same call.
 */

/* ---- bounds (model/config.py Bounds; the defaults are DEFAULT_BOUNDS) ---- */
#ifndef SESSIONS
#define SESSIONS 1
#endif
#ifndef TURNS
#define TURNS 1
#endif
#ifndef CALLS
#define CALLS 2
#endif
#ifndef PER_CALL
#define PER_CALL 1
#endif
#ifndef ARTIFACTS
#define ARTIFACTS 3
#endif
#ifndef PAUSES
#define PAUSES 2
#endif
#ifndef WRITE_FAILURES
#define WRITE_FAILURES 1
#endif
#ifndef OBSERVATIONS
#define OBSERVATIONS 1
#endif
#ifndef INTERIM_WRITES
#define INTERIM_WRITES 0
#endif
#ifndef NODE_FAILURES
#define NODE_FAILURES 0
#endif
#ifndef HELD_BOUND
#define HELD_BOUND 2
#endif

/* ---- array sizes: the longest each list can grow within the bounds ---- */
#define EXSLOTS (SESSIONS * TURNS)              /* executions: one per turn */
#define NATT ((PAUSES + 1) * CALLS + PAUSES)    /* attempts: fresh calls of each segment + re-issues */
#if PAUSES > 0
#define NQ PAUSES                               /* questions: one per pause */
#else
#define NQ 1
#endif
#if ARTIFACTS > 0
#define NREF ARTIFACTS                          /* any list of artifact refs; warnings */
#else
#define NREF 1
#endif
#define NMSG (INTERIM_WRITES + 1)               /* messages: the interim ones and the last */
#if NODE_FAILURES > 0
#define NNF NODE_FAILURES
#else
#define NNF 1
#endif

/* this file writes out up to 4 execution slots, 4 sessions and 4 artifacts per tool result */
#if SESSIONS * TURNS > 4 || PER_CALL > 4
#error "flowdrop.pml: at most 4 executions (sessions x turns) and per_call at most 4"
#endif

/* ---- statuses (model/state.py); 0 is "none" ---- */
#define RUNNING     1   /* executions and attempts */
#define PAUSED      2   /* executions */
#define COMPLETED   3   /* executions and attempts */
#define FAILED      4   /* executions and attempts */
#define INTERRUPTED 5   /* attempts */
#define CANCELLED   6   /* attempts (and expired executions, not modelled) */
#define PENDING     1   /* questions */
#define APPROVED    2
#define DECLINED    3
#define WORKING     1   /* segment phases */
#define TAKEN       2
#define WRITE_FAILED 3
#define PUT_BACK    4

typedef Message {                 /* one assistant message's toolArtifacts */
    byte n;
    byte ref[NREF]
}

typedef Exec {                    /* state.Execution, and its state.Segment if one is in flight */
    byte session;                 /* 1..SESSIONS */
    byte status;
    byte calls;                   /* tool calls issued so far */
    byte natt;                    /* attempts, in creation order: (call, status) */
    byte att_call[NATT];
    byte att_st[NATT];
    byte nq;                      /* questions, one per pause: (call, status, observations) */
    byte q_call[NQ];
    byte q_st[NQ];
    byte q_obs[NQ];
    byte nheld;                   /* the held list, oldest first */
    byte held[NREF];
    byte nmsg;                    /* the turn's assistant messages */
    Message msg[NMSG];
    byte unhandled;               /* the ERR-9 count */
    byte write_failures;          /* failed write-backs reported for this execution */
    byte nnf;                     /* node failures: routed along an error edge? */
    bit nf[NNF];
    /* its segment (state.Segment); all zero when none is in flight */
    bit seg;
    byte seg_calls;               /* fresh calls issued in this pass */
    byte ncol;                    /* collected, in arrival order */
    byte col[NREF];
    bit seg_wf;                   /* write_failed */
    byte phase;
    byte ntak;                    /* taken: what the write-back holds in hand */
    byte tak[NREF];
    bit final
}

Exec ex[EXSLOTS];
byte nex;                         /* len(State.executions) */
byte nwarn;                       /* State.warnings: (execution, ref) */
byte warn_ex[NREF];
byte warn_ref[NREF];
byte nart;                        /* State.artifacts: each one's execution */
byte art_ex[NREF];
byte wfails;                      /* State.write_failures, against the bound */

hidden byte s;                    /* the execution slot an action applies to */
hidden byte sn;                   /* the session a turn starts in */
hidden byte c;                    /* a count: artifacts returned, refs merged */
hidden byte i;
hidden byte j;
hidden byte r;
hidden byte b;

#define FINISHED(st) ((st) == COMPLETED || (st) == FAILED || (st) == CANCELLED)
/* the running attempt, if any, is the last one (see the invariants above) */
#define RUN(k) (ex[k].natt > 0 && ex[k].att_st[ex[k].natt - 1] == RUNNING)
#define LAST(k) (ex[k].natt - 1)
/* rules._working: a segment that may do work (no write-back in progress, none failed to retry) */
#define WORKS(k) (ex[k].seg && ex[k].phase == WORKING && !ex[k].seg_wf)

/* One `if` option per execution slot: `:: G(k) -> s = k` for the slots that exist. */
#define SLOTS(G) \
    :: (0 < nex && G(0)) -> s = 0 \
    :: (1 < nex && G(1)) -> s = 1 \
    :: (2 < nex && G(2)) -> s = 2 \
    :: (3 < nex && G(3)) -> s = 3

/* Sums over the slots that exist. */
#define OWN1(k, x) ((k < nex && ex[k].session == x) -> 1 : 0)
#define LIVE1(k, x) ((k < nex && ex[k].session == x && !FINISHED(ex[k].status)) -> 1 : 0)
#define OWN(x) (OWN1(0, x) + OWN1(1, x) + OWN1(2, x) + OWN1(3, x))
#define LIVE(x) (LIVE1(0, x) + LIVE1(1, x) + LIVE1(2, x) + LIVE1(3, x))
#define NF1(k) ((k < nex) -> ex[k].nnf : 0)
#define NF_TOTAL (NF1(0) + NF1(1) + NF1(2) + NF1(3))

/* ---- guards, one per rule of model/rules.py (slot k) ---- */
/* StartTurn (session x): every own execution finished and fewer than TURNS started (no new-turn fault) */
#define G_START(x) (x <= SESSIONS && LIVE(x) == 0 && OWN(x) < TURNS)
/* CallTool: a working segment under its call bound, no attempt running */
#define G_CALL(k) (WORKS(k) && ex[k].seg_calls < CALLS && !RUN(k))
/* ToolReturns, ToolFails: a segment whose execution has an attempt running */
#define G_RESULT(k) (ex[k].seg && RUN(k))
/* ToolInterrupts: and a pause left, and the attempt is the call's first (G1.3) */
#define G_INTERRUPT(k) (G_RESULT(k) && ex[k].nq < PAUSES && \
                        (ex[k].natt == 1 || ex[k].att_call[ex[k].natt - 2] != ex[k].att_call[ex[k].natt - 1]))
/* ObserveAgain: paused on a pending question observed fewer than OBSERVATIONS times */
#define G_OBSERVE(k) (ex[k].status == PAUSED && ex[k].nq > 0 && ex[k].q_st[ex[k].nq - 1] == PENDING && \
                      ex[k].q_obs[ex[k].nq - 1] < OBSERVATIONS)
/* Poll: a live turn */
#define G_POLL(k) (!FINISHED(ex[k].status))
/* Answer: a paused execution whose latest question is pending */
#define G_ANSWER(k) (ex[k].status == PAUSED && ex[k].nq > 0 && ex[k].q_st[ex[k].nq - 1] == PENDING)
/* Answer, late: a live execution whose latest question is settled (changes nothing) */
#define G_LATE(k) (!FINISHED(ex[k].status) && ex[k].nq > 0 && ex[k].q_st[ex[k].nq - 1] != PENDING)
/* NodeFails: under the node-failure bound, a working segment with no attempt running */
#define G_NODE(k) (NF_TOTAL < NODE_FAILURES && WORKS(k) && !RUN(k))
/* StartWriteBack: a segment at WORKING with no attempt running; final (a retry: the same as before) */
#define G_TAKE(k) (ex[k].seg && ex[k].phase == WORKING && !RUN(k))
/* WriteMessage: the held list taken; fails while the write-failure bound allows */
#define G_WRITE(k) (ex[k].seg && ex[k].phase == TAKEN)
#define G_WRITE_FAILS(k) (G_WRITE(k) && wfails < WRITE_FAILURES)
/* PutBack, ReportFailure */
#define G_PUT_BACK(k) (ex[k].seg && ex[k].phase == WRITE_FAILED)
#define G_REPORT(k) (ex[k].seg && ex[k].phase == PUT_BACK)

/* ---- effects ---- */

/* with_segment(..., None): the segment ends; its fields return to zero */
inline end_segment() {
    ex[s].seg = 0; ex[s].seg_calls = 0; ex[s].seg_wf = 0; ex[s].phase = 0; ex[s].final = 0;
    i = 0;
    do
    :: i < NREF -> ex[s].col[i] = 0; ex[s].tak[i] = 0; i++
    :: else -> break
    od;
    ex[s].ncol = 0; ex[s].ntak = 0
}

/* Segment(e.id, 0, ()): a fresh segment, working */
inline new_segment() {
    end_segment();
    ex[s].seg = 1; ex[s].phase = WORKING
}

/* the latest attempt (the running one) moves to status x: rules._with_attempt */
inline settle_attempt(x) {
    ex[s].att_st[LAST(s)] = x
}

/* append a warning for ref x of execution s (T7.15) */
inline warn(x) {
    warn_ex[nwarn] = s + 1; warn_ref[nwarn] = x; nwarn++
}

/* rules.verdict: the ORC-11 ladder at the end of the execution's last segment */
inline verdict() {
    if
    :: ex[s].unhandled > 0 -> ex[s].status = FAILED
    :: else ->
        ex[s].status = COMPLETED;
        i = 0;
        do
        :: i < ex[s].natt -> if :: ex[s].att_st[i] == INTERRUPTED -> ex[s].status = PAUSED :: else fi; i++
        :: else -> break
        od
    fi
}

/* Answer (successors._answer): settle the question, cancel every interrupted attempt of its call,
   an approval re-issues the call (a new running attempt), the execution resumes in a new segment */
inline answer(verdict_status) {
    j = ex[s].nq - 1;
    ex[s].q_st[j] = verdict_status;
    i = 0;
    do
    :: i < ex[s].natt ->
        if
        :: ex[s].att_call[i] == ex[s].q_call[j] && ex[s].att_st[i] == INTERRUPTED -> ex[s].att_st[i] = CANCELLED
        :: else
        fi;
        i++
    :: else -> break
    od;
    if
    :: verdict_status == APPROVED ->
        ex[s].att_call[ex[s].natt] = ex[s].q_call[j]; ex[s].att_st[ex[s].natt] = RUNNING; ex[s].natt++
    :: else
    fi;
    ex[s].status = RUNNING;
    new_segment()
}

#define RESET s = 0; sn = 0; c = 0; i = 0; j = 0; r = 0; b = 0

active proctype flowdrop() {
end:
    do
    /* StartTurn: a session with no live turn starts one: execution e{nex+1}, running, and its first
       segment (rules._start_turn) */
    :: atomic {
        if
        :: G_START(1) -> sn = 1
        :: G_START(2) -> sn = 2
        :: G_START(3) -> sn = 3
        :: G_START(4) -> sn = 4
        fi;
        s = nex; nex++;
        ex[s].session = sn; ex[s].status = RUNNING;
        new_segment();
        RESET
       }
    /* CallTool: a fresh call c{calls+1}, its first attempt running (rules._call_tool) */
    :: atomic {
        if SLOTS(G_CALL) fi;
        ex[s].calls++;
        ex[s].att_call[ex[s].natt] = ex[s].calls; ex[s].att_st[ex[s].natt] = RUNNING; ex[s].natt++;
        ex[s].seg_calls++;
        RESET
       }
    /* ToolReturns with c artifacts, 0 <= c <= min(per_call, artifacts left): the attempt completes, the
       segment collects refs nart+1..nart+c in arrival order (T6.2), each one's provenance recorded */
    :: atomic {
        if SLOTS(G_RESULT) fi;
        if
        :: c = 0
        :: (PER_CALL >= 1 && nart + 1 <= ARTIFACTS) -> c = 1
        :: (PER_CALL >= 2 && nart + 2 <= ARTIFACTS) -> c = 2
        :: (PER_CALL >= 3 && nart + 3 <= ARTIFACTS) -> c = 3
        :: (PER_CALL >= 4 && nart + 4 <= ARTIFACTS) -> c = 4
        fi;
        settle_attempt(COMPLETED);
        do
        :: c > 0 ->
            art_ex[nart] = s + 1; nart++;
            ex[s].col[ex[s].ncol] = nart; ex[s].ncol++;
            c--
        :: else -> break
        od;
        RESET
       }
    /* ToolFails: recorded failed, handled; the unhandled count is untouched (G6.6-G6.8, E9.5) */
    :: atomic {
        if SLOTS(G_RESULT) fi;
        settle_attempt(FAILED);
        RESET
       }
    /* ToolInterrupts: the attempt is interrupted, one question raised, the run pauses; held list ++
       collected is held, the first HELD_BOUND kept, the newest dropped with a warning each (G6.1,
       G6.2, G6.9, T7.1, T7.2, T7.9, T7.13-T7.15); the segment ends (rules._tool_interrupts) */
    :: atomic {
        if SLOTS(G_INTERRUPT) fi;
        settle_attempt(INTERRUPTED);
        /* merged = held ++ collected: positions >= HELD_BOUND are dropped, warned in order */
        c = ex[s].nheld + ex[s].ncol;
        i = 0;
        do
        :: i < c ->
            if
            :: i < ex[s].nheld -> r = ex[s].held[i]
            :: else -> r = ex[s].col[i - ex[s].nheld]
            fi;
            if
            :: i >= HELD_BOUND -> warn(r); if :: i < ex[s].nheld -> ex[s].held[i] = 0 :: else fi
            :: else -> ex[s].held[i] = r
            fi;
            i++
        :: else -> break
        od;
        ex[s].nheld = (c < HELD_BOUND -> c : HELD_BOUND);
        ex[s].status = PAUSED;
        ex[s].q_call[ex[s].nq] = ex[s].att_call[LAST(s)]; ex[s].q_st[ex[s].nq] = PENDING; ex[s].nq++;
        end_segment();
        RESET
       }
    /* ObserveAgain: the same interrupt seen again: no new question (G6.9) */
    :: atomic {
        if SLOTS(G_OBSERVE) fi;
        ex[s].q_obs[ex[s].nq - 1]++;
        RESET
       }
    /* Poll: a caller reads a live turn; nothing changes (T7.3) */
    :: atomic {
        if SLOTS(G_POLL) fi;
        RESET
       }
    /* Answer, decline (G6.4, G5.2) and approve (G6.3, G6.4): see `answer` */
    :: atomic {
        if SLOTS(G_ANSWER) fi;
        answer(DECLINED);
        RESET
       }
    :: atomic {
        if SLOTS(G_ANSWER) fi;
        answer(APPROVED);
        RESET
       }
    /* Answer to a question no longer pending: changes nothing (INT-19, G6.9) */
    :: atomic {
        if SLOTS(G_LATE) fi;
        RESET
       }
    /* NodeFails, unrouted (counted unhandled, O11.1) or routed along an error edge (E9.1) */
    :: atomic {
        if SLOTS(G_NODE) fi;
        if
        :: b = 0
        :: b = 1
        fi;
        ex[s].nf[ex[s].nnf] = b; ex[s].nnf++;
        if :: !b -> ex[s].unhandled++ :: else fi;
        RESET
       }
    /* StartWriteBack: the take empties the held list into the segment's hands (T7.4, T7.7): final, or
       (A-T11, not a retry) interim while fewer messages than INTERIM_WRITES; a retry keeps the failed
       write-back's `final` */
    :: atomic {
        if SLOTS(G_TAKE) fi;
        if
        :: ex[s].seg_wf -> b = ex[s].final
        :: !ex[s].seg_wf -> b = 1
        :: !ex[s].seg_wf && ex[s].nmsg < INTERIM_WRITES -> b = 0
        fi;
        ex[s].final = b;
        i = 0;
        do
        :: i < NREF -> ex[s].tak[i] = ex[s].held[i]; ex[s].held[i] = 0; i++
        :: else -> break
        od;
        ex[s].ntak = ex[s].nheld; ex[s].nheld = 0;
        ex[s].phase = TAKEN;
        RESET
       }
    /* WriteMessage fails, while the bound allows */
    :: atomic {
        if SLOTS(G_WRITE_FAILS) fi;
        ex[s].phase = WRITE_FAILED; wfails++;
        RESET
       }
    /* WriteMessage: the message carries taken ++ collected (T7.5, T7.6, T7.8); an interim one lets the
       segment carry on with nothing in hand; a final one ends the segment and the ladder decides
       the status (O11.1, O11.4, G6.5) (successors._write) */
    :: atomic {
        if SLOTS(G_WRITE) fi;
        j = ex[s].nmsg; ex[s].nmsg++;
        i = 0;
        do
        :: i < ex[s].ntak -> ex[s].msg[j].ref[i] = ex[s].tak[i]; i++
        :: else -> break
        od;
        c = 0;
        do
        :: c < ex[s].ncol -> ex[s].msg[j].ref[i] = ex[s].col[c]; i++; c++
        :: else -> break
        od;
        ex[s].msg[j].n = i;
        if
        :: !ex[s].final ->
            i = 0;
            do
            :: i < NREF -> ex[s].col[i] = 0; ex[s].tak[i] = 0; i++
            :: else -> break
            od;
            ex[s].ncol = 0; ex[s].ntak = 0; ex[s].phase = WORKING; ex[s].seg_wf = 0
        :: else ->
            verdict();
            end_segment()
        fi;
        RESET
       }
    /* PutBack: a failed write-back puts what it took back in front of the held list (T7.10, T7.12) */
    :: atomic {
        if SLOTS(G_PUT_BACK) fi;
        c = ex[s].ntak;
        i = ex[s].nheld;               /* shift the held list right by c, from the end */
        do
        :: i > 0 -> i--; ex[s].held[i + c] = ex[s].held[i]
        :: else -> break
        od;
        do
        :: i < c -> ex[s].held[i] = ex[s].tak[i]; ex[s].tak[i] = 0; i++
        :: else -> break
        od;
        ex[s].nheld = ex[s].nheld + c; ex[s].ntak = 0;
        ex[s].phase = PUT_BACK;
        RESET
       }
    /* ReportFailure: the failure is reported on the run (T7.11); the segment then only retries */
    :: atomic {
        if SLOTS(G_REPORT) fi;
        ex[s].write_failures++;
        ex[s].phase = WORKING; ex[s].seg_wf = 1;
        RESET
       }
    /* ClearHeld and CloseSuperseded: never enabled under the conformant reading (A-T6/A-T7 atomic,
       A-G3 old-first). The faults (Crash, Expire, LoseRace, ResumeAgain) are off at these bounds. */
    od
}

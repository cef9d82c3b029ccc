"""The state of the world: frozen, hashable, canonical values built from tuples.

Records are NamedTuples rather than dataclasses because the explorer hashes and compares millions of
them: a tuple's hash and equality run in C, a dataclass's in generated Python. They are still
immutable and edited with `_replace`. Nothing in a state is a list, dict or set.

Durable and volatile parts are kept apart: `State.executions` (the persisted run records, their held
lists and their turns' messages) and `State.warnings` survive a crash; `State.segments` (the engine
passes in flight and what they collected) do not. `State.artifacts` is ghost data: where each
artifact came from (its execution; its call only where a reading reads it), so properties can speak
of identity (A-T16).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "RUNNING", "PAUSED", "COMPLETED", "FAILED", "INTERRUPTED", "CANCELLED",
    "PENDING", "APPROVED", "DECLINED", "EXPIRED", "FINISHED", "WORKING", "READ", "TAKEN", "WRITTEN", "WRITE_FAILED",
    "PUT_BACK", "WORDS",
    "Artifact", "Attempt", "Question", "Execution", "Segment", "Warning", "State",
    "INITIAL", "spread_key",
    "ref_name", "id_key", "base_id", "find_execution", "find_segment", "with_execution", "with_segment",
]

# Statuses, shared by executions and attempts where the words coincide.
RUNNING = "running"
PAUSED = "paused"
COMPLETED = "completed"
FAILED = "failed"
INTERRUPTED = "interrupted"
CANCELLED = "cancelled"
FINISHED = frozenset({COMPLETED, FAILED, CANCELLED})  # an execution's terminal statuses (cancelled: expired)
# Question statuses.
PENDING = "pending"
APPROVED = "approved"
DECLINED = "declined"
EXPIRED = "expired"


class Artifact(NamedTuple):
    """Ghost provenance of one artifact `{type, payload, tool_call_id}`: its ref is its 1-based index."""

    execution: str
    # The producing call, kept only under A-T12 "with-artifacts", the one rule that reads it; "" otherwise,
    # so that histories differing only in which call made an artifact are one state (half the states).
    call: str = ""


class Attempt(NamedTuple):
    """One job record of a tool call (G6.1-G6.4): running, completed, failed, interrupted, cancelled."""

    call: str
    status: str


class Question(NamedTuple):
    """The question one pause raises (G6.9): pending, then approved or declined."""

    call: str
    status: str
    observations: int  # times the tool plane observed the same interrupt again
    id: int  # the n-th question raised in its execution: a persisted interrupt's identity (INT-2)


class Execution(NamedTuple):
    """The persisted run record of one turn, and the turn's assistant messages (durable)."""

    id: str
    session: int
    status: str
    calls: int  # tool calls issued so far; call ids are c1..cN within the execution
    attempts: tuple[Attempt, ...]  # in creation order
    questions: tuple[Question, ...]  # one per pause, in order
    held: tuple[int, ...]  # artifact refs held across a pause, oldest first
    messages: tuple[tuple[int, ...], ...]  # each assistant message's toolArtifacts, as refs
    unhandled: int  # the ERR-9 unhandled-failure count
    write_failures: int  # failed write-backs reported for this execution
    node_failures: tuple[bool, ...] = ()  # each failed graph-node unit, in order: routed along an error edge?


# The phases of a segment's write-back: none in progress, the held list taken, the write failed,
# what was taken put back (then the failure is reported and the phase returns to WORKING). Where a
# reading splits the take (A-T6 write-first, A-T7 read-then-clear), the held list is first only READ
# (what the segment has in hand is a copy), and cleared after the message is WRITTEN or before it is.
WORKING, TAKEN, WRITE_FAILED, PUT_BACK = "working", "taken", "write failed", "put back"
READ, WRITTEN = "read", "written"
# Every status and phase word, in a fixed order (the symbolic engines number them by it).
WORDS = (RUNNING, PAUSED, COMPLETED, FAILED, INTERRUPTED, CANCELLED, PENDING, APPROVED, DECLINED, EXPIRED,
         WORKING, TAKEN, WRITE_FAILED, PUT_BACK, READ, WRITTEN)


class Segment(NamedTuple):
    """One engine pass (what RT-TOOL-7 calls "a run"): volatile, lost on a crash."""

    execution: str
    calls: int  # fresh calls issued in this pass
    collected: tuple[int, ...]  # artifact refs collected in this pass, in arrival order
    write_failed: bool = False  # a write-back of it failed: it does no more work, only retries (A-T4)
    phase: str = WORKING  # where its write-back stands
    taken: tuple[int, ...] = ()  # what its write-back took from the held list and holds in hand
    final: bool = False  # its write-back in progress (or to retry) ends the segment
    closing: str = ""  # A-G3 new-first: the resumed call whose superseded attempt is still to be closed


class Warning(NamedTuple):
    """One warning per artifact dropped from a held list (T7.15)."""

    execution: str
    ref: int


class State(NamedTuple):
    """The whole world: every session's executions, the segments in flight, warnings, provenance."""

    executions: tuple[Execution, ...] = ()
    segments: tuple[Segment, ...] = ()
    warnings: tuple[Warning, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    write_failures: int = 0  # failed write-backs so far, against the write_failures bound
    crashes: int = 0  # crashes (each followed by a restart) so far, against the crashes bound
    crashed: tuple[int, ...] = ()  # ghost: refs collected by a segment lost in a crash, never held (T5.8)
    new_turns: tuple[int, ...] = ()  # the session of each turn started while its previous one was paused (INT-13)
    races: int = 0  # consent races lost so far (A-G9), against the races bound


INITIAL = State()


def spread_key(state: State) -> tuple[int, ...]:
    """A few counts of a state, integers only (so hashed alike in every process), by which a search spread over
    processes shares out the states: they change on few steps (most successors stay with their parent's process),
    yet take enough values in each level to share it about evenly. Ids, statuses and phases are left out, and so
    are the held refs, which a pause and a write-back change (a key with them changes on twice the steps)."""
    key = [len(state.warnings), len(state.artifacts), state.write_failures, state.crashes, len(state.new_turns),
           state.races]
    for execution in state.executions:
        key += (execution.calls, len(execution.attempts), len(execution.questions))
    return tuple(key)


def ref_name(ref: int) -> str:
    """The wire name of an artifact ref: 1 -> 'a1'."""
    return f"a{ref}"


def base_id(segment_id: str) -> str:
    """The execution a segment key belongs to: a racing second resume (A-T7) runs as `e1'` beside `e1`."""
    return segment_id.rstrip("'")


def find_execution(state: State, execution_id: str) -> Execution:
    """The execution with this id, or with the id a racing segment's key stands for (KeyError if none)."""
    if execution_id[-1] == "'":
        execution_id = base_id(execution_id)
    for execution in state.executions:
        if execution.id == execution_id:
            return execution
    raise KeyError(execution_id)


def find_segment(state: State, execution_id: str) -> Segment | None:
    """The segment in flight for this execution, if any."""
    for segment in state.segments:
        if segment.execution == execution_id:
            return segment
    return None


def with_execution(state: State, execution: Execution) -> State:
    """The state with one execution record replaced (matched by id)."""
    return state._replace(
        executions=tuple(execution if e.id == execution.id else e for e in state.executions)
    )


def with_segment(state: State, execution_id: str, segment: Segment | None) -> State:
    """The state with this execution's segment replaced, added, or (None) removed."""
    others = tuple(s for s in state.segments if s.execution != execution_id)
    if segment is None:
        return state._replace(segments=others)
    return state._replace(segments=tuple(sorted(others + (segment,), key=lambda s: id_key(s.execution))))


def id_key(identifier: str) -> tuple[int, str]:
    """Natural order of ids that share a prefix: e2 before e10."""
    return (len(identifier), identifier)

"""The witnesses: `sometimes` properties, each the evidence that a situation occurs within the bounds.

An `always` or `transition` property whose situation is never witnessed is reported vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import (
    Answer,
    CallTool,
    NodeFails,
    ObserveAgain,
    Poll,
    ToolFails,
    ToolInterrupts,
    WriteMessage,
)
from .config import Bounds
from .property import SOMETIMES, Context, Property
from .state import COMPLETED, DECLINED, FAILED, PENDING, Execution, State, find_execution, find_segment

__all__ = ["WITNESSES", "at_least", "two_executions"]


def _held(state: State, execution_id: str) -> tuple[int, ...]:
    return find_execution(state, execution_id).held


def _finished_with(post: State, action: WriteMessage, test: Callable[[Any], bool], status: str = COMPLETED) -> bool:
    e = find_execution(post, action.execution)
    return action.ok and e.status == status and test(e)


# What a finished execution shows (named, not nested lambdas: mypyc compiles this module, benchmarks/compiled.py).
def _paused(e: Execution) -> bool:
    return bool(e.questions)


def _tool_failed_all_routed(e: Execution) -> bool:
    return any(t.status == FAILED for t in e.attempts) and all(e.node_failures)


def _declined(e: Execution) -> bool:
    return DECLINED in (q.status for q in e.questions)


def _node_failed_unrouted(e: Execution) -> bool:
    return not all(e.node_failures)


def _taken(state: State, execution_id: str) -> tuple[int, ...]:
    """What the write-back of this execution's segment holds in hand."""
    segment = find_segment(state, execution_id)
    return segment.taken if segment is not None else ()


def _artifact_beside_another_execution(pre: State, action: Any, post: State, ctx: Context) -> bool:
    """Two executions exist and one of them holds or has delivered an artifact."""
    return len(post.executions) >= 2 and any(e.held or any(e.messages) for e in post.executions)


Requirement = Callable[[Bounds], "str | None"]


def at_least(*more: Requirement, **minimums: int) -> Requirement:
    """A requirement: each named bound at least its minimum, and every requirement in `more`. It
    returns every flag that falls short, as a user would type them, or None."""
    def requires(bounds: Bounds) -> str | None:
        missing = [f"--{name.replace('_', '-')} {minimum}" for name, minimum in minimums.items()
                   if getattr(bounds, name) < minimum]
        missing += [found for found in (r(bounds) for r in more) if found]
        return " ".join(dict.fromkeys(missing)) or None
    return requires


def two_executions(bounds: Bounds) -> str | None:
    """Two executions, one of which makes an artifact."""
    if bounds.sessions * bounds.turns < 2:
        return "--sessions 2 (or --turns 2)"
    return at_least(per_call=1, artifacts=1)(bounds)


def _capacity(bounds: Bounds) -> int:
    """The most artifacts one pause can find to hold: each pause comes from a fresh call that
    interrupts, after the segment's other calls (and, after a resume, the re-fired call) returned."""
    return min(bounds.artifacts, (bounds.pauses * bounds.calls - 1) * bounds.per_call)


def _calls_to_collect(pauses: int) -> Requirement:
    """Before the `pauses`-th pause, a call that returns before the one that interrupts: a second call
    in the first segment, or the re-fired call after an earlier pause."""
    return lambda bounds: "--calls 2" if pauses * bounds.calls < 2 else None


def _holds(bounds: Bounds) -> str | None:
    """A pause that holds an artifact."""
    return at_least(_calls_to_collect(bounds.pauses), per_call=1, artifacts=1, pauses=1, held_bound=1)(bounds)


def _repause(bounds: Bounds) -> str | None:
    """A pause that holds an artifact, and a later pause of the same execution."""
    collect = _calls_to_collect(max(bounds.pauses - 1, 1))
    return at_least(collect, per_call=1, artifacts=1, pauses=2, held_bound=1)(bounds)


def _overflow(bounds: Bounds) -> str | None:
    """A pause that finds more to hold than the held list keeps."""
    if _capacity(bounds) > bounds.held_bound:
        return None
    return at_least(_calls_to_collect(bounds.pauses), per_call=1, pauses=1,
                    artifacts=bounds.held_bound + 1)(bounds) or "--calls 2"


WITNESSES: tuple[Property, ...] = (
    Property("delivered_after_pause", SOMETIMES, ("T7.6",),
             lambda pre, a, post, ctx: a.ok and bool(_taken(pre, a.execution)),
             "a write-back delivers artifacts held across a pause", on=(WriteMessage,), requires=_holds),
    Property("merged_held_and_new", SOMETIMES, ("T7.5",),
             lambda pre, a, post, ctx: a.ok and bool(_taken(pre, a.execution))
             and bool(find_segment(pre, a.execution).collected),
             "a write-back merges held artifacts with the resumed segment's own", on=(WriteMessage,),
             requires=at_least(_holds, artifacts=2)),
    Property("held_across_pause", SOMETIMES, ("T7.1",),
             lambda pre, a, post, ctx: bool(_held(post, a.execution)),
             "a pause holds artifacts", on=(ToolInterrupts,), requires=_holds),
    Property("repause_with_held", SOMETIMES, ("T7.9",),
             lambda pre, a, post, ctx: bool(_held(pre, a.execution)),
             "a resume that pauses again while artifacts are held", on=(ToolInterrupts,),
             requires=_repause),
    Property("two_pauses", SOMETIMES, ("T7.9",),
             lambda pre, a, post, ctx: len(find_execution(post, a.execution).questions) >= 2,
             "one execution pauses twice", on=(ToolInterrupts,), requires=at_least(pauses=2)),
    Property("write_back_fails_with_held", SOMETIMES, ("T7.10",),
             lambda pre, a, post, ctx: not a.ok and bool(_taken(pre, a.execution)),
             "a write-back fails with held artifacts in hand", on=(WriteMessage,),
             requires=at_least(_holds, write_failures=1)),
    Property("warned_drop", SOMETIMES, ("T7.14", "T7.15"),
             lambda pre, a, post, ctx: len(post.warnings) > len(pre.warnings),
             "a held list overflows and drops with a warning",
             requires=_overflow),
    Property("poll_while_holding", SOMETIMES, ("T7.3",),
             lambda pre, a, post, ctx: bool(_held(pre, a.execution)),
             "a caller polls a turn that holds artifacts", on=(Poll,), requires=_holds),
    Property("interrupt_observed_twice", SOMETIMES, ("G6.9",), lambda pre, a, post, ctx: True,
             "the tool plane observes the same interrupt again", on=(ObserveAgain,),
             requires=at_least(pauses=1, observations=1)),
    Property("approve", SOMETIMES, ("G6.3",), lambda pre, a, post, ctx: a.approve,
             "a question is approved", on=(Answer,), requires=at_least(pauses=1)),
    Property("decline", SOMETIMES, ("G5.2",), lambda pre, a, post, ctx: not a.approve,
             "a question is declined", on=(Answer,), requires=at_least(pauses=1)),
    Property("two_calls_in_segment", SOMETIMES, (),
             lambda pre, a, post, ctx: find_segment(post, a.execution).calls >= 2,
             "a segment makes two tool calls", on=(CallTool,), requires=at_least(calls=2)),
    Property("tool_failure", SOMETIMES, ("G6.6",), lambda pre, a, post, ctx: True,
             "a tool call fails", on=(ToolFails,)),
    Property("completes_after_pause", SOMETIMES, ("G6.5",),
             lambda pre, a, post, ctx: _finished_with(post, a, _paused),
             "an execution that paused completes", on=(WriteMessage,), requires=at_least(pauses=1)),
    Property("completes_after_failure", SOMETIMES, ("E9.5",),
             lambda pre, a, post, ctx: _finished_with(post, a, _tool_failed_all_routed),
             "an execution with a tool failure completes", on=(WriteMessage,)),
    Property("completes_after_decline", SOMETIMES, ("G5.2",),
             lambda pre, a, post, ctx: _finished_with(post, a, _declined),
             "an execution with a declined call completes", on=(WriteMessage,), requires=at_least(pauses=1)),
    Property("two_write_backs", SOMETIMES, ("T7.4", "T7.8"),
             lambda pre, a, post, ctx: a.ok and len(find_execution(post, a.execution).messages) >= 2,
             "one execution writes a second assistant message (an interim one first)", on=(WriteMessage,),
             requires=at_least(interim_writes=1)),
    Property("interim_write_delivers_held", SOMETIMES, ("T7.4", "T7.8"),
             lambda pre, a, post, ctx: a.ok and not find_segment(pre, a.execution).final
             and bool(_taken(pre, a.execution)),
             "an interim write-back delivers held artifacts, and the segment carries on", on=(WriteMessage,),
             requires=at_least(_holds, interim_writes=1)),
    Property("stale_answer", SOMETIMES, ("G6.9",),
             lambda pre, a, post, ctx: any(q.id == a.question and q.status != PENDING
                                           for q in find_execution(pre, a.execution).questions),
             "an answer arrives for a question already answered", on=(Answer,), requires=at_least(pauses=1)),
    Property("routed_node_failure", SOMETIMES, ("E9.1",), lambda pre, a, post, ctx: a.routed,
             "a graph node fails along its error edge", on=(NodeFails,), requires=at_least(node_failures=1)),
    Property("fails_after_unrouted_failure", SOMETIMES, ("O11.1",),
             lambda pre, a, post, ctx: _finished_with(post, a, _node_failed_unrouted, FAILED),
             "an execution with a node failure without an error edge finishes failed", on=(WriteMessage,),
             requires=at_least(node_failures=1)),
    Property("artifact_beside_another_execution", SOMETIMES, ("T7.2",), _artifact_beside_another_execution,
             "an execution holds or has delivered an artifact while another execution exists",
             requires=two_executions),
)

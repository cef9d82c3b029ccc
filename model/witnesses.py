"""The witnesses: `sometimes` properties, each the evidence that a situation occurs within the bounds.

An `always` or `transition` property whose situation is never witnessed is reported vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import Answer, CallTool, FinishSegment, ObserveAgain, Poll, ToolFails, ToolInterrupts
from .config import Bounds
from .property import SOMETIMES, Context, Property
from .state import COMPLETED, DECLINED, FAILED, State, find_execution, find_segment

__all__ = ["WITNESSES", "two_executions", "TWO_EXECUTIONS"]


def _held(state: State, execution_id: str) -> tuple[int, ...]:
    return find_execution(state, execution_id).held


def _finished_with(post: State, action: FinishSegment, test: Callable[[Any], bool]) -> bool:
    e = find_execution(post, action.execution)
    return action.write_ok and e.status == COMPLETED and test(e)


def _artifact_beside_another_execution(pre: State, action: Any, post: State, ctx: Context) -> bool:
    """Two executions exist and one of them holds or has delivered an artifact."""
    return len(post.executions) >= 2 and any(e.held or any(e.messages) for e in post.executions)


def two_executions(bounds: Bounds) -> bool:
    return bounds.sessions * bounds.turns >= 2 and bounds.artifacts >= 1


TWO_EXECUTIONS = "two executions, e.g. --sessions 2 --calls 1 --per-call 1 --artifacts 1 --pauses 2 " \
                  "--write-failures 0 --observations 0"

WITNESSES: tuple[Property, ...] = (
    Property("delivered_after_pause", SOMETIMES, ("T7.6",),
             lambda pre, a, post, ctx: a.write_ok and bool(_held(pre, a.execution)),
             "a write-back delivers artifacts held across a pause", on=(FinishSegment,)),
    Property("merged_held_and_new", SOMETIMES, ("T7.5",),
             lambda pre, a, post, ctx: a.write_ok and bool(_held(pre, a.execution))
             and bool(find_segment(pre, a.execution).collected),
             "a write-back merges held artifacts with the resumed segment's own", on=(FinishSegment,)),
    Property("held_across_pause", SOMETIMES, ("T7.1",),
             lambda pre, a, post, ctx: bool(_held(post, a.execution)),
             "a pause holds artifacts", on=(ToolInterrupts,)),
    Property("repause_with_held", SOMETIMES, ("T7.9",),
             lambda pre, a, post, ctx: bool(_held(pre, a.execution)),
             "a resume that pauses again while artifacts are held", on=(ToolInterrupts,)),
    Property("two_pauses", SOMETIMES, ("T7.9",),
             lambda pre, a, post, ctx: len(find_execution(post, a.execution).questions) >= 2,
             "one execution pauses twice", on=(ToolInterrupts,)),
    Property("write_back_fails_with_held", SOMETIMES, ("T7.10",),
             lambda pre, a, post, ctx: not a.write_ok and bool(_held(pre, a.execution)),
             "a write-back fails while artifacts are held", on=(FinishSegment,)),
    Property("warned_drop", SOMETIMES, ("T7.14", "T7.15"),
             lambda pre, a, post, ctx: len(post.warnings) > len(pre.warnings),
             "a held list overflows and drops with a warning"),
    Property("poll_while_holding", SOMETIMES, ("T7.3",),
             lambda pre, a, post, ctx: bool(_held(pre, a.execution)),
             "a caller polls a turn that holds artifacts", on=(Poll,)),
    Property("interrupt_observed_twice", SOMETIMES, ("G6.9",), lambda pre, a, post, ctx: True,
             "the tool plane observes the same interrupt again", on=(ObserveAgain,)),
    Property("approve", SOMETIMES, ("G6.3", "G5.3"), lambda pre, a, post, ctx: a.approve,
             "a question is approved", on=(Answer,)),
    Property("decline", SOMETIMES, ("G5.1",), lambda pre, a, post, ctx: not a.approve,
             "a question is declined", on=(Answer,)),
    Property("two_calls_in_segment", SOMETIMES, (),
             lambda pre, a, post, ctx: find_segment(post, a.execution).calls >= 2,
             "a segment makes two tool calls", on=(CallTool,)),
    Property("tool_failure", SOMETIMES, ("G6.6",), lambda pre, a, post, ctx: True,
             "a tool call fails", on=(ToolFails,)),
    Property("completes_after_pause", SOMETIMES, ("G6.5",),
             lambda pre, a, post, ctx: _finished_with(post, a, lambda e: bool(e.questions)),
             "an execution that paused completes", on=(FinishSegment,)),
    Property("completes_after_failure", SOMETIMES, ("E9.5",),
             lambda pre, a, post, ctx: _finished_with(post, a, lambda e: any(t.status == FAILED for t in e.attempts)),
             "an execution with a tool failure completes", on=(FinishSegment,)),
    Property("completes_after_decline", SOMETIMES, ("G5.2",),
             lambda pre, a, post, ctx: _finished_with(post, a, lambda e: DECLINED in (q.status for q in e.questions)),
             "an execution with a declined call completes", on=(FinishSegment,)),
    Property("artifact_beside_another_execution", SOMETIMES, ("T7.2",), _artifact_beside_another_execution,
             "an execution holds or has delivered an artifact while another execution exists",
             applies=two_executions, needs=TWO_EXECUTIONS),
)

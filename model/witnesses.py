"""The witnesses: `sometimes` properties, each the evidence that a situation occurs within the bounds.

An `always` or `transition` property whose situation is never witnessed is reported vacuous.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

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
from .decided import witness_check
from .property import SOMETIMES, Property

__all__ = ["WITNESSES", "at_least", "two_executions"]


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
    """A pause that finds more to hold than the held list keeps: where the bounds do not allow one, the smallest
    raises of the bounds a pause's haul depends on that do (searched, so never a bound already at that value)."""
    def reaches(b: Bounds) -> bool:
        return _capacity(b) > b.held_bound and at_least(_calls_to_collect(b.pauses), per_call=1, pauses=1)(b) is None

    if reaches(bounds):
        return None
    names = ("pauses", "per_call", "calls", "artifacts")  # the cheapest first, where two raise as much
    raised = sorted(itertools.product(range(4), repeat=len(names)), key=lambda ups: (sum(ups), ups[::-1]))
    for ups in raised:
        b = bounds.replace(**{n: getattr(bounds, n) + up for n, up in zip(names, ups, strict=True)})
        if reaches(b):
            return " ".join(f"--{n.replace('_', '-')} {getattr(b, n)}" for n, up in zip(names, ups, strict=True) if up)
    return f"--artifacts {bounds.held_bound + 1} --calls 2"


def _call_after_failure(bounds: Bounds) -> str | None:
    """A fresh call after a failed one: a second call in the segment, or, after a pause, the call a resumed
    segment makes once its re-issued call fails."""
    return None if bounds.calls >= 2 or (bounds.calls >= 1 and bounds.pauses >= 1) else "--calls 2"


WITNESSES: tuple[Property, ...] = (
    Property("delivered_after_pause", SOMETIMES, ("T7.6",), witness_check("delivered_after_pause"),
             "a write-back delivers artifacts held across a pause", on=(WriteMessage,), requires=_holds),
    Property("merged_held_and_new", SOMETIMES, ("T7.5",), witness_check("merged_held_and_new"),
             "a write-back merges held artifacts with the resumed segment's own", on=(WriteMessage,),
             requires=at_least(_holds, artifacts=2)),
    Property("held_across_pause", SOMETIMES, ("T7.1",), witness_check("held_across_pause"),
             "a pause holds artifacts", on=(ToolInterrupts,), requires=_holds),
    Property("repause_with_held", SOMETIMES, ("T7.9",), witness_check("repause_with_held"),
             "a resume that pauses again while artifacts are held", on=(ToolInterrupts,),
             requires=_repause),
    Property("two_pauses", SOMETIMES, ("T7.9",), witness_check("two_pauses"),
             "one execution pauses twice", on=(ToolInterrupts,), requires=at_least(pauses=2)),
    Property("write_back_fails_with_held", SOMETIMES, ("T7.10",), witness_check("write_back_fails_with_held"),
             "a write-back fails with held artifacts in hand", on=(WriteMessage,),
             requires=at_least(_holds, write_failures=1)),
    Property("warned_drop", SOMETIMES, ("T7.14", "T7.15"), witness_check("warned_drop"),
             "a held list overflows and drops with a warning",
             requires=_overflow),
    Property("poll_while_holding", SOMETIMES, ("T7.3",), witness_check("poll_while_holding"),
             "a caller polls a turn that holds artifacts", on=(Poll,), requires=_holds),
    Property("interrupt_observed_twice", SOMETIMES, ("G6.9",), witness_check("interrupt_observed_twice"),
             "the tool plane observes the same interrupt again", on=(ObserveAgain,),
             requires=at_least(pauses=1, observations=1)),
    Property("approve", SOMETIMES, ("G6.3",), witness_check("approve"),
             "a question is approved", on=(Answer,), requires=at_least(pauses=1)),
    Property("decline", SOMETIMES, ("G5.2",), witness_check("decline"),
             "a question is declined", on=(Answer,), requires=at_least(pauses=1)),
    Property("two_calls_in_segment", SOMETIMES, (), witness_check("two_calls_in_segment"),
             "a segment makes two tool calls", on=(CallTool,), requires=at_least(calls=2)),
    Property("tool_failure", SOMETIMES, ("G6.6",), witness_check("tool_failure"),
             "a tool call fails", on=(ToolFails,)),
    Property("calls_after_a_failure", SOMETIMES, ("G6.7",), witness_check("calls_after_a_failure"),
             "the consumer calls a tool again right after a tool call failed (it carries on)", on=(CallTool,),
             requires=_call_after_failure),
    Property("delivers_after_a_put_back", SOMETIMES, ("T7.10", "T7.12"), witness_check("delivers_after_a_put_back"),
             "a write-back delivers held artifacts after an earlier one failed and put them back", on=(WriteMessage,),
             requires=at_least(_holds, write_failures=1)),
    Property("completes_after_pause", SOMETIMES, ("G6.5",), witness_check("completes_after_pause"),
             "an execution that paused completes", on=(WriteMessage,), requires=at_least(pauses=1)),
    Property("completes_after_failure", SOMETIMES, ("E9.5",), witness_check("completes_after_failure"),
             "an execution with a tool failure completes", on=(WriteMessage,)),
    Property("completes_after_decline", SOMETIMES, ("G5.2",), witness_check("completes_after_decline"),
             "an execution with a declined call completes", on=(WriteMessage,), requires=at_least(pauses=1)),
    Property("two_write_backs", SOMETIMES, ("T7.4", "T7.8"), witness_check("two_write_backs"),
             "one execution writes a second assistant message (an interim one first)", on=(WriteMessage,),
             requires=at_least(interim_writes=1)),
    Property("interim_write_delivers_held", SOMETIMES, ("T7.4", "T7.8"), witness_check("interim_write_delivers_held"),
             "an interim write-back delivers held artifacts, and the segment carries on", on=(WriteMessage,),
             requires=at_least(_holds, interim_writes=1)),
    Property("stale_answer", SOMETIMES, ("G6.9",), witness_check("stale_answer"),
             "an answer arrives for a question already answered", on=(Answer,), requires=at_least(pauses=1)),
    Property("routed_node_failure", SOMETIMES, ("E9.1",), witness_check("routed_node_failure"),
             "a graph node fails along its error edge", on=(NodeFails,), requires=at_least(node_failures=1)),
    Property("fails_after_unrouted_failure", SOMETIMES, ("O11.1",), witness_check("fails_after_unrouted_failure"),
             "an execution with a node failure without an error edge finishes failed", on=(WriteMessage,),
             requires=at_least(node_failures=1)),
    Property("artifact_beside_another_execution", SOMETIMES, ("T7.2",),
             witness_check("artifact_beside_another_execution"),
             "an execution holds or has delivered an artifact while another execution exists",
             requires=two_executions),
)

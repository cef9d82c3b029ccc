"""Black-box properties: what can be judged from a runtime's observations alone.

For a runtime that takes another legitimate reading of the rules, its observations need not equal
the model's; these properties hold under every reading. Each looks at the actions applied so far
(with their payloads), the observation before the last step and the one after it, and returns what
is wrong or None. They mirror the model's properties of the same name on the wire view only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["BlackBox", "BLACK_BOX", "History"]

FINISHED = ("completed", "failed")
# An attempt's status may move only along these arrows (G6.1-G6.4); any other change rewrites history.
MOVES = {("running", "completed"), ("running", "failed"), ("running", "interrupted"), ("interrupted", "cancelled")}


@dataclass(frozen=True, slots=True)
class History:
    """What the oracle applied (the `apply` requests, in order) and what it saw after the last one."""

    applied: tuple[dict[str, Any], ...]
    before: dict[str, Any]  # the observation before the last step
    after: dict[str, Any]  # and after it
    held: dict[str, list[str]] | None  # the held lists after it, if the runtime exposes them


@dataclass(frozen=True, slots=True)
class BlackBox:
    name: str
    clauses: tuple[str, ...]
    doc: str
    check: Callable[[History], str | None]


def _delivered(observation: dict[str, Any]) -> Counter[str]:
    return Counter(ref for turn in observation["turns"].values() for message in turn["messages"] for ref in message)


def _no_double_delivery(h: History) -> str | None:
    delivered = _delivered(h.after)
    twice = sorted(ref for ref, n in delivered.items() if n > 1)
    if not twice:
        return None
    carriers = sum(ref == twice[0] for turn in h.after["turns"].values() for message in turn["messages"]
                   for ref in set(message))
    where = "on one assistant message" if carriers == 1 else f"on {carriers} assistant messages"
    return f"artifact {twice[0]} is delivered {delivered[twice[0]]} times, {where}"


def _held_hidden(h: History) -> str | None:
    if h.held is None:
        return None
    shown = _delivered(h.after)
    for execution, refs in sorted(h.held.items()):
        for ref in refs:
            if ref in shown:
                return f"artifact {ref} is held by {execution} and shown on the wire"
    return None


def _trail_kept(h: History) -> str | None:
    for eid, turn in h.after["turns"].items():
        old = h.before["turns"].get(eid, {"attempts": {}})["attempts"]
        for call, trail in turn["attempts"].items():
            was = old.get(call, [])
            if len(trail) < len(was):
                return f"{eid} {call}: an attempt disappeared from the trail {was} -> {trail}"
            for a, b in zip(was, trail, strict=False):
                if a != b and (a, b) not in MOVES:
                    return f"{eid} {call}: an attempt went from {a} to {b} ({was} -> {trail})"
            if trail.count("running") > 1:
                return f"{eid} {call}: two attempts running at once ({trail})"
    return None


def _interrupt_not_failed(h: History) -> str | None:
    last = h.applied[-1]["action"] if h.applied else {}
    if last.get("kind") != "tool-interrupts":
        return None
    trail = h.after["turns"].get(last["execution"], {"attempts": {}})["attempts"].get(last["call"], [])
    if not trail or trail[-1] != "interrupted":
        return f"{last['execution']} {last['call']}: interrupted, but its trail is {trail}"
    return None


def _one_question_per_pause(h: History) -> str | None:
    pauses = Counter(r["action"]["execution"] for r in h.applied if r["action"]["kind"] == "tool-interrupts")
    for eid, turn in h.after["turns"].items():
        if len(turn["questions"]) != pauses[eid]:
            return f"{eid} paused {pauses[eid]} time(s) but has {len(turn['questions'])} question(s)"
    return None


def _no_phantom_failure(h: History) -> str | None:
    unrouted = Counter(r["action"]["execution"] for r in h.applied
                       if r["action"]["kind"] == "node-fails" and not r["action"]["routed"])
    for eid, turn in h.after["turns"].items():
        if turn["unhandled"] != unrouted[eid]:
            return (f"{eid} counts {turn['unhandled']} unhandled failure(s); {unrouted[eid]} graph node(s) "
                    "failed without an error edge (tool failures are handled)")
        if turn["status"] == "failed" and not unrouted[eid]:
            return f"{eid} failed with no unhandled failure"
    return None


def _no_loss(h: History) -> str | None:
    produced: dict[str, list[str]] = {}
    for r in h.applied:
        if r["action"]["kind"] == "tool-returns":
            refs = [a["payload"]["ref"] for a in r["payload"]["artifacts"]]
            produced.setdefault(r["action"]["execution"], []).extend(refs)
    warned = {w["artifact"] for w in h.after["warnings"]}
    for eid, turn in h.after["turns"].items():
        if turn["status"] in FINISHED:
            shown = {ref for message in turn["messages"] for ref in message}
            lost = [ref for ref in produced.get(eid, []) if ref not in shown and ref not in warned]
            if lost:
                return f"{eid} finished {turn['status']}; artifact {lost[0]} was neither delivered nor warned about"
    return None


BLACK_BOX: tuple[BlackBox, ...] = (
    BlackBox("no_double_delivery", ("T7.8",), "no artifact is on two assistant messages", _no_double_delivery),
    BlackBox("held_hidden", ("T7.3",), "no held artifact is shown (when the runtime exposes its held lists)",
             _held_hidden),
    BlackBox("trail_kept", ("G6.1", "G6.3", "G6.4"),
             "an attempt's status only moves forward (running to an outcome, interrupted to cancelled)", _trail_kept),
    BlackBox("interrupt_not_failed", ("G6.1", "G6.2"), "an interrupted attempt is recorded interrupted",
             _interrupt_not_failed),
    BlackBox("one_question_per_pause", ("G6.9",), "each pause raises exactly one question", _one_question_per_pause),
    BlackBox("no_phantom_failure", ("G6.8", "E9.5", "O11.1"),
             "only graph-node failures without an error edge count as unhandled, and only they fail a run",
             _no_phantom_failure),
    BlackBox("no_loss", ("T7.12", "T7.15"),
             "a finished turn delivered or warned about every artifact its tools returned", _no_loss),
)

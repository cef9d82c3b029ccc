"""What a caller sees on the wire: the only thing an implementation must expose.

`shown` is the artifact part of it (each turn's `toolArtifacts`, aggregated as its result reports
them, T4.3, T4.6); `observe` is the whole view, JSON-ready. Held lists are never part of either
(T7.3); `white_box` adds them for implementations that choose to expose them.
"""

from __future__ import annotations

from typing import Any

from .state import State, ref_name

__all__ = ["shown", "observe", "white_box"]


def shown(state: State) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """For each turn (by execution id), the artifact refs its assistant messages carry, in order."""
    return tuple((e.id, tuple(r for m in e.messages for r in m)) for e in state.executions)


def observe(state: State) -> dict[str, Any]:
    """The wire view of every turn: messages, attempt trails, questions, status, warnings."""
    turns = {}
    for e in state.executions:
        trails: dict[str, list[str]] = {}
        for attempt in e.attempts:
            trails.setdefault(attempt.call, []).append(attempt.status)
        turns[e.id] = {
            "session": f"s{e.session}",
            "status": e.status,
            "unhandled": e.unhandled,
            "messages": [[ref_name(r) for r in m] for m in e.messages],
            "attempts": trails,
            "questions": [{"id": f"q{q.id}", "call": q.call, "status": q.status} for q in e.questions],
            "write_failures": e.write_failures,
        }
    warnings = [{"execution": w.execution, "artifact": ref_name(w.ref)} for w in state.warnings]
    return {"turns": turns, "warnings": warnings}


def white_box(state: State) -> dict[str, list[str]]:
    """The held lists, by execution: optional for an implementation to expose, never on the wire."""
    return {e.id: [ref_name(r) for r in e.held] for e in state.executions}

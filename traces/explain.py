"""Explanations: a violation's message with the steps that made the values it names.

A property says what broke in terms of the final state ("a2 is on message 1 of e1 and again on
message 2 of e1"); the explanation adds where each named thing came from, read off the trace:
"a2 (produced at step 3) is on message 1 of e1 (written at step 7) and again on message 2 of e1
(written at step 9)".
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["explain"]

_MESSAGE = re.compile(r"message (\d+) of (e\d+)")
_ARTIFACT = re.compile(r"\ba(\d+)\b")


def _first_step(states: list[dict[str, Any]], reached: Any) -> int | None:
    for i, state in enumerate(states):
        if reached(state):
            return i
    return None


def _messages(state: dict[str, Any], execution: str) -> int:
    return next((len(e["messages"]) for e in state["executions"] if e["id"] == execution), 0)


def explain(message: str, states: list[dict[str, Any]]) -> str:
    """The message with the step of each artifact's production (first mention) and of each message."""
    def message_step(match: re.Match[str]) -> str:
        count, execution = int(match.group(1)), match.group(2)
        step = _first_step(states, lambda s: _messages(s, execution) >= count)
        return match.group(0) + (f" (written at step {step})" if step is not None else "")

    seen: set[str] = set()

    def artifact_step(match: re.Match[str]) -> str:
        if match.group(0) in seen:
            return match.group(0)
        seen.add(match.group(0))
        number = int(match.group(1))
        step = _first_step(states, lambda s: len(s["artifacts"]) >= number)
        return match.group(0) + (f" (produced at step {step})" if step is not None else "")

    return _ARTIFACT.sub(artifact_step, _MESSAGE.sub(message_step, message))

"""Replay: re-execute a trace's actions on a machine and compare every state it records.

The result names the first step whose action is not enabled or whose recorded state differs from the
model's (with the JSON path of the first differing field), or else says whether the property the
trace claims to break (or witness) is reproduced on the replayed path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pausecheck.model import EVENTUALLY, ActionError, Machine, State, action_from_json
from pausecheck.model.machine import DEADLOCK

from .itf import VARS, TraceError, decode_state, encode_state

CONFORMANCE = "conformance"  # a runtime's divergence from the model (`pausecheck conform`)

__all__ = ["Replay", "replay", "first_difference", "decode_actions", "ARBITRARY"]

# `#meta.start` of a trace that starts from the state it records rather than the initial state: a
# counterexample to induction (`prove --induction`), whose first state need not be reachable.
ARBITRARY = "arbitrary"


@dataclass(frozen=True, slots=True)
class Replay:
    """What replaying a trace showed."""

    steps: int
    diverged_at: int | None  # the step index of the first divergence
    divergence: str | None
    reproduced: bool  # the claimed violation or witness shows on the replayed path
    message: str | None  # the property's own account of the violation
    states: tuple[State, ...]


def first_difference(recorded: Any, computed: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The JSON path of the first place two JSON values differ, with both values there."""
    if isinstance(recorded, dict) and isinstance(computed, dict):
        for key in sorted(set(recorded) | set(computed)):
            if key not in recorded or key not in computed:
                return f"{path}.{key}", recorded.get(key), computed.get(key)
            found = first_difference(recorded[key], computed[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(computed, list):
        for i, (r, c) in enumerate(zip(recorded, computed, strict=False)):
            found = first_difference(r, c, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(computed):
            return f"{path} (length)", len(recorded), len(computed)
        return None
    if recorded != computed or type(recorded) is not type(computed):
        return path, recorded, computed
    return None


def decode_actions(document: dict[str, Any], file: str) -> list[Any]:
    """The action of each step after the first, parsed; a TraceError names the bad field."""
    actions = []
    for i, state in enumerate(document["states"][1:], 1):
        try:
            actions.append(action_from_json(state["#meta"].get("action")))
        except ActionError as error:
            field = f".{error.field}" if error.field else ""
            raise TraceError(file, f'$.states[{i}]["#meta"].action{field}', str(error)) from None
    return actions


def _recorded(state: dict[str, Any]) -> dict[str, Any]:
    return {var: state[var] for var in VARS}


def replay(document: dict[str, Any], machine: Machine, file: str = "<trace>") -> Replay:
    """Re-execute the trace on `machine` and check the property its `#meta` names."""
    actions = decode_actions(document, file)
    recorded = document["states"]
    state = machine.init_states()[0]
    if document["#meta"].get("start") == ARBITRARY:  # a counterexample to induction starts where it says
        try:
            state = decode_state(recorded[0])
        except (KeyError, ValueError, TypeError, IndexError) as error:
            raise TraceError(file, "$.states[0]", f"not a state of the model ({error})") from None
    states = [state]
    found = first_difference(_recorded(recorded[0]), encode_state(state))
    if found:
        return _diverged(0, "the initial state", found, states, len(actions))
    for i, action in enumerate(actions, 1):
        post = machine.step(state, action)
        if post is None:
            return Replay(len(actions), i, f"step {i}: {action} is not enabled here", False, None, tuple(states))
        found = first_difference(_recorded(recorded[i]), encode_state(post))
        if found:
            states.append(post)
            return _diverged(i, str(action), found, states, len(actions))
        states.append(post)
        state = post
    reproduced, message = _claim(document["#meta"], machine, states, actions)
    return Replay(len(actions), None, None, reproduced, message, tuple(states))


def _diverged(i: int, what: str, found: tuple[str, Any, Any], states: list[State], steps: int) -> Replay:
    path, was, now = found
    text = f"step {i} ({what}): field {path.lstrip('.')} is {was!r} in the trace but {now!r} in the model"
    return Replay(steps, i, text, False, None, tuple(states))


def _in_trace_steps(message: str, grain: Any) -> str:
    """A runtime's message in this trace's step numbers: where the runtime took several of the trace's steps as
    one (a macro), "after step N" (the runtime's N-th) is the trace's step its N-th ends at (`grain`)."""
    found = re.match(r"after step (\d+),", message)
    if found is None or not isinstance(grain, list) or not 0 < int(found[1]) <= len(grain):
        return message
    n = int(found[1])
    if grain[n - 1] == n:
        return message
    return f"after step {grain[n - 1]} (the runtime's step {n}, at its grain)," + message[found.end():]


def _claim(meta: dict[str, Any], machine: Machine, states: list[State], actions: list[Any]) -> tuple[bool, str | None]:
    """Does the replayed path show what the trace claims (a violation, a witness, a deadlock)?"""
    name = meta.get("property")
    if meta.get("kind") == CONFORMANCE:  # the model's own path: what it claims is about a runtime
        runtime = meta.get("runtime") if isinstance(meta.get("runtime"), dict) else {}
        return True, (f"the runtime {runtime.get('command')!r} departed from it at step {runtime.get('step')}: "
                      f"{_in_trace_steps(str(meta.get('message')), runtime.get('grain'))}")
    if meta.get("kind") == "diff":  # a behaviour only one table allows: its steps replaying is what it claims
        return True, meta.get("message")
    if meta.get("kind") == EVENTUALLY:
        loop = meta.get("loop") if meta.get("verdict") == "violation" else None
        if loop is not None and type(loop) is not int:
            return False, f"#meta.loop is {loop!r}, not a state index"
        return machine.judge_eventually(name, states, loop, actions)
    if name != DEADLOCK and name not in {p.name for p in machine.properties}:
        return False, f"the trace names no property this model has ({name!r})"
    pre, action = (states[-2], actions[-1]) if actions else (None, None)
    return machine.judge(name, pre, action, states[-1])

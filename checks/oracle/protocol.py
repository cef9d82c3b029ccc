"""The adapter protocol: JSON lines between pausecheck and a runtime under test, one response per request.

The schemas below are the single source: `docs/oracle-schemas.md` prints them (a test keeps it in step) and
`validate` checks every response against them before it is used. `validate` implements the subset
of JSON Schema the schemas use (type, enum, const, properties, required, additionalProperties,
items, minimum), so that no response reaches the oracle unchecked and no dependency is needed.
"""

from __future__ import annotations

from typing import Any

from pausecheck.model import Action, Answer, CallTool, StartTurn, State, ToolInterrupts, ToolReturns, action_to_json
from pausecheck.model.state import find_execution, ref_name

from .macros import MACROS, Composed, macro_json

__all__ = ["PROTOCOL", "SCHEMAS", "REQUESTS", "validate", "apply_request", "payload"]

PROTOCOL = "pausecheck-oracle/1"

_ID = {"type": "string"}
_STATUS = {"type": "string"}
_TURN = {
    "type": "object",
    "required": ["session", "status", "unhandled", "messages", "attempts", "questions", "write_failures"],
    "additionalProperties": False,
    "properties": {
        "session": _ID,
        "status": {"enum": ["running", "paused", "completed", "failed"]},
        "unhandled": {"type": "integer", "minimum": 0},
        "messages": {"type": "array", "items": {"type": "array", "items": _ID}},
        "attempts": {"type": "object", "additionalProperties": {"type": "array", "items": {
            "enum": ["running", "completed", "failed", "interrupted", "cancelled"]}}},
        "questions": {"type": "array", "items": {
            "type": "object", "required": ["id", "call", "status"], "additionalProperties": False,
            "properties": {"id": _ID, "call": _ID, "status": {"enum": ["pending", "approved", "declined"]}}}},
        "write_failures": {"type": "integer", "minimum": 0},
    },
}
OBSERVATION = {
    "type": "object",
    "required": ["turns", "warnings"],
    "additionalProperties": False,
    "properties": {
        "turns": {"type": "object", "additionalProperties": _TURN},
        "warnings": {"type": "array", "items": {
            "type": "object", "required": ["execution", "artifact"], "additionalProperties": False,
            "properties": {"execution": _ID, "artifact": _ID}}},
    },
}
_ACTION = {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}}
_ARTIFACT = {
    "type": "object", "required": ["type", "payload", "tool_call_id"], "additionalProperties": False,
    "properties": {"type": {"const": "file"}, "payload": {
        "type": "object", "required": ["ref"], "properties": {"ref": _ID}}, "tool_call_id": _ID},
}
_HELD = {"type": "object", "additionalProperties": {"type": "array", "items": _ID}}

# Requests pausecheck sends (documented; pausecheck builds them, so they are not validated).
REQUESTS: dict[str, dict[str, Any]] = {
    "hello": {"type": "object", "required": ["type", "protocol"], "additionalProperties": False,
              "properties": {"type": {"const": "hello"}, "protocol": {"const": PROTOCOL}}},
    "reset": {"type": "object", "required": ["type", "bounds", "reading"], "additionalProperties": False,
              "properties": {"type": {"const": "reset"}, "bounds": {"type": "object"},
                             "reading": {"type": "string"}}},
    "apply": {"type": "object", "required": ["type", "step", "action", "payload"], "additionalProperties": False,
              "properties": {
                  "type": {"const": "apply"}, "step": {"type": "integer", "minimum": 1}, "action": _ACTION,
                  "payload": {"type": "object", "additionalProperties": False, "properties": {
                      "execution": _ID, "call": _ID, "question": _ID,
                      "artifacts": {"type": "array", "items": _ARTIFACT}}}}},
    "observe": {"type": "object", "required": ["type"], "additionalProperties": False,
                "properties": {"type": {"const": "observe"}, "held": {"type": "boolean"}}},
    "restart": {"type": "object", "required": ["type"], "additionalProperties": False,
                "properties": {"type": {"const": "restart"}}},
}

_REFUSED = {"type": "object", "required": ["ok", "error"], "additionalProperties": False,
            "properties": {"ok": {"const": False}, "error": {"type": "string"}}}
# Responses a runtime sends, by the request they answer; each may instead be a refusal.
SCHEMAS: dict[str, dict[str, Any]] = {
    "hello": {"type": "object", "required": ["ok", "protocol", "name", "actions", "readings"],
              "additionalProperties": False,
              "properties": {"ok": {"const": True}, "protocol": {"const": PROTOCOL}, "name": {"type": "string"},
                             "actions": {"type": "array", "items": {"type": "string"}},
                             "readings": {"type": "array", "items": {"type": "string"}},
                             "held": {"type": "boolean"}, "restart": {"type": "boolean"},
                             "macros": {"type": "array", "items": {"enum": sorted(MACROS)}}}},
    "reset": {"type": "object", "required": ["ok"], "additionalProperties": False,
              "properties": {"ok": {"const": True}}},
    "apply": {"type": "object", "required": ["ok"], "additionalProperties": False,
              "properties": {"ok": {"const": True}}},
    "observe": {"type": "object", "required": ["ok", "observation"], "additionalProperties": False,
                "properties": {"ok": {"const": True}, "observation": OBSERVATION, "held": _HELD}},
    "restart": {"type": "object", "required": ["ok"], "additionalProperties": False,
                "properties": {"ok": {"const": True}}},
    "refused": _REFUSED,
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> str | None:
    """The first way `value` breaks `schema`, as "PATH: what is wrong", or None if it conforms."""
    if "const" in schema and value != schema["const"]:
        return f"{path}: must be {schema['const']!r}, got {_short(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: must be one of {', '.join(map(repr, schema['enum']))}, got {_short(value)}"
    kind = schema.get("type")
    if kind == "integer":
        if type(value) is not int:
            return f"{path}: must be an integer, got {_short(value)}"
        if value < schema.get("minimum", value):
            return f"{path}: must be at least {schema['minimum']}, got {value}"
    elif kind is not None and type(value) is not _TYPES[kind]:
        return f"{path}: must be {'an' if kind[0] in 'ao' else 'a'} {kind}, got {_short(value)}"
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                return f"{path}: lacks field {key!r}"
        props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = props.get(key, extra)
            if sub is False:
                return f"{path}: unexpected field {key!r}"
            if isinstance(sub, dict):
                problem = validate(item, sub, f"{path}.{key}")
                if problem:
                    return problem
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            problem = validate(item, schema["items"], f"{path}[{i}]")
            if problem:
                return problem
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def payload(state: State, action: Action) -> dict[str, Any]:
    """What the runtime needs beside the action: the names pausecheck gives what the step creates
    (the execution, the call, the question) and the artifacts a tool returns, each carrying its ref."""
    match action:
        case StartTurn():
            return {"execution": f"e{len(state.executions) + 1}"}
        case CallTool(execution=e):
            return {"call": f"c{find_execution(state, e).calls + 1}"}
        case ToolInterrupts(execution=e):
            return {"question": f"q{len(find_execution(state, e).questions) + 1}"}
        case Answer(question=n):
            return {"question": f"q{n}"}
        case ToolReturns(call=call, artifacts=n):
            first = len(state.artifacts) + 1
            return {"artifacts": [{"type": "file", "payload": {"ref": ref_name(r)}, "tool_call_id": call}
                                  for r in range(first, first + n)]}
    return {}


def apply_request(step: int, state: State, action: Action | Composed) -> dict[str, Any]:
    """The `apply` request for `action` taken from `state` as step `step` of a sequence (a composed step:
    the macro's action, with nothing to name)."""
    if isinstance(action, Composed):
        return {"type": "apply", "step": step, "action": macro_json(action), "payload": {}}
    return {"type": "apply", "step": step, "action": action_to_json(action), "payload": payload(state, action)}

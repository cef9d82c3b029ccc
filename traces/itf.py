"""Traces as ITF JSON (the Informal Trace Format of Apalache ADR-015 and Quint).

A trace is `{"#meta": {...}, "vars": [...], "states": [...]}`. Each state is a record of the model's
variables plus its own `#meta`: its index, the action that produced it and the clauses whose rule
did so. Our values need only records (JSON objects), sequences (arrays), strings and small integers;
artifact refs are written as their wire names ("a1"). Files are written with sorted keys and a
trailing newline, so the same discovery gives the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pausecheck.model import MODEL_VERSION, Action, State, action_to_json
from pausecheck.model.rules import RULE_OF, clauses_of
from pausecheck.model.state import ref_name

from .explain import explain
from .input_file import InputError, parse_json, printable, short
from .input_file import read_limited as read_limited_input

__all__ = ["VARS", "encode_state", "decode_state", "trace_document", "dumps", "write_trace", "load_trace", "TraceError"]

VARS = ["artifacts", "executions", "segments", "warnings", "write_failures", "crashes", "crashed", "new_turns", "races"]
FORMAT_URL = "https://apalache-mc.org/docs/adr/015adr-trace.html"


TraceError = InputError  # a trace file that cannot be used: names the file and the JSON path of the problem


def _refs(refs: tuple[int, ...]) -> list[str]:
    return [ref_name(r) for r in refs]


def encode_state(state: State) -> dict[str, Any]:
    """The ITF record of one state: every variable in VARS."""
    return {
        "artifacts": [
            {"ref": ref_name(i), "execution": a.execution, "call": a.call}
            for i, a in enumerate(state.artifacts, 1)
        ],
        "executions": [
            {
                "id": e.id,
                "session": f"s{e.session}",
                "status": e.status,
                "calls": e.calls,
                "attempts": [{"call": a.call, "status": a.status} for a in e.attempts],
                "questions": [
                    {"id": f"q{q.id}", "call": q.call, "status": q.status, "observations": q.observations}
                    for q in e.questions
                ],
                "held": _refs(e.held),
                "messages": [_refs(m) for m in e.messages],
                "unhandled": e.unhandled,
                "write_failures": e.write_failures,
                "node_failures": ["routed" if routed else "unrouted" for routed in e.node_failures],
            }
            for e in state.executions
        ],
        "segments": [
            {"execution": s.execution, "calls": s.calls, "collected": _refs(s.collected),
             "write_failed": s.write_failed, "phase": s.phase, "taken": _refs(s.taken), "final": s.final,
             "closing": s.closing}
            for s in state.segments
        ],
        "warnings": [{"execution": w.execution, "artifact": ref_name(w.ref)} for w in state.warnings],
        "write_failures": state.write_failures,
        "crashes": state.crashes,
        "crashed": _refs(state.crashed),
        "new_turns": [f"s{session}" for session in state.new_turns],
        "races": state.races,
    }


def _number(text: str) -> int:
    return int(text[1:])


def decode_state(record: dict[str, Any]) -> State:
    """The state an ITF record stands for (the inverse of `encode_state`; a malformed record raises
    KeyError, ValueError or TypeError, for the caller to name)."""
    from pausecheck.model.state import Artifact, Attempt, Execution, Question, Segment, Warning
    refs = lambda names: tuple(_number(n) for n in names)  # noqa: E731
    return State(
        executions=tuple(Execution(
            e["id"], _number(e["session"]), e["status"], e["calls"],
            tuple(Attempt(a["call"], a["status"]) for a in e["attempts"]),
            tuple(Question(q["call"], q["status"], q["observations"], _number(q["id"])) for q in e["questions"]),
            refs(e["held"]), tuple(refs(m) for m in e["messages"]), e["unhandled"], e["write_failures"],
            tuple(n == "routed" for n in e["node_failures"])) for e in record["executions"]),
        segments=tuple(Segment(g["execution"], g["calls"], refs(g["collected"]), g["write_failed"], g["phase"],
                               refs(g["taken"]), g["final"], g["closing"]) for g in record["segments"]),
        warnings=tuple(Warning(w["execution"], _number(w["artifact"])) for w in record["warnings"]),
        artifacts=tuple(Artifact(a["execution"], a["call"]) for a in record["artifacts"]),
        write_failures=record["write_failures"], crashes=record["crashes"], crashed=refs(record["crashed"]),
        new_turns=tuple(_number(n) for n in record["new_turns"]), races=record["races"])


def trace_document(
    states: tuple[State, ...], actions: tuple[Action, ...], meta: dict[str, Any],
    deviating: frozenset[int] = frozenset(), rules: tuple[Any, ...] | None = None,
) -> dict[str, Any]:
    """An ITF document for a path; `meta` is merged over the format fields of `#meta`.

    `deviating` holds the indices of states that a mutant produced differently from the rules; their
    `#meta` says so, since the clauses they cite are those of the rule the mutant deviates from.
    """
    encoded = []
    for i, state in enumerate(states):
        step_meta: dict[str, Any] = {"index": i}
        if i > 0:
            action = actions[i - 1]
            cites = list(clauses_of(states[i - 1], action, state, *([rules] if rules is not None else [])))
            step_meta.update(action=action_to_json(action), text=str(action), clauses=cites)
            if i in deviating:
                step_meta["deviates"] = True
            if type(action) not in RULE_OF:  # a step of an action a draft declares
                step_meta["declared"] = True
        encoded.append({"#meta": step_meta, **encode_state(state)})
    header = {"format": "ITF", "format-description": FORMAT_URL, "source": "pausecheck", "model": MODEL_VERSION}
    if meta.get("message"):
        meta = {**meta, "explanation": explain(meta["message"], encoded)}
    return {"#meta": {**header, **meta}, "vars": list(VARS), "states": encoded}


def dumps(document: dict[str, Any]) -> str:
    """The canonical text of a document: sorted keys, two-space indent, trailing newline."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_trace(path: Path, document: dict[str, Any]) -> None:
    """Write a document canonically (creating the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(document), encoding="utf-8")


# The `#meta` fields pausecheck reads, with the JSON types each may have (None: absent or null).
META_TYPES: dict[str, tuple[type, ...]] = {
    "model": (str,), "property": (str, type(None)), "kind": (str, type(None)), "verdict": (str, type(None)),
    "reading": (str,), "mutant": (str, type(None)), "mutant_description": (str, type(None)),
    "message": (str, type(None)), "explanation": (str, type(None)), "description": (str, type(None)),
    "command": (str, type(None)), "clauses": (list,), "bounds": (dict,), "steps": (int,),
    "loop": (int, type(None)), "loop_action": (str, type(None)), "runtime": (dict, type(None)),
    "draft": (dict, type(None)), "fairness": (list, type(None)),
}
STEP_META_TYPES: dict[str, tuple[type, ...]] = {
    "action": (dict,), "clauses": (list,), "text": (str,), "index": (int,), "deviates": (bool,),
}


def read_limited(path: str | Path, name: str) -> str:
    """The file's text, within the limits of `input_file.py` (size, time, UTF-8)."""
    return read_limited_input(path, name, what="a trace pausecheck wrote")


def _check_types(name: str, record: dict[str, Any], types: dict[str, tuple[type, ...]], path: str) -> None:
    for key, allowed in types.items():
        value = record.get(key)
        if key in record and not (isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)):
            kinds = " or ".join("null" if t is type(None) else {"str": "a string", "int": "a whole number",
                                "list": "a list", "dict": "an object", "bool": "true or false"}[t.__name__]
                                for t in allowed)
            raise TraceError(name, f"{path}.{key}", f"must be {kinds}, got {short(value)}")
        if key == "clauses" and key in record and not all(isinstance(c, str) for c in value):
            raise TraceError(name, f"{path}.clauses", "must be a list of clause ids (strings)")


def _lines_of_json(text: str) -> bool:
    """Whether `text` is JSON lines (two or more lines, each a JSON object): a log, not one trace."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return all(isinstance(json.loads(line), dict) for line in lines[:3])
    except ValueError:
        return False


def load_trace(path: str | Path, complete: bool = True) -> dict[str, Any]:
    """Read and shape-check an ITF trace; every problem is a TraceError naming file and JSON path.

    The file is read with limits (size, time, nesting, text encoding) and every `#meta` field
    pausecheck reads is type-checked, so that no input reaches the model or a printer unchecked.
    With `complete=False` (a behaviour written by hand or logged elsewhere) the states need carry
    only their `#meta.action`; the variables are not required.
    """
    name = str(path)
    text = read_limited(path, name)
    if not text.strip():
        raise TraceError(name, "", "empty: no trace in it")
    try:
        document = parse_json(text, name)
    except InputError as error:
        if not _lines_of_json(text):
            raise
        raise TraceError(name, error.path, f"{error.problem}: one JSON object a line is a runtime's log, not a "
                         f"trace; check a log with `pausecheck validate {printable(name)}`") from None
    if not isinstance(document, dict):
        raise TraceError(name, "$", "a trace must be a JSON object")
    meta = document.get("#meta")
    if not isinstance(meta, dict):
        raise TraceError(name, '$["#meta"]', "missing or not an object")
    if meta.get("model") != MODEL_VERSION:
        raise TraceError(name, '$["#meta"].model', f"is {short(meta.get('model'))}; this pausecheck reads "
                         f"{MODEL_VERSION!r}")
    _check_types(name, meta, META_TYPES, '$["#meta"]')
    if complete and document.get("vars") != VARS:
        raise TraceError(name, "$.vars", f"must be {VARS}")
    states = document.get("states")
    if not isinstance(states, list) or not states:
        raise TraceError(name, "$.states", "missing or empty")
    for i, state in enumerate(states):
        if not isinstance(state, dict):
            raise TraceError(name, f"$.states[{i}]", "not an object")
        for var in VARS if complete else ():
            if var not in state:
                raise TraceError(name, f"$.states[{i}].{var}", "missing")
        if i > 0 and not isinstance(state.get("#meta"), dict):
            raise TraceError(name, f'$.states[{i}]["#meta"]', "missing: each step records its action")
        if i == 0 and not isinstance(state.get("#meta", {}), dict):  # the initial state's is optional
            raise TraceError(name, '$.states[0]["#meta"]', "not an object")
        if "#meta" in state:
            _check_types(name, state["#meta"], STEP_META_TYPES, f'$.states[{i}]["#meta"]')
    return document

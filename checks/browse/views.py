"""What the explorer page shows for a path of actions from the initial state: the state reached, the
fields the last step changed, the enabled actions with their clauses, the properties that hold, break
or are witnessed here, the path as steps and as a sequence diagram, and the path as an ITF trace.

Pure functions over the model: the HTTP layer (`server.py`) only decodes requests and encodes these.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from pausecheck.model import ActionError, Machine, action_from_json, action_to_json
from pausecheck.model.liveness import LIVENESS
from pausecheck.model.properties import SOMETIMES
from pausecheck.model.rules import clauses_of
from pausecheck.traces.itf import TraceError, dumps, encode_state, load_trace, trace_document
from pausecheck.traces.render import changes, flat_view
from pausecheck.traces.replay import decode_actions

from ..mutants.evidence import machine_for
from ..report.sequence import sequence_svg

__all__ = ["ViewError", "view", "itf_of", "load_document", "machine_json", "encode", "MAX_STEPS"]

MAX_STEPS = 10_000  # a path longer than this is refused: no bounded behaviour of ours comes near it


class ViewError(Exception):
    """A request the explorer cannot answer (an action that is not enabled, a bad trace): one line."""


def machine_json(machine: Machine, mutant: str | None = None) -> dict[str, Any]:
    """The machine the page walks: its bounds, reading and mutant."""
    return {"bounds": machine.bounds.as_dict(), "reading": machine.reading.name, "mutant": mutant}


def _walk(machine: Machine, actions: Any) -> tuple[list[Any], list[Any]]:
    """The states and actions of a path given as action JSON; a ViewError names the first bad step."""
    if not isinstance(actions, list) or len(actions) > MAX_STEPS:
        raise ViewError(f"actions: a list of at most {MAX_STEPS:,} actions")
    states, decoded = [machine.init_states()[0]], []
    for i, raw in enumerate(actions, 1):
        try:
            action = action_from_json(raw)
        except ActionError as error:
            raise ViewError(f"step {i}: {error}") from None
        post = machine.step(states[-1], action)
        if post is None:
            raise ViewError(f"step {i}: {action} is not enabled here")
        states.append(post)
        decoded.append(action)
    return states, decoded


def _properties(machine: Machine, states: list[Any], actions: list[Any]) -> list[dict[str, Any]]:
    """Each property judged here: on the last step (or the initial state); liveness is judged on the
    whole graph by `pausecheck check`, not at one state."""
    pre, action = (states[-2], actions[-1]) if actions else (None, None)
    out = []
    for p in machine.properties:
        shown, message = machine.judge(p.name, pre, action, states[-1])
        if p.kind == SOMETIMES:
            status = "witnessed here" if shown else "not here"
        else:
            status = "BROKEN here" if shown else "holds here"
        out.append({"name": p.name, "kind": p.kind, "clauses": list(p.clauses), "status": status,
                    "message": message, "doc": p.doc})
    for p in LIVENESS:
        out.append({"name": p.name, "kind": p.kind, "clauses": list(p.clauses), "status": "judged on the whole graph",
                    "message": None, "doc": p.doc})
    return out


def _document(machine: Machine, states: list[Any], actions: list[Any], mutant: str | None) -> dict[str, Any]:
    meta = {"property": "explored path", "kind": "path", "verdict": "path", "bounds": machine.bounds.as_dict(),
            "reading": machine.reading.name, "mutant": mutant, "steps": len(actions),
            "command": "pausecheck explore"}
    return trace_document(tuple(states), tuple(actions), meta, rules=machine.rules)


def view(machine: Machine, actions: Any, mutant: str | None = None) -> dict[str, Any]:
    """Everything the page shows after taking `actions` (action JSON) from the initial state."""
    states, decoded = _walk(machine, actions)
    document = _document(machine, states, decoded, mutant)
    now = flat_view(document["states"][-1])
    before = flat_view(document["states"][-2]) if decoded else {}
    enabled = [{"action": action_to_json(a), "text": str(a),
                "clauses": list(clauses_of(states[-1], a, post, machine.rules)),
                "changes_nothing": post == states[-1]} for a, post in machine.successors(states[-1])]
    return {
        "machine": machine_json(machine, mutant),
        "steps": [{"index": i, "text": s["#meta"]["text"], "clauses": s["#meta"]["clauses"]}
                  for i, s in enumerate(document["states"][1:], 1)],
        "changed": changes(before, now) if decoded else [],
        "fields": [f"{key}: {value}" for key, value in now.items()],
        "state": encode_state(states[-1]),
        "enabled": enabled,
        "final": machine.is_final(states[-1]),
        "properties": _properties(machine, states, decoded),
        "diagram": sequence_svg(document) if decoded else "",
    }


def itf_of(machine: Machine, actions: Any, mutant: str | None = None) -> str:
    """The path as an ITF trace, canonical text (it replays with `pausecheck replay`)."""
    states, decoded = _walk(machine, actions)
    return dumps(_document(machine, states, decoded, mutant))


def load_document(text: str) -> tuple[Machine, str | None, list[dict[str, Any]]]:
    """A trace sent by the page: the machine it was made on and its actions, every field checked as
    `pausecheck replay` checks a file (`load_trace`), every action checked enabled."""
    handle, path = tempfile.mkstemp(prefix="pausecheck-explore-", suffix=".itf.json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        document = load_trace(path, complete=False)
        meta = document["#meta"]
        machine = machine_for(meta, "the trace")
        actions = [action_to_json(a) for a in decode_actions(document, "the trace")]
    except TraceError as error:
        raise ViewError(str(error).replace(path, "the trace")) from None
    finally:
        os.unlink(path)
    _walk(machine, actions)
    return machine, meta.get("mutant"), actions


def encode(value: Any) -> bytes:
    """A JSON answer, deterministic (sorted keys)."""
    return json.dumps(value, sort_keys=True).encode("utf-8")

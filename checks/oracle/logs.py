"""Validating a log a runtime wrote itself: its actions and what it showed after them, against the model.

A log is JSON lines in the protocol's own shapes (docs/oracle.md): an optional first `reset` line
(bounds and reading; default: the default bounds, conformant), then `apply` lines (`action` and
`payload`, as pausecheck would send them; `step` optional) and `observe` lines whose `observation`
(and optional `held`) is what the runtime showed at that point. The model re-executes the actions:
an action it does not enable, a payload that names things differently, or an observation that
differs (strict) or breaks a black-box property (properties) is the first divergence.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pausecheck.model import (
    BOUND_FIELDS,
    BOUND_HELP,
    ActionError,
    BoundError,
    Bounds,
    Machine,
    ReadingError,
    action_from_json,
    action_to_json,
    observe,
    reading_named,
    white_box,
)
from pausecheck.traces.input_file import InputError, read_json_lines
from pausecheck.traces.replay import first_difference

from .blackbox import BLACK_BOX, History
from .conform import STRICT, ConformResult, Divergence, divergence_at, naming
from .cover import Sequence
from .culprit import culprit
from .exercised import Tally
from .protocol import OBSERVATION, payload, validate

__all__ = ["LogError", "read_log", "validate_log"]

_HELD = {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}


class LogError(Exception):
    """A malformed log: the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Entry:
    line: int
    type: str
    data: dict[str, Any]


def read_log(path: Path) -> tuple[Machine, list[Entry]]:
    """The machine the log names and its entries, every line checked for shape."""
    try:
        lines = read_json_lines(path, what="a runtime's log")
    except InputError as error:
        raise LogError(str(error)) from None
    machine, entries = Machine(), []
    for number, data in lines:
        where = f"{path}:{number}"
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "reset":
            if entries:
                raise LogError(f"{where}: a reset may only be the first line")
            machine = _machine(data, where)
        elif kind == "apply":
            try:
                data = {**data, "action": action_from_json(data.get("action"))}
            except ActionError as error:
                field = f" action.{error.field}:" if error.field else ""
                raise LogError(f"{where}:{field} {error}") from None
            if not isinstance(data.get("payload", {}), dict):
                raise LogError(f"{where}: payload must be an object")
        elif kind == "observe":
            problem = validate(data.get("observation"), OBSERVATION, "observation") or (
                validate(data["held"], _HELD, "held") if "held" in data else None)
            if problem:
                raise LogError(f"{where}: {problem}")
        else:
            raise LogError(f"{where}: type must be reset, apply or observe, got {kind!r}")
        entries.append(Entry(number, kind, data))
    return machine, [e for e in entries if e.type != "reset"]


def _machine(data: dict[str, Any], where: str) -> Machine:
    bounds, reading = data.get("bounds", {}), data.get("reading", "conformant")
    if not isinstance(bounds, dict) or set(bounds) - set(BOUND_FIELDS):
        raise LogError(f"{where}: bounds must be an object of bound names ({', '.join(BOUND_HELP)})")
    try:
        chosen = reading_named(reading)
    except ReadingError as error:
        raise LogError(f"{where}: reading: {str(error)[:200]}") from None
    try:
        return Machine(Bounds(**bounds), chosen)
    except BoundError as error:
        raise LogError(f"{where}: bounds.{error.field}: {error}") from None


def validate_log(path: Path, mode: str = STRICT) -> tuple[Machine, ConformResult]:
    """Re-execute the log on the model; the result has at most one divergence and no coverage.

    A log with no `apply` line (empty, or only a reset or observations) is not complete: nothing
    the runtime did was judged."""
    started = time.perf_counter()
    machine, entries = read_log(path)
    state = machine.init_states()[0]
    steps: list[tuple[Any, Any, Any]] = []
    applied: list[dict[str, Any]] = []
    before = observe(state)
    divergence = None
    for entry in entries:
        if entry.type == "apply":
            action, named = entry.data["action"], entry.data.get("payload", {})
            post = machine.step(state, action)
            if post is None:
                divergence = _at(steps, "refused", f"line {entry.line}: the model does not enable {action} here")
                break
            expected = payload(state, action)
            if named != expected:
                steps.append((state, action, post))
                divergence = _at(steps, "payload", f"line {entry.line}: the payload is {named}; the model names "
                                 f"{expected}", expected=expected, actual=named)
                break
            steps.append((state, action, post))
            applied.append({"type": "apply", "action": action_to_json(action), "payload": named})
            state = post
            continue
        shown, held = entry.data["observation"], entry.data.get("held")
        history = History(tuple(applied), before, shown, held)
        if mode == STRICT:
            found = first_difference(observe(state), shown, "observation") or (
                first_difference(white_box(state), held, "held") if held is not None else None)
            if found:
                where, want, got = found
                broke = culprit(steps[-1] if steps else None, history, where.lstrip("."))
                divergence = _at(steps, "observation", f"line {entry.line}: after step {len(steps)}, "
                                 f"{where.lstrip('.')} is {got!r}; the model has {want!r}{naming(broke, history)}",
                                 clauses=broke.clauses, expected=observe(state), actual=shown,
                                 prop=broke.property, field=where.lstrip("."), also=tuple(n for n, _ in broke.also))
                break
        else:
            broken = next(((p, m) for p in BLACK_BOX if (m := p.check(history))), None)
            if broken:
                prop, message = broken
                divergence = _at(steps, "property", f"line {entry.line}: {prop.name} ({prop.doc}): {message}",
                                 clauses=culprit(steps[-1] if steps else None, history, None).clauses, actual=shown,
                                 prop=prop.name)
                break
        before = shown
    judged = sum(1 for e in entries if e.type == "observe")
    # A log without a step judges no action: agreeing with it is no evidence, so it is not complete
    # (exit 3), as a search that reached nothing would not be a pass.
    complete = divergence is None and bool(steps)
    tally = Tally(machine)
    tally.add(steps)
    result = ConformResult(str(path), mode, 1, len(steps), judged, 0, complete, time.perf_counter() - started,
                           divergence, clause_edges=tuple(sorted(tally.clauses.items())),
                           witnessed=tuple(sorted(tally.witnessed)))
    return machine, result


def _at(steps: list[tuple[Any, Any, Any]], kind: str, message: str, **details: Any) -> Divergence:
    return divergence_at(Sequence(tuple(steps), 0), len(steps), kind, message, **details)

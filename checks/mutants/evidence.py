"""Evidence files: discoveries written as ITF traces, and the machine a trace file was made on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pausecheck.model import BOUND_FIELDS, BoundError, Bounds, Machine, ReadingError, reading_named
from pausecheck.model.liveness import EVENTUALLY, FAIR, fairness_named
from pausecheck.model.machine import DEADLOCK, DEADLOCK_DOC
from pausecheck.model.rules import RULES
from pausecheck.traces.itf import TraceError, load_trace, trace_document, write_trace
from pausecheck.traces.replay import Replay, replay

from ..drafts import DraftError, base_of, draft_of, load_draft
from ..flags import fairness_flag
from ..search.explore import Discovery
from ..search.liveness import LivenessVerdict
from ..verdict import Report
from . import mutant_named, mutate

__all__ = ["Evidence", "evidence_of", "command_line", "document_for", "trace_of", "write_discovery", "machine_for",
           "trace_name", "replay_file", "lasso_document"]


def command_line(bounds: Bounds, reading: str, extra: str = "", command: str = "pausecheck check",
                 rules: Any = None, fairness: tuple[str, ...] = FAIR) -> str:
    """The shortest `pausecheck check` command (or `command`) that reproduces a search: non-default flags only
    (`--draft FILE` where `rules` is a draft's table, or derived from one)."""
    parts = [command]
    draft = None if rules is None else draft_of(rules)
    if draft is not None:
        parts.append(f"--draft {draft.path}")
    parts += [bounds.flags(), "" if reading == "conformant" else f"--reading {reading}", fairness_flag(fairness), extra]
    return " ".join(part for part in parts if part)


def trace_name(verdict: str, name: str) -> str:
    """The file name of a discovery: violation-no_loss.itf.json, witness-approve.itf.json, ..."""
    return f"{verdict}-{name}.itf.json"


def document_for(
    machine: Machine, discovery: Discovery, *, name: str, kind: str, clauses: tuple[str, ...],
    verdict: str, description: str, command: str, mutant: str | None = None,
) -> dict[str, Any]:
    """The ITF document of one discovery, with everything needed to replay and explain it."""
    meta = {
        "property": name,
        "kind": kind,
        "clauses": list(clauses),
        "verdict": verdict,
        "message": discovery.message,
        "description": description,
        "bounds": machine.bounds.as_dict(),
        "reading": machine.reading.name,
        "mutant": mutant,
        "mutant_description": None if mutant is None else mutant_named(mutant).doc,
        "command": command,
        "steps": len(discovery.actions),
    }
    draft = draft_of(machine.rules)
    if draft is not None:  # only under a draft, so that traces of the rules stay as they were
        meta["draft"] = draft.meta()
    # A mutant's steps that its base would take otherwise; a draft's, the first the rules would take otherwise.
    rules = Machine(machine.bounds, machine.reading, base_of(draft) if mutant is not None else RULES)
    deviating = frozenset(
        i for i, (pre, action, post) in enumerate(zip(discovery.states, discovery.actions, discovery.states[1:],
                                                      strict=False), 1)
        if rules.step(pre, action) != post
    ) if mutant is not None or draft is not None else frozenset()
    if mutant is None and deviating:
        deviating = frozenset({min(deviating)})
    return trace_document(discovery.states, discovery.actions, meta, deviating, machine.rules)


def trace_of(machine: Machine, discovery: Discovery, *, name: str, command: str = "") -> dict[str, Any]:
    """The ITF document of a discovery of `machine` for the property (or "deadlock") called `name`."""
    if name == DEADLOCK:
        return document_for(machine, discovery, name=name, kind=DEADLOCK, clauses=(), verdict=DEADLOCK,
                            description=DEADLOCK_DOC, command=command)
    prop = next((p for p in machine.properties if p.name == name), None)
    if prop is None:
        raise KeyError(name)
    verdict = "witness" if discovery.message is None else "violation"
    return document_for(machine, discovery, name=name, kind=prop.kind, clauses=prop.clauses, verdict=verdict,
                        description=prop.doc, command=command)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One discovery of a check, as an ITF document, with the command that reproduces it."""

    name: str
    document: dict[str, Any]
    command: str
    counterexample: bool  # a violation or a deadlock, as opposed to a witness


def evidence_of(report: Report) -> list[Evidence]:
    """Every counterexample and witness of a report (and its first deadlock), each built once."""
    origins = {None: (report.machine, command_line(report.machine.bounds, report.reading,
                                                   rules=report.machine.rules, fairness=report.machine.fairness))}
    for c in report.companions:
        origins[c.name] = (c.machine, command_line(c.machine.bounds, report.reading, rules=c.machine.rules))
    out = []
    for verdict in report.properties:
        if verdict.discovery is None:
            continue
        machine, command = origins[verdict.companion]
        violated = verdict.status == "VIOLATED"
        if violated and verdict.kind == EVENTUALLY and report.liveness is not None:
            document = lasso_document(machine, report.liveness.verdict(verdict.name), command)
            out.append(Evidence(verdict.name, document, command, True))
            continue
        document = document_for(machine, verdict.discovery, name=verdict.name, kind=verdict.kind,
                                clauses=verdict.clauses, verdict="violation" if violated else "witness",
                                description=verdict.doc, command=command)
        out.append(Evidence(verdict.name, document, command, violated))
    if report.result.deadlock is not None:
        machine, command = origins[None]
        document = trace_of(machine, report.result.deadlock, name=DEADLOCK, command=command)
        out.append(Evidence(DEADLOCK, document, command, True))
    return out


def write_discovery(folder: Path, document: dict[str, Any]) -> Path:
    """Write a discovery's document under `folder`; returns the path."""
    meta = document["#meta"]
    path = folder / trace_name(meta["verdict"], meta["property"])
    write_trace(path, document)
    return path


def machine_for(meta: dict[str, Any], file: str) -> Machine:
    """The machine a trace was made on: its bounds, reading, draft and mutant, each checked (a draft that
    changed since is refused)."""
    bounds = meta.get("bounds")
    if not isinstance(bounds, dict):
        raise TraceError(file, '$["#meta"].bounds', "missing or not an object")
    unknown = sorted(set(bounds) - set(BOUND_FIELDS))
    if unknown:
        raise TraceError(file, f'$["#meta"].bounds.{unknown[0]}', "is not a bound of this model")
    try:
        checked = Bounds(**bounds)
    except BoundError as error:
        raise TraceError(file, f'$["#meta"].bounds.{error.field}', str(error)) from None
    try:
        reading = reading_named(meta.get("reading"))  # type: ignore[arg-type]
    except ReadingError as error:
        raise TraceError(file, '$["#meta"].reading', str(error)) from None
    fairness = meta.get("fairness")
    if fairness is not None:  # a lasso's: the assumptions under which its loop is a behaviour
        try:
            fairness_named(fairness)
        except (ValueError, TypeError) as error:
            raise TraceError(file, '$["#meta"].fairness', str(error)) from None
    machine = Machine(checked, reading, base_of(_draft_for(meta, file)),
                      fairness=FAIR if fairness is None else tuple(fairness))
    name = meta.get("mutant")
    if name is not None:
        try:
            machine = mutate(machine, mutant_named(name))
        except KeyError:
            raise TraceError(file, '$["#meta"].mutant', f"unknown mutant {name!r}") from None
    return machine


def _draft_for(meta: dict[str, Any], file: str) -> Any:
    """The draft a trace names in `#meta.draft` (path and sha256), loaded; None for the rules. A relative path
    is read from the current folder, else beside the trace."""
    named = meta.get("draft")
    if named is None:
        return None
    if not isinstance(named, dict) or not isinstance(named.get("path"), str) \
            or not isinstance(named.get("sha256"), str):
        raise TraceError(file, '$["#meta"].draft', "is not an object with a path and a sha256")
    path = Path(named["path"])
    if not path.is_absolute() and not path.exists() and (Path(file).parent / path).exists():
        path = Path(file).parent / path
    try:
        return load_draft(path, named["sha256"])
    except DraftError as error:
        raise TraceError(file, '$["#meta"].draft', str(error)) from None


def replay_file(path: str | Path) -> Replay:
    """Load an ITF trace written by pausecheck and replay it on the machine its `#meta` names."""
    document = load_trace(path)
    return replay(document, machine_for(document["#meta"], str(path)), str(path))


def lasso_document(machine: Any, verdict: LivenessVerdict, command: str | None = None,
                   mutant: str | None = None) -> dict[str, Any]:
    """The ITF document of a violated verdict's lasso, with the top-level `loop` of Apalache ADR-015.

    The states are the lasso's; a closing step (back to `loop`) is recorded as `#meta.loop_action`.
    `mutant` names the catalogued mutant `machine` is, if any, so the file replays on it.
    """
    lasso = verdict.lasso
    if lasso is None:
        raise ValueError(f"{verdict.name} holds: there is no lasso to write")
    steps = len(lasso.states) - 1
    if command is None:
        bounds = ", ".join(f"{k}={v}" for k, v in machine.bounds.as_dict().items())
        command = ("python -c 'from pausecheck.checks.search.liveness import check_liveness; "
                   f"from pausecheck.model import "
                   f"Bounds, Machine, reading_named; print(check_liveness(Machine(Bounds({bounds}), "
                   f"reading_named(\"{machine.reading.name}\"))))'")
    discovery = Discovery(lasso.states, lasso.actions[:steps], verdict.message)
    document = document_for(machine, discovery, name=verdict.name, kind="eventually", clauses=verdict.clauses,
                            verdict="violation", description=verdict.doc, command=command, mutant=mutant)
    document["loop"] = lasso.loop_start
    document["#meta"]["loop"] = lasso.loop_start
    closing = lasso.actions[steps] if len(lasso.actions) > steps else None
    document["#meta"]["loop_action"] = None if closing is None else str(closing)
    if machine.bounds.endless_writes or tuple(machine.fairness) != FAIR:  # where the loop's fairness matters
        document["#meta"]["fairness"] = list(machine.fairness)
    return document

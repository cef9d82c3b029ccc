"""From a search result to verdicts: per property, per clause, and overall (with the exit code)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import (
    CLAUSES,
    COMPANIONS,
    DEFAULT_BOUNDS,
    Bounds,
    Machine,
    missing_bound,
    reading_named,
)
from pausecheck.model import clauses as catalogue
from pausecheck.model.blame import blamed
from pausecheck.model.config import without_faults
from pausecheck.model.lang import Rule
from pausecheck.model.liveness import EVENTUALLY, FAIR
from pausecheck.model.properties import ALWAYS, SOMETIMES, TRANSITION
from pausecheck.model.rules import RULES

from ..search.budget import LimitReached
from ..search.checkpoint import Checkpoint
from ..search.explore import NO_LIMITS, Discovery, Limits, Progress, Result, explore
from ..search.liveness import LivenessGraphTooLarge, LivenessResult, check_liveness
from ..search.spread import spread

__all__ = ["INVOLVED", "PropertyVerdict", "ClauseVerdict", "Companion", "Report", "build_report", "check",
           "companion_machine", "with_companion", "with_liveness", "strength_note", "LIVENESS_LIMIT", "VIOLATION_EXIT",
           "UNESTABLISHED_EXIT"]

LIVENESS_LIMIT = 2_000_000  # states: the liveness graph is held whole in memory

HOLDS, VIOLATED, VACUOUS, UNEXERCISED, WITNESSED, MISSING, EXCUSED, BY_CONSTRUCTION = (
    "holds", "VIOLATED", "VACUOUS", "not exercised", "witnessed", "MISSING", "excused", "by construction",
)
# A clause of a violated property that the failing part of its formula does not name (`model/blame.py`):
# not shown broken, not established either.
INVOLVED = "involved"
# An incomplete search establishes nothing but the violations and witnesses it found.
UNREFUTED, UNFOUND = "no violation found (incomplete)", "not found (incomplete)"
PARTLY = "holds in part"  # a clause some of whose properties hold and the others are not exercised
FAILURES = (VIOLATED, VACUOUS, MISSING, UNREFUTED, UNFOUND)
VIOLATION_EXIT, UNESTABLISHED_EXIT = 1, 3  # a counterexample exists; nothing violated, not everything established


@dataclass(frozen=True, slots=True)
class PropertyVerdict:
    """One property's verdict; `discovery` is its counterexample or witness, if any."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    status: str  # holds, VIOLATED, VACUOUS, not exercised, no violation found (incomplete); witnessed,
    # MISSING, not exercised, not found (incomplete)
    holds: bool
    witnessed: bool
    message: str | None
    discovery: Discovery | None
    situation: str | None
    doc: str
    needs: str | None = None
    companion: str | None = None  # the companion search that established it (None: the main one)
    # violated: the clauses its counterexample breaks (the failing part of its formula, `model/blame.py`);
    # its other clauses are only involved
    blamed: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """Not established: violated, vacuous, missing, or left open by an incomplete search."""
        return self.status in FAILURES


@dataclass(frozen=True, slots=True)
class ClauseVerdict:
    """One clause: the properties formalising it and their joint verdict, its strength in the model
    (full, partial, by-construction, excused: model/clauses.py) and the note explaining a weaker one."""

    id: str
    rule: str
    text: str  # the quoted fragment of the rule (model/clauses.py)
    properties: tuple[str, ...]
    witnesses: tuple[str, ...]
    status: str
    excused: str | None  # why no property formalises it (the note of an excused or by-construction clause)
    strength: str = "full"
    note: str = ""


@dataclass(frozen=True, slots=True)
class Companion:
    """A companion search: named bounds that exercise what the main bounds cannot, for some properties."""

    name: str
    machine: Machine
    result: Result

    @property
    def judged(self) -> tuple[str, ...]:
        """The properties it judged (its machine's)."""
        return tuple(p.name for p in self.machine.properties)


@dataclass(frozen=True, slots=True)
class Report:
    """Everything `pausecheck check` prints."""

    result: Result
    properties: tuple[PropertyVerdict, ...]
    clauses: tuple[ClauseVerdict, ...]
    machine: Machine
    companions: tuple[Companion, ...] = ()  # the companion searches that ran, in order
    accept_unexercised: bool = False  # the user accepts properties these bounds cannot exercise
    liveness: LivenessResult | None = None  # the liveness verdicts (also among `properties`), if judged
    liveness_skipped: str | None = None  # why liveness was not judged ("" when the user turned it off)

    @property
    def unexercised(self) -> tuple[PropertyVerdict, ...]:
        """The properties these bounds cannot exercise (each says which bound would)."""
        return tuple(p for p in self.properties if p.status == UNEXERCISED)

    @property
    def bounds(self) -> dict[str, int]:
        return self.machine.bounds.as_dict()

    @property
    def reading(self) -> str:
        return self.machine.reading.name

    @property
    def exit_code(self) -> int:
        """0: complete and every property established at these bounds (or, with `accept_unexercised`,
        every property the bounds can exercise); 1: a property violated or a deadlock (a counterexample
        exists); 3: nothing violated but not everything established: a vacuous property, a missing
        witness or clause coverage, an incomplete search (a limit, an interruption), liveness left
        unjudged for a reason other than the user's choice, or an unexercised property not accepted."""
        violated = (any(p.status == VIOLATED for p in self.properties) or self.result.deadlocks > 0
                    or any(c.result.deadlocks for c in self.companions))
        if violated:
            return VIOLATION_EXIT
        ok = (
            self.result.complete
            and not self.liveness_skipped
            and all(c.result.complete for c in self.companions)
            and not any(p.failed for p in self.properties)
            and not any(c.status in FAILURES for c in self.clauses)
            and (self.accept_unexercised or not self.unexercised)
        )
        return 0 if ok else UNESTABLISHED_EXIT


def _verdict(machine: Machine, result: Result, prop: Any) -> PropertyVerdict:
    needs = missing_bound(prop, machine.bounds, machine.properties)
    if prop.kind == SOMETIMES:
        found = result.witnesses.get(prop.name)
        status = WITNESSED if found else UNEXERCISED if needs else MISSING if result.complete else UNFOUND
        return PropertyVerdict(prop.name, prop.kind, prop.clauses, status, found is not None, found is not None,
                               None, found, None, prop.doc, needs)
    violation = result.violations.get(prop.name)
    witnessed = prop.situation is None or prop.situation in result.witnesses
    if violation is not None:
        status = VIOLATED
    elif needs:
        status = UNEXERCISED
    elif not result.complete:
        status = UNREFUTED
    else:
        status = HOLDS if witnessed else VACUOUS
    blame = () if violation is None else blamed(prop.name, prop.clauses, machine.bounds, violation.states,
                                                violation.actions)
    return PropertyVerdict(prop.name, prop.kind, prop.clauses, status, violation is None, witnessed,
                           violation.message if violation else None, violation, prop.situation, prop.doc, needs,
                           blamed=blame)


def _clause_status(clause: str, props: list[PropertyVerdict]) -> str:
    """The worst of its properties' verdicts, where a violated property breaks it only if its counterexample
    breaks the part of the formula that names it (else the clause is involved); not exercised only if none
    of them is."""
    if not props:
        return MISSING
    if any(p.status == VIOLATED and clause in p.blamed for p in props):
        return VIOLATED
    if any(p.status == VIOLATED for p in props):
        return INVOLVED
    for status in (VACUOUS, UNREFUTED):
        if any(p.status == status for p in props):
            return status
    exercised = sum(p.status != UNEXERCISED for p in props)
    return UNEXERCISED if not exercised else HOLDS if exercised == len(props) else PARTLY


def build_report(machine: Machine, result: Result) -> Report:
    """Verdicts for every property and every clause of the catalogue."""
    verdicts = tuple(_verdict(machine, result, p) for p in machine.properties)
    return Report(result, verdicts, _clauses(verdicts), machine)


def check(
    bounds: Bounds = DEFAULT_BOUNDS, reading: str = "conformant", *, limits: Limits = NO_LIMITS,
    companion: bool = True, accept_unexercised: bool = False, liveness: bool = True,
    progress: Callable[[str], Progress | None] | None = None,
    checkpoint: Checkpoint | None = None, resume: bool = False, symmetry: bool = False,
    fingerprints: bool = False,
    compact: bool = False,
    rules: tuple[Rule, ...] = RULES,
    workers: int = 1,
    cluster: str | None = None,
    fairness: tuple[str, ...] = FAIR,
) -> Report:
    """Explore every state within `bounds` under a named reading and judge every property and clause.

    At the default bounds (faults aside), and unless `companion` is False, the companion searches (`COMPANIONS`)
    judge the properties the defaults cannot exercise (isolation, interim messages, node failures).
    `progress(label)` may return a callback for the search it names ("check", "companion: NAME").
    With `accept_unexercised`, the
    properties these bounds cannot exercise do not fail the check (they are still reported).
    With `liveness` (the default), the liveness properties are judged on the main search's graph
    when that search is complete (`checks/search/liveness.py`). `checkpoint` and `resume` apply to the main
    search (`checks/checkpoint.py`). With `symmetry`, the searches store one state per class of states
    equal up to renaming sessions (`model/symmetry.py`); liveness is judged on the full graph. With
    `fingerprints`, the main search keeps only 64-bit hashes of the states it visited; with `compact`, it keeps
    them exactly, packed (`explore`). `rules`: the rule table searched (a draft's; default the rules).
    With `workers` above 1, the main search is spread over that many local processes (`spread.py`); with
    `cluster` (a Ray address, "" for a local Ray), over Ray actors (`cluster.py`, `workers` of them, or one
    per CPU of the cluster): the same figures, verdicts and traces. Liveness and the companions stay here.
    """
    machine = Machine(bounds, reading_named(reading), rules, symmetry=symmetry, fairness=fairness)
    deadline = None if limits.max_seconds is None else time.perf_counter() + limits.max_seconds
    result = _main_search(machine, limits, progress("check") if progress else None, checkpoint, resume,
                          fingerprints, compact, workers, cluster)
    report = build_report(machine, result)
    report = dataclasses.replace(report, accept_unexercised=accept_unexercised)
    if liveness and progress is not None and report.result.complete:  # a silent pass: say what is being done
        progress(f"liveness on the graph of {report.result.states:,} states")
    report = _judge_liveness(report, limits) if liveness else dataclasses.replace(report, liveness_skipped="")
    if not companion or without_faults(bounds) != DEFAULT_BOUNDS or report.result.stopped == "interrupted":
        return report
    for name, other_bounds in COMPANIONS:
        other = companion_machine(report, other_bounds)
        if other is not None:
            left = limits if deadline is None else dataclasses.replace(
                limits, max_seconds=max(0.001, deadline - time.perf_counter()))  # one limit for the whole check
            result = explore(other, left, progress(f"companion: {name}") if progress else None)
            report = with_companion(report, Companion(name, other, result))
            if result.stopped == "interrupted":
                break
    return report


def _main_search(machine: Machine, limits: Limits, progress: Progress | None, checkpoint: Checkpoint | None,
                 resume: bool, fingerprints: bool, compact: bool, workers: int, cluster: str | None) -> Result:
    """The main search: here, over local processes, or on Ray."""
    if cluster is not None:
        if checkpoint is not None:
            raise ValueError("a search spread over processes cannot be checkpointed")
        from ..search.cluster import ray_spread  # Ray is an optional extra

        return ray_spread(machine, None if workers == 1 else workers, cluster or None, limits=limits,
                          progress=progress, fingerprints=fingerprints, compact=compact)
    if workers > 1 or (fingerprints and checkpoint is not None):  # fingerprints are checkpointed by level
        return spread(machine, workers, limits, progress, fingerprints, compact, checkpoint=checkpoint, resume=resume)
    return explore(machine, limits, progress, checkpoint, resume, fingerprints=fingerprints, compact=compact)


def _judge_liveness(report: Report, limits: Limits) -> Report:
    if not report.result.complete:
        return dataclasses.replace(report, liveness_skipped="the search was incomplete")
    try:
        live = check_liveness(report.machine, max_states=min(limits.max_states or LIVENESS_LIMIT, LIVENESS_LIMIT))
    except LivenessGraphTooLarge as error:
        return dataclasses.replace(report, liveness_skipped=str(error))
    except LimitReached as stop:  # the command's time or memory ran out while judging liveness
        return dataclasses.replace(report, liveness_skipped=f"stopped by --{stop.reason}")
    return with_liveness(report, live)


def with_liveness(report: Report, live: LivenessResult) -> Report:
    """The report with one `eventually` verdict per liveness property; its discovery is the lasso
    that breaks it or the path that witnesses it."""
    verdicts = []
    for v in live.verdicts:
        if not v.holds:
            status = VIOLATED
        elif not v.witnessed:
            status = UNEXERCISED if v.needs else VACUOUS
        else:
            status = HOLDS
        path = v.lasso if not v.holds else v.witness
        found = None if path is None else Discovery(path.states, path.actions[:len(path.states) - 1], v.message)
        verdicts.append(PropertyVerdict(v.name, EVENTUALLY, v.clauses, status, v.holds, v.witnessed, v.message, found,
                                        None, v.doc, v.needs, blamed=() if v.holds else v.clauses))
    properties = report.properties + tuple(verdicts)
    return dataclasses.replace(report, properties=properties, clauses=_clauses(properties), liveness=live)


def companion_machine(report: Report, bounds: Bounds) -> Machine | None:
    """The machine for a companion search at `bounds`: the properties the report leaves unexercised
    that these bounds exercise (and their witnesses). None if there are none."""
    machine, registry = report.machine, report.machine.properties
    open_ = {v.name for v in report.unexercised}
    wanted = {p.name for p in registry if p.name in open_ and not missing_bound(p, bounds, registry)}
    wanted |= {p.situation for p in registry if p.name in wanted and p.situation}
    if not wanted:
        return None
    chosen = tuple(p for p in registry if p.name in wanted)
    return dataclasses.replace(machine, bounds=bounds, properties=chosen)


def with_companion(report: Report, companion: Companion) -> Report:
    """The report with every property the main search could not exercise, and the companion search
    did, judged by the companion search instead."""
    judged = {v.name: dataclasses.replace(v, companion=companion.name)
              for v in (_verdict(companion.machine, companion.result, p) for p in companion.machine.properties)}
    verdicts = tuple(judged.get(v.name, v) if v.status == UNEXERCISED else v for v in report.properties)
    return dataclasses.replace(report, properties=verdicts, clauses=_clauses(verdicts),
                               companions=report.companions + (companion,))


def _clauses(verdicts: tuple[PropertyVerdict, ...]) -> tuple[ClauseVerdict, ...]:
    checks = [v for v in verdicts if v.kind in (ALWAYS, TRANSITION, EVENTUALLY)]
    clauses = []
    for clause in CLAUSES:
        props = [v for v in checks if clause.id in v.clauses]
        witnesses = tuple(dict.fromkeys(v.situation for v in props if v.situation))
        # a clause no property formalises is excused or by construction if the catalogue says why, else MISSING
        unformalised = not props and clause.strength in (catalogue.EXCUSED, catalogue.BY_CONSTRUCTION) \
            and bool(clause.note)
        if unformalised:
            status = EXCUSED if clause.strength == catalogue.EXCUSED else BY_CONSTRUCTION
        else:
            status = _clause_status(clause.id, props)
        clauses.append(ClauseVerdict(clause.id, clause.rule, clause.text, tuple(p.name for p in props), witnesses,
                                     status, clause.note if unformalised else None, clause.strength, clause.note))
    return tuple(clauses)


def strength_note(c: ClauseVerdict) -> str:
    """The line under a clause's text saying why it is not at full strength ("" when it is)."""
    label = {"partial": "partial", "by-construction": "by construction", "excused": "not modelled"}.get(c.strength)
    return f"{label}: {c.note}" if label and c.note else ""

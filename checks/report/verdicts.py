"""From a search result to verdicts: per property, per clause, and overall (with the exit code)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import CLAUSES, COMPANION_BOUNDS, DEFAULT_BOUNDS, READINGS, Bounds, Machine
from pausecheck.model.properties import ALWAYS, SOMETIMES, TRANSITION

from ..explore import NO_LIMITS, Discovery, Limits, Progress, Result, explore

__all__ = ["PropertyVerdict", "ClauseVerdict", "Report", "build_report", "check", "companion_machine",
           "with_companion"]

HOLDS, VIOLATED, VACUOUS, UNEXERCISED, WITNESSED, MISSING, EXCUSED = (
    "holds", "VIOLATED", "VACUOUS", "not exercised", "witnessed", "MISSING", "excused",
)


@dataclass(frozen=True, slots=True)
class PropertyVerdict:
    """One property's verdict; `discovery` is its counterexample or witness, if any."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    status: str  # holds, VIOLATED, VACUOUS, not exercised (always/transition); witnessed, MISSING
    holds: bool
    witnessed: bool
    message: str | None
    discovery: Discovery | None
    situation: str | None
    doc: str
    needs: str | None = None
    companion: bool = False  # established by the companion search, not the main one

    @property
    def failed(self) -> bool:
        return self.status in (VIOLATED, VACUOUS, MISSING)


@dataclass(frozen=True, slots=True)
class ClauseVerdict:
    """One clause: the properties formalising it and their joint verdict, or why it is excused."""

    id: str
    rule: str
    text: str  # the quoted fragment of the rule (model/clauses.py)
    properties: tuple[str, ...]
    witnesses: tuple[str, ...]
    status: str
    excused: str | None


@dataclass(frozen=True, slots=True)
class Report:
    """Everything `pausecheck check` prints."""

    result: Result
    properties: tuple[PropertyVerdict, ...]
    clauses: tuple[ClauseVerdict, ...]
    machine: Machine
    companion: Result | None = None  # the search at the companion bounds, if one ran
    companion_machine: Machine | None = None

    @property
    def bounds(self) -> dict[str, int]:
        return self.machine.bounds.as_dict()

    @property
    def reading(self) -> str:
        return self.machine.reading.name

    @property
    def companion_bounds(self) -> dict[str, int] | None:
        return None if self.companion_machine is None else self.companion_machine.bounds.as_dict()

    @property
    def exit_code(self) -> int:
        """0: complete and every check passed; 1: a violation, a vacuous property, a missing witness or
        clause coverage, a deadlock, or an incomplete search."""
        ok = (
            self.result.complete
            and (self.companion is None or (self.companion.complete and self.companion.deadlocks == 0))
            and self.result.deadlocks == 0
            and not any(p.failed for p in self.properties)
            and not any(c.status in (VIOLATED, VACUOUS, MISSING) for c in self.clauses)
        )
        return 0 if ok else 1


def _verdict(machine: Machine, result: Result, prop: Any) -> PropertyVerdict:
    exercised = prop.applies is None or prop.applies(machine.bounds)
    if prop.kind == SOMETIMES:
        found = result.witnesses.get(prop.name)
        status = WITNESSED if found else (MISSING if exercised else UNEXERCISED)
        return PropertyVerdict(prop.name, prop.kind, prop.clauses, status, found is not None, found is not None,
                               None, found, None, prop.doc, prop.needs)
    violation = result.violations.get(prop.name)
    witnessed = prop.situation is None or prop.situation in result.witnesses
    if violation is not None:
        status = VIOLATED
    elif not exercised and not witnessed:
        status = UNEXERCISED
    else:
        status = HOLDS if witnessed else VACUOUS
    return PropertyVerdict(prop.name, prop.kind, prop.clauses, status, violation is None, witnessed,
                           violation.message if violation else None, violation, prop.situation, prop.doc,
                           prop.needs)


def _clause_status(props: list[PropertyVerdict]) -> str:
    """Violated or vacuous if any property is; not exercised only if none of them is."""
    if not props:
        return MISSING
    for status in (VIOLATED, VACUOUS):
        if any(p.status == status for p in props):
            return status
    return UNEXERCISED if all(p.status == UNEXERCISED for p in props) else HOLDS


def build_report(machine: Machine, result: Result) -> Report:
    """Verdicts for every property and every clause of the catalogue."""
    verdicts = tuple(_verdict(machine, result, p) for p in machine.properties)
    return Report(result, verdicts, _clauses(verdicts), machine)


def check(
    bounds: Bounds = DEFAULT_BOUNDS, reading: str = "conformant", *, limits: Limits = NO_LIMITS,
    companion: bool = True, progress: Callable[[str], Progress | None] | None = None,
) -> Report:
    """Explore every state within `bounds` under a named reading and judge every property and clause.

    At the default bounds, and unless `companion` is False, a second search at `COMPANION_BOUNDS`
    judges the properties one execution cannot exercise (isolation). `progress(label)` may return a
    callback for the search it names ("check", then "companion").
    """
    machine = Machine(bounds, READINGS[reading])
    report = build_report(machine, explore(machine, limits, progress("check") if progress else None))
    other = companion_machine(machine, COMPANION_BOUNDS) if companion and bounds == DEFAULT_BOUNDS else None
    if other is not None:
        result = explore(other, limits, progress("companion") if progress else None)
        report = with_companion(report, other, result)
    return report


def companion_machine(machine: Machine, bounds: Bounds) -> Machine | None:
    """The machine for a companion search: the properties the main bounds cannot exercise (and their
    witnesses), at bounds that can. None if the main bounds exercise everything."""
    wanted = {p.name for p in machine.properties if p.applies is not None and not p.applies(machine.bounds)}
    wanted |= {p.situation for p in machine.properties if p.name in wanted and p.situation}
    if not wanted:
        return None
    chosen = tuple(p for p in machine.properties if p.name in wanted)
    return dataclasses.replace(machine, bounds=bounds, properties=chosen)


def with_companion(report: Report, machine: Machine, result: Result) -> Report:
    """The report with every property the main search could not exercise judged by the companion
    search instead (a property of the companion machine)."""
    judged = {v.name: dataclasses.replace(v, companion=True)
              for v in (_verdict(machine, result, p) for p in machine.properties)}
    verdicts = tuple(judged.get(v.name, v) if v.status == UNEXERCISED else v for v in report.properties)
    return dataclasses.replace(report, properties=verdicts, clauses=_clauses(verdicts), companion=result,
                               companion_machine=machine)


def _clauses(verdicts: tuple[PropertyVerdict, ...]) -> tuple[ClauseVerdict, ...]:
    checks = [v for v in verdicts if v.kind in (ALWAYS, TRANSITION)]
    clauses = []
    for clause in CLAUSES:
        props = [v for v in checks if clause.id in v.clauses]
        witnesses = tuple(dict.fromkeys(v.situation for v in props if v.situation))
        if clause.excused and not props:
            status = EXCUSED
        else:
            status = _clause_status(props)
        clauses.append(ClauseVerdict(clause.id, clause.rule, clause.text, tuple(p.name for p in props), witnesses,
                                     status, clause.excused))
    return tuple(clauses)

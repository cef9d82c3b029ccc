"""Rendering a check report: the clause table and statistics as text, or one JSON object."""

from __future__ import annotations

from typing import Any

from .verdicts import Report

__all__ = ["check_text", "check_json"]


def _stats(r: Any) -> str:
    state = "complete" if r.complete else "INCOMPLETE (cut short by --max-states: nothing is established)"
    return (f"searched {r.states:,} states, {r.transitions:,} transitions, depth {r.depth}, "
            f"in {r.seconds:.1f} s ({r.states_per_second:,.0f} states/s); {state}")


def _flags(bounds: dict[str, int]) -> str:
    return " ".join(f"{k.replace('_', '-')}={v}" for k, v in bounds.items())


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[-1] for row in rows]


def check_text(report: Report, paths: dict[str, str], command: str, renders: list[str]) -> str:
    """The human report: header, clause table, property list, counterexamples, statistics, verdict."""
    r = report.result
    lines = [f"pausecheck check: RT-TOOL-7 and RT-GATE-6, reading {report.reading}",
             "bounds: " + _flags(report.bounds), ""]
    rows = [("clause", "verdict", "properties", "witnesses")]
    for c in report.clauses:
        if c.status == "excused":
            rows.append((c.id, "excused", "-", f"not modelled: {c.excused}"))
        else:
            rows.append((c.id, c.status, ", ".join(c.properties) or "-", ", ".join(c.witnesses) or "-"))
    lines += _table(rows) + [""]
    rows = [("property", "kind", "verdict", "clauses / situation")]
    for p in report.properties:
        about = " ".join(p.clauses) + (f" / {p.situation}" if p.situation else "")
        about += " [companion search]" if p.companion else ""
        rows.append((p.name, p.kind, p.status, about))
    lines += _table(rows) + [""]
    for p in report.properties:
        if p.status == "not exercised" and p.needs:
            lines.append(f"not exercised at these bounds: {p.name} needs {p.needs}")
    if any(p.status == "not exercised" for p in report.properties):
        lines.append("")
    for text in renders:
        lines += [text.rstrip("\n"), ""]
    if r.deadlocks:
        lines.append(f"deadlocks: {r.deadlocks:,} states are not finished and have no enabled action")
    lines.append(_stats(r))
    if report.companion is not None:
        judged = ", ".join(p.name for p in report.properties if p.companion)
        lines.append(f"companion search for {judged}, at {_flags(report.companion_bounds or {})}:")
        lines.append("  " + _stats(report.companion))
    failed = [p for p in report.properties if p.failed]
    if report.exit_code == 0:
        lines.append("[ok] every property holds and every witness was found")
    else:
        parts = [f"{p.name} {p.status}" for p in failed]
        if r.deadlocks:
            parts.append("deadlock")
        if not r.complete:
            parts.append("incomplete search")
        lines.append("[fail] " + "; ".join(parts))
        if paths:
            lines.append(f"traces written beside: {next(iter(paths.values())).rsplit('/', 1)[0]}")
        else:
            lines.append(f"reproduce with: {command} --out traces-out")
    return "\n".join(lines) + "\n"


def check_json(report: Report, paths: dict[str, str]) -> dict[str, Any]:
    """The JSON report of `pausecheck check --json`."""
    r = report.result
    return {
        "complete": r.complete,
        "states": r.states,
        "transitions": r.transitions,
        "depth": r.depth,
        "seconds": round(r.seconds, 3),
        "states_per_second": round(r.states_per_second),
        "bounds": report.bounds,
        "reading": report.reading,
        "deadlocks": r.deadlocks,
        "companion": None if report.companion is None else {
            "bounds": report.companion_bounds, "complete": report.companion.complete,
            "states": report.companion.states, "transitions": report.companion.transitions,
            "depth": report.companion.depth, "seconds": round(report.companion.seconds, 3),
            "properties": [p.name for p in report.properties if p.companion],
        },
        "deadlock_trace": paths.get("deadlock"),
        "exit": report.exit_code,
        "properties": [
            {"name": p.name, "kind": p.kind, "clauses": list(p.clauses), "holds": p.holds,
             "witnessed": p.witnessed, "status": p.status, "message": p.message,
             "situation": p.situation, "trace": paths.get(p.name), "companion": p.companion}
            for p in report.properties
        ],
        "clauses": [
            {"id": c.id, "rule": c.rule, "properties": list(c.properties), "witnesses": list(c.witnesses),
             "status": c.status, "excused": c.excused}
            for c in report.clauses
        ],
    }


def matrix_text(matrix: Any, targets: dict[str, str | None]) -> str:
    """The kill matrix: a grid of mutants x killing properties (shortest counterexample lengths),
    each mutant's killers in words, each property's sole killers or redundancy, and a verdict."""
    columns = [p.name for p in matrix.properties]
    lines = ["properties (columns):"]
    lines += [f"  P{i:<2} {name}" for i, name in enumerate(columns, 1)]
    width = max(len(m.name) for m in matrix.mutants)
    head = " " * width + "  " + " ".join(f"P{i:<2}" for i in range(1, len(columns) + 1))
    lines += ["", "shortest counterexample (steps) per mutant and property; '.' = not killed, * = its target", head]
    for m in matrix.mutants:
        cells = []
        for name in columns:
            steps = m.steps(name)
            mark = "*" if name == targets.get(m.name) else " "
            cells.append("." + "  " if steps is None else f"{steps}{mark}".ljust(3))
        note = "  equivalent: " + m.reason if m.equivalent else ("  SURVIVED" if m.survived else "")
        lines.append(m.name.ljust(width) + "  " + " ".join(cells) + note)
    lines += ["", "what each property adds:"]
    for p in matrix.properties:
        if p.sole_killers:
            lines.append(f"  {p.name}: sole killer of {', '.join(p.sole_killers)}")
        elif p.redundant_with:
            together = " jointly" if p.jointly else ""
            lines.append(f"  {p.name}: no sole killer; redundant{together} with {', '.join(p.redundant_with)}")
        else:
            lines.append(f"  {p.name}: KILLS NOTHING: no mutant shows it can fail")
    killed = sum(1 for m in matrix.mutants if m.killed_by)
    equivalent = sum(1 for m in matrix.mutants if m.equivalent and not m.killed_by)
    lines += ["", f"{len(matrix.mutants)} mutants: {killed} killed, {equivalent} marked equivalent, "
              f"{len(matrix.survivors)} survived; {sum(m.states for m in matrix.mutants):,} states "
              f"in {matrix.seconds:.1f} s"]
    lines.append("[ok] every mutant is killed or marked equivalent" if not matrix.survivors
                 else f"[fail] survived: {', '.join(matrix.survivors)}")
    return "\n".join(lines) + "\n"

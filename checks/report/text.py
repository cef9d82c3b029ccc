"""Rendering a check report and a kill matrix for the terminal (rich tables, coloured verdicts), or as
one JSON object. Off a terminal the same tables are plain text, PIPE_WIDTH columns wide."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pausecheck.model.liveness import EVENTUALLY, fairness_named
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..drafts import under
from ..verdict.verdicts import (
    BY_CONSTRUCTION,
    EXCUSED,
    HOLDS,
    INVOLVED,
    MISSING,
    PARTLY,
    UNEXERCISED,
    UNFOUND,
    UNREFUTED,
    VACUOUS,
    VIOLATED,
    WITNESSED,
    Report,
    strength_note,
)
from .html import unexercised_by_bound

__all__ = ["print_check", "check_json", "liveness_line", "STYLES", "stats_line", "clause_table", "plural",
           "plain_table"]

# verdict word -> style; anything not listed is printed plain
STYLES = {HOLDS: "green", WITNESSED: "green", VIOLATED: "bold red", VACUOUS: "bold red", MISSING: "bold red",
          UNEXERCISED: "yellow", PARTLY: "yellow", INVOLVED: "yellow", UNREFUTED: "bold red", UNFOUND: "bold red",
          EXCUSED: "cyan",
          BY_CONSTRUCTION: "cyan", "[ok]": "bold green", "[fail]": "bold red",
          "[incomplete]": "bold yellow"}


def stats_line(r: Any) -> str:
    """One search's statistics and whether it was complete."""
    why = {"max-states": "cut short by --max-states", "max-depth": "cut short at the depth limit",
           "max-seconds": "stopped by --max-seconds", "max-memory": "stopped by --max-memory before memory ran out",
           "interrupted": "interrupted"}.get(getattr(r, "stopped", None) or "max-states", "stopped early")
    state = "complete" if r.complete else f"INCOMPLETE ({why}: nothing is established)"
    return (f"searched {r.states:,} states, {r.transitions:,} transitions, depth {r.depth}, "
            f"in {r.seconds:.1f} s ({r.states_per_second:,.0f} states/s); {state}")


def _flags(bounds: dict[str, int]) -> str:
    return " ".join(f"{k.replace('_', '-')}={v}" for k, v in bounds.items())


def _verdict(word: str) -> Text:
    return Text(word, style=STYLES.get(word, ""))


def plain_table(*columns: str) -> Table:
    """A borderless table with bold headers whose cells fold rather than overflow, but the first: a name
    (of a property, a clause), never cut mid-identifier."""
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    for k, name in enumerate(columns):
        table.add_column(name, overflow="fold", no_wrap=k == 0)
    return table


# strength -> style
STRENGTH_STYLES = {"full": "green", "partial": "yellow", "by-construction": "cyan", "excused": "cyan"}


def clause_table(report: Report) -> Table:
    """Every clause: id, quoted text (and the note on its strength), verdict, strength, the properties
    checking it."""
    table = plain_table("clause", "text", "verdict", "strength", "checked by")
    for c in report.clauses:
        text = Text(f'"{c.text}"')
        if c.note:
            text.append("\n" + strength_note(c), style="dim")
        table.add_row(c.id, text, _verdict(c.status), Text(c.strength, style=STRENGTH_STYLES.get(c.strength, "")),
                      ", ".join(c.properties) or "-")
    return table


def property_table(report: Report) -> Table:
    """Every property: name, kind, verdict, clauses, the witness that it is exercised, its meaning."""
    table = plain_table("property", "kind", "verdict", "clauses", "exercised when", "meaning")
    for p in report.properties:
        meaning = Text(p.doc)
        if p.companion:
            meaning.append(f" [judged by the companion search: {p.companion}]", style="dim")
        witness = p.situation or ("its own path" if p.kind == EVENTUALLY and p.witnessed else "-")
        table.add_row(p.name, p.kind, _verdict(p.status), " ".join(p.clauses), witness, meaning)
    return table


def _verdict_line(report: Report) -> Text:
    r = report.result
    unexercised = [p.name for p in report.unexercised]
    if report.exit_code == 0:
        if unexercised:  # named above, folded by the flags that would exercise them
            text = (f" every property exercised at these bounds holds and every witness was found; {len(unexercised)} "
                    f"propert{'ies' if len(unexercised) != 1 else 'y'} not exercised, accepted (listed above)")
        else:
            text = " every property holds and every witness was found"
        if report.liveness_skipped == "":
            text += "; liveness not judged (--no-liveness)"
        return Text.assemble(("[ok]", STYLES["[ok]"]), text)
    if not r.complete and not any(p.status == VIOLATED for p in report.properties) and not r.deadlocks:
        open_ = sum(p.failed for p in report.properties)
        why = {"max-memory": "stopped by --max-memory before the machine ran out (lower the bounds to finish)",
               "max-seconds": "stopped by --max-seconds", "interrupted": "interrupted",
               "max-depth": "cut short at the depth limit"}.get(r.stopped or "", "cut short by --max-states")
        return Text.assemble(("[incomplete]", STYLES["[fail]"]),
                             f" {why} after {r.states:,} states: no violation found in what was searched, "
                             f"{open_} properties not established")
    parts = [f"{p.name} {p.status}" for p in report.properties if p.failed]
    parts += ["deadlock"] * bool(r.deadlocks) + ["incomplete search"] * (not r.complete)
    if report.liveness_skipped and r.complete:
        parts.append(f"liveness not judged: {report.liveness_skipped} (--no-liveness skips it)")
    if unexercised and not report.accept_unexercised:
        which = ", ".join(unexercised) if len(unexercised) <= 4 else f"{len(unexercised)} properties"
        parts.append(f"not exercised at these bounds: {which} (listed above; --accept-unexercised accepts them)")
    word = "[fail]" if report.exit_code == 1 else "[incomplete]"  # exit 3: nothing broken, not everything established
    return Text.assemble((word, STYLES[word]), " " + "; ".join(parts))


def plural(count: int, noun: str) -> str:
    """`count` and `noun`, in the plural unless it is one: "1 mutant", "3 mutants", "2 properties"."""
    if count == 1:
        return f"{count:,} {noun}"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return f"{count:,} {noun[:-1]}ies"
    return f"{count:,} {noun}s"


ESTABLISHED = (HOLDS, WITNESSED, EXCUSED, BY_CONSTRUCTION)  # verdicts that need no attention
VERBOSE_HINT = "the clause and property tables: --verbose (or pausecheck report --out report.html)"


def print_check(out: Console, report: Report, renders: list[str], command: str, written: str | None,
                *, verbose: bool = False) -> None:
    """The human report. Brief by default: header, counts, only what needs attention (properties and
    clauses not established, each counterexample), statistics, verdict. With `verbose`, the clause
    and property tables instead of the counts."""
    out.print(f"pausecheck check: RT-TOOL-7 and RT-GATE-6, reading {report.reading}{under(report.machine.rules)}",
              markup=False)
    out.print("bounds: " + _flags(report.bounds), markup=False)
    out.print()
    if verbose:
        out.print(clause_table(report))
        out.print()
        out.print(property_table(report))
        out.print()
    else:
        _print_counts(out, report)
    needs = [p for p in report.unexercised if p.needs] if verbose else []  # brief: in the table above
    for p in needs:
        out.print(f"not exercised at these bounds: {p.name} needs {p.needs}", markup=False)
    if needs:
        out.print()
    for text in renders:
        out.print(text.rstrip("\n"), markup=False)
        out.print()
    _print_statistics(out, report, verbose)
    out.print(_verdict_line(report))
    if written:
        out.print(f"traces written to {written}", markup=False)
    elif report.exit_code:
        out.print(f"reproduce with: {command} --out out/", markup=False)


def _print_counts(out: Console, report: Report) -> None:
    """The clauses and properties counted by verdict, then a table of those that need attention."""
    clauses = Counter(c.status for c in report.clauses)
    partial = [c.id for c in report.clauses if c.strength == "partial"]
    line = f"clauses: {len(report.clauses)}: " + ", ".join(f"{n} {_agree(status, n)}" for status, n in clauses.items())
    if partial:
        line += f"; partial in the model (a part cannot fail; --verbose says which): {' '.join(partial)}"
    out.print(line, markup=False)
    kinds = Counter((p.kind, p.status) for p in report.properties)
    companions = sum(p.companion is not None for p in report.properties)
    line = f"properties: {len(report.properties)}: " + ", ".join(f"{n} {kind} {_agree(status, n)}"
                                                              for (kind, status), n in kinds.items())
    if companions:
        line += f" ({companions} of them judged by a companion search)"
    out.print(line, markup=False)
    out.print(VERBOSE_HINT, markup=False)
    out.print()
    _print_attention(out, report)


def _print_attention(out: Console, report: Report) -> None:
    """What needs attention, most important first: the violations alone, each with the clauses its
    counterexample breaks and those only involved; then what else is not established; then what these
    bounds cannot exercise, one line per bound that would."""
    violated = [p for p in report.properties if p.status == VIOLATED]
    if violated:
        table = plain_table("property", "kind", "breaks", "involved", "why")
        for p in violated:
            table.add_row(p.name, p.kind, Text(" ".join(p.blamed) or "-", style=STYLES[VIOLATED]),
                          " ".join(c for c in p.clauses if c not in p.blamed) or "-", p.message or p.doc)
        out.print(f"VIOLATED ({plural(len(violated), 'property')}; each counterexample below):", markup=False)
        out.print(table)
        out.print()
    open_ = [p for p in report.properties if p.status not in ESTABLISHED + (VIOLATED, UNEXERCISED)]
    if open_:
        table = plain_table("property", "kind", "verdict", "clauses", "why")
        for p in open_:
            table.add_row(p.name, p.kind, _verdict(p.status), " ".join(p.clauses), p.message or p.doc)
        out.print("not established:", markup=False)
        out.print(table)
        out.print()
    clauses = [c for c in report.clauses if c.status not in ESTABLISHED + (UNEXERCISED, PARTLY)]
    if clauses:
        table = plain_table("clause", "verdict", "checked by")
        for c in clauses:
            table.add_row(c.id, _verdict(c.status), ", ".join(c.properties) or "-")
        out.print(table)
        out.print()
    _print_unexercised(out, report)


def _print_unexercised(out: Console, report: Report) -> None:
    """The properties these bounds cannot exercise, folded to one line per bound that would, and the clauses
    left not exercised or holding only in part."""
    by_need = unexercised_by_bound(report)
    if not by_need:
        return
    accepted = " (accepted: --accept-unexercised)" if report.accept_unexercised else ""
    out.print(f"not exercised at these bounds{accepted}: {plural(len(report.unexercised), 'property')}; "
              "the flags that would exercise them:", markup=False)
    for need, names in by_need:
        out.print(f"  {need}: {', '.join(names)}", markup=False)
    for status, label in ((UNEXERCISED, "clauses not exercised"), (PARTLY, "clauses holding only in part")):
        ids = [c.id for c in report.clauses if c.status == status]
        if ids:
            out.print(f"  {label}: {' '.join(ids)}", markup=False)
    out.print()


def _agree(verdict: str, count: int) -> str:
    """A verdict word agreeing with its count: "1 holds", "30 hold"."""
    return verdict[:-1] if verdict == HOLDS and count != 1 else verdict


def _print_statistics(out: Console, report: Report, verbose: bool) -> None:
    """The main search's statistics, the companion searches' (one line each, or one line for all when
    brief and complete), the liveness facts."""
    r = report.result
    if r.deadlocks:
        out.print(f"deadlocks: {r.deadlocks:,} states are not finished and have no enabled action", markup=False)
    out.print(stats_line(r) + _symmetry_note(report.machine), markup=False)
    if r.fingerprints:
        chance = f"{r.collision_probability:.1e}"
        out.print(f"fingerprints only: every verdict holds unless two states shared a fingerprint (a chance of about "
                  f"{chance}: n(n-1)/2 pairs at 2^-64 each)", markup=False)
    if not verbose and report.companions and all(c.result.complete for c in report.companions):
        each = ", ".join(f"{c.name} {plural(c.result.states, 'state')}" for c in report.companions)
        out.print(f"companion searches (for what the defaults cannot exercise): {each}; complete", markup=False)
    else:
        for c in report.companions:
            judged = ", ".join(p.name for p in report.properties if p.companion == c.name)
            out.print(f"companion search ({c.name}) for {judged}, at {_flags(c.machine.bounds.as_dict())}:",
                      markup=False)
            out.print("  " + stats_line(c.result), markup=False)
    out.print(liveness_line(report), markup=False)


def _symmetry_note(machine: Any) -> str:
    return " (states counted up to renaming sessions: --symmetry)" if machine.canonical() is not None else ""


def liveness_line(report: Report) -> str:
    """How liveness was judged: the graph's shape, or why it was not judged."""
    if report.liveness_skipped == "":
        return "liveness: not judged (--no-liveness)"
    if report.liveness is None:
        return f"liveness: not judged: {report.liveness_skipped}"
    f = report.liveness.facts
    under = "; ".join(f"{a.name} ({a.strength})" for a in fairness_named(report.machine.fairness)) or "none"
    return (f"liveness under fairness: {under}; on the whole reachable graph: {f.states:,} states, "
            f"{f.edges:,} state-changing edges, {f.nontrivial_sccs} cycle(s), {f.end_states:,} end states "
            f"({f.final_states:,} final), in {f.seconds:.1f} s")


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
        "companions": [
            {"name": c.name, "bounds": c.machine.bounds.as_dict(), "complete": c.result.complete,
             "states": c.result.states, "transitions": c.result.transitions, "depth": c.result.depth,
             "seconds": round(c.result.seconds, 3),
             "properties": [p.name for p in report.properties if p.companion == c.name]}
            for c in report.companions
        ],
        "deadlock_trace": paths.get("deadlock"),
        "liveness": _liveness_json(report),
        "accept_unexercised": report.accept_unexercised,
        "exit": report.exit_code,
        "properties": [
            {"name": p.name, "kind": p.kind, "clauses": list(p.clauses), "holds": p.holds,
             "witnessed": p.witnessed, "status": p.status, "message": p.message, "meaning": p.doc,
             "situation": p.situation, "trace": paths.get(p.name), "companion": p.companion, "needs": p.needs,
             "breaks": list(p.blamed)}
            for p in report.properties
        ],
        "clauses": [
            {"id": c.id, "rule": c.rule, "text": c.text, "properties": list(c.properties),
             "witnesses": list(c.witnesses), "status": c.status, "excused": c.excused,
             "strength": c.strength, "note": c.note}
            for c in report.clauses
        ],
    }


def _liveness_json(report: Report) -> dict[str, Any]:
    if report.liveness is None:
        return {"judged": False, "why_not": report.liveness_skipped or "--no-liveness"}
    f = report.liveness.facts
    return {"judged": True, "states": f.states, "edges": f.edges, "cycles": f.nontrivial_sccs,
            "end_states": f.end_states, "final_states": f.final_states, "seconds": round(f.seconds, 3)}

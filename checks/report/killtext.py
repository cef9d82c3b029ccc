"""Rendering a kill matrix for the terminal: a brief summary by default (counts, what needs attention,
one line per mutant when few ran), the whole grid with `verbose`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..mutants import WITNESS_LOST
from .text import STYLES, plural

__all__ = ["print_matrix", "print_mutants", "FEW"]

FEW = 10  # up to this many mutants run, the brief summary gives one line per mutant
VERBOSE_HINT = "the kill matrix: pausecheck mutants --verbose (or pausecheck report --mutants --out report.html)"


def print_mutants(out: Console, matrix: Any, targets: dict[str, str | None], *, every_mutant: bool,
                  verbose: bool = False) -> None:
    """The kill matrix as the command prints it: the whole grid with `verbose`, else a summary."""
    base = matrix.base_failure()
    if base is not None:  # first: what the base breaks decides what a kill can mean
        out.print(Text.assemble(("BASE FAILS", "bold red"), f": {base}"))
        out.print()
    if verbose:
        print_matrix(out, matrix, targets, every_mutant=every_mutant)
        return
    if len(matrix.mutants) <= FEW:
        for m in matrix.mutants:
            out.print(_mutant_line(m, targets.get(m.name)))
        out.print()
    else:
        for m in matrix.mutants:
            if m.problem is not None:
                out.print(_mutant_line(m, None))
            elif m.equivalent and not m.killed_by:
                out.print(Text.assemble((f"{m.name}: ", ""), ("equivalent", "cyan"), f": {m.reason}"))
    if every_mutant and matrix.not_applying:
        out.print(f"{plural(len(matrix.not_applying), 'mutant')} not searched, so what each property kills is not "
                  "judged", markup=False)
    elif every_mutant:
        broken = set(matrix.base_broken)
        idle = [p.name for p in matrix.properties if not p.killers and p.name not in broken]
        sole = sum(1 for p in matrix.properties if p.sole_killers)
        if broken:
            out.print(f"not judged as killers (the base breaks them): {', '.join(matrix.base_broken)}", markup=False)
        if idle:
            out.print(Text.assemble(("KILLS NOTHING", "bold red"),
                                    f": {', '.join(idle)} (no mutant shows it can fail)"))
        else:
            out.print(f"every one of the {len(matrix.properties)} properties that can fail on a run (the always and "
                      "transition properties, no deadlock, and the liveness properties where writes may fail "
                      "without limit; a witness kills nothing here) "
                      f"kills a mutant; {sole} of them are the only killer of one", markup=False)
    out.print(VERBOSE_HINT, markup=False)
    _print_totals(out, matrix)


def _mutant_line(m: Any, target: str | None) -> Text:
    """One mutant in a line: what killed it (shortest counterexample, its target marked), or why not."""
    if m.problem is not None:
        return Text.assemble(f"{m.name}: ", ("NO LONGER APPLIES", "yellow"), f" (not searched): {m.problem}")
    if m.refuted:
        return Text.assemble(f"{m.name}: ", ("marked equivalent, yet killed", "bold red"),
                             " by " + m.refuted.split(": ", 1)[1])
    also = f" (also broke {', '.join(m.base_kills)}, which the base breaks too)" if m.base_kills else ""
    if m.killed_by:
        kills = []
        for name in m.killed_by:
            steps = m.steps(name)
            kills.append(name if steps is None else f"{name} ({plural(steps, 'step')}"
                         + (", its target)" if name == target else ")"))
        return Text.assemble(f"{m.name}: ", ("killed", "green"), " by " + ", ".join(kills) + also)
    if m.equivalent:
        return Text.assemble(f"{m.name}: ", ("equivalent", "cyan"), f" (also with each fault on): {m.reason}")
    if m.base_kills:
        return Text.assemble(f"{m.name}: ", ("NOT KILLED", "bold red"), f": it breaks only {', '.join(m.base_kills)}, "
                             "which the base breaks too")
    return Text.assemble(f"{m.name}: ", ("SURVIVED", "bold red"))


def _print_totals(out: Console, matrix: Any) -> None:
    killed = sum(1 for m in matrix.mutants if m.killed_by)
    equivalent = sum(1 for m in matrix.mutants if m.equivalent and not m.killed_by)
    gone = f", {len(matrix.not_applying)} no longer apply" if matrix.not_applying else ""
    out.print(f"{plural(len(matrix.mutants), 'mutant')}: {killed} killed, {equivalent} marked equivalent, "
              f"{len(matrix.survivors)} survived{gone}; {sum(m.states for m in matrix.mutants):,} states "
              f"in {matrix.seconds:.1f} s", markup=False)
    vetted = sum(1 for m in matrix.mutants if m.vetted)
    if vetted:
        out.print(f"{vetted} of them searched against the default's graph at their bounds, checked beforehand: "
                  "only the steps a mutant changes were checked again for what they break (the same verdicts and "
                  "traces)", markup=False)
    if matrix.survivors or matrix.refuted or matrix.base_broken:
        out.print(Text.assemble(("[fail]", STYLES["[fail]"]), matrix.verdict().removeprefix("[fail]")))
    elif matrix.not_applying:
        out.print(Text.assemble(("[incomplete]", STYLES["[incomplete]"]),
                                matrix.verdict().removeprefix("[incomplete]")))
    else:
        what = "the mutant is" if len(matrix.mutants) == 1 else "every mutant is"
        out.print(Text.assemble(("[ok]", STYLES["[ok]"]), f" {what} killed or marked equivalent"))


def _grid(matrix: Any, columns: list[str], targets: dict[str, str | None]) -> Table:
    """The grid: a mutant's name never split (its column does not fold), an equivalence reason given
    below the grid instead of wrapped into a tall cell."""
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    table.add_column("mutant", no_wrap=True)
    for i in range(1, len(columns) + 1):
        table.add_column(f"P{i}", no_wrap=True)
    table.add_column("", no_wrap=True)
    for m in matrix.mutants:
        cells: list[Text | str] = [m.name]
        for name in columns:
            steps = m.steps(name)
            star = "*" if name == targets.get(m.name) else ""
            cells.append(Text(".", style="dim") if steps is None else Text(f"{steps}{star}", style="green"))
        lost = [name for name in m.killed_by if name.startswith(WITNESS_LOST)]
        if m.problem is not None:
            cells.append(Text("no longer applies (why: below)", style="yellow"))
        elif m.equivalent:
            cells.append(Text("equivalent (why: below)", style="cyan"))
        elif lost:
            cells.append(Text("killed: " + ", ".join(lost), style="green"))
        else:
            cells.append(Text("SURVIVED", style="bold red") if m.survived else "")
        table.add_row(*cells)
    return table


def print_matrix(out: Console, matrix: Any, targets: dict[str, str | None], *, every_mutant: bool) -> None:
    """The kill matrix: a grid of mutants x killing properties (shortest counterexample lengths), what
    each property catches alone, and a verdict. With `every_mutant` False (a chosen few were run), a
    property that killed none of them is not called untested: only the columns that kill are shown."""
    columns = [p.name for p in matrix.properties if every_mutant or p.killers]
    out.print("properties (columns):")
    for i, name in enumerate(columns, 1):
        out.print(f"  P{i:<2} {name}", markup=False)
    out.print()
    out.print("shortest counterexample (steps) per mutant and property; '.' = not killed, * = its target",
              markup=False)
    out.print(_grid(matrix, columns, targets))
    for m in matrix.mutants:
        if m.problem is not None:
            out.print(_mutant_line(m, None))
        elif m.equivalent:
            out.print(Text.assemble(f"{m.name}: ", ("equivalent", "cyan"), f": {m.reason}"))
    out.print()
    out.print("what each property adds" + ("" if every_mutant else " (among the mutants run)") + ":")
    if len(matrix.mutants) == 1:
        out.print("  (redundancy is not judged from one mutant)", markup=False)
    for p in matrix.properties:
        if p.sole_killers:
            out.print(f"  {p.name}: sole killer of {', '.join(p.sole_killers)}", markup=False)
        elif p.redundant_with and len(matrix.mutants) > 1:
            together = " jointly" if p.jointly else ""
            out.print(f"  {p.name}: no sole killer; redundant{together} with {', '.join(p.redundant_with)}",
                      markup=False)
        elif p.name in matrix.base_broken:
            out.print(f"  {p.name}: not judged as a killer (the base breaks it)", markup=False)
        elif every_mutant:
            out.print(Text.assemble(f"  {p.name}: ", ("KILLS NOTHING", "bold red"), ": no mutant shows it can fail"))
    out.print()
    _print_totals(out, matrix)

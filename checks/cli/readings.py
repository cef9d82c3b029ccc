"""`pausecheck readings`: the ambiguities (`--list`) and the flip matrix, as text or JSON, with the
shortest distinguishing behaviour of every flip written as a replayable ITF trace."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pausecheck.model import FAULTS, SWITCH_OF, Bounds
from pausecheck.model.ambiguities import AMBIGUITIES
from pausecheck.traces.itf import dumps

from ..console import Reporter, console, left
from ..drafts import under
from ..mutants.flipbounds import shown_at
from ..mutants.flips import Matrix, Outcome, Row, Variant, flip_matrix, singles
from .draft import draft_given, rules_of

__all__ = ["readings_command", "trace_file", "matrix_json", "ambiguities_json", "counter", "first_searches"]


def trace_file(reading: str, prop: str) -> str:
    """The file name of a flip's trace: A-T6=take-first-no_loss.itf.json."""
    return f"{reading.removeprefix('conformant+').replace('+', '_')}-{prop}.itf.json"


def ambiguities_json() -> list[dict[str, Any]]:
    """Every ambiguity: id, clauses, values, default, modelled, reason (or the fix a modelled one needs)."""
    out = []
    for a in AMBIGUITIES:
        switch = a.switch
        out.append({"id": a.id, "question": a.question, "clauses": list(a.clauses),
                    "values": dict(switch.values) if switch else {}, "default": switch.default if switch else None,
                    "needs": list(switch.needs) if switch else [], "modelled": a.modelled,
                    "reason": a.reason or None, "fix": a.fix or None})
    return out


def _faults(outcome: Outcome) -> dict[str, int]:
    return {f: getattr(outcome.variant.bounds, f) for f in FAULTS if getattr(outcome.variant.bounds, f)}


def matrix_json(matrix: Matrix, written: dict[tuple[str, str], str]) -> dict[str, Any]:
    """The matrix as one object: {ambiguities, default, results: [{reading, property, holds, trace, length}]}."""
    results = []
    for outcome in list(matrix.defaults) + [row.outcome for row in matrix.rows]:
        reading = dict(outcome.variant.switches)
        for name, status in outcome.statuses.items():
            results.append({"reading": reading, "reading_name": outcome.variant.reading, "faults": _faults(outcome),
                            "property": name, "status": status, "holds": status in ("holds", "witnessed"),
                            "trace": written.get((outcome.variant.reading, name)), "length": outcome.lengths.get(name)})
    return {
        "bounds": matrix.bounds.as_dict(),
        "ambiguities": ambiguities_json(),
        "defaults": [{"faults": _faults(d), "states": d.states, "complete": d.complete, "broken": list(d.broken)}
                     for d in matrix.defaults],
        "flips": [{"reading": dict(row.switches), "reading_name": row.reading, "faults": _faults(row.outcome),
                   "flips": [{"property": f.property, "clauses": list(f.clauses), "was": f.was, "now": f.now,
                              "length": f.steps, "message": f.message,
                              "trace": written.get((row.reading, f.property))} for f in row.flips]}
                  for row in matrix.rows],
        "results": results,
        "seconds": round(matrix.seconds, 1),
        "workers": matrix.workers,
    }


def write_traces(matrix: Matrix, folder: Path, write: Callable[[Path, str], None]) -> dict[tuple[str, str], str]:
    """Write the counterexample of every flip (the property now broken) under `folder`."""
    written: dict[tuple[str, str], str] = {}
    for row in matrix.rows:
        for flip in row.flips:
            document = row.outcome.documents.get(flip.property)
            if document is not None:
                path = folder / trace_file(row.reading, flip.property)
                write(path, dumps(document))
                written[(row.reading, flip.property)] = str(path)
    return written


def _list(out: Any) -> None:
    modelled = sum(1 for a in AMBIGUITIES if a.modelled)
    out.print(f"{len(AMBIGUITIES)} ambiguities: the spec notes' 32 (section 5) and one the model found (A-X5); "
              f"{modelled} modelled as switches", markup=False)
    for a in AMBIGUITIES:
        out.print()
        out.print(f"{a.id}  {a.question}  ({', '.join(a.clauses)})", markup=False)
        if a.switch is None:
            out.print(f"  not modelled: {a.reason}", markup=False)
            continue
        needs = f"; needs the fault(s) {', '.join(a.switch.needs)}" if a.switch.needs else ""
        out.print(f"  modelled{needs}; values (default first):", markup=False)
        for value, meaning in sorted(a.switch.values.items(), key=lambda item: item[0] != a.switch.default):
            out.print(f"    {value}: {meaning}", markup=False)


def _flags(values: dict[str, int]) -> str:
    return " ".join(f"--{k.replace('_', '-')} {v}" for k, v in values.items()) or "no faults"


def _print(out: Any, matrix: Matrix, written: dict[tuple[str, str], str], folder: Path, table: str = "") -> None:
    out.print(f"pausecheck readings: which verdicts each reading of an ambiguity changes{table}", markup=False)
    out.print("bounds: " + " ".join(f"{k.replace('_', '-')}={v}" for k, v in matrix.bounds.as_dict().items()),
              markup=False)
    for d in matrix.defaults:
        broken = ", ".join(d.broken) or "nothing"
        out.print(f"the conformant reading with {_flags(_faults(d))}: {d.states:,} states, breaks {broken}"
                  + ("" if d.complete else " (INCOMPLETE search)"), markup=False)
    out.print()
    for row in matrix.rows:
        _print_row(out, row)
    out.print()
    changes = sum(len(r.flips) for r in matrix.rows)
    out.print(f"{len(matrix.rows)} readings checked ({len(matrix.rows) - len(_singles(matrix))} pairs of changes "
              f"that break nothing alone); {changes} verdicts flip; {matrix.seconds:.0f} s on {matrix.workers} "
              f"worker(s)", markup=False)
    if matrix.pairs_skipped:
        out.print("left out of the pairs, as they break something alone: " + ", ".join(matrix.pairs_skipped),
                  markup=False)
    if written:
        out.print(f"{len(written)} shortest distinguishing behaviours written under {folder}/; replay each with "
                  "pausecheck replay FILE (its reading and bounds are in its #meta)", markup=False)


def _singles(matrix: Matrix) -> list[Row]:
    return [r for r in matrix.rows if len(r.switches) == 1]


def _print_row(out: Any, row: Row) -> None:
    name = row.reading.removeprefix("conformant+")
    faults = _faults(row.outcome)
    where = f" [{_flags(faults)}]" if faults else ""
    if not row.flips:
        shown = shown_at(name) if len(row.switches) == 1 else "pairs are not searched for larger bounds"
        out.print(f"{name}{where}: nothing flips at these bounds; {shown}", markup=False)
        return
    parts = []
    for f in row.flips:
        steps = f" in {f.steps} steps" if f.steps is not None else ""
        parts.append(f"{f.property} {f.was} -> {f.now}{steps}")
    out.print(f"{name}{where}: " + "; ".join(parts), markup=False)
    for ambiguity, value in row.switches:
        out.print(f"    {ambiguity}={value}: {SWITCH_OF[ambiguity].values[value]}", markup=False)


def first_searches(bounds: Bounds) -> int:
    """The searches of the flip matrix's first stage (the conformant reading at each fault set, each
    single change): the total known before any ends; the pairs, if asked, follow from their results."""
    first = singles(bounds)
    return len(dict.fromkeys([Variant((), bounds)] + [Variant((), v.bounds) for v in first] + first))


def counter(show: Callable[[str], None], total: int | None = None) -> Callable[[Outcome], None]:
    """A progress callback for `flip_matrix`: how many searches are done (of `total`, the first stage's,
    while within it; then the pairs), the last one, and an estimate of the first stage's time left."""
    finished = [0]
    started = time.monotonic()

    def done(outcome: Outcome) -> None:
        finished[0] += 1
        count = f"{finished[0]}/{total}" if total and finished[0] <= total else f"{finished[0]}"
        stage = "" if not total or finished[0] <= total else " (pairs)"
        show(f"{count} searches done{stage}, last {outcome.variant.reading} ({outcome.states:,} states)"
             + left(finished[0], total, time.monotonic() - started))

    return done


def readings_command(args: argparse.Namespace, bounds: Bounds, write: Callable[[Path, str], None]) -> int:
    """List the ambiguities, or compute the matrix, print it and write its traces."""
    out = console(color=not args.no_color)
    if args.list:
        if args.json:
            print(json.dumps({"ambiguities": ambiguities_json()}, indent=2, sort_keys=True))
        else:
            _list(out)
        return 0
    table = rules_of(args, bounds)  # a draft that does not compile at these bounds: one line, before any search
    with Reporter("readings", color=not args.no_color) as reporter:
        matrix = flip_matrix(bounds, jobs=args.jobs, pairs=not args.no_pairs, draft=draft_given(args),
                             done=counter(reporter.status("readings"), first_searches(bounds)))
    written = write_traces(matrix, args.out, write)
    if args.json:
        print(json.dumps(matrix_json(matrix, written), indent=2, sort_keys=True))
    else:
        _print(out, matrix, written, args.out, under(table))
    return 0

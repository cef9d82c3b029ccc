"""The command line: each command is one library call plus rendering.

Exit codes: 0 every check passed; 1 a violation, a vacuous property, a missing witness, a deadlock,
or an incomplete search; 2 a usage or input error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pausecheck.model import BOUND_HELP, DEFAULT_BOUNDS, READINGS, BoundError, Bounds
from pausecheck.model.machine import DEADLOCK, DEADLOCK_DOC
from pausecheck.traces.itf import TraceError, load_trace, write_trace
from pausecheck.traces.render import render
from pausecheck.traces.replay import decode_actions, replay

from pausecheck import __version__

from .evidence import Evidence, command_line, document_for, evidence_of, machine_for, write_discovery
from .explore import Limits
from .golden import golden_documents
from .killmatrix import kill_matrix
from .mutants import MUTANTS, mutant_named
from .report import check
from .report.text import check_json, check_text, matrix_text
from .shrink import shrink

__all__ = ["main"]

EPILOG_CHECK = """\
examples:
  pausecheck check                      every property over every interleaving at the default bounds
  pausecheck check --sessions 2 --calls 1 --per-call 1 --artifacts 1 --pauses 2 \\
                   --write-failures 0 --observations 0     two interleaving sessions (isolation)
  pausecheck check --out traces/        also write each counterexample and witness as ITF JSON
  pausecheck check --json               one JSON object (complete, states, properties, clauses, ...)

exit: 0 all hold and every witness was found; 1 violation, vacuity, missing witness, deadlock or an
incomplete search; 2 usage or input error."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"pausecheck: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pausecheck",
        description="Reference model and model checker for FlowDrop RT-TOOL-7 (held artifacts across a "
        "pause) and RT-GATE-6 (no phantom failure in the tool trail).",
        epilog="start with `pausecheck check`; `pausecheck COMMAND --help` explains each command.",
    )
    parser.add_argument("--version", action="version", version=f"pausecheck {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser(
        "check", help="explore every interleaving within the bounds and check every property",
        description="Breadth-first search of every state reachable within the bounds; prints the clause "
        "table, the statistics and the shortest counterexample of every violated property.",
        epilog=EPILOG_CHECK, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bounds = check.add_argument_group("bounds (every field of the search configuration)")
    for name, (minimum, meaning) in BOUND_HELP.items():
        bounds.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, metavar="N",
                            default=getattr(DEFAULT_BOUNDS, name),
                            help=f"{meaning} (default {getattr(DEFAULT_BOUNDS, name)}, minimum {minimum})")
    check.add_argument("--reading", choices=sorted(READINGS), default="conformant",
                       help="how each ambiguity of the spec is read (default conformant)")
    check.add_argument("--out", type=Path, metavar="DIR",
                       help="write counterexamples and witnesses as ITF JSON here")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    check.add_argument("--max-states", type=int, metavar="N", help="stop after N states (the result is incomplete)")
    check.add_argument("--no-companion", dest="companion", action="store_false",
                       help="at the default bounds, skip the companion search with two sessions that judges "
                       "what one execution cannot exercise (isolation, T7.2)")
    rp = commands.add_parser(
        "replay", help="re-execute an ITF trace on the model and say what it shows",
        description="Re-execute every step of a trace written by pausecheck; name the first step and field "
        "where it diverges from the model, or confirm the property it breaks or witnesses.",
    )
    rp.add_argument("file", type=Path, help="an ITF trace (.itf.json) written by pausecheck")
    rp.add_argument("--quiet", action="store_true", help="print only the verdict line")
    sh = commands.add_parser(
        "shrink", help="cut a trace that breaks a property down to its shortest sub-behaviour",
        description="Given a trace that breaks a property but is not shortest (written by hand, found at "
        "random, or logged by a runtime), write the shortest subsequence of its steps that still breaks "
        "the same property. Only each step's #meta.action and the trace's #meta (property, bounds, "
        "reading, mutant) are read; recorded state variables may be omitted.",
    )
    sh.add_argument("file", type=Path, help="an ITF trace whose #meta names the property it breaks")
    mu = commands.add_parser(
        "mutants", help="prove every property can fail: run each mutant and print the kill matrix",
        description="Each mutant is a named, minimal deviation from the rules that a real runtime could "
        "make. Every mutant is explored exhaustively; the kill matrix shows which properties catch it "
        "and the length of each shortest counterexample, and what each property catches alone.",
        epilog="exit: 0 every mutant is killed or marked equivalent; 1 a mutant survived or a property "
        "kills nothing; 2 usage error.",
    )
    mu.add_argument("--only", action="append", metavar="NAME", help="run only this mutant (repeatable)")
    mu.add_argument("--json", action="store_true", help="print one JSON object: {mutants, properties}")
    mu.add_argument("--golden", type=Path, metavar="DIR",
                    help="also write each mutant's target counterexample as DIR/<mutant>.itf.json")
    sh.add_argument("--out", type=Path, metavar="FILE",
                    help="where to write the result (default: FILE.shrunk.itf.json)")
    return parser


def _progress(states: int, transitions: int, depth: int) -> None:
    sys.stderr.write(f"\rexplored {states:,} states, {transitions:,} transitions, depth {depth} ")
    sys.stderr.flush()


def _check(args: argparse.Namespace) -> int:
    try:
        bounds = Bounds(**{name: getattr(args, name) for name in BOUND_HELP})
    except BoundError as error:
        return _fail(str(error))
    if args.max_states is not None and args.max_states < 1:
        return _fail("--max-states must be at least 1")
    live = sys.stderr.isatty() and not args.json
    report = check(bounds, args.reading, limits=Limits(max_states=args.max_states), companion=args.companion,
                   progress=(lambda label: _progress) if live else None)
    if live:
        sys.stderr.write("\r" + " " * 72 + "\r")
    evidence = evidence_of(report)
    paths = _write(args.out, evidence) if args.out else {}
    if args.json:
        print(json.dumps(check_json(report, paths), sort_keys=True, indent=2))
    else:
        renders = [render(e.document, f"pausecheck replay {paths[e.name]}" if e.name in paths else e.command)
                   for e in evidence if e.counterexample]
        sys.stdout.write(check_text(report, paths, command_line(bounds, args.reading), renders))
    return report.exit_code


def _write(folder: Path, evidence: list[Evidence]) -> dict[str, str]:
    """Write every counterexample and witness; returns property name -> path."""
    return {e.name: str(write_discovery(folder, e.document)) for e in evidence}


def _replay(args: argparse.Namespace) -> int:
    file = str(args.file)
    try:
        document = load_trace(args.file)
        machine = machine_for(document["#meta"], file)
        outcome = replay(document, machine, file)
    except TraceError as error:
        return _fail(str(error))
    meta = document["#meta"]
    if outcome.diverged_at is not None:
        print(f"[diverged] {file}: {outcome.divergence}")
        return 1
    if not args.quiet:
        sys.stdout.write(render(document))
    what = {"violation": "breaks", "witness": "witnesses", "deadlock": "reaches"}.get(meta.get("verdict"), "shows")
    claim = f"{what} {meta.get('property')}"
    if outcome.reproduced:
        detail = f": {outcome.message}" if outcome.message else ""
        print(f"[replayed] {file}: all {outcome.steps} steps match the model and the trace {claim}{detail}")
        return 1 if meta.get("verdict") in ("violation", "deadlock") else 0
    note = f" ({outcome.message})" if outcome.message else ""
    print(f"[replayed] {file}: all {outcome.steps} steps match the model, but the trace no longer {claim}{note}")
    return 1


def _shrink(args: argparse.Namespace) -> int:
    file = str(args.file)
    try:
        document = load_trace(args.file, complete=False)
        meta = document["#meta"]
        machine = machine_for(meta, file)
        actions = decode_actions(document, file)
    except TraceError as error:
        return _fail(str(error))
    name = meta.get("property")
    prop = next((p for p in machine.properties if p.name == name), None)
    if name != DEADLOCK and (prop is None or prop.kind == "sometimes"):
        return _fail(f'{file}: $["#meta"].property: {name!r} is not a property that can be broken')
    found = shrink(machine, actions, name)
    if found is None:
        print(f"[not broken] {file}: no sub-behaviour of its {len(actions)} steps breaks {name}")
        return 1
    kind, clauses = (DEADLOCK, ()) if prop is None else (prop.kind, prop.clauses)
    description = DEADLOCK_DOC if prop is None else prop.doc
    stem = args.file.name.removesuffix(".itf.json").removesuffix(".json")
    out = args.out or args.file.with_name(stem + ".shrunk.itf.json")
    shrunk = document_for(machine, found, name=name, kind=kind, clauses=clauses,
                          verdict=DEADLOCK if prop is None else "violation", description=description,
                          command=f"pausecheck shrink {file}", mutant=meta.get("mutant"))
    write_trace(out, shrunk)
    sys.stdout.write(render(shrunk, f"pausecheck replay {out}"))
    print(f"[shrunk] {len(actions)} steps -> {len(found.actions)} steps, written to {out}")
    return 1


def _mutants(args: argparse.Namespace) -> int:
    try:
        chosen = [mutant_named(n) for n in args.only] if args.only else list(MUTANTS)
    except KeyError as error:
        return _fail(f"unknown mutant {error.args[0]!r} (see pausecheck mutants --json for the names)")
    live = sys.stderr.isatty() and not args.json

    def progress(done: int, total: int, name: str) -> None:
        sys.stderr.write(f"\rmutant {done}/{total}: {name}".ljust(72))
        sys.stderr.flush()

    matrix = kill_matrix(chosen, progress=progress if live else None)
    if live:
        sys.stderr.write("\r" + " " * 72 + "\r")
    if args.golden:
        for name, document in golden_documents(matrix).items():
            write_trace(args.golden / name, document)
    if args.json:
        print(json.dumps(matrix.to_json(), sort_keys=True, indent=2))
    else:
        sys.stdout.write(matrix_text(matrix, {m.name: m.target for m in chosen}))
    untested = [p.name for p in matrix.properties if not p.killers]
    return 1 if matrix.survivors or (untested and not args.only) else 0


def _fail(message: str) -> int:
    sys.stderr.write(f"pausecheck: {message}\n")
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `pausecheck` console script."""
    args = _parser().parse_args(argv)
    handlers = {"check": _check, "replay": _replay, "shrink": _shrink, "mutants": _mutants}
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        sys.stderr.write("pausecheck: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())

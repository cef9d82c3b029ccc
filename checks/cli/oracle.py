"""`pausecheck conform`: drive a runtime under test through the model's behaviours (the golden oracle)."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import sys
import time
from pathlib import Path
from typing import Any

from pausecheck.model import Machine
from pausecheck.traces.input_file import printable, say
from pausecheck.traces.itf import TraceError, dumps, load_trace
from pausecheck.traces.render import render
from pausecheck.traces.replay import decode_actions

from ..console import Reporter, console, left
from ..drafts import under
from ..mutants.evidence import machine_for, trace_of
from ..oracle import (
    PROPERTIES,
    STRICT,
    Adapter,
    ConformError,
    ConformResult,
    RuntimeFault,
    Sequence,
    Subprocess,
    conform,
)
from ..oracle.conform import Divergence, divergence_document, drive, handshake, shrink_divergence
from ..oracle.exercised import Unexercised, summary, unexercised
from ..oracle.junit import junit_xml
from ..oracle.logs import LogError, validate_log
from ..oracle.macros import fine, unchecked
from ..oracle.minimise import minimise, path_of
from ..oracle.standing import format_of, render_standing, standing
from ..oracle.vectors import VectorError, export_vectors, load_vectors
from ..search.budget import raise_stop
from ..search.explore import Discovery, explore
from ..search.limits import Limits
from .draft import machine_of
from .inputs import not_over

__all__ = ["conform_command", "validate_command", "vectors_command", "fuzz_command", "shrink_runtime_command"]


def _runtime(args: argparse.Namespace, usage: type[Exception]) -> list[str]:
    argv = list(args.runtime)
    if not argv:
        raise usage(f"{args.command}: name the runtime to test after --, e.g. pausecheck {args.command} ... -- "
                    "python runtime.py")
    return argv


def _counting(bounds: Any, command: str, usage: type[Exception]) -> None:
    """A runtime counts every failed write; the model with endless writes stops counting at one: refused."""
    if bounds.endless_writes:
        raise usage(f"{command}: --write-failures any is for the model's own checks (its failure counts stop at "
                    "one, a runtime counts every failure): give a number")


def vectors_command(args: argparse.Namespace, bounds: Any, usage: type[Exception], write: Any) -> int:
    """The `vectors` handler: `export DIR` writes the vectors, `check DIR -- CMD` runs them."""
    if args.what == "export":
        if args.runtime:
            raise usage("vectors export takes no runtime: it writes files (vectors check DIR -- CMD runs them)")
        _counting(bounds, "vectors export", usage)
        machine = machine_of(args, bounds)
        try:
            manifest = export_vectors(machine, args.dir, args.max_vectors)
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO):
                raise  # a full disk: exit 1, as for every command
            raise usage(f"cannot write {args.dir}: {error.strerror or error}") from None
        print(f"wrote {manifest['vectors']:,} vectors ({manifest['steps']:,} steps) taking {manifest['edges']:,} "
              f"of the {manifest['edges_total']:,} edges of the reachable graph ({manifest['coverage']:.1%} "
              f"coverage) to {args.dir}/")
        return 0
    argv = _runtime(args, usage)
    try:
        machine, sequences, manifest = load_vectors(args.dir)
    except VectorError as error:
        raise usage(str(error)) from None
    total = manifest.get("edges_total")
    return _drive_and_report(args, machine, sequences, argv, write, usage, total if type(total) is int else None)


def conform_command(args: argparse.Namespace, bounds: Any, usage: type[Exception], write: Any) -> int:
    """The `conform` handler; `usage` is the CLI's UsageError, `write(path, text)` its file writer."""
    if args.strict and args.properties:
        raise usage("conform: --strict and --properties exclude each other")
    argv = _runtime(args, usage)
    if args.standing is not None and format_of(args.standing) is None:
        raise usage(f"--standing {args.standing}: the extension must be .json, .md or .html")
    _counting(bounds, "conform", usage)
    machine, sequences = machine_of(args, bounds), None
    if args.sequence is not None:
        machine, sequences = _sequence(args.sequence, usage)
        args.sequence_steps = len(sequences[0].steps)
    return _drive_and_report(args, machine, sequences, argv, write, usage)


def _drive_and_report(args: argparse.Namespace, machine: Machine, sequences: Any, argv: list[str], write: Any,
                      usage: type[Exception], edges_total: int | None = None) -> int:
    mode = "properties" if args.properties else STRICT
    try:
        adapter: Adapter = Subprocess(argv, timeout=args.timeout)
    except RuntimeFault as fault:
        raise usage(str(fault)) from None
    try:
        with Reporter("conform", color=not args.no_color) as reporter:
            show = reporter.status("conform")
            total = edges_total if edges_total is not None else _edges(machine) if sequences is None else None
            show(f"0/{total:,} edges judged" if total else "started")
            started = time.monotonic()

            def progress(count: int, steps: int, edges: int) -> None:
                seconds = time.monotonic() - started
                rate = steps / max(seconds, 1e-9)
                of = f"/{total:,}" if total else ""
                show(f"{count:,} sequences, {steps:,} steps ({rate:,.0f}/s), {edges:,}{of} edges judged"
                     + left(edges, total, seconds))

            regression = getattr(args, "sequence", None) is not None
            result = conform(adapter, machine, mode=mode, max_sequences=getattr(args, "max_sequences", None),
                             sequences=sequences, progress=progress, edges_total=edges_total,
                             shrink=not regression or bool(getattr(args, "shrink", False)))
    except ConformError as error:
        raise usage(f"conform: {error}") from None
    finally:
        adapter.close()
    return _report(args, machine, result, argv, write)


COUNTED = 100_000  # the most states of a graph whose edges are counted before driving (73,409 at the defaults)


def _edges(machine: Machine) -> int | None:
    """The edges (state, action) of the reachable graph, which the covering sequences take once each: the
    total a progress line counts towards, where the graph is small enough to count first (a search without
    properties of at most `COUNTED` states: about a second at the defaults). A larger graph is not counted:
    the sequences stream from the walk at once, and the total is known when the walk ends (None here).

    The search keeps what it found when a limit or an interrupt stops it, as a search should; here that
    would swallow the command's stop (the limit's watchdog stands down once it has raised), and conform
    would carry on, with a wrong total, until the hard stop: the stop is raised again instead."""
    result = explore(dataclasses.replace(machine, properties=()), Limits(max_states=COUNTED))
    if result.stopped == "max-states":
        return None
    raise_stop(result.stopped)
    return result.transitions


def fuzz_command(args: argparse.Namespace, bounds: Any, usage: type[Exception], write: Any) -> int:
    """The `fuzz` handler: random behaviours of the model, with a runtime in lockstep if one is named."""
    from ..oracle.fuzz import fuzz  # Hypothesis is imported only by this command

    if args.examples < 1 or args.steps < 1:
        raise usage("--examples and --steps must be at least 1")
    if args.runtime:
        _counting(bounds, "fuzz", usage)
    machine = machine_of(args, bounds)
    argv = _runtime(args, usage) if args.runtime else []
    adapter = None
    try:
        adapter = Subprocess(argv, timeout=args.timeout) if argv else None
        with Reporter("fuzz", color=not args.no_color) as reporter:
            done = reporter.count(f"behaviours of up to {args.steps} steps", args.examples, "run")
            result = fuzz(machine, adapter, examples=args.examples, steps=args.steps,
                          mode=PROPERTIES if args.properties else STRICT,
                          progress=lambda examples, steps: done(min(examples, args.examples),
                                                                note=f"{steps:,} steps in all"))
    except (RuntimeFault, ConformError) as error:
        raise usage(f"fuzz: {error}") from None
    finally:
        if adapter is not None:
            adapter.close()
    failure, target = result.failure, (" ".join(argv) or "the model")
    trace = None
    if failure is not None:
        trace = args.out or Path("fuzz.itf.json")
        command = "pausecheck fuzz" + (" -- " + " ".join(argv) if argv else "")
        outcome = ConformResult(target, "properties" if args.properties else STRICT, result.examples, result.steps,
                                0, 0, False, result.seconds, failure)
        document = divergence_document(machine, outcome, command) if argv else _violation(machine, failure, command)
        write(trace, dumps(document))
    if args.json:
        print(json.dumps({"target": target, "examples": result.examples, "steps": result.steps,
                          "seconds": round(result.seconds, 3), "bounds": machine.bounds.as_dict(),
                          "failure": None if failure is None else {
                              "step": failure.step, "found_at": failure.found_at, "kind": failure.kind,
                              "property": failure.property, "message": failure.message,
                              "clauses": list(failure.clauses), "trace": str(trace)}},
                         sort_keys=True, indent=2))
        return 1 if failure else 0
    out = console(color=not args.no_color)
    bounds_text = " ".join(f"{k.replace('_', '-')}={v}" for k, v in machine.bounds.as_dict().items())
    out.print(f"pausecheck fuzz: {target}, reading {machine.reading.name}{under(machine.rules)}", markup=False)
    out.print(f"bounds: {bounds_text}", markup=False)
    asked = f" ({args.examples:,} asked by --examples: Hypothesis starts a few more than it keeps)" \
        if result.examples > args.examples else ""
    out.print(f"ran {result.examples:,} behaviours{asked}, {result.steps:,} steps in {result.seconds:.1f} s",
              markup=False)
    if failure is None:
        judged = "every always and transition property held" + (" and the runtime agreed with the model"
                                                               if argv else "")
        out.print(f"[ok] {judged} on every step (random behaviours: no claim of completeness)", markup=False)
        return 0
    out.print(f"[fail] step {failure.step} (shrunk from a failure at step {failure.found_at}): "
              f"{printable(failure.message)}", markup=False)
    out.print(f"clauses: {' '.join(failure.clauses) or '-'}; written to {trace}: `pausecheck replay {trace}`",
              markup=False)
    return 1


def shrink_runtime_command(args: argparse.Namespace, machine: Machine, actions: list[Any], out: Path,
                           usage: type[Exception], write: Any) -> int:
    """`shrink FILE --runtime -- CMD`: cut the trace down while the runtime, re-run each time, still diverges."""
    argv = _runtime(args, usage)
    path = path_of(machine, actions)
    if path is None:
        raise usage(f"{args.file}: a step is not enabled in the model")
    mode = PROPERTIES if args.properties else STRICT
    reset = {"type": "reset", "bounds": machine.bounds.as_dict(), "reading": machine.reading.name}
    try:
        adapter = Subprocess(argv, timeout=args.timeout)
    except RuntimeFault as fault:
        raise usage(str(fault)) from None
    try:
        hello = handshake(adapter, machine)
        held, restart = bool(hello.get("held")), bool(hello.get("restart"))

        def fails(tried: list[Any]) -> Divergence | None:
            steps = path_of(machine, tried)
            return None if steps is None else drive(adapter, machine, Sequence(tuple(steps), 0), reset, mode, held,
                                                    restart)

        with Reporter("shrink", color=not args.no_color) as reporter:
            reporter.status("shrink")(f"{len(actions)} steps against {' '.join(argv)}")
            first = fails(actions)
            shrunk = None if first is None else minimise(first, fails)
            if shrunk is not None:
                shrunk = shrink_divergence(adapter, machine, shrunk, reset, mode, held, restart)
    except ConformError as error:
        raise usage(f"shrink: {error}") from None
    finally:
        adapter.close()
    if shrunk is None:
        say(f"[no divergence] {args.file}: the runtime agrees with the model on all {len(actions)} steps")
        return 1
    result = ConformResult(" ".join(argv), mode, 1, len(shrunk.steps), 0, 0, False, 0.0, shrunk)
    document = divergence_document(machine, result, f"pausecheck shrink {args.file} --runtime -- {' '.join(argv)}")
    write(out, dumps(document))
    sys.stdout.write(render(document, f"pausecheck replay {out}"))
    say(f"[shrunk] {len(actions)} steps -> {shrunk.step} steps on which the runtime still diverges, "
          f"written to {out}")
    return 0


def _violation(machine: Machine, failure: Any, command: str) -> dict[str, Any]:
    """The ITF trace of a model property broken during fuzzing: replays as that property's violation."""
    states = (machine.init_states()[0],) + tuple(post for _, _, post in failure.steps)
    discovery = Discovery(states, tuple(action for _, action, _ in failure.steps), failure.message)
    return trace_of(machine, discovery, name=failure.property, command=command)


def _sequence(path: Path, usage: type[Exception]) -> tuple[Machine, list[Sequence]]:
    """The model's path of a trace file, as one sequence whose every step is judged."""
    file = str(path)
    try:
        document = load_trace(path)
        machine = machine_for(document["#meta"], file)
        actions = decode_actions(document, file)
    except TraceError as error:
        raise usage(str(error)) from None
    state, steps = machine.init_states()[0], []
    for i, action in enumerate(actions, 1):
        post = machine.step(state, action)
        if post is None:
            raise usage(f"{file}: step {i} ({action}) is not enabled in the model")
        steps.append((state, action, post))
        state = post
    return machine, [Sequence(tuple(steps), 0)]


def validate_command(args: argparse.Namespace, usage: type[Exception], write: Any) -> int:
    """The `validate` handler: a log the runtime wrote, re-executed on the model."""
    try:
        machine, result = validate_log(args.log, PROPERTIES if args.properties else STRICT)
    except LogError as error:
        raise usage(str(error)) from None
    return _report(args, machine, result, [], write)


def _report(args: argparse.Namespace, machine: Machine, result: ConformResult, argv: list[str], write: Any) -> int:
    log = getattr(args, "log", None)
    mode = "--properties " if args.properties else ""
    command = f"pausecheck validate {mode}{log}" if log else f"pausecheck conform {mode}-- " + " ".join(argv)
    trace, document = None, None
    if result.divergence is not None:
        trace = not_over(args.out or Path("divergence.itf.json"), "divergence")
        document = divergence_document(machine, result, command)
        write(trace, dumps(document))
    published, page = getattr(args, "standing", None), None
    if published is not None:
        fmt = format_of(published) or "json"
        page = standing(result, machine, " ".join(argv), str(trace) if trace else None)
        write(published, render_standing(page, fmt))
    missed = _unexercised(args, machine, result)
    if getattr(args, "junit", None) is not None:
        vectors = args.command == "vectors"
        write(args.junit, junit_xml(result, "pausecheck vectors check" if vectors else "pausecheck conform",
                                    str(trace) if trace else None, missed,
                                    [f"vector {k}" for k in range(1, result.sequences + 1)] if vectors else None))
    accepted = bool(getattr(args, "accept_unexercised", False))
    code = 1 if result.divergence is not None else 3 if not result.ok or (missed and not accepted) else 0
    if args.json:
        print(json.dumps(_json(result, trace, code) | {
            "unexercised": [{"need": u.need, "clauses": list(u.clauses), "witnesses": list(u.witnesses)}
                            for u in missed],
            "accept_unexercised": accepted}, sort_keys=True, indent=2))
        return code
    out = console(color=not args.no_color)
    bounds = " ".join(f"{k.replace('_', '-')}={v}" for k, v in machine.bounds.as_dict().items())
    out.print(f"pausecheck {args.command}: {result.runtime} ({result.mode}), reading {machine.reading.name}"
              f"{under(machine.rules)}",
              markup=False)
    out.print(f"bounds: {bounds}", markup=False)
    d = result.divergence
    if document is not None:
        out.print(render(document, None).rstrip("\n"), markup=False)
    rate = result.steps / max(result.seconds, 1e-9)
    coverage = f"{result.coverage:.1%} of the reachable graph's edges" if result.coverage is not None else \
        "coverage unknown: not every sequence ran"
    if log:
        out.print(f"re-executed {result.steps:,} steps of the log and judged {result.edges:,} observations "
                  f"in {result.seconds:.1f} s", markup=False)
    elif getattr(args, "sequence", None) is not None:  # a regression test: that sequence, not the graph
        of = getattr(args, "sequence_steps", None)
        judged = f"{result.steps:,} step(s) of the {of:,} of {args.sequence}" if of else \
            f"{result.steps:,} step(s) of {args.sequence}"
        out.print(f"drove {judged} in {result.seconds:.1f} s", markup=False)
    else:
        out.print(f"drove {result.sequences:,} sequences, {result.steps:,} steps in {result.seconds:.1f} s "
                  f"({rate:,.0f} steps/s); {result.edges:,} edges judged, {coverage}", markup=False)
    if result.macros:
        out.print(grain_line(result.macros), markup=False)
    if result.skipped:
        out.print(f"{result.skipped:,} edges skipped: the runtime does not declare the model's steps "
                  f"{', '.join(result.undeclared)}", markup=False)
    for line in summary(missed):
        out.print(line, markup=False)
    if d is not None:
        out.print(f"[diverged] step {d.step} ({d.kind}): {printable(d.message)}", markup=False)
        also = "".join(f", then {name}'s, which it breaks too" for name in d.also)
        broke = f" (first those of {d.property}, which it breaks{also}; then the step's)" if d.property else ""
        out.print(f"clauses: {' '.join(d.clauses) or '-'}{broke}", markup=False)
        if result.macros:
            out.print(f"step {d.step} is the runtime's; the model's path to it takes {len(tuple(fine(d.steps)))} steps "
                      "(the trace has each macro's parts)", markup=False)
        if d.restarts:
            out.print("the runtime was restarted after " + ", ".join(f"step {s}" for s in d.restarts)
                      + " (the trace marks each restart)", markup=False)
        again = f"; `pausecheck conform --sequence {trace} -- {' '.join(argv)}` drives the runtime through it again" \
            if argv else ""
        out.print(f"the model's path is written to {trace}: `pausecheck replay {trace}` shows it{again}", markup=False)
    elif log and not result.complete:
        judged = f"no action was judged, only {result.edges:,} observation(s) of the initial state (they agree)" \
            if result.edges else "nothing was judged"
        out.print(f"[incomplete] the log has no step (no apply line): {judged}", markup=False)
    elif not result.ok:
        out.print("[incomplete] no divergence in what ran, but not every edge was judged", markup=False)
    else:
        out.print(_agreed(args, result, missed, accepted), markup=False)
    if page is not None:
        out.print(f"standing written to {published}: {page['covered']} of {page['clauses_total']} clauses covered"
                  + ("" if page["covered"] == page["clauses_total"] else " (it names what would cover the rest)"),
                  markup=False)
    return code


def grain_line(macros: tuple[str, ...]) -> str:
    """What driving at a runtime's grain leaves unchecked, in one line."""
    cannot = "; ".join(f"{clause}, {why}" for clause, why in unchecked(macros))
    return (f"driven at the runtime's grain: it performs {', '.join(macros)} as one step (hello: macros), so this "
            f"run cannot check {cannot}")


def _agreed(args: argparse.Namespace, result: ConformResult, missed: tuple[Unexercised, ...], accepted: bool) -> str:
    """The verdict of a run with no divergence: what it judged, and what its bounds left out."""
    if getattr(args, "log", None):
        what = "equals the model's" if result.mode == STRICT else "keeps every black-box property"
        judged = f"every step of the log is one the model allows, and everything it showed {what}"
    elif args.command == "vectors":
        judged = (f"the runtime passes all {result.sequences:,} vectors of {args.dir}, which take "
                  f"{result.coverage or 0:.1%} of the reachable graph's edges at these bounds")
    elif getattr(args, "sequence", None) is not None:
        return f"[ok] the runtime agrees with the model on every step of {args.sequence} (that sequence alone)"
    else:
        what = "observations equal the model's" if result.mode == STRICT else \
            "observations keep every black-box property"
        judged = f"the runtime's {what} on every edge of the reachable graph"
    if not missed:
        return f"[ok] {judged}"
    clauses, witnesses = sum(len(u.clauses) for u in missed), sum(len(u.witnesses) for u in missed)
    counted = " and ".join(part for part in (f"{clauses} clause{'s' * (clauses != 1)}" * bool(clauses),
                                             f"{witnesses} witness{'es' * (witnesses != 1)}" * bool(witnesses)) if part)
    if accepted:
        return f"[ok] {judged}; {counted} not exercised, accepted (listed above)"
    return f"[incomplete] {judged}, but {counted} not exercised (listed above; --accept-unexercised accepts them)"


def _unexercised(args: argparse.Namespace, machine: Machine, result: ConformResult) -> tuple[Unexercised, ...]:
    """What the run left out, when it ran to its end without a divergence (a --sequence claims only itself)."""
    if result.divergence is not None or not result.ok or getattr(args, "sequence", None) is not None:
        return ()
    if getattr(args, "log", None):
        here: str | None = "a log whose steps reach it"
    elif result.edges_total is not None and result.edges < result.edges_total:
        here = "every vector (vectors export without --max-vectors)"
    else:
        here = None
    return unexercised(machine, result.clause_edges, result.witnessed, here)


def _json(result: ConformResult, trace: Path | None, code: int) -> dict[str, Any]:
    d = result.divergence
    return {
        "runtime": result.runtime, "mode": result.mode, "sequences": result.sequences, "steps": result.steps,
        "edges": result.edges, "skipped": result.skipped, "undeclared": list(result.undeclared),
        "complete": result.complete,
        "coverage": result.coverage, "seconds": round(result.seconds, 3), "exit": code, "macros": list(result.macros),
        "divergence": None if d is None else {
            "step": d.step, "kind": d.kind, "message": d.message, "clauses": list(d.clauses),
            "property": d.property, "field": d.field, "restarts": list(d.restarts), "expected": d.expected,
            "actual": d.actual, "trace": str(trace)},
    }

"""The commands: each is one library call plus rendering.

Exit codes (`EXIT` in the parser's help): 0 every check passed; 1 a finding (a violation, a vacuous
property, a missing witness, a deadlock); 2 a usage or input error (one line on stderr, never a
traceback); 3 incomplete (stopped at a limit, or something the bounds cannot exercise); 4 an internal
error (`cli.INTERNAL`).
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from pausecheck.model import MODEL_VERSION, BoundError, Bounds, reading_named
from pausecheck.model.liveness import FAIR
from pausecheck.model.machine import DEADLOCK, DEADLOCK_DOC
from pausecheck.traces.input_file import say
from pausecheck.traces.itf import TraceError, dumps, load_trace
from pausecheck.traces.python import reproduction
from pausecheck.traces.render import render
from pausecheck.traces.replay import decode_actions, replay

from pausecheck import __version__

from ..console import Reporter, console
from ..diff import behaviour_documents, diff, summary
from ..flags import any_sessions, bounds_of, limit_flags
from ..mutants import Mutant, catalogue, catalogue_problem, mutant_named, unknown_mutant
from ..mutants.evidence import Evidence, command_line, document_for, evidence_of, machine_for, trace_name
from ..mutants.flips import flip_matrix
from ..mutants.golden import golden_documents
from ..mutants.killmatrix import KillMatrix, kill_matrix
from ..report.drafted import DraftSection
from ..report.html import html_report
from ..report.killtext import print_mutants
from ..report.markdown import markdown_report
from ..report.text import check_json, print_check
from ..search.budget import active
from ..search.checkpoint import FILE, Checkpoint, CheckpointError
from ..search.explore import Limits
from ..search.graph import GraphTooLarge, around, state_graph, transitions, write_graph
from ..search.levels import DRIVER
from ..search.parallel import workers
from ..shrink import shrink
from ..spin.promela import TooLarge, capacities, promela
from ..verdict import Report, check
from .consistency import consistency_command
from .diff import DIFF_KIND, diff_command, how_decided
from .draft import draft_given, machine_of, rules_of
from .explore import explore_command
from .inputs import not_over, note
from .oracle import conform_command, fuzz_command, shrink_runtime_command, validate_command, vectors_command
from .prove import engines_command, prove_command
from .readings import counter as _counter
from .readings import first_searches, readings_command
from .spin import spin_command, spin_flags_given

__all__ = ["HANDLERS", "UsageError"]

FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)  # the disk took nothing: exit 1, not 2

GRAPH_LIMIT = 20_000  # states a whole-graph export may hold unless --max-states says otherwise


class UsageError(Exception):
    """Bad input found by pausecheck itself (not argparse): one line on stderr, exit 2."""


def _bounds(args: argparse.Namespace) -> Bounds:
    args.any_sessions = any_sessions(args)
    try:
        bounds = bounds_of(args)
    except BoundError as error:
        raise UsageError(str(error)) from None
    if getattr(args, "max_states", None) is not None and args.max_states < 1:
        raise UsageError("--max-states must be at least 1")
    return bounds


def _limits(args: argparse.Namespace) -> Limits:
    """The early stops the user asked for: states, and the seconds and memory left of the command's budget
    (its clock started with the command: the set-up counts)."""
    limits = Limits(max_states=args.max_states, max_seconds=getattr(args, "max_seconds", None),
                    max_memory=getattr(args, "max_memory", None))
    budget = active()
    return limits if budget is None else budget.limits(limits)


def _write(path: Path, text: str) -> Path:
    """Write a file (creating its folder), never over a file this run reads (`inputs.not_over`); returns the
    path written. Any problem is a UsageError naming the path."""
    path = not_over(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        if error.errno in FULL:  # a full disk: exit 1 like every other output that was lost
            error.filename = str(path)
            raise
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    return path


# The flags that name where a command writes, and whether each names a folder (else a file).
OUTPUTS = {"out": None, "golden": True, "standing": False, "junit": False}
FOLDER_OUT = {"check", "readings", "prove", "diff"}  # their --out is a folder


def writable_outputs(args: argparse.Namespace) -> None:
    """Before any work: every place the command will write can be written (a UsageError in one line if
    not), so that a long search never ends in a path it cannot write. `--list` writes nothing. A file
    output that names a file the command reads is moved beside it first (`inputs.not_over`)."""
    note(args)
    if getattr(args, "list", False):
        return
    for flag, folder in OUTPUTS.items():
        path = getattr(args, flag, None)
        if not isinstance(path, Path):
            continue
        folder = args.command in FOLDER_OUT if folder is None else folder
        if not folder:
            path = not_over(path)
            setattr(args, flag, path)
        where = path if folder else path.parent
        existing = where
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise UsageError(f"cannot write {path}: {existing} is not a folder")
        try:
            with tempfile.TemporaryFile(dir=existing):
                pass
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from None


def _write_all(folder: Path, documents: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Write file name -> ITF document under `folder`; returns file name -> path written."""
    paths = {}
    for name, document in documents.items():
        _write(folder / name, dumps(document))
        paths[name] = str(folder / name)
    return paths


def _checkpoint(args: argparse.Namespace, bounds: Bounds) -> tuple[Checkpoint | None, bool]:
    """The checkpoint the flags ask for, and whether to resume from it (--resume DIR keeps saving there)."""
    folder = getattr(args, "resume", None) or getattr(args, "checkpoint", None)
    if folder is None:
        return None, False
    stored = tuple(option for option in ("symmetry", "compact", "fingerprint") if getattr(args, option, False))
    draft = draft_given(args)
    key = (__version__, MODEL_VERSION, tuple(bounds.as_dict().items()), args.reading, None, stored) \
        + ((draft.sha256,) if draft is not None else ())  # a checkpoint of a draft resumes only under that text
    return Checkpoint(folder, args.checkpoint_every, key), getattr(args, "resume", None) is not None


def _run_check(args: argparse.Namespace, bounds: Bounds, reporter: Reporter) -> Report:
    checkpoint, resume = _checkpoint(args, bounds)
    try:
        if checkpoint is not None:
            checkpoint.sealable()  # the key is there (or made) before any work, not at the first save
        return _checked(args, bounds, reporter, checkpoint, resume)
    except CheckpointError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        if checkpoint is None or error.filename is None or error.errno in FULL:
            raise
        raise UsageError(f"cannot write the checkpoint {error.filename}: {error.strerror}") from None


def _spread(args: argparse.Namespace, checkpoint: Checkpoint | None) -> dict[str, Any]:
    """The processes the main search is spread over (--workers, --ray), checked before any work."""
    workers, cluster = getattr(args, "workers", 1), getattr(args, "ray", None)
    if workers == 1 and cluster is None:
        return {}
    flag = "--ray" if cluster is not None else "--workers"
    if checkpoint is not None and cluster is not None:
        raise UsageError("--ray: a search on Ray cannot be checkpointed (use --workers on one machine, or drop "
                         "--checkpoint/--resume)")
    if checkpoint is not None and getattr(args, "compact", False):
        raise UsageError(f"{flag} and --compact: a search spread over processes keeping compact states cannot be "
                         "checkpointed yet (keep them exactly, or as --fingerprint)")
    if cluster is not None and importlib.util.find_spec("ray") is None:
        raise UsageError("--ray needs Ray: pip install 'pausecheck[ray]'")
    return {"workers": workers, "cluster": cluster}


def _resumable(folder: Path, workers: int, fingerprints: bool) -> None:
    """Refuse, in one line, to resume a checkpoint of one process over several, or the other way round."""
    spread = workers > 1 or fingerprints  # a fingerprint search is checkpointed through the spread search
    if not spread and not (folder / FILE).exists() and (folder / DRIVER).exists():
        raise UsageError(f"{folder}: a checkpoint of a search spread over processes (resume it with the --workers "
                         "and --fingerprint it ran with)")


def _checked(args: argparse.Namespace, bounds: Bounds, reporter: Reporter, checkpoint: Checkpoint | None,
             resume: bool) -> Report:
    symmetric = {"symmetry": True} if getattr(args, "symmetry", False) else {}
    symmetric.update(_spread(args, checkpoint))
    if getattr(args, "fingerprint", False):
        symmetric["fingerprints"] = True
    if resume and checkpoint is not None:
        _resumable(checkpoint.folder, symmetric.get("workers", 1), symmetric.get("fingerprints", False))
    if getattr(args, "compact", False):
        if getattr(args, "fingerprint", False):
            raise UsageError("--compact and --fingerprint: choose one way to keep the visited states")
        symmetric["compact"] = True
    return check(bounds, args.reading, limits=_limits(args), companion=args.companion, checkpoint=checkpoint,
                 resume=resume, accept_unexercised=args.accept_unexercised, liveness=args.liveness,
                 progress=reporter.search, rules=rules_of(args, bounds), fairness=args.fairness, **symmetric)


def _check(args: argparse.Namespace) -> int:
    bounds = _bounds(args)
    if args.engines is not None and args.engine == "spin":
        raise UsageError("--engine spin and --engines: choose one (--engines compares bfs with z3's bmc)")
    if args.engines is not None and args.fairness != FAIR and "spin" not in args.engines:
        raise UsageError("--fairness: --engines bfs,bmc compares no liveness property (--engines bfs,spin does)")
    if args.engines is not None:
        return engines_command(args, bounds, reading_named(args.reading), UsageError)
    if args.engine == "spin":
        return spin_command(args, bounds, UsageError, _write)
    if spin_flags_given(args):
        raise UsageError(f"{' '.join(spin_flags_given(args))}: a flag of --engine spin (add --engine spin)")
    with Reporter("check", color=not args.no_color) as reporter:
        report = _run_check(args, bounds, reporter)
    evidence = evidence_of(report)
    paths = {}  # property name -> the file its trace was written to
    for e in evidence if args.out else ():
        paths[e.name] = str(args.out / trace_name(e.document["#meta"]["verdict"], e.name))
        _write(Path(paths[e.name]), dumps(e.document))
    if args.json:
        print(json.dumps(check_json(report, paths), sort_keys=True, indent=2))
        return report.exit_code
    renders = [render(e.document, f"pausecheck replay {paths[e.name]}" if e.name in paths else e.command)
               + reproduction(e.document) for e in evidence if e.counterexample]
    where = f"{args.out}/ ({len(paths)} files)" if args.out else None
    out = console(color=not args.no_color)
    print_check(out, report, renders, command_line(bounds, args.reading, _options(args), rules=report.machine.rules,
                                                   fairness=report.machine.fairness),
                where, verbose=args.verbose)
    return report.exit_code


def _options(args: argparse.Namespace) -> str:
    """The flags beyond bounds and reading that shaped a check (its limits and the way states were
    kept), as they are typed, so that the "reproduce with" line reruns the same search."""
    words = limit_flags(args)
    flags = {"symmetry": "--symmetry", "compact": "--compact", "fingerprint": "--fingerprint",
             "accept_unexercised": "--accept-unexercised"}
    words += [flag for name, flag in flags.items() if getattr(args, name, False)]
    words += [flag for name, flag in (("companion", "--no-companion"), ("liveness", "--no-liveness"))
              if not getattr(args, name, True)]
    if getattr(args, "workers", 1) > 1:  # the same figures as one process; rerun as fast as it ran
        words.append(f"--workers {args.workers}")
    ray = getattr(args, "ray", None)
    if ray is not None:
        words.append(f"--ray {ray}".rstrip())
    return " ".join(words)


def _replay(args: argparse.Namespace) -> int:
    file = str(args.file)
    try:
        document = load_trace(args.file)
        outcome = replay(document, machine_for(document["#meta"], file), file)
    except TraceError as error:
        raise UsageError(str(error)) from None
    meta = document["#meta"]
    if outcome.diverged_at is not None:
        say(f"[diverged] {file}: {outcome.divergence}")
        return 1
    if not args.quiet:
        sys.stdout.write(render(document, headline=False))
    if meta.get("verdict") == "divergence" and outcome.reproduced:
        say(f"[replayed] {file}: all {outcome.steps} steps match the model; {outcome.message}")
        return 1
    if meta.get("kind") == DIFF_KIND and outcome.reproduced:
        say(f"[replayed] {file}: all {outcome.steps} steps match the model: a behaviour {meta.get('verdict')} "
            f"({outcome.message})")
        return 0
    what = {"violation": "breaks", "witness": "witnesses", "deadlock": "reaches"}.get(meta.get("verdict"), "shows")
    clauses = " ".join(meta.get("clauses") or ())
    claim = f"{what} {meta.get('property')}" + (f" ({clauses})" if clauses else "")
    if outcome.reproduced:
        detail = meta.get("explanation") or outcome.message
        say(f"[replayed] {file}: all {outcome.steps} steps match the model and the trace {claim}"
              + (f": {detail}" if detail else ""))
        return 1 if meta.get("verdict") in ("violation", "deadlock") else 0
    note = f" ({outcome.message})" if outcome.message else ""
    say(f"[replayed] {file}: all {outcome.steps} steps match the model, but the trace no longer shows "
          f"{meta.get('property')}{note}")
    return 1


_DEVICES = (Path("/dev"), Path("/dev/fd"), Path("/proc/self/fd"))


def _shrink(args: argparse.Namespace) -> int:
    file = str(args.file)
    try:
        document = load_trace(args.file, complete=False)
        meta = document["#meta"]
        machine = machine_for(meta, file)
        actions = decode_actions(document, file)
    except TraceError as error:
        raise UsageError(str(error)) from None
    stem = args.file.name.removesuffix(".itf.json").removesuffix(".json")
    # beside the input if it is a file; in the current folder if it is a pipe or a device (/dev/stdin, /dev/fd/3),
    # though a file under a folder of /dev (a trace in /dev/shm) is a file like any other
    beside = args.file.is_file() and args.file.parent not in _DEVICES
    out = args.out or (args.file.with_name(stem) if beside else Path(stem)).with_name(stem + ".shrunk.itf.json")
    if args.against_runtime:
        return shrink_runtime_command(args, machine, actions, out, UsageError, _write)
    if args.runtime:
        raise UsageError("shrink: a command after -- is shrunk against only with --runtime")
    name = meta.get("property")
    prop = next((p for p in machine.properties if p.name == name), None)
    if name != DEADLOCK and (prop is None or prop.kind == "sometimes"):
        raise UsageError(f'{file}: $["#meta"].property: {name!r} is not a property that can be broken')
    with Reporter("shrink", color=not args.no_color) as reporter:
        found = shrink(machine, actions, name, reporter.search(f"{len(actions)} steps"), exact=args.exact)
    if found is None:
        say(f"[not broken] {file}: no sub-behaviour of its {len(actions)} steps breaks {name}")
        return 1
    kind, clauses = (DEADLOCK, ()) if prop is None else (prop.kind, prop.clauses)
    shrunk = document_for(machine, found, name=name, kind=kind, clauses=clauses,
                          verdict=DEADLOCK if prop is None else "violation",
                          description=DEADLOCK_DOC if prop is None else prop.doc,
                          command=f"pausecheck shrink {file}", mutant=meta.get("mutant"))
    out = _write(out, dumps(shrunk))
    sys.stdout.write(render(shrunk, f"pausecheck replay {out}") + reproduction(shrunk))
    say(f"[shrunk] {len(actions)} steps -> {len(found.actions)} steps, written to {out}")
    return 0


def _chosen(names: list[str] | None) -> list[Mutant]:
    problem = catalogue_problem()
    if problem is not None:  # the rules lost a statement the deviations name: no mutant can be built
        raise CatalogueUnavailable(problem)
    try:
        return [mutant_named(n) for n in names] if names else list(catalogue())
    except KeyError as error:
        raise UsageError(unknown_mutant(error.args[0])) from None


def _run_mutants(chosen: list[Mutant], reporter: Reporter, jobs: int | None = None, on_ray: bool = False,
                 draft: Any = None) -> KillMatrix:
    """Every chosen mutant's search, one per core at once (progress as each ends), on a Ray cluster, or
    one at a time (progress inside each search); each deviates from `draft` (a Draft), else the rules."""
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if on_ray:
        if importlib.util.find_spec("ray") is None:
            raise UsageError("--ray needs Ray: pip install 'pausecheck[ray]'")
        return kill_matrix(chosen, on_ray=True, done=reporter.batch("mutants", len(chosen)), draft=draft)
    if (jobs or workers()) > 1 and len(chosen) > 1:
        return kill_matrix(chosen, jobs=jobs, done=reporter.batch("mutants", len(chosen)), draft=draft)
    start, inside = reporter.tasks("mutants", len(chosen))
    return kill_matrix(chosen, progress=start, searching=inside, jobs=1, draft=draft)


class CatalogueUnavailable(Exception):
    """The mutant catalogue cannot be built against the rules (they lost a statement a deviation names)."""


def _mutants(args: argparse.Namespace) -> int:
    try:
        chosen = _chosen(args.only)
    except CatalogueUnavailable as error:
        say(f"[incomplete] {error}")
        return 3
    out = console(color=not args.no_color)
    draft = draft_given(args)
    base = rules_of(args)
    if args.list:
        gone = 0
        for m in chosen:
            problem = m.problem(base)
            gone += problem is not None
            out.print(f"{m.name}  ({' '.join(m.clauses)})", markup=False)
            out.print(f"    {m.doc}" + (f" [equivalent: {m.reason}]" if m.equivalent else "")
                      + (f" [no longer applies: {problem}]" if problem else ""), markup=False)
        return 3 if gone else 0
    with Reporter("mutants", color=not args.no_color) as reporter:
        matrix = _run_mutants(chosen, reporter, args.jobs, args.ray, draft)
    if args.json:
        print(json.dumps(matrix.to_json(), sort_keys=True, indent=2))
    else:
        print_mutants(out, matrix, {m.name: m.target for m in chosen}, every_mutant=not args.only,
                      verbose=args.verbose)
    if args.golden:
        written = _write_all(args.golden, golden_documents(matrix))
        print(f"wrote {len(written)} golden traces to {args.golden}/", file=sys.stderr if args.json else sys.stdout)
    untested = [p.name for p in matrix.properties if not p.killers]
    if matrix.survivors or matrix.refuted or matrix.base_broken:  # the base breaking a property is a violation
        return 1
    if matrix.not_applying:  # not every mutant was searched: nothing is established of what the rest would kill
        return 3
    return 1 if untested and not args.only else 0


def _report(args: argparse.Namespace) -> int:
    bounds = _bounds(args)
    if args.no_pairs and not args.readings:
        raise UsageError("--no-pairs applies to the readings section: add --readings")
    with Reporter("report", color=not args.no_color) as reporter:
        report = _run_check(args, bounds, reporter)
        matrix = _run_mutants(list(catalogue()), reporter, draft=draft_given(args)) if args.mutants else None
        flips = flip_matrix(bounds, pairs=not args.no_pairs, draft=draft_given(args),
                            done=_counter(reporter.status("readings"), first_searches(bounds))) \
            if args.readings else None
    evidence: list[Evidence] = evidence_of(report)
    drafted = _drafted(args, bounds, report)
    if args.format == "html":
        page = html_report(report, evidence, matrix, readings=flips, drafted=drafted)
    else:
        page = markdown_report(report, evidence, matrix, readings=flips, drafted=drafted)
    _write(args.out, page)
    stopped = report.result.stopped
    verdict = "[ok]" if report.exit_code == 0 else "[incomplete]" if report.exit_code == 3 else "[fail]"
    by = f"--{stopped}" if stopped and stopped.startswith("max-") else "an interruption"
    why = f" (the search was stopped by {by}: what it reached)" if stopped else ""
    print(f"{verdict} report of {len(report.clauses)} clauses, {len(report.properties)} properties and "
          f"{len(evidence)} traces written to {args.out}{why}")
    return report.exit_code


def _drafted(args: argparse.Namespace, bounds: Bounds, report: Report) -> DraftSection | None:
    """Under --draft: what the draft changes against the rules (the rules checked too: one more search)."""
    draft = draft_given(args)
    if draft is None:
        return None
    reading = reading_named(args.reading)
    found = diff(bounds, reading, draft, liveness=args.liveness, limits=_limits(args), catalogue=catalogue(),
                 checked=summary(report))
    command = command_line(bounds, reading.name, f"--draft {draft.path}", "pausecheck diff")
    return DraftSection(found, behaviour_documents(found, draft, None, bounds, reading, command), draft.path,
                        how_decided(found))


def _graph(args: argparse.Namespace) -> int:
    bounds = _bounds(args)
    limit = args.max_states or GRAPH_LIMIT
    if args.radius < 0:
        raise UsageError("--radius must be at least 0")
    try:
        if args.around is None:
            with Reporter("graph", color=not args.no_color) as reporter:
                graph = state_graph(machine_of(args, bounds), max_states=limit,
                                    progress=reporter.search("graph"))
        else:
            file = str(args.around)
            try:
                document = load_trace(args.around)
                machine = machine_for(document["#meta"], file)
                trail = replay(document, machine, file)
            except TraceError as error:
                raise UsageError(str(error)) from None
            if trail.diverged_at is not None:
                raise UsageError(f"{file}: {trail.divergence}")
            graph = around(machine, trail.states, radius=args.radius, max_states=limit)
    except GraphTooLarge as error:
        raise UsageError(str(error)) from None
    _write(args.out, "")  # fail early and in one line on a path that cannot be written
    write_graph(graph, args.format, args.out)
    print(f"wrote {graph.number_of_nodes():,} states and {transitions(graph):,} transitions "
          f"({args.format}) to {args.out}")
    return 0


def _export(args: argparse.Namespace) -> int:
    bounds, reading = _bounds(args), reading_named(args.reading)
    if args.list_capacity is not None and not 1 <= args.list_capacity <= 255:
        raise UsageError("--list-capacity must be a whole number from 1 to 255")
    try:
        caps = capacities(bounds, reading, args.list_capacity)
        text = promela(bounds, reading, str(args.out), caps, rules=rules_of(args, bounds, reading))
    except TooLarge as error:
        raise UsageError(str(error)) from None
    _write(args.out, text)
    print(f"wrote the Promela model ({args.reading}) to {args.out}; its header says how to run Spin on it")
    return 0


def _conform(args: argparse.Namespace) -> int:
    return conform_command(args, _bounds(args), UsageError, _write)


def _prove(args: argparse.Namespace) -> int:
    return prove_command(args, _bounds(args), reading_named(args.reading), UsageError, _write)


def _consistency(args: argparse.Namespace) -> int:
    return consistency_command(args, _bounds(args), UsageError)


def _readings(args: argparse.Namespace) -> int:
    return readings_command(args, _bounds(args), _write)


def _fuzz(args: argparse.Namespace) -> int:
    return fuzz_command(args, _bounds(args), UsageError, _write)


def _vectors(args: argparse.Namespace) -> int:
    return vectors_command(args, _bounds(args), UsageError, _write)


def _explore(args: argparse.Namespace) -> int:
    return explore_command(args, _bounds(args), UsageError)


def _diff(args: argparse.Namespace) -> int:
    return diff_command(args, _bounds(args), UsageError, _write, _limits(args))


def _validate(args: argparse.Namespace) -> int:
    return validate_command(args, UsageError, _write)


HANDLERS = {"check": _check, "replay": _replay, "shrink": _shrink, "mutants": _mutants, "report": _report,
            "graph": _graph, "conform": _conform, "validate": _validate, "vectors": _vectors,
            "fuzz": _fuzz, "readings": _readings, "prove": _prove, "consistency": _consistency,
            "explore": _explore, "export": _export, "diff": _diff}

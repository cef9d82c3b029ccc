"""`pausecheck check --engine spin`: Spin's search, printed as `check` prints its own.

Progress: pan's own progress lines ("Depth= ... States= ...") are relayed on stderr as they come. The
output: pan's statistics on one line (states stored, transitions, depth, memory, time, the store and the
reduction), one line per property with its verdict, each counterexample as numbered steps (the same
rendering as `check`), what stays with the Python engine, the verdict and a reproduce line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, Machine, reading_named
from pausecheck.traces.input_file import say
from pausecheck.traces.itf import dumps
from pausecheck.traces.render import render

from ..mutants.evidence import command_line, trace_name
from ..search.budget import active
from ..spin.engine import (
    HOLDS,
    NOT_EXERCISED,
    NOT_WITNESSED,
    UNKNOWN,
    VACUOUS,
    VIOLATED,
    WITNESSED,
    SpinReport,
    always_first,
    spin_check,
)
from ..spin.pan import DEPTH, HASH_BITS, SpinError, missing_tools
from ..spin.promela import TooLarge, reached_caps
from ..spin.properties import SPIN_PROPERTIES
from .draft import draft_given, rules_of

__all__ = ["spin_command", "incomplete_reason", "spin_flags_given"]


def spin_flags_given(args: argparse.Namespace) -> list[str]:
    """The flags of --engine spin set to something else than their defaults (an error without it)."""
    given = {"--store": args.store != "exact", "--no-reduce": not args.reduce,
             "--hash-bits": args.hash_bits != HASH_BITS,
             "--spin-depth": args.spin_depth != DEPTH}
    return [flag for flag, set_ in given.items() if set_]


def incomplete_reason(report: SpinReport) -> str | None:
    """Why the search does not establish what it did not find, in words; None when it is complete."""
    run = report.run
    if run.interrupted:
        return "pan was stopped before the end (--max-seconds or an interrupt): the states it did not reach are " \
               "unchecked"
    if run.memory_hit:
        return "pan ran out of memory (--max-memory): the states it did not reach are unchecked"
    if run.depth_hit:
        return f"pan hit its depth limit ({run.depth:,}): the paths past it are unchecked (raise --spin-depth)"
    factor = f"pan's hash factor {run.hash_factor:g} (best if over 100)" if run.hash_factor is not None else \
        "pan printed no hash factor"
    if run.store == "hash-compact":
        missed = run.states * run.states / 2 ** 33  # pairs of states, each sharing 32 bits with chance 2^-32
        return f"probabilistic: hash compaction keeps 4 bytes of each state, so two states may share them and the " \
               f"second goes unexplored: of {run.states:,} states, about {missed:,.2g} expected missed at most " \
               f"(n^2/2^33)"
    if run.store == "bitstate":
        return f"probabilistic: the bitstate store keeps a few bits of each state, so states that share them go " \
               f"unexplored and the counts are a lower bound; {factor}"
    return None


def _statistics(report: SpinReport) -> str:
    run = report.run
    reduction = "partial-order reduction on" if run.reduced else "no partial-order reduction (-DNOREDUCE)"
    return (f"pan: {run.states:,} states stored (state vector {run.state_vector} bytes), {run.transitions:,} "
            f"transitions, depth {run.depth:,}; {run.memory_mb:,.1f} MB; search {run.seconds:.2f} s, generate "
            f"{report.generate_seconds:.1f} s, gcc {report.compile_seconds:.1f} s, in all {report.wall_seconds:.1f} "
            f"s; {run.store} store, {reduction}; {'complete' if run.complete else 'INCOMPLETE'}")


def _liveness(report: SpinReport) -> str:
    """The liveness search in one line: its model, the fairness, each property's states and time."""
    fairness = ", ".join({"steps": "steps (weak: pan -f)", "write": "write (strong: in the formula)"}[f]
                         for f in report.fairness or ()) or "none"
    each = "; ".join(f"{v.name} {v.states:,} states {v.seconds:.1f} s" for v in report.liveness)
    return f"liveness: pan -a on a model of one process per action ({report.processes} processes), fairness " \
           f"{fairness}; {each}"


def _json(report: SpinReport, paths: dict[str, str]) -> dict[str, Any]:
    run = report.run
    return {
        "engine": "spin", "bounds": report.bounds.as_dict(), "reading": report.reading.name,
        "complete": run.complete, "incomplete": incomplete_reason(report), "exit_code": report.exit_code,
        "states": run.states, "transitions": run.transitions, "depth": run.depth, "memory_mb": run.memory_mb,
        "pan_seconds": run.seconds, "compile_seconds": round(report.compile_seconds, 3),
        "seconds": round(report.wall_seconds, 3), "store": run.store, "reduced": run.reduced,
        "hash_factor": run.hash_factor,
        "properties": [{"name": v.name, "kind": v.kind, "clauses": list(v.clauses), "verdict": v.status,
                        "trace": paths.get(v.name), "note": v.note} for v in always_first(report.verdicts)],
        "not_checked": report.skipped, "left_to_python": list(report.left_to_python),
        "fairness": None if report.fairness is None else list(report.fairness),
    }


def spin_command(args: argparse.Namespace, bounds: Bounds, usage: type[Exception],
                 write: Any) -> int:
    """Run the check on Spin and print it (`usage` is the command line's one-line error)."""
    missing = missing_tools()
    if missing is not None:
        raise usage(missing)
    for flag in ("symmetry", "fingerprint", "compact", "checkpoint", "resume", "max_states"):
        if getattr(args, flag, None):
            raise usage(f"--{flag.replace('_', '-')} is a flag of the Python engine, not of --engine spin")
    if not 10 <= args.hash_bits <= 36:
        raise usage(f"--hash-bits must be from 10 to 36, not {args.hash_bits}")
    if args.spin_depth < 1:
        raise usage("--spin-depth must be at least 1")
    reading = reading_named(args.reading)
    # pan stops itself a little before the command's limits (its statistics printed), so that the budget's
    # watchdog (`checks/budget.py`, which counts pan's memory as the command's) need not interrupt it.
    memory = None if args.max_memory is None else (args.max_memory * 9 // 10) >> 20
    budget = active()
    seconds = None if budget is None or budget.remaining() is None else max(budget.remaining() - 0.5, 0.1)
    try:
        rules = rules_of(args, bounds, reading)
        machine = Machine(bounds, reading, rules)
        report = spin_check(bounds, reading, SPIN_PROPERTIES, store=args.store, reduce=args.reduce, rules=rules,
                            machine=machine, caps=None if draft_given(args) is None else reached_caps(machine),
                            hash_bits=args.hash_bits, depth=args.spin_depth, memory_mb=memory,
                            optimise=f"-O{args.optimise}",
                            max_seconds=seconds, accept_unexercised=args.accept_unexercised,
                            fairness=args.fairness if args.liveness else None,
                            progress=lambda line: print(f"[spin] {line}", file=sys.stderr, flush=True))
    except (TooLarge, SpinError) as error:
        raise usage(str(error)) from None
    paths: dict[str, str] = {}
    for v in report.verdicts if args.out else ():
        if v.document is not None:
            paths[v.name] = str(Path(args.out) / trace_name(v.document["#meta"]["verdict"], v.name))
            write(Path(paths[v.name]), dumps(v.document))
    if args.json:
        print(json.dumps(_json(report, paths), sort_keys=True, indent=2))
        return report.exit_code
    _print(report, paths, args)
    return report.exit_code


def _print(report: SpinReport, paths: dict[str, str], args: argparse.Namespace) -> None:
    draft = getattr(args, "draft", None)
    say(f"Spin on the Promela generated from the rule table, reading {report.reading.name}"
        + (f", under the draft {draft}" if draft else ""))
    say(_statistics(report))
    if report.fairness is not None:
        say(_liveness(report))
    counts = Counter(v.status for v in report.verdicts)
    say("verdicts: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) +
        ("" if args.verbose else "; below, those that need attention (--verbose: every one)"))
    width = max((len(v.name) for v in report.verdicts), default=8) + 2
    for v in always_first(report.verdicts):
        if not args.verbose and v.status in (HOLDS, WITNESSED) or (v.status == NOT_EXERCISED and
                                                                   args.accept_unexercised and not args.verbose):
            continue
        shown = "found" if v.kind == "deadlock" and v.status == VIOLATED else \
            "none" if v.kind == "deadlock" and v.status == HOLDS else v.status
        note = f"  ({v.note})" if v.note else ""
        say(f"  {v.name:<{width}}{v.kind:<12}{shown}{note}")
    for name, why in sorted(report.skipped.items()):
        say(f"  {name:<{width}}not checked by Spin: {why}")
    for v in always_first(report.verdicts):
        if v.status == VIOLATED and v.document is not None:
            where = paths.get(v.name)
            sys.stdout.write(render(v.document, f"pausecheck replay {where}" if where else None))
    say("left to the Python engine (pausecheck check): " + "; ".join(report.left_to_python))
    reason = incomplete_reason(report)
    violated = [v.name for v in report.verdicts if v.status == VIOLATED]
    if violated:
        say(f"[fail] violated: {', '.join(violated)}")
    elif reason is not None:
        say(f"[incomplete] nothing violated in what pan reached, but nothing is established: {reason}")
    elif report.exit_code == 3:
        shown = [v.name for v in report.verdicts if v.status in (NOT_WITNESSED, VACUOUS, UNKNOWN, NOT_EXERCISED)]
        say("[incomplete] not established: " + ", ".join(shown) + " (a witness not found, a vacuous property, or one "
            "these bounds cannot exercise: --accept-unexercised accepts those; the companion searches of pausecheck "
            "check exercise them)")
    else:
        live = "" if report.fairness is None else ", every liveness property LTL says holds under the fairness"
        say(f"[ok] every property Spin checks holds at these bounds{live}, and no state is stuck (complete search)")
    extra = "--engine spin" + ("" if args.store == "exact" else f" --store {args.store}") + \
        ("" if args.reduce else " --no-reduce")
    extra += "" if args.liveness else " --no-liveness"
    again = command_line(report.bounds, report.reading.name, extra, rules=rules_of(args), fairness=args.fairness)
    say(f"reproduce with: {again} --out out/")


def spin_engines_command(args: argparse.Namespace, bounds: Bounds, chosen: tuple[Any, ...], skipped: tuple[str, ...],
                         gone: dict[str, str], idle: dict[str, tuple[str, ...]], usage: type[Exception]) -> int:
    """`check --engines bfs,spin`: the search and Spin on each variant's liveness under `--fairness` (`agree.py`),
    each at the bounds given, one line per variant and property; exit 1 on a disagreement or a drift, 3 when a
    chosen variant is not compared, 0 when they agree on every one."""
    missing = missing_tools()
    if missing is not None:
        raise usage(missing.replace("--engine spin", "--engines bfs,spin"))
    from ..spin.agree import compare_liveness
    from ..spin.fair import LTL
    from ..spin.pan import SpinError
    fairness = tuple(args.fairness)
    # Each variant at the bounds given: a mutant's own bounds are where its safety target shows, and may be far
    # larger than a liveness search on one process per action needs.
    chosen = tuple(dataclasses.replace(v, bounds=bounds) for v in chosen)
    if not args.json:
        say(f"pausecheck check --engines bfs,spin: the search and Spin on the liveness of each variant "
            f"({', '.join(LTL)}), fairness {', '.join(fairness) or 'none'}, at " +
            " ".join(f"{k.replace('_', '-')}={v}" for k, v in bounds.as_dict().items()))

    def show(found: Any) -> None:
        if args.json:
            return
        if found.skipped is not None:
            say(f"{found.variant}: not compared: {found.skipped}")
            return
        say(f"{found.variant}: ({found.bfs_seconds:.1f} s search, {found.spin_seconds:.1f} s Spin)")
        if found.drift is not None:
            say(f"  [drift] {found.drift}")
        for r in found.rows:
            say(f"  {r.property:<28} bfs {r.bfs:<9} spin {r.spin:<16} {'agree' if r.agree else 'DISAGREE'}")

    try:
        results = compare_liveness(chosen, fairness, args.jobs, show)
    except (TooLarge, SpinError) as error:
        raise usage(str(error)) from None
    rows = [r for found in results for r in found.rows]
    disagree = [r for r in rows if not r.agree]
    drifts = [found for found in results if found.drift is not None]
    endless = {found.variant: found.skipped for found in results if found.skipped is not None}
    code = 1 if disagree or drifts else 3 if idle or gone or endless else 0
    if args.json:
        print(json.dumps({"agreement": [r.to_json() for r in rows], "fairness": list(fairness), "endless": endless,
                          "same_as_default": list(skipped), "no_longer_applies": gone,
                          "not_exercised": {n: " ".join(flags) for n, flags in idle.items()},
                          "drift": [{"variant": f.variant, "message": f.drift} for f in drifts], "exit": code},
                         indent=1))
        return code
    if skipped:
        say(f"{len(skipped)} mutant(s) deviate only in the wire view, which liveness does not read (their states "
            f"are the default's): {', '.join(skipped)}")
    if disagree or drifts:
        said = [f"{r.variant}/{r.property}" for r in disagree] + [f"{f.variant} (drift)" for f in drifts]
        say(f"[disagree] {len(said)} verdict(s) differ between the search and Spin: " + ", ".join(said))
    elif idle or gone or endless:
        said = [f"{len(gone)} mutant(s) no longer apply, not compared: {', '.join(gone)}"] if gone else []
        said += [f"{len(endless)} variant(s) have too many states at these bounds, or no end to them, not compared: "
                 f"{', '.join(endless)}"] if endless else []
        flags = sorted({f for needed in idle.values() for f in needed})
        said += [f"{len(idle)} reading(s) need a fault these bounds leave off (add {' '.join(flags)}): "
                 f"{', '.join(idle)}"] if idle else []
        say(f"[incomplete] the search and Spin agree on {len(results) - len(endless)} variant(s); " + "; ".join(said))
    else:
        say(f"[ok] the search and Spin agree on every liveness verdict of {len(results)} variant(s), under fairness "
            f"{', '.join(fairness) or 'none'}")
    return code

"""`pausecheck prove` (bounded model checking and k-induction with z3) and `check --engines bfs,bmc`."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.properties import PROPERTIES, missing_bound
from pausecheck.model.property import ALWAYS, SOMETIMES
from pausecheck.traces.itf import dumps

from ..budget import active, note
from ..console import Reporter, console
from ..evidence import trace_name, trace_of

__all__ = ["prove_command", "engines_command"]

_PROPERTY = {p.name: p for p in PROPERTIES}


def _semantics(bounds: Bounds, reading: Any, usage: type[Exception]) -> Any:
    from ..symbolic.readings import reading_semantics
    from ..symbolic.rules import NotEncoded
    try:
        return reading_semantics(bounds, reading)
    except NotEncoded as error:
        raise usage(str(error)) from None


def _flags(bounds: Bounds, keep: tuple[str, ...] = ()) -> str:
    """The non-default bound flags (and those in `keep`), as a user would type them."""
    return " ".join(f"--{name.replace('_', '-')} {value}" for name, value in bounds.as_dict().items()
                    if value != getattr(DEFAULT_BOUNDS, name) or name in keep)


def prove_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception], write: Any) -> int:
    if (args.bmc is None) == (not args.induction):
        raise usage("prove needs exactly one of --bmc K and --induction")
    if args.bmc is not None and args.bmc < 0:
        raise usage("--bmc K needs a depth of 0 or more steps")
    if args.k < 1:
        raise usage("--k must be at least 1")
    m = _semantics(bounds, reading, usage)
    if args.induction:
        if reading.switches:
            raise usage(f"prove --induction proves the conformant reading; its strengthening invariants do not "
                        f"hold under {reading.name} (use --bmc K to check a reading)")
        return _induction(args, bounds, usage)
    return _bmc(args, bounds, reading, m, write)


def _bmc(args: argparse.Namespace, bounds: Bounds, reading: Any, m: Any, write: Any) -> int:
    from ..symbolic.bmc import KIND, NAMES, Drift, bmc
    from ..symbolic.induction import lemmas
    machine = Machine(bounds, reading)
    out = console(color=not args.no_color)
    say = _sayer(out)
    started = time.perf_counter()
    note("prove", "bmc: proving the strengthening invariants first")
    proved = lemmas(m)
    budget = active()
    deadline = None if budget is None or budget.deadline is None else budget.deadline  # set-up counted
    reached = [-1, 0]

    with Reporter("prove", color=not args.no_color) as reporter:
        done = reporter.count(f"bounded model checking to depth {args.bmc}", args.bmc, "steps deep", estimate=False)

        def progress(depth: int, found: int) -> None:
            reached[:] = [depth, found]
            note("prove", f"bmc: every behaviour of up to {depth} steps checked, {found} propert(ies) settled "
                 f"(`prove --bmc {depth}` shows which)")
            done(depth, note=f"{found} witnesses or counterexamples found")

        try:
            result = bmc(m, machine, args.bmc, lemmas=proved, deadline=deadline, progress=progress)
        except Drift as drift:  # the engines disagree: a finding, one line, never a traceback
            say(f"[drift] {drift}")
            return 1
    if result.depth < 0:  # stopped before depth 0 was settled: nothing to tabulate
        say(f"[incomplete] stopped at --max-seconds after {time.perf_counter() - started:.1f} s, before "
            "depth 0 was checked: nothing established")
        return 3
    command = f"pausecheck prove --bmc {args.bmc} {_flags(bounds)}".strip()
    rows, traces, broken, missing = [], {}, [], []
    for name in NAMES:
        f = result.found[name]
        kind = KIND[name]
        needs = None if name == DEADLOCK else missing_bound(_PROPERTY[name], bounds)
        trace = None
        if f.discovery is not None and kind != SOMETIMES:
            broken.append(name)
        if f.discovery is not None and args.out is not None:
            trace = str(args.out / trace_name("violation" if kind != SOMETIMES else "witness", name))
            traces[trace] = trace_of(machine, f.discovery, name=name, command=command)
        if f.discovery is None and kind == SOMETIMES and needs is None:
            missing.append(name)
        rows.append({"name": name, "kind": kind, "proved": f.discovery is None if kind != SOMETIMES else None,
                     "method": "bmc", "k": result.depth, "depth": f.depth, "needs": needs, "trace": trace,
                     "message": f.discovery.message if f.discovery is not None else None,
                     "reason": _bmc_reason(kind, f.depth, result.depth, needs)})
    for path, document in traces.items():
        write(Path(path), dumps(document))
    code = 1 if broken else (3 if missing or not result.complete else 0)
    if args.json:
        print(json.dumps({"method": "bmc", "depth": result.depth, "complete": result.complete,
                          "lemmas": proved is not None, "seconds": round(result.seconds, 2), "bounds": bounds.as_dict(),
                          "reading": machine.reading.name, "properties": rows, "exit": code}, indent=1))
        return code
    say(f"pausecheck prove --bmc {args.bmc}: bounded model checking with z3 over every behaviour of up to "
              f"{result.depth} steps; reading {machine.reading.name}; {_flags(bounds) or 'default bounds'}")
    say("  lemmas: " + ("the strengthening invariants proved by induction here, assumed of every state" if proved
                              else "none (induction proved no strengthening invariant here)"))
    for row in rows:
        where = f"  -> {row['trace']}" if row["trace"] else ""
        say(f"  {row['name']:<36} {row['kind']:<10} {row['reason']}{where}")
    say(f"  {result.seconds:.1f} s")
    if broken:
        lengths = ", ".join(str(result.found[n].depth) for n in broken)
        say(f"[violated] {', '.join(broken)}: the shortest counterexamples are {lengths} steps long")
    elif not result.complete:
        say(f"[incomplete] stopped at --max-seconds after depth {result.depth} of {args.bmc}")
    elif missing:
        say(f"[not established] no violation up to {result.depth} steps, but {len(missing)} witness(es) not "
                  f"found that deep: {', '.join(missing)} (a deeper --bmc may reach them)")
    else:
        say(f"[ok] every property holds on every behaviour of up to {result.depth} steps (a bound on length: "
                  "prove --induction proves the key properties for any length)")
    return code


def _sayer(out: Any) -> Any:
    """Print plain text: verdicts like [ok] are words here, not markup."""
    return lambda text: out.print(text, markup=False, highlight=False)


def _bmc_reason(kind: str, depth: int | None, reached: int, needs: str | None) -> str:
    if kind == SOMETIMES:
        if depth is not None:
            return f"witnessed at depth {depth}"
        return f"not exercised: needs {needs}" if needs else f"not witnessed within {reached} steps"
    if kind == DEADLOCK:
        return f"deadlock at depth {depth}" if depth is not None else f"no deadlock up to {reached} steps"
    return f"violated at depth {depth}" if depth is not None else f"holds up to {reached} steps"


def _induction(args: argparse.Namespace, bounds: Bounds, usage: type[Exception]) -> int:
    from ..symbolic.bmc import KIND, NAMES
    from ..symbolic.induction import FITS, KEY, STRENGTHENING, induction_semantics, prove
    if bounds.turns != 1 or bounds.new_turns:
        raise usage("prove --induction proves one turn per session (--turns 1)")
    m = induction_semantics(bounds.sessions, bounds.calls, bounds.artifacts, bounds)
    names = tuple(n for n in NAMES if KIND[n] in (ALWAYS, "transition")) if args.all else KEY
    proof = prove(m, names, args.k)
    support = {inv.name for inv in STRENGTHENING} | {FITS}
    wanted = [o for o in proof.outcomes if o.name not in support]
    code = 0 if all(o.proved for o in proof.outcomes if o.name in KEY or o.name in support) else 1
    scope = (f"for behaviours of any length, with {bounds.sessions} session(s) of one turn, at most {bounds.calls} "
             f"tool call(s) per execution, {bounds.artifacts} artifact(s), held bound {bounds.held_bound}, "
             f"{bounds.interim_writes} interim write(s), {bounds.node_failures} node failure(s), under the conformant "
             "reading; pauses, resumes, failing write-backs and repeated observations unbounded")
    if args.json:
        rows = [{"name": o.name, "proved": o.proved, "method": "k-induction", "k": proof.k,
                 "reason": o.reason or None, "strengthening": o.name in support,
                 "counterexample": None if o.pre is None else {"pre": repr(o.pre), "step": o.move,
                                                               "post": repr(o.post)}}
                for o in proof.outcomes]
        print(json.dumps({"method": "k-induction", "k": proof.k, "scope": scope, "seconds": round(proof.seconds, 2),
                          "properties": rows, "exit": code}, indent=1))
        return code
    out = console(color=not args.no_color)
    say = _sayer(out)
    say(f"pausecheck prove --induction: {proof.k}-induction with z3, {scope}.")
    say("  strengthening invariants (proved together with the properties):")
    for o in proof.outcomes:
        if o.name in support:
            say(f"    {'proved' if o.proved else 'NOT PROVED':<11} {o.name}: " + (
                "every enabled step fits the symbolic universe" if o.name == FITS else
                next(inv.doc for inv in STRENGTHENING if inv.name == o.name)))
    say("  properties:")
    for o in wanted:
        key = " (key)" if o.name in KEY else ""
        why = "" if o.proved else f": {o.reason}"
        say(f"    {'proved' if o.proved else 'not proved':<11} {o.name}{key}{why}")
        if o.pre is not None:
            say(f"        counterexample to induction: from {o.pre}\n        by {o.move}\n        to {o.post}")
    say(f"  {proof.seconds:.1f} s")
    if code == 0:
        say(f"[ok] the six key properties ({', '.join(KEY)}) are proved {scope}")
    else:
        failed = [o.name for o in proof.outcomes if not o.proved and (o.name in KEY or o.name in support)]
        say(f"[not proved] {', '.join(failed)}: see the reasons above")
    return code


def engines_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception]) -> int:
    """`check --engines bfs,bmc`: both engines on the default and every mutant, one line per property."""
    engines = [e.strip() for e in args.engines.split(",")]
    if sorted(engines) != ["bfs", "bmc"]:
        raise usage("--engines takes bfs,bmc (the two engines compared)")
    if args.jobs is not None and args.jobs < 1:
        raise usage("--jobs must be at least 1")
    if reading.switches:
        raise usage("check --engines compares every encoded reading itself: pick one with --only "
                    f"{reading.name.removeprefix('conformant+')} instead of --reading")
    _semantics(bounds, reading, usage)  # refuses what the symbolic engine does not encode
    from ..symbolic.agreement import compare_engines, variants
    chosen, skipped = variants(bounds)
    if args.only:
        unknown = sorted(set(args.only) - {v.name for v in chosen} - set(skipped))
        if unknown:
            raise usage(f"--only {unknown[0]}: no such variant (default, a mutant: pausecheck mutants --list, or a "
                        "reading such as A-G1=leave)")
        chosen, skipped = tuple(v for v in chosen if v.name in args.only), tuple(n for n in skipped if n in args.only)
    say = _sayer(console(color=not args.no_color))

    def show(found: Any) -> None:
        if args.json:
            return
        scope = "the whole graph" if found.variant == "default" else f"behaviours of up to {found.bmc_depth} steps"
        say(f"{found.variant}: {scope} ({found.bfs_seconds + found.bmc_seconds:.0f} s)")
        for r in found.rows:
            bfs_at = "-" if r.bfs_depth is None else r.bfs_depth
            bmc_at = "-" if r.bmc_depth is None else r.bmc_depth
            mark = "agree" if r.agree else "DISAGREE"
            say(f"  {r.property:<36} bfs {r.bfs:<13} {bfs_at!s:>2}   bmc {r.bmc:<13} {bmc_at!s:>2}   {mark}")

    with Reporter("check --engines", color=not args.no_color) as reporter:
        finished = reporter.count("both engines on each variant", len(chosen), "variants compared")
        compared = [0]

        def shown(found: Any) -> None:
            compared[0] += 1
            finished(compared[0], found.variant)
            show(found)

        results = compare_engines(chosen, args.jobs, shown)
    rows = [r for found in results for r in found.rows]
    disagree = [r for r in rows if not r.agree]
    code = 1 if disagree or skipped else 0
    if args.json:
        print(json.dumps({"agreement": [r.to_json() for r in rows], "not_encoded": list(skipped), "exit": code},
                         indent=1))
        return code
    if disagree:
        say(f"[disagree] {len(disagree)} verdict(s) differ between the engines: "
            + ", ".join(f"{r.variant}/{r.property}" for r in disagree))
    elif skipped:
        say(f"[incomplete] the engines agree on {len(results)} variant(s); {len(skipped)} mutant(s) have no "
            f"symbolic twin: {', '.join(skipped)}")
    else:
        names = [found.variant for found in results]
        which = ", ".join(names) if len(names) <= 4 else f"{names[0]} and {len(names) - 1} more"
        say(f"[ok] BFS and BMC agree on every verdict and minimal depth of {len(names)} variant(s): {which}")
    return code

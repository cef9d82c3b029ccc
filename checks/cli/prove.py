"""`pausecheck prove` (bounded model checking and k-induction with z3) and `check --engines bfs,bmc`."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.properties import PROPERTIES, missing_bound
from pausecheck.model.property import ALWAYS, SOMETIMES
from pausecheck.traces.itf import dumps, encode_state
from pausecheck.traces.render import changes, flat_view

from ..console import Reporter, console
from ..drafts import draft_meta, under
from ..mutants.evidence import trace_name, trace_of
from ..search.budget import active, note
from .compositional import compositional_command
from .draft import draft_given, rules_of
from .proving import proof_workers, with_progress

__all__ = ["prove_command", "engines_command", "with_progress"]

_PROPERTY = {p.name: p for p in PROPERTIES}


def prove_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception], write: Any) -> int:
    if [args.bmc is not None, args.induction, args.compositional].count(True) != 1:
        raise usage("prove needs exactly one of --bmc K, --induction and --compositional")
    if args.compositional:
        return compositional_command(args, bounds, reading, usage, write)
    if args.bmc is not None and args.bmc < 0:
        raise usage("--bmc K needs a depth of 0 or more steps")
    if args.bmc is not None and args.workers is not None and args.workers > 1:
        raise usage("--workers applies to --induction and --compositional (--bmc asks z3 in this process)")
    if args.k < 1:
        raise usage("--k must be at least 1")
    if args.induction:
        return _induction(args, bounds, reading, usage, write)
    return _bmc(args, bounds, reading, usage, write)


def _bmc(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception], write: Any) -> int:
    from ..symbolic.unrolled import KIND, NAMES, Drift, UniverseTooSmall, bmc
    from ..symbolic.values import TooSmall
    machine = Machine(bounds, reading, rules_of(args, bounds, reading))
    out = console(color=not args.no_color)
    say = _sayer(out)
    started = time.perf_counter()
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
            result = bmc(machine, args.bmc, rules=machine.rules, deadline=deadline, progress=progress)
        except Drift as drift:  # the engines disagree: a finding, one line, never a traceback
            say(f"[drift] {drift}")
            return 1
        except (TooSmall, UniverseTooSmall) as error:
            raise usage(f"prove --bmc: these bounds do not fit the symbolic encoding ({error})") from None
    if result.depth < 0:  # stopped before depth 0 was settled: nothing to tabulate
        say(f"[incomplete] stopped at --max-seconds after {time.perf_counter() - started:.1f} s, before "
            "depth 0 was checked: nothing established")
        return 3
    command = f"pausecheck prove --bmc {args.bmc} {bounds.flags()}".strip()
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
                          "seconds": round(result.seconds, 2), "bounds": bounds.as_dict(),
                          "reading": machine.reading.name, "properties": rows, "exit": code}, indent=1))
        return code
    say(f"pausecheck prove --bmc {args.bmc}: bounded model checking with z3 over every behaviour of up to "
              f"{result.depth} steps of the relation derived from the rule table (every fault the bounds allow); "
              f"reading {machine.reading.name}{under(machine.rules)}; {bounds.flags() or 'default bounds'}")
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


def _induction(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception], write: Any) -> int:
    from ..symbolic.inductive import FITS, KEY, prove
    from ..symbolic.values import TooSmall
    if args.k != 1:
        raise usage("prove --induction over the whole model is 1-induction, strengthened by the invariants Houdini "
                    "proves (--k 1)")
    if any(bounds.as_dict()[name] > 9 for name in ("sessions", "turns")) or \
            bounds.sessions * bounds.turns + bounds.new_turns > 9:
        raise usage("prove --induction encodes at most 9 executions (--sessions x --turns + --new-turns)")
    names = tuple(p.name for p in PROPERTIES if p.kind in (ALWAYS, "transition")) if args.all else KEY
    rules = rules_of(args, bounds, reading)
    try:
        proof = with_progress(args, "induction", lambda progress, deadline: prove(
            bounds, reading, names, rules=rules, progress=progress, deadline=deadline, screen=args.screen,
            workers=proof_workers(args)))
    except TooSmall as error:
        raise usage(f"prove --induction: these bounds do not fit the symbolic encoding ({error})") from None
    command = f"pausecheck prove --induction {bounds.flags()}".strip() + (
        f" --reading {reading.name}" if reading.switches else "")
    traces: dict[str, str] = {}
    rows = []
    for o in proof.outcomes:
        trace = None
        if o.cti is not None and args.out is not None:
            trace = str(args.out / trace_name("not-inductive", o.name))
            write(Path(trace), dumps(cti_document(bounds, reading, o, command, rules)))
            traces[o.name] = trace
        rows.append({"name": o.name, "proved": o.proved, "method": "1-induction", "k": 1, "reason": o.reason or None,
                     "key": o.name in KEY, "trace": trace,
                     "counterexample": None if o.cti is None else {
                         "pre": repr(o.cti.pre), "step": str(o.cti.action), "post": repr(o.cti.post),
                         "replays": o.cti.replays}})
    not_proved = [o.name for o in proof.outcomes if not o.proved and o.name != FITS]
    fits = next((o for o in proof.outcomes if o.name == FITS), None)  # None: stopped before it was asked
    code = 3 if proof.incomplete or fits is None else 1 if not_proved else 3 if not fits.proved else 0
    budget = active()
    if proof.stopped in ("max-seconds", "max-memory") and budget is not None:
        budget.reached(proof.stopped)  # the proof stopped itself and reports its progress: no watchdog needed
    scope = (f"for behaviours of any length at {bounds.flags() or 'the default bounds'} (every fault they allow), "
             f"under the reading {reading.name}")
    # A stopped proof's figures are those it reached, not a strengthening it proved.
    strengthening = proof.progress() if proof.incomplete else (
        f"{len(proof.kept)} of {proof.mined} candidate invariants mined from {proof.sampled:,} reachable "
        f"states, kept by Houdini in {proof.rounds} rounds (each proved inductive with the others; "
        f"{proof.dropped} dropped, {proof.refuted} of them by {proof.explored:,} states around its counterexamples)")
    if args.json:
        stopped = None if not proof.incomplete else {
            "by": proof.stopped, "stage": proof.stage, "sampled": proof.sampled, "screened": list(proof.screened),
            "mined": proof.mined, "rounds": proof.rounds, "dropped": proof.dropped, "refuted": proof.refuted,
            "explored": proof.explored, "left": proof.left, "properties_left": proof.standing}
        print(json.dumps({"method": "1-induction", "k": 1, "scope": scope, "bounds": bounds.as_dict(),
                          "reading": reading.name, "strengthening": strengthening,
                          "invariants": [c.name for c in proof.kept], "seconds": round(proof.seconds, 2),
                          "complete": not proof.incomplete, "stopped": stopped, "properties": rows, "exit": code},
                         indent=1))
        return code
    out = console(color=not args.no_color)
    say = _sayer(out)
    say(f"pausecheck prove --induction: 1-induction with z3 over the relation derived from the rule table, {scope}.")
    say(f"  {'reached' if proof.incomplete else 'strengthening'}: {strengthening}")
    for o in proof.outcomes:
        key = " (key)" if o.name in KEY else ""
        why = "" if o.proved else f": {o.reason}"
        say(f"    {'proved' if o.proved else 'NOT PROVED':<11} {o.name}{key}{why}")
        if o.cti is not None:
            replays = "it replays on the explicit model" if o.cti.replays else "it does NOT replay: a drift"
            where = f" -> {traces[o.name]}" if o.name in traces else " (--out DIR writes it as ITF)"
            say(f"        counterexample to induction ({replays}){where}:")
            for line in cti_lines(o.cti):
                say(f"          {line}")
    say(f"  {proof.seconds:.1f} s")
    if proof.incomplete:
        say(f"[incomplete] {_stopped(proof)}")
    elif not_proved:
        say(f"[not inductive] {', '.join(not_proved)}: each comes with a counterexample to induction above (a state "
            "where every kept invariant holds and a step that breaks it; it may be unreachable)")
    elif not fits.proved:
        say(f"[incomplete] {', '.join(names)} proved for every behaviour whose states fit the symbolic capacities, "
            f"but {fits.reason}")
    else:
        say(f"[ok] {', '.join(names)} are proved {scope}")
    return code


def _stopped(proof: Any) -> str:
    """What stopped a proof, when, and what that leaves established."""
    by = {"max-seconds": "at --max-seconds", "max-memory": "at --max-memory", "z3 gave up": "as z3 gave up"}.get(
        proof.stopped, "by an interrupt (SIGTERM or Ctrl-C)")
    said = f"stopped {by} after {proof.seconds:.1f} s, in {proof.stage}: "
    if proof.stage == "the goals" and proof.standing:
        return said + (f"{', '.join(proof.standing)} are inductive with the {len(proof.kept)} kept invariants, but "
                       "fits_capacities was not settled, so nothing is proved for every behaviour")
    return said + "nothing is proved"


def cti_document(bounds: Bounds, reading: Any, outcome: Any, command: str, rules: Any = None) -> dict[str, Any]:
    """A counterexample to induction as an ITF trace that starts from its own state (`#meta.start`)."""
    from pausecheck.traces.itf import trace_document
    from pausecheck.traces.replay import ARBITRARY
    prop = _PROPERTY[outcome.name]
    meta = {"property": outcome.name, "kind": prop.kind, "clauses": list(prop.clauses),
            "verdict": "not inductive", "message": outcome.reason, "description": prop.doc,
            "bounds": bounds.as_dict(), "reading": reading.name, "mutant": None, "mutant_description": None,
            "command": command, "steps": 1, "start": ARBITRARY}
    if rules is not None and draft_meta(rules) is not None:
        meta["draft"] = draft_meta(rules)
    cti = outcome.cti
    return trace_document((cti.pre, cti.post), (cti.action,), meta, frozenset())


def cti_lines(cti: Any) -> list[str]:
    """A counterexample to induction in the traces' words: the state it starts from (its fields that are not
    empty), the step, and the fields the step changes."""
    before, after = flat_view(encode_state(cti.pre)), flat_view(encode_state(cti.post))
    return ["from a state where " + ("; ".join(changes({}, before)) or "nothing has started"), f"by {cti.action}",
            "it changes " + ("; ".join(changes(before, after)) or "nothing")]


def chosen_variants(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception]) -> tuple[
        tuple[Any, ...], tuple[str, ...], dict[str, str], dict[str, tuple[str, ...]]]:
    """The variants `check --engines` compares (`--only` chooses), the wire-only mutants, the mutants that no
    longer apply (with why) and the readings whose fault the bounds leave off (with the flags that turn it on)."""
    from ..symbolic.agreement import not_applying, unexercised, variants
    rules_of(args, bounds, reading)  # a draft that does not compile at these bounds: one line, before any search
    draft = draft_given(args)
    chosen, skipped = variants(bounds, draft=draft)
    gone = not_applying(draft)  # mutants whose edits no longer fit the rules (or the draft): not compared
    idle = unexercised(bounds)  # readings whose fault is off: the default at these bounds
    if args.only:
        unknown = sorted(set(args.only) - {v.name for v in chosen} - set(skipped) - set(idle) - set(gone))
        if unknown:
            raise usage(f"--only {unknown[0]}: no such variant (default, a mutant: pausecheck mutants --list, or a "
                        "reading such as A-G1=leave)")
        chosen, skipped = tuple(v for v in chosen if v.name in args.only), tuple(n for n in skipped if n in args.only)
        idle = {n: flags for n, flags in idle.items() if n in args.only}
        gone = {n: why for n, why in gone.items() if n in args.only}
    return chosen, skipped, gone, idle


def engines_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception]) -> int:
    """`check --engines bfs,bmc`: both engines on the default, every mutant and every single-switch reading, one
    line per property; exit 1 on a disagreement (or a drift), 3 when a chosen variant is not compared: a mutant
    BMC cannot run, or a reading whose fault the bounds leave off."""
    engines = sorted(e.strip() for e in args.engines.split(","))
    if engines not in (["bfs", "bmc"], ["bfs", "spin"]):
        raise usage("--engines takes bfs,bmc (the search and z3's BMC, every property) or bfs,spin (the search "
                    "and Spin, the liveness properties under --fairness)")
    if args.jobs is not None and args.jobs < 1:
        raise usage("--jobs must be at least 1")
    if reading.switches:
        raise usage("check --engines compares every single-switch reading itself: pick one with --only "
                    f"{reading.name.removeprefix('conformant+')} instead of --reading")
    from ..symbolic.agreement import compare_engines
    from ..symbolic.values import TooSmall
    chosen, skipped, gone, idle = chosen_variants(args, bounds, reading, usage)
    if engines == ["bfs", "spin"]:
        from .spin import spin_engines_command
        return spin_engines_command(args, bounds, chosen, skipped, gone, idle, usage)
    say = _sayer(console(color=not args.no_color))
    if not args.json:
        say("pausecheck check --engines: bfs and z3's bmc on each variant, at " +
            " ".join(f"{k.replace('_', '-')}={v}" for k, v in bounds.as_dict().items()))

    def show(found: Any) -> None:
        if args.json:
            return
        scope = "the whole graph" if found.whole else f"behaviours of up to {found.bmc_depth} steps"
        say(f"{found.variant}: {scope} ({found.bfs_seconds + found.bmc_seconds:.0f} s)")
        if found.drift is not None:
            say(f"  [drift] {found.drift}")
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

        try:
            results = compare_engines(chosen, args.jobs, shown)
        except TooSmall as error:
            raise usage(f"check --engines: these bounds do not fit the symbolic encoding ({error})") from None
    rows = [r for found in results for r in found.rows]
    disagree = [r for r in rows if not r.agree]
    drifts = [found for found in results if found.drift is not None]
    code = 1 if disagree or drifts else 3 if skipped or idle or gone else 0
    if args.json:
        print(json.dumps({"agreement": [r.to_json() for r in rows], "not_encoded": list(skipped),
                          "no_longer_applies": gone,
                          "not_exercised": {n: " ".join(flags) for n, flags in idle.items()},
                          "drift": [{"variant": f.variant, "message": f.drift} for f in drifts], "exit": code},
                         indent=1))
        return code
    if disagree or drifts:
        said = [f"{r.variant}/{r.property}" for r in disagree] + [f"{f.variant} (drift)" for f in drifts]
        say(f"[disagree] {len(said)} verdict(s) differ between the engines: " + ", ".join(said))
    elif skipped or idle or gone:
        said = [f"{len(skipped)} mutant(s) deviate only in the wire view, which BMC does not run (no rule table of "
                f"their own): {', '.join(skipped)}"] if skipped else []
        said += [f"{len(gone)} mutant(s) no longer apply to the rules given, not compared: "
                 + "; ".join(f"{n} ({why})" for n, why in gone.items())] if gone else []
        flags = sorted({f for needed in idle.values() for f in needed})
        said += [f"{len(idle)} reading(s) need a fault these bounds leave off, so they are the default here "
                 f"(add {' '.join(flags)}): {', '.join(idle)}"] if idle else []
        say(f"[incomplete] the engines agree on {len(results)} variant(s); " + "; ".join(said))
    else:
        names = [found.variant for found in results]
        which = ", ".join(names) if len(names) <= 4 else f"{names[0]} and {len(names) - 1} more"
        say(f"[ok] BFS and BMC agree on every verdict and minimal depth of {len(names)} variant(s): {which}")
    return code

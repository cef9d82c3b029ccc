"""`pausecheck consistency`: the clauses as constraints over bounded behaviours, asked of z3."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from pausecheck.model import CONFORMANT, Bounds
from pausecheck.model.reading import SWITCH_OF, reading_named

from ..console import Reporter, console
from ..search.budget import note
from .draft import rules_of

__all__ = ["consistency_command", "PARTS"]

PARTS = ("satisfiable", "clashes", "dependencies")


def _short(name: str) -> str:
    return name.removeprefix("conformant+")


def _faults_off(bounds: Bounds, reading: str) -> str:
    """For a reading whose switch differs only under faults these bounds leave off: which to turn on."""
    needs = [f for a, _ in reading_named(reading).switches for f in SWITCH_OF[a].needs]
    if not needs or any(getattr(bounds, f) for f in needs):
        return ""
    return f" (it differs only under {' or '.join('--' + f.replace('_', '-') for f in needs)})"


def consistency_command(args: argparse.Namespace, bounds: Bounds, usage: type[Exception]) -> int:
    if args.depth < 1 or args.trigger_depth < 1:
        raise usage("--depth and --trigger-depth need at least 1 step")
    parts = tuple(args.only or PARTS)
    out = console(color=not args.no_color)

    def say(text: str) -> None:
        if not args.json:
            out.print(text, markup=False, highlight=False)

    started = time.perf_counter()
    with Reporter("consistency", color=not args.no_color) as reporter:
        return _parts(args, bounds, parts, say, reporter, started)


def _parts(args: argparse.Namespace, bounds: Bounds, parts: tuple[str, ...], say: Any, reporter: Reporter,
           started: float) -> int:
    """Each part asked for, with a progress line (totals where known) on stderr while z3 works."""
    from ..symbolic.consistency import (
        FINISHES,
        asserted_by,
        clashes,
        constraints,
        dependencies,
        satisfiable,
        single_switch_readings,
        triggers,
    )

    say("pausecheck consistency: the clauses as constraints over bounded behaviours, under the conformant "
        "reading or any single-switch reading; bounds "
        + " ".join(f"{k.replace('_', '-')}={v}" for k, v in bounds.as_dict().items()))
    rules = rules_of(args, bounds, CONFORMANT)
    report: dict[str, Any] = {"bounds": bounds.as_dict()}
    code = 0
    if "satisfiable" in parts:
        note("consistency", "consistency: part under way: satisfiable")
        progress = reporter.status(f"(a) satisfiable: {len(triggers(bounds))} triggers to show")
        found = satisfiable(bounds, args.trigger_depth, progress, rules=rules)
        shown = {w for _, _, ws in found.behaviours for w in ws}
        report["satisfiable"] = {
            "depth": found.depth, "triggers": list(found.triggers), "one_behaviour": found.one,
            "behaviours": [{"reading": r, "steps": len(p.actions), "shows": list(ws)} for r, p, ws in found.behaviours],
            "apart": list(found.apart), "impossible": list(found.impossible),
            "seconds": round(found.seconds, 1)}
        say(f"(a) satisfiable, not vacuously: behaviours of {found.depth} steps that keep every clause and finish "
            f"({found.seconds:.0f} s)")
        for i, (reading, path, ws) in enumerate(found.behaviours, 1):
            say(f"  behaviour {i} ({_short(reading)}, {len(path.actions)} steps) shows {len(ws)} of the "
                f"{len(found.triggers)} triggers: {', '.join(ws)}")
        if found.one:
            say(f"  one behaviour shows every trigger these bounds allow ({len(found.triggers)})")
        elif found.apart:
            say(f"  no one behaviour of {found.depth} steps shows all of {', '.join(found.apart)} together "
                "at these bounds")
        if found.impossible:
            code = 1
            say(f"  VACUOUS: no behaviour of {found.depth} steps that keeps every clause shows "
                f"{', '.join(found.impossible)}")
        elif shown != set(found.triggers):
            code = 1
    if "clashes" in parts:
        rows = []

        def clash_line(c: Any) -> None:
            if not c.diverges:
                what = f"never takes a branch other than the conformant one within {args.depth} steps here"
                what += _faults_off(bounds, c.reading)
            elif not c.clauses and not c.finishing:
                what = (f"no clash within {args.depth} steps: a behaviour takes its branch, keeps every clause "
                        "and finishes")
            else:
                props = asserted_by(c.clauses, c.finishing)
                finish = f" once the behaviour must finish within {args.depth} steps" if c.finishing else ""
                what = f"clashes with {' '.join(c.clauses)}{finish} ({', '.join(props)})"
            say(f"  {_short(c.reading):<28} {what}")
            note("consistency", f"(b) {len(rows) + 1} reading(s) judged, printed above")
            rows.append({"reading": c.reading, "diverges": c.diverges, "clauses": list(c.clauses),
                         "finishing": c.finishing, "properties": asserted_by(c.clauses, c.finishing),
                         "seconds": round(c.seconds, 1)})

        say(f"(b) each reading against the clauses: behaviours of {args.depth} steps that take the reading's "
            "branch; a minimal clashing set of clauses (one of possibly several)")
        clashed = reporter.count("(b) clashes", len(single_switch_readings()), "readings")
        clashes(bounds, args.depth, done=lambda c: (clash_line(c), clashed(len(rows), c.reading)), rules=rules)
        report["clashes"] = {"depth": args.depth, "readings": rows}
    if "dependencies" in parts:
        rows = []

        def dependency_line(d: Any) -> None:
            fails = "; ".join(f"{n} fails (under {_short(r)}, at step {t} of a behaviour that keeps every other "
                              "clause)" for n, (r, t) in d.fail.items())
            holds = ", ".join(d.hold)
            say(f"  {d.clause:<6} " + "; ".join(x for x in (fails, holds and f"still holds: {holds}") if x))
            note("consistency", f"(c) {len(rows) + 1} clause(s) judged, printed above")
            rows.append({"clause": d.clause, "properties": list(d.formalised_by),
                         "fail": {n: {"reading": r, "step": t} for n, (r, t) in d.fail.items()},
                         "hold": list(d.hold), "seconds": round(d.seconds, 1)})

        say(f"(c) what each clause is needed for: drop it (every property citing it stops being asserted) and "
            f"see which of those properties still hold on behaviours of {args.depth} steps under the other "
            "clauses")
        total = sum(1 for names in constraints().values() if any(n != FINISHES for n in names))
        depended = reporter.count("(c) dependencies", total, "clauses")
        dependencies(bounds, args.depth, done=lambda d: (dependency_line(d), depended(len(rows), d.clause)),
                     rules=rules, jobs=None)
        report["dependencies"] = {"depth": args.depth, "clauses": rows}
    seconds = time.perf_counter() - started
    report["seconds"] = round(seconds, 1)
    report["exit"] = code
    if args.json:
        print(json.dumps(report, indent=1))
        return code
    if code == 0 and "satisfiable" in parts:
        how = "one behaviour" if len(report["satisfiable"]["behaviours"]) == 1 else \
            f"{len(report['satisfiable']['behaviours'])} behaviours (not one: see (a))"
        say(f"[ok] the clauses are satisfiable together, not vacuously: every trigger these bounds allow occurs "
            f"in {how} of {args.trigger_depth} steps that keep every clause and finish ({seconds:.0f} s)")
    elif code == 0:
        say(f"[done] {', '.join(parts)} ({seconds:.0f} s); satisfiability was not asked (--only)")
    else:
        say("[vacuous] some trigger occurs in no behaviour that keeps every clause: see (a)")
    return code

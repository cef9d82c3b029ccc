"""`pausecheck prove --compositional`: two sessions from one, proved by z3 (`checks/symbolic/compositional.py`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pausecheck.model import Bounds

from ..mutants.evidence import command_line
from .anysessions import any_sessions_command
from .draft import rules_of
from .proving import proof_workers, sayer, with_progress

__all__ = ["compositional_command", "THEOREM"]

THEOREM = ("every behaviour of the sessions together projects, for each session, onto a behaviour of the "
           "one-session model (the session's executions, segments, artifacts and warnings renumbered as if it ran "
           "alone, the budgets the sessions share counted per session), and no step of one session changes "
           "another's projection")


def _counterexample(cti: Any) -> dict[str, Any] | None:
    return None if cti is None else {"pre": repr(cti.pre), "step": str(cti.action), "post": repr(cti.post),
                                     "replays": cti.replays}


def compositional_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception],
                          write: Any = None) -> int:
    if getattr(args, "any_sessions", False):
        return any_sessions_command(args, bounds, reading, usage, write)
    from ..symbolic.compositional import many_sessions, prove_compositional
    from ..symbolic.values import TooSmall
    together = many_sessions(bounds)
    sessions = together.sessions
    if sessions * bounds.turns + bounds.new_turns > 9:
        raise usage("prove --compositional encodes at most 9 executions (--sessions (2 or more) x --turns + "
                    "--new-turns)")
    rules = rules_of(args, together, reading)
    try:
        proof = with_progress(args, "compositional proof", lambda progress, deadline: prove_compositional(
            together, reading, rules, progress=progress, deadline=deadline,
            workers=proof_workers(args)))
    except TooSmall as error:
        raise usage(f"prove --compositional: these bounds do not fit the symbolic encoding ({error})") from None
    alone = bounds.replace(sessions=1)  # the flags name the one-session bounds: the sessions are the theorem's
    where = alone.flags() or "the default bounds"
    many = "two sessions" if sessions == 2 else f"{sessions} sessions"
    scope = f"at {where} with {many} (every fault the bounds allow), under the reading {reading.name}"
    strengthening = (f"{len(proof.kept)} of {proof.mined} candidate invariants mined from {proof.sampled} reachable "
                     f"states of {many}, and {len(proof.properties)} state properties, kept by Houdini in "
                     f"{proof.rounds} rounds (each proved inductive with the others)")
    carried = [p.name for p in proof.carried if p.proved]
    dropped = [p.name for p in proof.carried if not p.proved]
    failed = [p for p in proof.premises if not p.proved]
    code = 3 if proof.incomplete else 1 if failed else 3 if dropped else 0
    check = command_line(alone, reading.name, rules=rules)
    if args.json:
        print(json.dumps({
            "method": "compositional induction", "theorem": THEOREM, "scope": scope, "bounds": bounds.as_dict(),
            "sessions": sessions, "reading": reading.name, "strengthening": strengthening,
            "invariants": [c.name for c in proof.kept] + proof.properties,
            "premises": [{"name": p.name, "session": p.session, "says": p.says, "proved": p.proved,
                          "reason": p.reason or None, "counterexample": _counterexample(p.cti)}
                         for p in proof.premises],
            "carried": [{"name": p.name, "carried": p.proved, "reason": p.reason or None,
                         "counterexample": _counterexample(p.cti)} for p in proof.carried],
            "one_session_premise": check, "any_number_of_sessions": "prove --compositional --sessions any",
            "proved": proof.proved, "seconds": round(proof.seconds, 2), "complete": not proof.incomplete,
            "reached": proof.reached if proof.incomplete else None,
            "exit": code}, indent=1))
        return code
    say = sayer(args)

    say(f"pausecheck prove --compositional: induction with z3 over the relation derived from the rule table, {scope}.")
    say(f"  theorem: {THEOREM}.")
    if not proof.incomplete:
        say(f"  strengthening: {strengthening}")
    say("  premises:")
    for p in proof.premises:
        who = "" if p.session is None else f" (session {p.session})"
        say(f"    {'proved' if p.proved else 'NOT PROVED':<11} {p.name}{who}: {p.says}"
            + (f"; {p.reason}" if p.reason else ""))
        if p.cti is not None:
            say(f"        counterexample (it may be unreachable: then the invariants are too weak)\n"
                f"        from {p.cti.pre}\n        by {p.cti.action}\n        to {p.cti.post}")
    if proof.carried:
        say(f"  carried to {many} (holds of the whole wherever it holds of each session's part): "
            f"{len(carried)} of {len(proof.carried)} properties" + (f"; NOT carried: {', '.join(dropped)}"
                                                                     if dropped else ""))
    say(f"  {proof.seconds:.1f} s")
    if proof.incomplete:
        where = f", at: {proof.reached}" if proof.reached else ", in its set-up"
        say(f"[incomplete] stopped at --max-seconds after {proof.seconds:.1f} s{where}; nothing is proved")
    elif failed:
        say(f"[not proved] {', '.join(sorted({p.name for p in failed}))}: each comes with a counterexample above (a "
            "state where every kept invariant holds and a step from it)")
    else:
        say(f"[{'ok' if not dropped else 'incomplete'}] the theorem holds {scope}: every property that carries "
            f"({len(carried)}) holds for {many} wherever `{check}` establishes it for one"
            + (f"; {', '.join(dropped)} do not carry: their one-session verdicts say nothing of {many}"
               if dropped else "")
            + ". For every number of sessions at once: prove --compositional --sessions any.")
    return code

"""`pausecheck prove --compositional --sessions any`: the compositional theorem for every number of sessions at
once (`checks/symbolic/anysessions.py`)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds
from pausecheck.traces.itf import dumps

from ..mutants.evidence import command_line, trace_name
from .draft import rules_of
from .proving import sayer, with_progress

__all__ = ["any_sessions_command", "THEOREM"]

THEOREM = ("for every number of sessions N, every behaviour of N sessions projects, for each session, onto a "
           "behaviour of the one-session model (its items renumbered as if it ran alone, the budgets the sessions "
           "share counted per session), and no step of one session changes another's projection")


def any_sessions_command(args: argparse.Namespace, bounds: Bounds, reading: Any, usage: type[Exception],
                         write: Any) -> int:
    from ..symbolic.anysessions import FACTS, MAX_STATES, prove_any_sessions
    from ..symbolic.footprint import LEMMAS
    from ..symbolic.values import TooSmall
    one = bounds.replace(sessions=1)
    rules = rules_of(args, one, reading)
    try:
        proof = with_progress(args, "any number of sessions", lambda progress, deadline: prove_any_sessions(
            one, reading, rules, progress=progress, max_states=MAX_STATES, deadline=deadline))
    except TooSmall as error:
        raise usage(f"prove --compositional --sessions any: these bounds do not fit the symbolic encoding ({error})") \
            from None
    where = one.flags() or "the default bounds"
    scope = f"at {where} (one session's; every fault they allow), under the reading {reading.name}"
    check = command_line(one, reading.name, rules=rules)
    failed = [f for f in proof.findings if not f.holds]
    facts_failed = [f for f in proof.facts if not f.holds]
    dropped = [c.name for c in proof.carried if not c.carried]
    carried = [c.name for c in proof.carried if c.carried]
    code = 1 if failed or facts_failed else 3 if not proof.complete or dropped else 0
    trace = None
    if proof.counterexample is not None and args.out is not None:
        trace = str(args.out / trace_name("two-sessions", proof.witnessed))
        write(Path(trace), dumps(proof.counterexample))
    if args.json:
        print(json.dumps({
            "method": "compositional induction, for any number of sessions", "theorem": THEOREM, "scope": scope,
            "bounds": one.as_dict(), "sessions": "any", "reading": reading.name,
            "lemmas": [{"rule": f.rule, "use": f.what, "lemma": f.lemma, "says": LEMMAS[f.lemma], "holds": f.holds,
                        "reason": f.why or None} for f in proof.findings],
            "facts": [{"name": f.name, "says": FACTS[f.name], "holds": f.holds, "example": f.example or None}
                      for f in proof.facts],
            "one_session_states": proof.states, "complete": proof.complete, "stopped": proof.stopped or None,
            "carried": [{"name": c.name, "carried": c.carried, "reason": c.why or None} for c in proof.carried],
            "two_sessions": None if proof.counterexample is None else {
                "property": proof.witnessed, "steps": len(proof.counterexample["states"]) - 1, "trace": trace},
            "one_session_premise": check, "proved": proof.proved, "seconds": round(proof.seconds, 2), "exit": code},
            indent=1))
        return code
    say = sayer(args)

    say(f"pausecheck prove --compositional --sessions any: every number of sessions at once, {scope}.")
    say(f"  theorem: {THEOREM}.")
    say("  the footprint lemmas (z3, each use of a shared list or counter by each rule, on an item that stands for "
        "every other session's; so for lists of any length):")
    counts = Counter(f.lemma for f in proof.findings if f.holds)
    for lemma, says in LEMMAS.items():
        if counts[lemma]:
            say(f"    proved      {lemma} ({counts[lemma]} uses): {says}")
    for f in failed:
        say(f"    NOT PROVED  {f.lemma} ({f.rule}): {f.what}" + (f"; {f.why}" if f.why else ""))
    reached = f"all {proof.states:,}" if proof.complete else f"the first {proof.states:,} (not all)"
    say(f"  the one-session facts, on {reached} states the one-session model reaches at these bounds:")
    for f in proof.facts:
        say(f"    {'holds' if f.holds else 'FAILS':<11} {f.name}: {FACTS[f.name]}" + (f"; {f.example}" if f.example
                                                                                      else ""))
    if proof.carried:
        say(f"  carried to any number of sessions (holds of the whole wherever it holds of each session's part): "
            f"{len(carried)} of {len(proof.carried)} properties" + (f"; NOT carried: {', '.join(dropped)}"
                                                                     if dropped else ""))
        for c in proof.carried:
            if not c.carried:
                say(f"    {c.name}: {c.why}")
    if failed:
        if proof.counterexample is not None:
            steps = len(proof.counterexample["states"]) - 1
            say(f"  two sessions show it: {proof.witnessed} breaks in {steps} steps with two sessions at "
                f"`{proof.counterexample['#meta'].get('command', '')}`, which one session at the same bounds keeps "
                f"(replayed)" + (f"; written to {trace}" if trace else "; --out DIR writes it as ITF"))
        else:
            say("  two sessions at small bounds break no property that one session keeps: the lemma may fail only "
                "of states no run reaches, or need larger bounds to show")
    say(f"  {proof.seconds:.1f} s")
    if failed or facts_failed:
        names = sorted({f.lemma for f in failed} | {f.name for f in facts_failed})
        say(f"[not proved] {', '.join(names)}: nothing is established for any number of sessions")
    elif not proof.complete:
        say(f"[incomplete] stopped at {proof.stopped} after {proof.seconds:.1f} s, the one-session facts checked on "
            f"{proof.states:,} states: nothing is established for any number of sessions")
    else:
        say(f"[{'ok' if not dropped else 'incomplete'}] the theorem holds for every number of sessions {scope}: every "
            f"property that carries ({len(carried)}) holds for any number of sessions wherever `{check}` "
            "establishes it for one" + (f"; {', '.join(dropped)} do not carry: their one-session verdicts say "
                                        "nothing of more sessions" if dropped else "") + ".")
    return code

"""`pausecheck diff --draft FILE [--against FILE2]`: what a draft changes, by verdicts and by behaviours."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, reading_named
from pausecheck.traces.input_file import say
from pausecheck.traces.itf import dumps
from pausecheck.traces.render import render

from ..console import Reporter
from ..diff import DIFF_KIND, Behaviour, Diff, behaviour_documents, diff
from ..drafts import Draft, check_table, load_draft, rule_changes
from ..flags import limit_flags
from ..mutants import catalogue
from ..mutants.evidence import command_line
from ..search.explore import Limits
from .draft import draft_given

__all__ = ["diff_command", "DIFF_KIND", "how_decided"]


def diff_command(args: argparse.Namespace, bounds: Bounds, usage: type[Exception], write: Any,
                 limits: Limits) -> int:
    """Compare the draft with the rules (or `--against`), print what differs, write the behaviours."""
    draft = draft_given(args)
    if draft is None:
        raise usage("diff needs --draft FILE (the table to compare; --against FILE2 the other, default the rules)")
    reading = reading_named(args.reading)
    against = None if args.against is None else load_draft(args.against)
    for table in (draft, against):
        if table is not None:
            check_table(table.rules, table.path, bounds, reading)
    with Reporter("diff", color=not args.no_color) as reporter:
        show = reporter.status("diff")
        show("checking both tables")
        found = diff(bounds, reading, draft, against, liveness=args.liveness, jobs=args.jobs, limits=limits,
                     catalogue=catalogue(), done=show, ladder_seconds=args.ladder_seconds,
                     z3_seconds=args.z3_seconds)
    command = command_line(bounds, reading.name, f"--draft {draft.path}"
                           + ("" if against is None else f" --against {against.path}")
                           + ("" if args.liveness else " --no-liveness") + "".join(f" {w}" for w in limit_flags(args)),
                           "pausecheck diff")
    written = _write_behaviours(behaviour_documents(found, draft, against, bounds, reading, command), args.out,
                                write)
    code = found.exit_code
    if args.json:
        print(json.dumps(_json(found, written, code), indent=2, sort_keys=True))
    else:
        _print(found, draft, against, written, code, command, args.out)
    return code


def _ladder_lines(found: Diff, draft: Draft, against: Draft | None, other: str) -> list[str]:
    """What the ladder found past these bounds: where the edit takes effect, where the tables part."""
    out = []
    ladder = found.ladder
    never = found.walk.complete and found.walk.same_states and found.exit_code in (0, 1)
    if never and not any(v["changed"] for v in found.verdicts()):
        out.append(f"the draft's change never took effect at these bounds: no step of a changed rule ran with "
                   f"another outcome than under {other}")
        if ladder is not None and ladder.fired is not None:
            out.append(f"  it takes effect with {ladder.fired.flags} (the other bounds as given)")
    if ladder is None:
        return out
    if ladder.apart is not None:
        rung = ladder.apart
        tables = f"--draft {draft.path}" + ("" if against is None else f" --against {against.path}")
        how = f"verdicts differ: {', '.join(rung.verdicts)}" if rung.verdicts else "a behaviour only one allows" + (
            "" if rung.behaviour is None else f", {len(rung.behaviour.actions)} steps: {rung.behaviour.why}")
        out.append(f"the smallest bounds found that tell them apart: {rung.flags} ({how}; {len(ladder.tried)} bound "
                   f"set(s) tried in {ladder.seconds:.1f} s): "
                   f"{command_line(rung.bounds, rung.reading, tables, 'pausecheck diff')}")
    else:
        most = max((r.raises for r in ladder.tried), default=0)
        why = ": stopped by --ladder-seconds, give it longer to climb further" if ladder.stopped else ""
        last = f"; the last: {ladder.tried[-1].flags}" if ladder.tried else ""
        out.append(f"nothing tells them apart in the {len(ladder.tried)} bound set(s) tried, up to {most} raise(s) "
                   f"above these{last} ({ladder.seconds:.1f} s{why})")
        if never and ladder.fired is None:
            out.append("  nor does the change take effect in any of them")
    return out


def _name(against: Draft | None) -> str:
    return "the rules" if against is None else against.path


def _write_behaviours(documents: dict[str, dict[str, Any]], folder: Path,
                      write: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """Write each behaviour only one table allows under `folder`: side -> (path, document)."""
    out = {}
    for side in ("only_in_draft", "only_in_rules", "relation"):
        path = folder / f"{side.replace('_', '-')}.itf.json"
        if side not in documents:
            path.unlink(missing_ok=True)  # a behaviour an earlier diff wrote here is not one of this diff's
            continue
        write(path, dumps(documents[side]))
        out[side] = (str(path), documents[side])
    return out


def how_decided(found: Diff) -> str:
    walk = found.walk
    if not walk.complete:
        return f"not decided: the walk stopped after {walk.pairs:,} pairs of states"
    if not walk.same:
        return (f"they differ: found by walking both tables by the same actions, breadth first, {walk.pairs:,} pairs "
                "of states (so each behaviour below is a shortest one)")
    if walk.same_states:
        return f"the same state graph: every one of the {walk.pairs:,} pairs of states walked is one state"
    return (f"the same traces of what a client sees: {walk.pairs:,} pairs of states walked by the same actions, "
            "each step seen alike under both (internal fields such as held lists may differ)")


def _json(found: Diff, written: dict[str, tuple[str, dict[str, Any]]], code: int) -> dict[str, Any]:
    def behaviour(side: str, b: Behaviour | None) -> dict[str, Any] | None:
        if b is None:
            return None
        return {"steps": len(b.actions), "actions": [str(a) for a in b.actions], "why": b.why,
                "trace": written[side][0]}

    return {"verdicts": found.verdicts(), "clauses": found.clauses(),
            "only_in_draft": behaviour("only_in_draft", found.walk.only_in_second),
            "only_in_rules": behaviour("only_in_rules", found.walk.only_in_first),
            "same_behaviours": found.walk.same, "decided_by": how_decided(found),
            "mutants": {k: found.make_up[k] for k in ("is_mutant", "no_longer_apply", "change_nothing")},
            "behaves_as": found.make_up.get("behaves_as", []),
            "ladder": None if found.ladder is None else found.ladder.as_json(),
            "readings": {"touched": found.make_up["readings_touched"]},
            "changed_rules": found.make_up["changed_rules"], "added_rules": found.make_up["added_rules"],
            "dropped_rules": found.make_up["dropped_rules"],
            "relation": None if found.relation is None else {
                **found.relation.as_json(), "trace": written["relation"][0] if "relation" in written else None},
            "states": {"rules": found.first.states, "draft": found.second.states, "pairs": found.walk.pairs},
            "complete": found.complete, "exit": code}


def _print(found: Diff, draft: Draft, against: Draft | None, written: dict[str, tuple[str, dict[str, Any]]],
           code: int, command: str, folder: Path) -> None:
    other = _name(against)
    say(f"pausecheck diff: the draft {draft.path} (sha256 {draft.sha256[:12]}) against {other}")
    say(rule_changes(found.make_up))
    if found.make_up["is_mutant"]:
        say(f"the draft is the catalogued mutant {', '.join(found.make_up['is_mutant'])} "
            "(pausecheck mutants --list describes it)")
    for alike in found.make_up.get("behaves_as", ()):
        what = "the catalogued mutant" if alike["kind"] == "mutant" else f"{other} under the reading"
        say(f"the draft behaves as {what} {alike['name']} at these bounds ({alike['decided_by']})")
    verdicts = [v for v in found.verdicts() if v["changed"]]
    clauses = [c for c in found.clauses() if c["changed"]]
    say(f"verdicts: {len(verdicts)} of {len(found.verdicts())} properties and {len(clauses)} of "
        f"{len(found.clauses())} clauses change ({other} -> the draft)")
    for v in verdicts + clauses:
        say(f"  {v['name']:<40} {v['rules']} -> {v['draft']}")
    unsettled = [v["name"] for v in found.verdicts() + found.clauses() if v["unsettled"]]
    if unsettled:  # a cut search: no verdict there on one side, so no change either
        say(f"not established on one side (a search was cut), so not counted as changes: {len(unsettled)} "
            f"({', '.join(unsettled[:6])}{', ...' if len(unsettled) > 6 else ''})")
    say(f"behaviours (the model's steps, with what a client sees after each): {how_decided(found)}")
    shown: tuple[Any, ...] | None = None
    for side, label in (("only_in_draft", "only in the draft"), ("only_in_rules", f"only in {other}")):
        if side in written:
            path, document = written[side]
            say(f"  {label}, {document['#meta']['steps']} steps ({document['#meta']['message']}) -> {path}")
            steps = tuple(s["#meta"].get("action") for s in document["states"])
            if steps == shown:  # the same steps, seen otherwise: said in the line above
                say(f"    the same steps as above (pausecheck replay {path})")
                continue
            shown = steps
            for line in render(document, f"pausecheck replay {path}", headline=False).splitlines():
                say(f"    {line}")
    if found.walk.same:
        say("  no behaviour tells them apart at these bounds")
    if found.relation is not None:
        trace = f" -> {written['relation'][0]} (pausecheck replay it)" if "relation" in written else ""
        say(f"z3, the two relations for behaviours of any length: {found.relation.verdict}: {found.relation.how}"
            f" ({found.relation.seconds:.1f} s){trace}")
    for line in _ladder_lines(found, draft, against, other):
        say(line)
    gone, idle = found.make_up["no_longer_apply"], found.make_up["change_nothing"]
    if gone:
        say(f"mutants that no longer apply to the draft ({len(gone)}): " + ", ".join(gone))
    if idle:
        say(f"mutants whose edits change nothing in the draft ({len(idle)}): " + ", ".join(idle))
    touched = found.make_up["readings_touched"]
    if touched:
        say(f"readings read by a rule the draft changes (their flips may change; pausecheck readings --draft "
            f"{draft.path} computes them): {', '.join(touched)}")
    say(f"states: {found.first.states:,} under {other}, {found.second.states:,} under the draft; "
        f"{found.walk.pairs:,} pairs walked")
    if code == 1 and found.ladder is not None and found.ladder.apart is not None:
        say(f"[differs] the same at these bounds, told apart with {found.ladder.apart.flags}")
    elif code == 1:
        seen = found.walk.only_in_first is not None or found.walk.only_in_second is not None
        parts = ([f"{len(verdicts) + len(clauses)} verdict(s)"] if verdicts or clauses else []) + (
            ["the behaviours"] if seen else [])
        say(f"[differs] {' and '.join(parts)} differ at these bounds")
    elif code == 3:
        say("[incomplete] no difference found in what was searched, but a search or the walk was cut short")
    else:
        proved = found.relation is not None and found.relation.verdict == "same"
        say("[same] every verdict and every behaviour a client sees are the same at these bounds"
            + (", and z3 proves the same behaviours for every length" if proved else ""))
    say(f"reproduce with: {command}")

"""What a draft changes: two rule tables compared by verdicts, by behaviours, and by what they are made of.

`diff(bounds, reading, draft, against)` checks both tables at the same bounds and reading (the two checks
side by side, one process each), and then walks them together:

- **verdicts**: every property's and clause's verdict under each; a change either way counts (a draft that
  repairs a violation changes a verdict too);
- **behaviours**: a breadth-first walk of the pairs of states the two tables reach by the same actions
  from the initial state (each table is deterministic: an action has one successor or none). A behaviour
  is a sequence of the model's actions with what a client sees after each (`observe`: messages, attempt
  trails, questions, statuses, warnings; never held lists). The first action one table allows where the
  other does not, or after which a client sees something else, ends the shortest behaviour only one of
  them allows (a difference in what is seen is a behaviour of each that the other lacks). None found once
  every pair is walked: the same behaviours at these bounds, and where every pair was one state, the same
  state graph;
- **make-up**: which rules differ (read node by node, `lang.same_rule`), which catalogued mutants the draft
  is (the same table as a mutant's), which no longer apply to it, and which ambiguities are read by a
  rule the draft edits (their flips may change: `pausecheck readings --draft` computes them).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Bounds, Machine, Reading
from pausecheck.model.lang import Rule, reads_of
from pausecheck.model.machine import StepError
from pausecheck.traces.itf import trace_document

from .compare import (
    Behaviour,
    Climb,
    Walk,
    behaves_as,
    changed_rules,
    climb,
    near_raises,
    raises_for,
    same_table,
    split,
    walk_together,
)
from .drafts import Draft, base_of
from .mutants.evidence import evidence_of
from .search.explore import Limits
from .search.parallel import run_all
from .verdict import Report, check

__all__ = ["DIFF_KIND", "behaviour_documents", "summary", "Behaviour", "Walk", "Checked", "Diff", "walk_together",
           "diff", "changed_rules", "make_up"]


DIFF_KIND = "diff"  # `#meta.kind` of a behaviour only one table allows (replay confirms its steps)


def make_up(draft: tuple[Rule, ...], against: tuple[Rule, ...], catalogue: Iterable[Any]) -> dict[str, Any]:
    """What the draft is made of against the other table: the rules it changes, adds (an action the other has
    no rule of: one the draft declares, say) and drops, the catalogued mutants it is
    (the same table as a mutant's edits of the other), the mutants whose edits no longer apply to it, the
    mutants whose edits change nothing in it, and the ambiguities a changed rule reads."""
    own = ({r.action for r in against}, {r.action for r in draft})
    added = list(dict.fromkeys(r.action.__name__ for r in draft if r.action not in own[0]))
    dropped = list(dict.fromkeys(r.action.__name__ for r in against if r.action not in own[1]))
    changed = [name for name in changed_rules(against, draft) if name not in added + dropped]
    is_mutant, gone, idle = [], {}, []
    for m in catalogue:
        if m.deviation is None:
            continue
        if m.problem(against) is None and same_table(m.table(against), draft):
            is_mutant.append(m.name)
        problem = m.problem(draft)
        if problem is not None:
            gone[m.name] = problem
        elif same_table(m.table(draft), draft):
            idle.append(m.name)
    kinds = set(changed + added + dropped)
    read = sorted({a for table in (draft, against) for rule in table if rule.action.__name__ in kinds
                   for a in reads_of(rule)})
    return {"changed_rules": changed, "added_rules": added, "dropped_rules": dropped, "is_mutant": is_mutant,
            "no_longer_apply": gone, "change_nothing": idle,
            "readings_touched": read}


@dataclass(frozen=True, slots=True)
class Checked:
    """What one table's check found, small enough to send back from a worker process: each property's and
    clause's verdict, each broken property's counterexample as an ITF document, the search's figures."""

    properties: tuple[tuple[str, str], ...]  # (name, verdict) in registry order
    clauses: tuple[tuple[str, str], ...]  # (clause id, verdict) in catalogue order
    documents: dict[str, dict[str, Any]]  # property -> its counterexample, for those broken
    states: int
    transitions: int
    complete: bool
    exit_code: int


def summary(report: Report) -> Checked:
    """What a diff keeps of one table's check."""
    documents = {e.name: e.document for e in evidence_of(report) if e.counterexample}
    return Checked(tuple((p.name, p.status) for p in report.properties),
                   tuple((c.id, c.status) for c in report.clauses), documents, report.result.states,
                   report.result.transitions, report.result.complete, report.exit_code)


@dataclass(frozen=True, slots=True)
class Diff:
    """Two tables compared at the same bounds and reading."""

    first: Checked  # the table compared against: the rules, or `--against`
    second: Checked  # the draft
    walk: Walk
    make_up: dict[str, Any]
    ladder: Climb | None = None  # where nothing differed at these bounds: larger bounds climbed (ladder.py)
    relation: Any = None  # z3's comparison of the two relations for every length (`symbolic/tables.py`), if asked

    def verdicts(self) -> list[dict[str, Any]]:
        """Every property's verdict under each table, in registry order (`changed` where they differ)."""
        return _paired(self.first.properties, self.second.properties)

    def clauses(self) -> list[dict[str, Any]]:
        """Every clause's verdict under each table, in catalogue order."""
        return _paired(self.first.clauses, self.second.clauses)

    @property
    def complete(self) -> bool:
        return self.first.complete and self.second.complete and self.walk.complete

    @property
    def exit_code(self) -> int:
        """0 nothing a client sees differs; 1 a verdict or a visible behaviour differs; 3 incomplete."""
        if any(v["changed"] for v in self.verdicts() + self.clauses()) or \
                self.walk.only_in_first is not None or self.walk.only_in_second is not None or \
                (self.ladder is not None and self.ladder.apart is not None):
            return 1
        return 0 if self.complete else 3


def _paired(first: tuple[tuple[str, str], ...], second: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """Each verdict under both tables: `changed` only where both are established (a cut search's "no violation
    found (incomplete)" is no verdict, so no change: `unsettled` says where one side was not established)."""
    theirs = dict(second)
    out = []
    for name, status in first:
        other = theirs.get(name, "-")
        settled = _established(status) and _established(other)
        out.append({"name": name, "rules": status, "draft": other, "changed": status != other and settled,
                    "unsettled": status != other and not settled})
    return out


def _established(status: str) -> bool:
    return "(incomplete)" not in status and status != "-"  # "-": not judged (liveness after a cut search)


def _checked(job: tuple[Draft | None, Bounds, str, bool, Limits]) -> Checked:
    """One table's check (in a worker process: the draft travels by its file)."""
    draft, bounds, reading, liveness, limits = job
    try:
        return summary(check(bounds, reading, limits=limits, liveness=liveness, rules=base_of(draft)))
    except StepError as error:  # said of the table that raised it, wherever it ran
        raise StepError(error.state, error.error, "the rules" if draft is None else draft.path) from None


def diff(bounds: Bounds, reading: Reading, draft: Draft, against: Draft | None = None, *, liveness: bool = True,
         limits: Limits | None = None, jobs: int | None = None, catalogue: Iterable[Any] = (),
         done: Callable[[str], None] | None = None, checked: Checked | None = None,
         ladder_seconds: float = 0.0, z3_seconds: float = 0.0) -> Diff:
    """Compare `draft` with `against` (default: the rules) at these bounds and reading (`checked`: the draft's
    check, where the caller has one already: only the other table is checked then). Where nothing tells them
    apart at these bounds, the ladder (`ladder.py`) climbs for `ladder_seconds` to where something does."""
    limits = limits or Limits()
    jobs_done = [0]
    started = time.perf_counter()

    def finished(_: Any, checked: Checked) -> None:
        jobs_done[0] += 1
        if done is not None:
            done(f"{jobs_done[0]} of 2 checks done ({checked.states:,} states)")

    # The walk first: a draft whose space grows without end shows its first differing behaviour in a few levels,
    # where its check would run to the limit. Under --max-seconds, the walk has three tenths of it, and the checks
    # stop by themselves before the limit, so that a cut diff still says what it found.
    if done is not None:
        done("walking both tables together")
    cap = limits.max_seconds
    try:
        walked = walk_together(Machine(bounds, reading, base_of(against)), Machine(bounds, reading, draft.rules),
                               limits.max_states, names=("the rules" if against is None else against.path, "the draft"),
                               shared=split(bounds, reading, base_of(against), draft.rules),
                               deadline=None if cap is None else started + 0.3 * cap)
    except StepError as error:  # said of the draft by its file, as the checks say it
        raise StepError(error.state, error.error, draft.path if error.table == "the draft" else error.table) from None
    if cap is not None:
        limits = dataclasses.replace(limits, max_seconds=max(0.1, 0.6 * cap - (time.perf_counter() - started)))
        if limits.max_seconds < 5:  # too short to start worker processes in: a limit landing mid-start leaves
            jobs = 1                # a half-started worker printing a traceback after the command's last line
    jobs_asked = [(against, bounds, reading.name, liveness, limits)]
    if checked is None:
        jobs_asked.append((draft, bounds, reading.name, liveness, limits))
    found = run_all(_checked, jobs_asked, jobs=jobs, done=finished)
    first, second = found[0], checked or found[1]
    relation = None
    if cap is not None:  # z3 stops by three quarters of the limit
        z3_seconds = min(z3_seconds, 0.75 * cap - (time.perf_counter() - started))
    if z3_seconds > 0:
        if done is not None:
            done(f"z3: comparing the two relations for behaviours of any length (at most {z3_seconds:g} s)")
        from .symbolic.tables import compare_tables  # z3 is imported where it is asked for

        relation = compare_tables(bounds, reading, base_of(against), draft.rules,
                                  deadline=time.perf_counter() + z3_seconds,
                                  names=("the rules" if against is None else against.path, "the draft"))
    made = make_up(draft.rules, base_of(against), catalogue)
    made["behaves_as"] = []
    # The same as the other table at these bounds: every look-alike of it is too; a walk that was cut cannot
    # show a look-alike either (only a finished walk names one).
    if not walked.same_states and walked.complete and (cap is None or time.perf_counter() < started + 0.6 * cap):
        if done is not None:
            done("naming what the draft behaves as")
        alike = behaves_as(bounds, reading, draft.rules, base_of(against), catalogue,
                           made["changed_rules"] + made["added_rules"] + made["dropped_rules"],
                           made["readings_touched"], limits.max_states,
                           deadline=None if cap is None else started + 0.75 * cap)
        made["behaves_as"] = [x for x in alike if x["name"] not in made["is_mutant"]]
    found = Diff(first, second, walked, made, relation=relation)
    if cap is not None:  # the ladder too stops before the limit
        ladder_seconds = min(ladder_seconds, 0.9 * cap - (time.perf_counter() - started))
    if ladder_seconds > 0 and found.exit_code == 0:
        if done is not None:
            done(f"climbing the ladder of larger bounds (at most {ladder_seconds:g} s)")
        kinds = made["changed_rules"] + made["added_rules"] + made["dropped_rules"]
        one, other = base_of(against), draft.rules

        def tables(b: Bounds, r: Reading) -> Any:
            return Machine(b, r, one), Machine(b, r, other), split(b, r, one, other)

        singles = raises_for(bounds, reading, made["readings_touched"], kinds, one + other)
        climbed = climb(bounds, reading, tables, singles, ladder_seconds, max_pairs=limits.max_states or 200_000,
                        base_pairs=walked.pairs, verdicts=_verdicts_apart(draft, against, liveness),
                        near=near_raises(singles, one + other, kinds),
                        names=("the rules" if against is None else against.path, "the draft")) if kinds else None
        found = Diff(first, second, walked, made, climbed, relation)
    return found


def _verdicts_apart(draft: Draft, against: Draft | None,
                    liveness: bool) -> Callable[[Bounds, Reading, float], list[str]]:
    """The properties whose verdicts, established under both tables, differ at other bounds (in `seconds`)."""
    def apart(bounds: Bounds, reading: Reading, seconds: float) -> list[str]:
        if seconds <= 0:
            return []
        limits = Limits(max_seconds=seconds)
        one, other = (_checked((table, bounds, reading.name, liveness, limits)) for table in (against, draft))
        return [v["name"] for v in _paired(one.properties, other.properties) if v["changed"]]
    return apart


def behaviour_documents(found: Diff, draft: Draft, against: Draft | None, bounds: Bounds, reading: Reading,
                        command: str) -> dict[str, dict[str, Any]]:
    """Each behaviour only one table allows as an ITF trace on that table (`pausecheck replay` re-runs it):
    `only_in_draft` and `only_in_rules`, where there is one."""
    other = "the rules" if against is None else against.path
    out = {}
    for side, behaviour, table in (("only_in_draft", found.walk.only_in_second, draft),
                                   ("only_in_rules", found.walk.only_in_first, against)):
        if behaviour is None:
            continue
        verdict = "only in the draft" if side == "only_in_draft" else f"only in {other}"
        meta = {"property": None, "kind": DIFF_KIND, "clauses": [], "verdict": verdict, "message": behaviour.why,
                "description": f"a behaviour {verdict}: {behaviour.why}", "bounds": bounds.as_dict(),
                "reading": reading.name, "mutant": None, "mutant_description": None, "command": command,
                "steps": len(behaviour.actions)}
        if table is not None:
            meta["draft"] = table.meta()
        out[side] = trace_document(behaviour.states, behaviour.actions, meta, rules=base_of(table))
    relation = found.relation
    if relation is not None and relation.verdict == "differs":  # z3's: both tables' steps, then where they part
        last = relation.actions[-1]  # written on the table that takes it: the draft's, where it does
        post = Machine(bounds, reading, draft.rules).step(relation.states[-1], last)
        table = draft if post is not None else against
        if post is None:
            post = Machine(bounds, reading, base_of(against)).step(relation.states[-1], last)
        meta = {"property": None, "kind": DIFF_KIND, "clauses": [], "verdict": "z3: where the tables part",
                "message": relation.how, "description": f"found by z3: {relation.how}", "bounds": bounds.as_dict(),
                "reading": reading.name, "mutant": None, "mutant_description": None, "command": command,
                "steps": len(relation.actions)}
        if table is not None:
            meta["draft"] = table.meta()
        out["relation"] = trace_document(relation.states + (post,), relation.actions, meta, rules=base_of(table))
    return out

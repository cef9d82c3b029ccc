"""Mutants and the kill matrix: every mutant is caught where it says, by a property that can fail.

The kill matrix (one exhaustive search per mutant) is computed once per module; every per-mutant
test reads its row.
"""

from __future__ import annotations

import json
import re

import pytest
from pausecheck.checks.mutants import (
    DEADLOCK,
    LARGE,
    MUTANTS,
    WITNESS_LOST,
    Mutant,
    bounds_of,
    mutant_named,
    mutant_rules,
    mutate,
)
from pausecheck.checks.mutants.killmatrix import KillMatrix, kill_matrix, killer_names
from pausecheck.checks.search.budget import Budget
from pausecheck.checks.search.explore import explore
from pausecheck.model import CLAUSES, DEFAULT_BOUNDS, Bounds, Machine, liveness_named, property_named
from pausecheck.model.deviate import Deviation, Only, on
from pausecheck.model.properties import ALWAYS, SOMETIMES, TRANSITION
from pausecheck.model.rules import RULES

TARGET_RULES = ("RT-TOOL-7", "RT-GATE-6")
KILLABLE = [m for m in MUTANTS if not m.equivalent]
EQUIVALENT = [m for m in MUTANTS if m.equivalent]


# ---------------------------------------------------------------------------------------------
# The registry


def test_at_least_25_killable_mutants():
    assert len(KILLABLE) >= 25


def test_names_are_unique():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))


def test_mutant_named_finds_each_and_refuses_unknown():
    for m in MUTANTS:
        assert mutant_named(m.name) is m
    with pytest.raises(KeyError):
        mutant_named("no_such_mutant")


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_is_documented_and_targets_a_killing_property(mutant: Mutant):
    assert mutant.doc and mutant.clauses
    known = {c.id for c in CLAUSES}
    assert set(mutant.clauses) <= known, f"unknown clause ids {set(mutant.clauses) - known}"
    if mutant.equivalent:
        assert mutant.reason and mutant.target is None
    elif mutant.target.startswith(WITNESS_LOST):  # it only removes behaviour: a witness must go missing
        assert property_named(mutant.target.removeprefix(WITNESS_LOST)).kind == SOMETIMES
        assert _only_narrows_guards(mutant.rules)
    else:
        assert mutant.target in killer_names(Machine())
        if liveness_named(mutant.target) is not None:  # only where the graph can have cycles: endless writes
            assert bounds_of(mutant).endless_writes
        elif mutant.target != DEADLOCK:
            assert property_named(mutant.target).kind in (ALWAYS, TRANSITION)


def _only_narrows_guards(rules: tuple) -> bool:
    """Does this table only withhold actions: the same rules, each with the same effect, its guard the
    rule's own with conjuncts added?"""
    return len(rules) == len(RULES) and all(
        mine.action is theirs.action and mine.effect is theirs.effect
        and all(a is b for a, b in zip(mine.guard, theirs.guard, strict=False)) and len(mine.guard) >= len(theirs.guard)
        for mine, theirs in zip(rules, RULES, strict=True))


def test_every_modelled_target_clause_is_named_by_a_mutant():
    named = {c for m in KILLABLE for c in m.clauses}
    modelled = {c.id for c in CLAUSES if c.rule in TARGET_RULES and c.excused is None}
    assert modelled - named == set()
    assert {"E9.5", "G6.8"} <= named


def test_an_equivalent_mutant_needs_a_reason():
    edits = mutant_named("put_back_by_assignment").deviation
    with pytest.raises(ValueError, match="reason"):
        Mutant("x", ("T7.10",), "doc", None, None, edits, equivalent=True)
    with pytest.raises(ValueError, match="target"):
        Mutant("x", ("T7.10",), "doc", None, None, edits)
    with pytest.raises(ValueError, match="a deviation of the rules or a show"):
        Mutant("x", ("T7.10",), "doc", "no_loss", 3)


def test_bounds_of_prefers_the_mutant_s_own():
    own = mutant_named("held_keyed_per_workflow")
    assert bounds_of(own, DEFAULT_BOUNDS) == own.bounds != DEFAULT_BOUNDS
    plain = mutant_named("no_put_back")
    assert bounds_of(plain) == DEFAULT_BOUNDS
    assert bounds_of(plain, Bounds(pauses=1)) == Bounds(pauses=1)


# ---------------------------------------------------------------------------------------------
# The default machine fails nothing, at every bounds a mutant is checked at: so each kill below
# is the mutant's doing, not the bounds'.


def _bounds_param(b: Bounds) -> object:
    name = ",".join(f"{k}={v}" for k, v in b.as_dict().items() if v != getattr(DEFAULT_BOUNDS, k)) or "default"
    # all but the tiny node-failure bounds explore 50,000+ states (4 to 15 s each); the default bounds are
    # judged in the fast loop by test_explore already
    slow = b.node_failures == 0
    return pytest.param(b, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("bounds", [_bounds_param(b) for b in sorted({bounds_of(m) for m in MUTANTS},
                                                                    key=lambda b: tuple(b.as_dict().values()))])
def test_default_machine_violates_nothing(bounds: Bounds):
    result = explore(Machine(bounds, symmetry=True))  # two sessions: one state per mirror pair (test_symmetry)
    assert result.complete and not result.violations and result.deadlock is None


# ---------------------------------------------------------------------------------------------
# Each mutant, from the matrix


@pytest.mark.parametrize("mutant", KILLABLE, ids=lambda m: m.name)
def test_target_is_violated_with_the_declared_shortest_length(matrix: KillMatrix, mutant: Mutant):
    row = matrix.row(mutant.name)
    assert row.complete
    assert mutant.target in row.killed_by, f"{mutant.name} is killed by {row.killed_by}, not {mutant.target}"
    assert row.steps(mutant.target) == mutant.shortest


@pytest.mark.parametrize("mutant", EQUIVALENT, ids=lambda m: m.name)
def test_equivalent_mutant_is_killed_by_nothing(matrix: KillMatrix, mutant: Mutant):
    assert matrix.row(mutant.name).killed_by == ()


def test_the_mutants_marked_large_are_those_searching_far_more_states_than_the_default(matrix: KillMatrix):
    """`large` (the kill matrix starts them first) is right: at the default bounds, a mutant searches over
    LARGE times the default's states exactly when it is marked so."""
    default = explore(Machine(DEFAULT_BOUNDS)).states
    at_default = [m for m in MUTANTS if bounds_of(m) == DEFAULT_BOUNDS]
    assert {m.name for m in at_default if matrix.row(m.name).states > LARGE * default} == \
        {m.name for m in MUTANTS if m.large}


def test_no_mutant_survives(matrix: KillMatrix):
    assert matrix.survivors == ()


def test_every_killing_property_has_a_sole_killer_or_a_named_redundancy(matrix: KillMatrix):
    lacking = [p.name for p in matrix.properties if not p.sole_killers and not p.redundant_with]
    assert lacking == []


def test_the_summary_says_which_properties_it_counts(matrix: KillMatrix):
    """The summary's count of killers says what it counts: the properties that can fail on a run."""
    from io import StringIO

    from pausecheck.checks.report.killtext import print_mutants
    from rich.console import Console

    printed = StringIO()
    print_mutants(Console(file=printed, width=400), matrix, {m.name: m.target for m in MUTANTS}, every_mutant=True)
    said = re.search(r"every one of the (\d+) properties that can fail on a run \(the always and transition "
                     r"properties, no deadlock, and the liveness properties where writes may fail without limit; a "
                     r"witness kills nothing here\)",
                     printed.getvalue())
    assert said and int(said[1]) == len(matrix.properties), printed.getvalue()[-600:]


def test_every_killing_property_kills_something(matrix: KillMatrix):
    assert [p.name for p in matrix.properties if not p.killers] == []


def test_sole_killers_and_redundancy_agree_with_the_rows(matrix: KillMatrix):
    for column in matrix.properties:
        for name in column.sole_killers:
            assert matrix.row(name).killed_by == (column.name,)
        mine = set(column.killers)
        if column.jointly:
            assert mine <= {k for other in column.redundant_with for k in matrix.column(other).killers}
        else:
            for other in column.redundant_with:
                assert mine <= set(matrix.column(other).killers)
        if column.sole_killers:
            assert column.redundant_with == ()


def test_to_json_is_plain_and_complete(matrix: KillMatrix):
    data = matrix.to_json()
    assert json.loads(json.dumps(data, sort_keys=True)) == data
    assert [m["name"] for m in data["mutants"]] == [m.name for m in MUTANTS]
    assert set(data["mutants"][0]) == {"name", "clauses", "killed_by", "also_broken_by_the_base", "shortest",
                                         "equivalent", "reason", "killed_under_faults"}
    assert data["base"]["name"] == "the rules" and all(not s["broken"] for s in data["base"]["searches"])
    assert [p["name"] for p in data["properties"]] == list(killer_names(Machine()))
    assert set(data["properties"][0]) == {"name", "sole_killers", "redundant_with", "jointly"}


# ---------------------------------------------------------------------------------------------
# The matrix's definitions on a small hand-made case (no search needed to read them)


def test_redundancy_is_a_superset_of_kills():
    from pausecheck.checks.mutants.killmatrix import MutantKill, _columns

    def row(name: str, *killed: str) -> MutantKill:
        return MutantKill(name, ("T7.1",), DEFAULT_BOUNDS, killed, tuple((k, 1) for k in killed),
                          False, "", 1, True, 0.0)

    rows = (row("m1", "p", "q"), row("m2", "q"), row("m3", "r", "s"), row("m4", "s", "t"), row("m5", "r", "t"))
    columns = {c.name: c for c in _columns(rows, ("p", "q", "r", "s", "t", "u"))}
    assert columns["q"].sole_killers == ("m2",) and columns["q"].redundant_with == ()
    assert columns["p"].sole_killers == () and columns["p"].redundant_with == ("q",)
    # r, s and t cover each other's mutants only jointly: r is jointly redundant with s and t.
    assert columns["r"].redundant_with == ("s", "t") and columns["r"].jointly
    assert columns["r"].killers == ("m3", "m5")
    assert columns["u"].killers == () and columns["u"].redundant_with == ()


def test_kill_matrix_refuses_duplicate_names():
    m = mutant_named("no_put_back")
    with pytest.raises(ValueError, match="unique"):
        kill_matrix([m, m])


def test_mutants_searched_at_once_give_the_rows_searched_one_at_a_time():
    """Several worker processes (mutants sent by name) and one process give the same matrix, in the
    order given, and `done` hears of each mutant once."""
    small = Bounds(calls=1, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0, held_bound=1)
    chosen = [mutant_named(n) for n in ("no_put_back", "decline_not_offered", "take_keeps_held")]
    heard: list[tuple[int, str]] = []
    together = kill_matrix(chosen, small, jobs=2, done=lambda k, n, name: heard.append((k, name)))
    with Budget(None, None) as budget:  # what a limit's stop would report: the mutants searched so far
        alone = kill_matrix(chosen, small, jobs=1)
    assert budget.notes["mutants: searched"] == ("3 of 3 mutants searched: 1 killed, 0 equivalent, "
                                                  "2 survived (no_put_back, take_keeps_held)")  # at these bounds
    assert [r.name for r in together.mutants] == [m.name for m in chosen]
    assert [(r.killed_by, r.shortest, r.states) for r in together.mutants] == \
        [(r.killed_by, r.shortest, r.states) for r in alone.mutants]
    assert sorted(k for k, _ in heard) == [1, 2, 3] and sorted(n for _, n in heard) == sorted(m.name for m in chosen)


def test_a_witness_is_lost_only_where_no_property_kills():
    """A behaviour-removing mutant is killed by the witnesses it loses; one nothing else kills and that
    loses nothing would survive (a mutant that withholds a poll, which no witness needs, say)."""
    from pausecheck.model import Poll

    small = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
    decline = mutant_named("decline_not_offered")
    row = kill_matrix([decline], small).row(decline.name)
    # in registry order; a late answer to an approval is a decline, so it goes too
    assert row.killed_by == tuple(WITNESS_LOST + n for n in ("decline", "stale_answer", "completes_after_decline"))
    polls = Mutant("no_polls", ("T7.3",), "polls are withheld", WITNESS_LOST + "poll_while_holding", 1,
                   Deviation(on(Poll, Only(False))))
    assert kill_matrix([polls], small).row("no_polls").survived  # these bounds hold nothing to poll


def test_added_actions_replay_on_the_mutant():
    """An action only a mutant takes is enabled on it (step), and not under the rules."""
    m = mutant_named("resume_without_answer")
    machine = mutate(Machine(m.bounds), m)
    found = explore(machine).violations[m.target]
    for pre, action, post in zip(found.states, found.actions, found.states[1:], strict=False):
        assert machine.step(pre, action) == post
    assert Machine(m.bounds).step(found.states[-2], found.actions[-1]) is None


def test_a_mutant_changes_only_rules_and_show():
    m = mutant_named("poll_shows_held")
    machine = mutate(Machine(), m)
    assert machine.show is m.show and machine.rules is RULES and machine.bounds == DEFAULT_BOUNDS
    m = mutant_named("no_put_back")
    machine = mutate(Machine(), m)
    assert machine.rules is m.rules is mutant_rules("no_put_back") and machine.show is Machine().show


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_step_and_the_search_agree_where_a_mutant_goes(mutant: Mutant):
    """`Machine.step` (what replay runs) and `Machine.successors` (what the search runs) take one path, the
    successor function generated from the rule table, so that every counterexample replays step by step,
    also from states only the mutant reaches (before, a mutant deviating in its answer handling reached
    states where the two disagreed)."""
    machine = mutate(Machine(bounds_of(mutant).replace(calls=1, pauses=1, artifacts=2, observations=0)), mutant)
    order, seen = [machine.init_states()[0]], set(machine.init_states())
    for state in order[:400]:
        for action, post in machine.successors(state):
            assert machine.step(state, action) == post, f"{action} from {state}"
            if post not in seen:
                seen.add(post)
                order.append(post)


@pytest.mark.parametrize("stopped", ["max-seconds", "max-memory", "interrupted"])
def test_a_base_search_the_command_s_stop_cut_short_stops_the_matrix(stopped: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The base's search keeps what it found when the command's limit lands in it: the matrix must not carry on
    with that part (the watchdog stands down once it has raised, so the command would run to the hard stop)."""
    from types import SimpleNamespace

    from pausecheck.checks.mutants import killmatrix
    from pausecheck.checks.search.budget import LimitReached

    monkeypatch.setattr(killmatrix, "explore", lambda *a, **k: SimpleNamespace(stopped=stopped))
    with pytest.raises(LimitReached if stopped != "interrupted" else KeyboardInterrupt):
        killmatrix._base_run.__wrapped__(DEFAULT_BOUNDS)

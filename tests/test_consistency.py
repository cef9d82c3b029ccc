"""`pausecheck consistency`: the clauses as constraints, asked of z3, held to the explicit model."""

from __future__ import annotations

import json

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.checks.symbolic import envelope
from pausecheck.checks.symbolic.consistency import (
    FINISHES,
    Split,
    asserted_by,
    clashes,
    constraints,
    dependencies,
    satisfiable,
    single_switch_readings,
    triggers,
)
from pausecheck.model import Bounds, Machine
from pausecheck.model.clauses import BY_CONSTRUCTION, CLAUSES, EXCUSED
from pausecheck.model.formulas import FORMULAS, Formula
from pausecheck.model.lang import lift
from pausecheck.model.reading import SWITCHES, reading_named

SMALL = Bounds(artifacts=2, held_bound=1)  # the command's defaults
TINY = Bounds(calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)


def test_every_formalised_clause_has_a_constraint_and_only_those():
    has = constraints()
    for c in CLAUSES:
        assert bool(has[c.id]) == (c.strength not in (BY_CONSTRUCTION, EXCUSED)), c.id
    assert "G6.5" in [c for c, names in has.items() if FINISHES in names]


def test_triggers_are_the_witnesses_the_bounds_can_exercise():
    assert "approve" in triggers(TINY)["G6.3"] and triggers(TINY)["E9.1"] == ()  # no node failures at TINY
    assert triggers(Bounds(node_failures=1))["E9.1"] == ("routed_node_failure",)


def test_the_clauses_are_satisfiable_together_with_every_trigger_in_one_behaviour():
    """Every trigger occurs; all but two in one behaviour: with one call per segment and one pause, a fresh call
    follows a failed one only in the segment an approval resumed, so it never meets a completed decline."""
    found = satisfiable(TINY, 12)
    assert not found.one and found.impossible == ()
    assert set(found.apart) == {"completes_after_decline", "calls_after_a_failure"}
    assert {name for _, _, shown in found.behaviours for name in shown} == set(found.triggers)
    reading, path, shown = found.behaviours[0]
    assert reading == "conformant" and len(path.actions) == 12
    assert set(shown) >= set(found.triggers) - set(found.apart)


def test_a_rule_that_breaks_a_clause_leaves_its_triggers_vacuous():
    """The mutant that records a failed tool call completed breaks G6.6 whenever a tool fails: with every clause
    kept, no behaviour of it shows a tool failure."""
    found = satisfiable(TINY, 12, rules=mutant_named("tool_failure_recorded_completed").rules)
    assert "tool_failure" in found.impossible and not found.one


def test_every_single_switch_reading_is_asked_split_by_the_capacities_it_needs():
    readings = single_switch_readings()
    assert len(readings) == sum(len(s.values) - 1 for s in SWITCHES) == 26
    split = Split(TINY, 4)
    assert sorted(r.name for part in split.parts.values() for r in part) == sorted(r.name for r in readings)
    wide = [r.name.removeprefix("conformant+") for caps, part in split.parts.items() if caps.lists > 1 for r in part]
    assert wide == ["A-T4=merge", "A-T6=write-first", "A-T7=racy-read-then-clear", "A-T12=with-artifacts"]


def test_a_clash_is_the_clause_whose_constraint_the_reading_breaks(monkeypatch):
    """A-G4=completed-with-error clashes with G6.6 alone (`failure_recorded_failed`); with that property's formula
    perturbed to hold always, G6.6 alone no longer clashes: the core was that constraint's (another property
    citing G6.6 with other clauses catches the reading then)."""
    reading = (reading_named("A-G4=completed-with-error"),)
    (clash,) = clashes(TINY, 8, reading)
    assert clash.diverges and clash.clauses == ("G6.6",) and not clash.finishing
    monkeypatch.setitem(FORMULAS, "failure_recorded_failed", Formula("failure_recorded_failed", lift(True), step=True))
    monkeypatch.setattr(envelope, "_SPECIALIZED", {})
    (clash,) = clashes(TINY, 8, reading)
    assert clash.diverges and "G6.6" in clash.clauses and clash.clauses != ("G6.6",)


def test_faults_are_in_the_behaviours():
    """A-G11=leave differs only under an expiry: without one it never diverges, with one it does (at step 4)."""
    reading = (reading_named("A-G11=leave"),)
    assert not clashes(TINY, 5, reading)[0].diverges
    assert clashes(TINY.replace(expiries=1), 5, reading)[0].diverges


@pytest.mark.slow
def test_each_clash_is_a_violation_the_explicit_search_finds_under_that_reading(shared_clashes):
    """Every reading z3 says clashes breaks, in the explicit search at the same bounds and depth, a property
    asserted by its core's clauses; every reading z3 says never diverges has no violation at all."""
    depth = 8  # the documented example's depth (the command's default, 12, took 441 s of the suite): computed once
    found = {c.reading: c for c in shared_clashes(SMALL, depth)}
    assert len(found) == 26 and sum(c.diverges for c in found.values()) == 12
    # Which minimal core z3 returns may depend on what else the process asked of z3 before (term ids): a
    # fresh `pausecheck consistency` gives G6.3 G6.4 for A-G1=leave; any minimal core must pass the check below.
    assert found["conformant+A-G1=leave"].clauses and found["conformant+A-G4=completed-with-error"].clauses
    assert not found["conformant+A-T5=append"].diverges  # A-T5 matters only with a racing resume
    assert found["conformant+A-G4=completed-with-error"].clauses == ("G6.6",)
    for name, clash in found.items():
        result = explore(Machine(SMALL, reading_named(name)), Limits(max_depth=depth))
        broken = {n for n, v in result.violations.items() if len(v.actions) <= depth}
        if not clash.diverges:
            assert broken == set(), name
        elif clash.clauses:
            asserted = set(asserted_by(clash.clauses, clash.finishing)) - {FINISHES}
            assert broken & asserted or (clash.finishing and not asserted), (name, broken, asserted)


@pytest.mark.slow
def test_dropping_a_clause_lets_the_reading_that_breaks_it_in():
    heard: list[str] = []
    # Seven steps: the findings of eight (and of SMALL, 139 s of the suite then), each behaviour re-checked on the
    # explicit model as decoded; 42 s against 63 s for one run at eight.
    alone = dependencies(TINY, 7, done=lambda d: heard.append(d.clause))
    found = {d.clause: d for d in alone}
    assert heard == [d.clause for d in alone]
    # The first reading (in their order) that breaks it, whatever the process asked of z3 before.
    assert found["T7.12"].fail["no_loss"][0] == "conformant+A-T4=release"
    shared = dependencies(TINY, 7, jobs=2, done=lambda d: heard.append(d.clause))
    assert [(d.clause, d.fail, d.hold) for d in shared] == [(d.clause, d.fail, d.hold) for d in alone]
    assert heard == [d.clause for d in alone] * 2  # told in the clauses' order, whichever process ends first
    assert "one_question_per_pause" in found["G6.9"].hold  # no reading breaks it: the rules alone keep it
    assert "failure_recorded_failed" in found["G6.6"].fail


def test_consistency_cli(capsys):
    """Too few steps for every trigger: the JSON names those no behaviour shows, and the exit is 1."""
    argv = ["consistency", "--only", "satisfiable", "--trigger-depth", "4", "--calls", "1", "--artifacts", "1",
            "--pauses", "1", "--observations", "0", "--held-bound", "1", "--json"]
    assert main(argv) == 1
    out = json.loads(capsys.readouterr().out)
    assert "stale_answer" in out["satisfiable"]["impossible"] and out["exit"] == 1
    assert main(["consistency", "--depth", "0"]) == 2
    assert main(["consistency", "--trigger-depth", "0"]) == 2

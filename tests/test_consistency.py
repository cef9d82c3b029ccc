"""`pausecheck consistency`: the clauses as constraints, asked of z3, held to the explicit model."""

from __future__ import annotations

import json

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.explore import Limits, explore
from pausecheck.checks.symbolic.consistency import (
    FINISHES,
    asserted_by,
    constraints,
    dependencies,
    satisfiable,
    triggers,
)
from pausecheck.model import Bounds, Machine
from pausecheck.model.clauses import BY_CONSTRUCTION, CLAUSES, EXCUSED
from pausecheck.model.reading import reading_named

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
    found = satisfiable(TINY, 12)
    assert found.one and found.impossible == () and found.apart == ()
    reading, path, shown = found.behaviours[0]
    assert reading == "conformant" and set(shown) == set(found.triggers) and len(path.actions) == 12


@pytest.mark.slow
def test_each_clash_is_a_violation_the_explicit_search_finds_under_that_reading(shared_clashes):
    """Every reading z3 says clashes breaks, in the explicit search at the same bounds and depth, a property
    asserted by its core's clauses; every reading z3 says never diverges has no violation at all."""
    depth = 12  # the command's default: the documented example's clashes, computed once (conftest)
    found = {c.reading: c for c in shared_clashes(SMALL, depth)}
    assert len(found) == 14
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
    found = {d.clause: d for d in dependencies(SMALL, 8)}
    # (each behaviour is re-checked on the explicit model under its reading as it is decoded)
    assert found["T7.12"].fail["no_loss"][0] in ("conformant+A-T4=release", "conformant+A-T14=ambiguous")
    assert "one_question_per_pause" in found["G6.9"].hold  # no reading breaks it: the rules alone keep it
    assert "failure_recorded_failed" in found["G6.6"].fail


def test_consistency_cli(capsys):
    argv = ["consistency", "--only", "satisfiable", "--trigger-depth", "12", "--calls", "1", "--artifacts", "1",
            "--pauses", "1", "--observations", "0", "--held-bound", "1", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["satisfiable"]["one_behaviour"] and out["exit"] == 0
    assert main(["consistency", "--crashes", "1"]) == 2
    assert main(["consistency", "--depth", "0"]) == 2

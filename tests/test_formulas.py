"""The formulas decide: on every state and step the searches below reach, each property's compiled
formula (`model/formulas.py`, `model/pycheck.py`) holds exactly where its Python explanation finds
nothing to say, and the one-pass screens (of a state's invariants, of each record's, of a step's transition
properties and witnesses) agree with them."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.model import Bounds, Machine
from pausecheck.model.config import COMPANION_BOUNDS
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.observe import shown
from pausecheck.model.properties import PROPERTIES, screen
from pausecheck.model.property import ALWAYS, SOMETIMES, TRANSITION
from pausecheck.model.pycheck import compiled_for, source

from .sampling import FULL
from .strategies import first_reachable

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
MACHINES = {
    "default": Machine(SMALL),
    "two sessions": Machine(COMPANION_BOUNDS),
    "crash and race": Machine(SMALL.replace(pauses=1, observations=0, per_call=2, crashes=1, races=1)),
    "interim writes and node failures": Machine(SMALL.replace(interim_writes=1, node_failures=1)),
    "expiries": Machine(SMALL.replace(expiries=1)),
    # Mutants whose states break properties, each in its own way.
    **{name: mutate(Machine(SMALL), mutant_named(name))
       for name in ("failed_write_lands", "take_keeps_held", "resume_reemits_artifacts", "drop_without_warning",
                    "pause_discards_collected", "read_then_clear_take", "interrupt_recorded_failed",
                    "resume_flips_attempt", "superseded_left_interrupted", "tool_failure_unhandled", "drop_oldest",
                    "no_put_back", "poll_delivers_held", "decline_reissues_call", "interrupt_keeps_running")},
    "held_keyed_per_workflow": mutate(Machine(COMPANION_BOUNDS.replace(calls=2, write_failures=0)),
                                      mutant_named("held_keyed_per_workflow")),
}
# The first states, in breadth-first order, of each machine: 10,000 in the suite (20,000 took 134 s of it, past
# CI's half hour), 20,000 under PAUSECHECK_FULL=1.
FIRST = 20_000 if FULL else 10_000


@pytest.mark.parametrize("name", MACHINES)
def test_each_formula_holds_exactly_where_its_explanation_finds_nothing(name: str) -> None:
    machine = MACHINES[name]
    ctx = machine.context()
    tests = compiled_for(machine.bounds)
    always = [p for p in PROPERTIES if p.kind == ALWAYS and (p.name != "held_hidden" or machine.show is shown)]
    steps = [p for p in PROPERTIES if p.kind == TRANSITION]
    witnesses = [p for p in PROPERTIES if p.kind == SOMETIMES]
    all_hold, rest = screen(always, ctx)
    broken: set[str] = set()
    for state in first_reachable(machine, FIRST):
        verdicts = {}
        for p in always:
            verdicts[p.name] = tests.state[p.name](state)
            assert verdicts[p.name] == (p.check.explain(state, ctx) is None), (p.name, state)
            if p.each is not None:
                for e in state.executions:
                    assert tests.each[p.name](e) == (p.each.explain(e, ctx) is None), (p.name, e)
        assert all_hold(state, None) == all(verdicts[p.name] for p in always if p not in rest), state
        broken |= {n for n, v in verdicts.items() if not v}
        for action, post in machine.successors(state):
            kind, keep = type(action), []
            for p in steps:
                if p.on and kind not in p.on:
                    continue
                held = tests.step(p.name, kind)(state, action, post)
                assert held == (p.check.explain(state, action, post, ctx) is None), (p.name, state, action)
                broken |= set() if held else {p.name}
                keep.append((p.name, held))
            # The one-pass screen of a step (its tests joined, its sequences walked once) asks for attention
            # exactly where a transition property breaks or a witness shows.
            show = [(w.name, bool(tests.step(w.name, kind)(state, action, post))) for w in witnesses
                    if not w.on or kind in w.on]
            names = tuple(n for n, _ in keep), tuple(n for n, _ in show)
            stutter = post == state
            expected = not all(h for _, h in keep) or any(v for _, v in show)
            assert bool(tests.attention(*names, kind, stutter)(state, action, post)) == expected, (state, action)
    assert broken or name in ("default", "two sessions", "crash and race", "interim writes and node failures",
                              "expiries"), "the mutant broke no property: the comparison saw no failure"


def test_every_property_has_a_formula_of_its_kind() -> None:
    for p in PROPERTIES:
        assert FORMULAS[p.name].step == (p.kind != ALWAYS), p.name
        assert (FORMULAS[p.name].each is not None) == (p.each is not None), p.name
    assert set(FORMULAS) == {p.name for p in PROPERTIES}


def test_a_witness_is_decided_by_its_formula_alone() -> None:
    witnesses = [p for p in PROPERTIES if p.kind == SOMETIMES]
    assert witnesses and all(not hasattr(p.check, "explain") for p in witnesses)


def test_the_generated_tests_read_like_the_formulas() -> None:
    code = source(Bounds())
    assert "def state_" in code and "def each_" in code and "def step_" in code
    assert "<= 2" in code  # the held bound, resolved to a constant

"""Steps that change nothing: the transition properties that claim no such step can break them (their
`stutter`) are skipped on those steps by the explorer; here the claim is checked on every reachable state."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.search.explore import explore
from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import ToolInterrupts
from pausecheck.model.config import COMPANION_BOUNDS
from pausecheck.model.deviate import Effect, deviate, on
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import TRANSITION

from .strategies import RICH, reachable

CLAIMS = tuple(p for p in PROPERTIES if p.kind == TRANSITION and p.stutter is not None)
SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=1)
INTERIM = Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=0, interim_writes=1,
                 held_bound=1)
MACHINES = {"rich": RICH, "interim": Machine(INTERIM), "two sessions": Machine(COMPANION_BOUNDS),
            "stale answers override": mutate(Machine(SMALL), mutant_named("stale_answer_overrides")),
            "polls deliver": mutate(Machine(SMALL), mutant_named("poll_delivers_held"))}


def test_some_properties_claim_it() -> None:
    assert {p.name for p in CLAIMS} >= {"trail_never_relabelled", "one_question_per_pause"}


@pytest.mark.parametrize("name", MACHINES)
def test_no_step_that_changes_nothing_breaks_a_property_that_claims_so(name: str) -> None:
    """Every enabled action of every reachable state, taken as if it changed nothing."""
    machine = MACHINES[name]
    ctx = machine.context()
    for state in reachable(machine):
        for action in {a for a, _ in machine.successors(state)}:
            for p in CLAIMS:
                if (not p.on or type(action) in p.on) and type(action) not in p.stutter:
                    assert p.check(state, action, state, ctx) is None, (p.name, action, state)


def test_a_property_that_a_stutter_can_break_is_still_checked_on_one() -> None:
    """A pause that changes nothing breaks one_question_per_pause on that very step (its claim names
    pauses): the search still checks it there, and finds it."""
    pause_does_nothing = deviate(on(ToolInterrupts, Effect()))
    (prop,) = (p for p in PROPERTIES if p.name == "one_question_per_pause")
    found = explore(Machine(SMALL, rules=pause_does_nothing, properties=(prop,))).violations.get(prop.name)
    assert found is not None and found.states[-1] == found.states[-2]

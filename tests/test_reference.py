"""The vetted reference graph: a mutant searched against the default's graph, which skips the checks of the
steps the default also takes, finds exactly what the plain search finds, trace for trace."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import MUTANTS, mutant_named, mutate
from pausecheck.checks.search.explore import OPTIONAL, Result, explore
from pausecheck.checks.search.reference import Vetted, reference
from pausecheck.model import Bounds, Machine
from pausecheck.model.reading import reading_named

SMALL = Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
VETTABLE = [m for m in MUTANTS if m.show is None]


def outcome(result: Result) -> tuple[object, ...]:
    """Everything a search establishes, traces included."""
    return (result.complete, result.states, result.transitions, result.depth, dict(result.violations),
            dict(result.witnesses), result.deadlocks, result.deadlock)


@pytest.fixture(scope="module")
def small_reference():
    ref = reference(Machine(SMALL))
    assert ref is not None and len(ref.steps) == explore(Machine(SMALL)).states
    return ref


@pytest.mark.parametrize("mutant", VETTABLE, ids=lambda m: m.name)
def test_a_mutant_searched_against_the_reference_finds_what_the_plain_search_finds(mutant, small_reference) -> None:
    machine = mutate(Machine(SMALL), mutant)
    assert outcome(explore(Vetted(machine, small_reference))) == outcome(explore(machine))


def test_the_default_searched_against_its_own_reference_finds_its_witnesses(small_reference) -> None:
    plain = explore(Machine(SMALL))
    assert plain.witnesses, "the bounds reach witnesses, so this compares something"
    assert outcome(explore(Vetted(Machine(SMALL), small_reference))) == outcome(plain)


@pytest.mark.slow
def test_at_the_default_bounds_too() -> None:
    """Mutants that leave the default's states late and early (their rows gain most and least)."""
    ref = reference(Machine())
    assert ref is not None
    for name in ("held_merged_after", "tool_failure_unhandled"):
        machine = mutate(Machine(), mutant_named(name))
        assert outcome(explore(Vetted(machine, ref))) == outcome(explore(machine)), name


def test_a_machine_that_breaks_a_property_has_no_reference() -> None:
    assert reference(mutate(Machine(SMALL), mutant_named("poll_shows_held"))) is None  # its wire view shows held


def test_a_machine_that_breaks_only_a_transition_property_has_no_reference() -> None:
    # A-T9=merge breaks write_back_delivers and other transition properties, and no invariant, at these bounds.
    bounds = Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0, held_bound=1)
    assert reference(Machine(bounds, reading_named("conformant+A-T9=merge"))) is None
    assert reference(Machine(bounds)) is not None


def test_a_reference_is_of_the_rules_own_successors() -> None:
    with pytest.raises(ValueError, match="not a mutant"):
        reference(mutate(Machine(SMALL), mutant_named("put_back_by_assignment")))


def test_a_reference_too_large_is_not_built() -> None:
    assert reference(Machine(SMALL), max_states=100) is None


def test_a_reference_vets_only_deviations_of_its_own_machine(small_reference) -> None:
    shows = next(m for m in MUTANTS if m.show is not None)
    with pytest.raises(ValueError, match="wire view"):
        Vetted(mutate(Machine(SMALL), shows), small_reference)
    with pytest.raises(ValueError, match="same bounds"):
        Vetted(Machine(SMALL.replace(held_bound=2)), small_reference)


def test_a_vetted_search_offers_every_optional_hook_its_machine_offers() -> None:
    # A hook left out is not an error, only a slower search: without `edge_screen`, each step's properties
    # were checked one by one in every mutant's search (a third of `pausecheck mutants`' time).
    offered = [hook for hook in OPTIONAL if hasattr(Machine, hook)]
    assert "edge_screen" in offered
    assert [hook for hook in offered if not hasattr(Vetted, hook)] == []

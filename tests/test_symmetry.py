"""Session symmetry: one state stored per class of states equal up to renaming sessions, with the
same verdicts and shortest traces as the full search, and every trace concrete (it replays)."""

from __future__ import annotations

import dataclasses

import pytest
from pausecheck.checks.mutants import MUTANTS, Mutant, bounds_of, mutant_named, mutate
from pausecheck.checks.search.explore import Discovery, Result, explore
from pausecheck.model import Bounds, Machine, StartTurn, State
from pausecheck.model.symmetry import canonical_sessions

TWO = Bounds(sessions=2, calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)


def lengths(found: dict[str, Discovery]) -> dict[str, int]:
    return {name: len(d.actions) for name, d in found.items()}


def assert_replays(machine: Machine, found: Discovery) -> None:
    """Every step of the trace is a real step of the machine (no canonical state stands in for one)."""
    for pre, action, post in zip(found.states, found.actions, found.states[1:], strict=False):
        assert machine.step(pre, action) == post, f"{action} does not lead from the stored state to the next"


def both(machine: Machine) -> tuple[Result, Result]:
    return explore(machine), explore(dataclasses.replace(machine, symmetry=True))


def test_renaming_sessions_gives_one_representative() -> None:
    machine = Machine(TWO)
    first = machine.step(machine.step(State(), StartTurn(1)), StartTurn(2))
    second = machine.step(machine.step(State(), StartTurn(2)), StartTurn(1))
    assert first != second and canonical_sessions(first) == canonical_sessions(second) == first
    assert canonical_sessions(State()) == State()
    only_second = machine.step(State(), StartTurn(2))
    assert canonical_sessions(only_second) == machine.step(State(), StartTurn(1))


def test_the_symmetric_search_judges_as_the_full_one_on_half_the_states() -> None:
    full, reduced = both(Machine(TWO))
    assert full.complete and reduced.complete
    assert (full.states, reduced.states) == (26703, 13352)  # the initial state is its own mirror
    assert lengths(full.witnesses) == lengths(reduced.witnesses) and full.depth == reduced.depth
    assert full.violations == {} == reduced.violations and full.deadlocks == 0 == reduced.deadlocks
    for found in reduced.witnesses.values():
        assert_replays(Machine(TWO), found)


@pytest.mark.parametrize("name", ["failed_write_lands", "interrupt_keeps_running", "decline_reissues_call",
                                  "stale_answer_overrides", "decline_stalls", "superseded_left_interrupted"])
def test_a_mutant_is_killed_the_same_way_and_its_counterexamples_replay(name: str) -> None:
    machine = mutate(Machine(TWO), mutant_named(name))
    full, reduced = both(machine)
    assert lengths(full.violations) == lengths(reduced.violations) and (full.violations or full.deadlock)
    assert (full.deadlock is None) == (reduced.deadlock is None)
    if full.deadlock is not None:
        assert len(full.deadlock.actions) == len(reduced.deadlock.actions)
        assert_replays(machine, reduced.deadlock)
    assert reduced.states < full.states
    for found in reduced.violations.values():
        assert_replays(machine, found)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.symmetric], ids=lambda m: m.name)
def test_a_mutant_the_kill_matrix_searches_symmetrically_is_killed_as_by_the_full_search(mutant: Mutant) -> None:
    full, reduced = both(mutate(Machine(bounds_of(mutant)), mutant))
    assert bounds_of(mutant).sessions > 1 and reduced.states < full.states
    assert lengths(full.violations) == lengths(reduced.violations) and mutant.target in full.violations
    assert (full.deadlock is None) == (reduced.deadlock is None)


def test_one_session_has_no_symmetry_to_use() -> None:
    assert Machine(TWO.replace(sessions=1), symmetry=True).canonical() is None
    assert Machine(TWO, symmetry=False).canonical() is None


def test_check_symmetry_says_what_it_counted(capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks.cli import main

    argv = ["check", "--sessions", "2", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
            "--accept-unexercised", "--no-color"]
    assert main(argv + ["--symmetry"]) == main(argv) == 0
    reduced, full = capsys.readouterr().out.split("[ok]")[:2]
    assert "searched 13,352 states" in reduced and "counted up to renaming sessions: --symmetry" in reduced
    assert "searched 26,703 states" in full and "--symmetry" not in full.split("searched")[1].splitlines()[0]

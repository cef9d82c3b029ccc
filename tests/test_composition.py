"""Each session of a two-session search behaves as the one-session model (`checks/composition.py`): every
step projects onto each session as a one-session step, or leaves it as it was where it is another
session's. Checked here at small bounds; the check fails where isolation does (a mutant) and where the
one-session model crashes at fewer points than a second session makes it crash (as it did before the
check)."""

from __future__ import annotations

import dataclasses

import pytest
from pausecheck.checks.composition import simulate
from pausecheck.checks.mutants import MUTANTS
from pausecheck.model import Bounds, Machine
from pausecheck.model.projection import project
from pausecheck.model.rules import CRASH, RULES, B, S
from pausecheck.model.state import WORKING

from .strategies import reachable

SMALL = Bounds(sessions=2, calls=1, artifacts=1, pauses=1, observations=0, held_bound=1)


@pytest.mark.parametrize("faults", [{}, {"expiries": 1}], ids=["no fault", "an expiry"])
def test_every_step_of_two_sessions_is_a_one_session_step_of_each(faults: dict[str, int]) -> None:
    bounds = SMALL.replace(**faults)
    found = simulate(bounds)
    assert found.mismatches == [] and found.moved > 0
    # so each session reaches only what it reaches alone, and here every state it reaches alone
    assert found.projected == set(reachable(Machine(bounds.replace(sessions=1))))


@pytest.mark.slow  # 68,000 states, about 20 s
def test_a_lost_race_is_one_session_s_step_too() -> None:
    assert simulate(SMALL.replace(races=1)).mismatches == []


@pytest.mark.slow  # 186,615 states, about a minute
def test_a_crash_is_every_session_s_step() -> None:
    assert simulate(SMALL.replace(crashes=1)).mismatches == []


def test_a_model_that_crashes_only_in_a_write_back_is_not_every_session_s_model() -> None:
    """Crashing only while a write-back is under way (the rule before the check found this) reaches the same
    states alone, but a crash another session's write-back brings catches a segment that is only working,
    which no one-session step did: the projection moves by a step the one-session model lacks."""
    write_back_only = dataclasses.replace(CRASH, guard=(S.crashes < B.crashes, S.segments.any_of(
        lambda y: (y.phase != WORKING) | y.write_failed | (y.closing != ""))))
    rules = tuple(write_back_only if r is CRASH else r for r in RULES)
    found = simulate(SMALL.replace(crashes=1), rules=rules, max_mismatches=1)
    (mismatch,) = found.mismatches
    assert "another session's step changes" in mismatch.why
    after = project(mismatch.post, mismatch.session)
    assert after.crashed and not any(g.phase != WORKING for g in project(mismatch.pre, mismatch.session).segments)


def test_a_held_list_shared_between_sessions_is_caught() -> None:
    mutant = next(m for m in MUTANTS if m.name == "held_keyed_per_workflow")
    found = simulate(SMALL.replace(calls=2), rules=mutant.rules, max_mismatches=1)
    assert found.mismatches and "another session's step changes" in found.mismatches[0].why

"""The envelope of readings (`checks/symbolic/envelope.py`): several readings in one relation, z3 choosing.

Under each reading the envelope has exactly that reading's moves of the relation (which
`tests/test_successors.py` holds to the explicit successors), the conformant reading's shared by every
reading that specialises a rule alike; a reading whose switch needs a fault the bounds leave off is the
conformant reading; and `diverges` says exactly that a behaviour takes a step the conformant reading
does not, as the explicit model judges it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3
from pausecheck.checks.symbolic.consistency import divergent_step, single_switch_readings
from pausecheck.checks.symbolic.envelope import Envelope, EnvelopeUnrolling, switches_read
from pausecheck.checks.symbolic.relation import Caps, lift, moves
from pausecheck.checks.symbolic.unrolled import Drift
from pausecheck.checks.symbolic.values import CONCRETE
from pausecheck.model import CONFORMANT, Bounds, Machine, reading_named
from pausecheck.model.rules import RULES

from .strategies import first_reachable

TINY = Bounds(calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)
FAULTS = TINY.replace(crashes=1, races=1, expiries=1)  # every switch can matter
READINGS = (CONFORMANT,) + single_switch_readings()


def assert_each_reading_has_its_own_moves(bounds: Bounds, states: int, every: int) -> None:
    """On every `every`th of the first `states` breadth-first states under each reading, the envelope's moves
    of the groups that hold the reading are that reading's moves of the relation (Python values)."""
    envelope = Envelope(bounds, READINGS)
    for index, reading in enumerate(READINGS):
        for state in first_reachable(Machine(bounds, reading), states)[::every]:
            value = lift(CONCRETE, envelope.caps, state)
            mine = [x.move for x in envelope.moves(value, CONCRETE) if index in x.group.members]
            assert mine == list(moves(envelope.caps, bounds, reading, value, CONCRETE)), (reading.name, state)


def test_under_each_reading_the_envelope_has_exactly_that_readings_moves() -> None:
    assert_each_reading_has_its_own_moves(TINY, 120, 8)


@pytest.mark.slow
def test_under_each_reading_and_every_fault_the_envelope_has_exactly_that_readings_moves() -> None:
    assert_each_reading_has_its_own_moves(FAULTS, 400, 4)


def test_a_rule_is_lowered_once_for_the_readings_that_do_not_read_its_switches() -> None:
    envelope = Envelope(FAULTS, READINGS)
    for rule, groups in zip(RULES, envelope.groups, strict=True):
        assert 0 in groups[0].members and sum(len(g.members) for g in groups) == len(READINGS)
        for index, reading in enumerate(READINGS):
            if not switches_read(rule) & {a for a, _ in reading.switches}:
                assert index in groups[0].members, (rule.action.__name__, reading.name)
    poll = next(g for r, g in zip(RULES, envelope.groups, strict=True) if r.action.__name__ == "Poll")
    assert len(poll) == 1  # no reading changes a poll


def test_a_reading_whose_switch_needs_a_fault_that_is_off_is_the_conformant_reading() -> None:
    off, on = Envelope(TINY, READINGS), Envelope(FAULTS, READINGS)
    names = [r.name for r in READINGS]
    for name in ("conformant+A-T6=take-first", "conformant+A-T8=strand", "conformant+A-G11=leave"):
        assert off.same_as_conformant(names.index(name)) and not on.same_as_conformant(names.index(name)), name
    assert not off.same_as_conformant(names.index("conformant+A-G1=leave"))


def test_the_envelope_is_as_wide_as_its_widest_reading() -> None:
    envelope = Envelope(TINY, (CONFORMANT, reading_named("A-T12=with-artifacts")))
    assert envelope.caps == Caps.of(TINY, reading_named("A-T12=with-artifacts"))
    assert envelope.caps.lists == 2 * Caps.of(TINY, CONFORMANT).lists


def _diverging_states(bounds: Bounds, reading: object, depth: int) -> bool:
    """Does the explicit search under `reading` take, within `depth` steps, a step the conformant reading
    does not (from the same state, the same action to another successor, or none)?"""
    machine, conformant = Machine(bounds, reading), Machine(bounds, CONFORMANT)
    frontier, seen = [machine.init_states()[0]], set()
    for _ in range(depth):
        following = []
        for state in frontier:
            for action, post in machine.successors(state):
                if conformant.step(state, action) != post:
                    return True
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        frontier = following
    return False


def test_diverges_is_what_the_explicit_model_says() -> None:
    """For each reading: z3 finds a behaviour of `depth` steps that diverges exactly when the explicit
    search under that reading takes a step the conformant reading does not; the behaviour found does."""
    depth = 6
    u = EnvelopeUnrolling(Envelope(TINY, READINGS))
    for _ in range(depth):
        u.grow()
    for index, reading in enumerate(READINGS[1:], 1):
        some = z3.Or([u.diverges(index, t) for t in range(depth)])
        found = u.solver.check(u.envelope.choice == index, some)
        assert (found == z3.sat) == _diverging_states(TINY, reading, depth), reading.name
        if found == z3.sat:
            path = u.path(u.solver.model(), depth, Machine(TINY, reading))
            assert 0 <= divergent_step(TINY, reading, path) < depth


def test_a_behaviour_that_never_leaves_the_conformant_reading_is_a_drift() -> None:
    u = EnvelopeUnrolling(Envelope(TINY, (CONFORMANT,)))
    for _ in range(3):
        u.grow()
    assert u.solver.check() == z3.sat
    path = u.path(u.solver.model(), 3, Machine(TINY))
    with pytest.raises(Drift, match="takes a branch of"):
        divergent_step(TINY, reading_named("A-G1=leave"), path)


def test_the_capacities_hide_no_step_within_the_depth() -> None:
    """No step of the first behaviours, under any reading, leaves even the conformant reading's capacities (at
    which `grow` would drop it unseen); the overflow term sees one where there is no room for an artifact."""
    for readings, caps, depth, found in ((READINGS, Caps.of(TINY, CONFORMANT), 5, z3.unsat),
                                         ((CONFORMANT,), replace(Caps.of(TINY, CONFORMANT), lists=0), 3, z3.sat)):
        u = EnvelopeUnrolling(Envelope(TINY, readings, caps=caps))
        for _ in range(depth):
            u.grow()
        assert u.solver.check(z3.Or([u.overflow(t) for t in range(depth)])) == found, caps

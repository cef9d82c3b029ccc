"""The successors derived from the rule table (`model/pygen.py`) equal the hand-written rules' on every
state that matters.

`tests/legacy_rules.py` keeps the rules as they were written by hand before the table became data, as an
independent reference (until the z3 relation derived from the same table is cross-checked against the
explicit successors). Each bound set's reachable states are found with the hand-written rules alone,
then both are asked for the successors of every one of them: same actions, same order, same successor
states; under the conformant reading with each fault, and under every single-switch reading. Every
mutant's reachable states (states the rules never reach: a patched successor, an added action) are
compared too, since mutants run on the derived successors with their deviation applied after them.
"""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import MUTANTS, bounds_of, mutate
from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, SWITCHES, Bounds, Machine, Reading, State, reading_named
from pausecheck.model.lang import Set
from pausecheck.model.pygen import successor_function
from pausecheck.model.rules import RULES
from pausecheck.model.state import COMPLETED

from .legacy_rules import generic_successors

SMALL = Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
BOUND_SETS = {  # a few thousand states each; two sessions about 27,000
    "small": SMALL,
    "two calls": SMALL.replace(calls=2, pauses=1, observations=0),
    "two sessions": SMALL.replace(sessions=2, pauses=1, observations=0, artifacts=1),
    "two turns": SMALL.replace(turns=2, pauses=1, observations=0),
    "interim messages and node failures": SMALL.replace(interim_writes=1, node_failures=1, observations=0, pauses=1),
    "a crash": SMALL.replace(crashes=1, observations=0, pauses=1, artifacts=1),
    "an expiry, a race, a new turn": SMALL.replace(expiries=1, races=1, new_turns=1, observations=0, pauses=1,
                                                   artifacts=1, write_failures=0),
    "drops": SMALL.replace(per_call=2, artifacts=3, observations=0),
}
# Mutants at small bounds: their deviations reach states the rules never do.
MUTANT_BOUNDS = SMALL.replace(calls=2, pauses=1, observations=0)
# Every single-switch reading, with every fault and interim messages on, so that each switch can matter.
READING_BOUNDS = SMALL.replace(calls=1, pauses=2, observations=0, interim_writes=1, crashes=1, races=1, expiries=1,
                               artifacts=2, held_bound=1)
SINGLE_SWITCH = [reading_named(f"{s.ambiguity}={v}") for s in SWITCHES for v in s.values if v != s.default]


def by_the_hand_written_rules(machine: Machine) -> list[State]:
    """Every state reachable under the hand-written rules (the mutant's deviations applied after them)."""
    def successors(state: State) -> list:
        pairs = generic_successors(machine.bounds, machine.reading, state)
        return list(machine.deviated(state, pairs))

    order, seen = [State()], {State()}
    for state in order:
        for _, post in successors(state):
            if post not in seen:
                seen.add(post)
                order.append(post)
    return order


def assert_equal_everywhere(bounds: Bounds, reading: Reading, states: list[State], rules: tuple = RULES) -> None:
    derived = successor_function(bounds, reading, rules)
    for state in states:
        assert derived(state) == generic_successors(bounds, reading, state), \
            f"the derived successors differ from the hand-written rules' at {state}"


@pytest.mark.parametrize("name", list(BOUND_SETS))
def test_derived_successors_equal_the_hand_written_rules_on_every_reachable_state(name: str) -> None:
    bounds = BOUND_SETS[name]
    states = by_the_hand_written_rules(Machine(bounds))
    assert len(states) > 100
    assert_equal_everywhere(bounds, CONFORMANT, states)


@pytest.mark.parametrize("reading", SINGLE_SWITCH, ids=lambda r: r.name.removeprefix("conformant+"))
def test_derived_successors_equal_the_hand_written_rules_under_every_reading(reading: Reading) -> None:
    states = by_the_hand_written_rules(Machine(READING_BOUNDS, reading))
    assert len(states) > 100
    assert_equal_everywhere(READING_BOUNDS, reading, states)


@pytest.mark.slow
def test_derived_successors_equal_the_hand_written_rules_at_the_default_bounds() -> None:
    states = by_the_hand_written_rules(Machine(DEFAULT_BOUNDS))
    assert len(states) == 73409
    assert_equal_everywhere(DEFAULT_BOUNDS, CONFORMANT, states)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_derived_successors_equal_the_hand_written_rules_on_every_state_a_mutant_reaches(mutant) -> None:
    own = bounds_of(mutant)  # the small set with what the mutant needs beyond the defaults
    bounds = (BOUND_SETS["two sessions"] if own.sessions > 1 else BOUND_SETS["two turns"] if own.turns > 1
              else BOUND_SETS["interim messages and node failures"] if own.interim_writes or own.node_failures
              else MUTANT_BOUNDS)
    machine = mutate(Machine(bounds), mutant)
    states = by_the_hand_written_rules(machine)
    assert_equal_everywhere(bounds, machine.reading, states)


def test_a_difference_is_caught() -> None:
    """The comparison can fail: with the table's end-of-segment ladder broken (a final write always
    completes the run), some reachable state's derived successors differ from the hand-written rules'."""
    failing = BOUND_SETS["interim messages and node failures"]  # an unrouted node failure fails the run
    states = by_the_hand_written_rules(Machine(failing))
    broken = tuple(_always_completes(rule) if rule.action.__name__ == "WriteMessage" else rule for rule in RULES)
    with pytest.raises(AssertionError, match="differ from the hand-written rules"):
        assert_equal_everywhere(failing, CONFORMANT, states, broken)


def _always_completes(rule):
    """The rule with every `Set(e.status, ...)` in its effect setting `completed`."""
    from dataclasses import replace

    from pausecheck.model.lang import When

    def fix(stmts: tuple) -> tuple:
        out = []
        for st in stmts:
            if isinstance(st, Set) and st.target.args[1] == "status":
                st = Set(st.target, COMPLETED)
            elif isinstance(st, When):
                st = When(st.test, fix(st.then), fix(st.otherwise))
            out.append(st)
        return tuple(out)
    return replace(rule, effect=fix(rule.effect))

"""The engines' forms of the rule table agree: the explicit successors (`model/pygen.py`) equal the z3
relation's (`checks/symbolic/relation.py`) on every state that matters (issue 24's cross-check).

Both are derived from `model/rules.py`. On every reachable state of three bound sets (the defaults; a
small set with a crash and a race; a small two-session set) the relation's lowering, run with Python
values, gives exactly the explicit successors: same actions, same order, same successor states. On a
sample of those states the relation as a z3 formula admits exactly them (each explicit successor
satisfies it, it admits no other). Under every single-switch reading, and on the states mutants reach
(states the rules never do), the same comparison runs on the first states of the search; and each
mutant, a deviation of the table, has its own relation, equal to its own explicit successors. A slip in
either derivation is caught: the last tests perturb one operation in each and watch the check fail.
"""

from __future__ import annotations

import random

import pytest
from pausecheck.checks.compare import changed_rules
from pausecheck.checks.mutants import MUTANTS, Mutant, bounds_of, mutate
from pausecheck.checks.symbolic.crosscheck import Relation, lowered_successors
from pausecheck.checks.symbolic.relation import Caps, _Lower
from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, SWITCHES, Bounds, Machine, Reading, State, reading_named
from pausecheck.model.lang import Rule
from pausecheck.model.pygen import _Writer, successor_function
from pausecheck.model.rules import RULES

from .sampling import FULL, first_of_each

SMALL = Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
CROSS_CHECKED = {  # the three bound sets: the defaults, a crash and a race, two sessions
    "defaults": DEFAULT_BOUNDS,
    "a crash and a race": SMALL.replace(crashes=1, races=1, observations=0, pauses=1, calls=2, per_call=2),
    "two sessions": SMALL.replace(sessions=2, pauses=1, observations=0, artifacts=1, write_failures=0),
}
# Every single-switch reading, with every fault and interim messages on, so that each switch can matter.
READING_BOUNDS = SMALL.replace(observations=0, interim_writes=1, crashes=1, races=1, expiries=1)
SINGLE_SWITCH = [reading_named(f"{s.ambiguity}={v}") for s in SWITCHES for v in s.values if v != s.default]
MUTANT_BOUNDS = SMALL.replace(calls=2, pauses=1, observations=0)
# States per reading or mutant compared by the lowering (breadth-first, so every kind of step): 500 in the suite
# (1,000 took some 290 s of it over the readings and mutants, past CI's half hour), 1,000 under PAUSECHECK_FULL=1.
FIRST = 1000 if FULL else 500


def reachable(machine: Machine, limit: int | None = None) -> list[State]:
    """The states the machine reaches (its deviations applied), breadth-first, up to `limit`."""
    order, seen = [State()], {State()}
    for state in order:
        for _, post in machine.successors(state):
            if post not in seen:
                seen.add(post)
                order.append(post)
        if limit is not None and len(order) >= limit:
            break
    return order[:limit]


def assert_lowering_agrees(bounds: Bounds, reading: Reading, states: list[State], caps: Caps | None = None,
                           rules: tuple[Rule, ...] = RULES) -> None:
    explicit = successor_function(bounds, reading, rules)
    for state in states:
        assert lowered_successors(bounds, reading, state, rules, caps) == explicit(state), \
            f"the z3 relation's lowering and the explicit successors differ at {state}"


@pytest.mark.parametrize("name", [n for n in CROSS_CHECKED if n != "defaults"])
def test_the_relation_equals_the_explicit_successors_on_every_reachable_state(name: str) -> None:
    bounds = CROSS_CHECKED[name]
    states = reachable(Machine(bounds))
    assert len(states) > 1000
    assert_lowering_agrees(bounds, CONFORMANT, states if FULL else states[::2])  # every second: 70 s of the suite


@pytest.mark.slow
def test_the_relation_equals_the_explicit_successors_on_every_eighth_state_of_the_defaults() -> None:
    """Every eighth in search order (9,177 of 73,409: every depth, every kind of step; every fourth took 45 s of
    the suite, every one 203 s, compared until 2026-12-03); every one under PAUSECHECK_FULL=1."""
    states = reachable(Machine(DEFAULT_BOUNDS))
    assert len(states) == 73409
    assert_lowering_agrees(DEFAULT_BOUNDS, CONFORMANT, states if FULL else states[::8])


@pytest.mark.parametrize("name", list(CROSS_CHECKED))
def test_the_z3_formula_admits_exactly_the_explicit_successors(name: str) -> None:
    bounds = CROSS_CHECKED[name]
    states = reachable(Machine(bounds))
    sample = states[:10] + random.Random(24).sample(states, 25)
    relation = Relation.of(bounds, CONFORMANT)
    explicit = successor_function(bounds, CONFORMANT)
    for state in sample:
        assert relation.solutions(state) == explicit(state), f"the z3 relation admits other successors at {state}"


@pytest.mark.parametrize("reading", SINGLE_SWITCH, ids=lambda r: r.name.removeprefix("conformant+"))
def test_the_relation_equals_the_explicit_successors_under_every_reading(reading: Reading) -> None:
    states = reachable(Machine(READING_BOUNDS, reading), FIRST)
    assert len(states) == FIRST
    assert_lowering_agrees(READING_BOUNDS, reading, states)
    relation = Relation.of(READING_BOUNDS, reading)
    explicit = successor_function(READING_BOUNDS, reading)
    for state in random.Random(reading.name).sample(states, 5):
        assert relation.solutions(state) == explicit(state), f"the z3 relation admits other successors at {state}"


# In the suite, one mutant per set of rules the mutants edit (every mutant under PAUSECHECK_FULL=1); every
# mutant's own relation is checked on its own states below.
@pytest.mark.parametrize("mutant", first_of_each(MUTANTS, lambda m: tuple(changed_rules(RULES, m.rules))),
                         ids=lambda m: m.name)
def test_the_relation_equals_the_explicit_successors_where_a_mutant_goes(mutant) -> None:
    """Mutants reach states the rules never do (a deviant successor, an added action); from each, the
    rules' own successors must still agree in both forms."""
    bounds = _mutant_bounds(mutant)
    machine = mutate(Machine(bounds), mutant)
    states = reachable(machine, FIRST // 3)
    explicit = successor_function(bounds, machine.reading)
    caps = Caps.of(bounds).covering(states + [post for state in states for _, post in explicit(state)])
    assert_lowering_agrees(bounds, machine.reading, states, caps)


def _mutant_bounds(mutant: Mutant) -> Bounds:
    own = bounds_of(mutant)
    return MUTANT_BOUNDS.replace(sessions=own.sessions, turns=own.turns, interim_writes=own.interim_writes,
                                 node_failures=own.node_failures, artifacts=min(own.artifacts, 2))


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.rules is not RULES], ids=lambda m: m.name)
def test_a_mutant_s_relation_equals_its_explicit_successors(mutant: Mutant) -> None:
    """A mutant is a deviation of the rule table (`model/deviate.py`), so both engines derive its form
    from the same table: at its bounds, on the first states it reaches and the first where it deviates,
    the z3 relation lowered from its table (`moves(..., rules=mutant.rules)`) gives exactly the
    successors generated from it, and so, on two of the deviating ones, does the relation as a z3
    formula."""
    bounds = bounds_of(mutant)
    machine = mutate(Machine(bounds), mutant)
    explicit = successor_function(bounds, machine.reading, mutant.rules)
    searched = reachable(machine, 10 * FIRST)
    deviating = [s for s in searched if explicit(s) != successor_function(bounds, machine.reading)(s)][:FIRST // 10]
    assert deviating or mutant.equivalent, "these states show nothing of the deviation"
    states = searched[:FIRST // 3] + deviating
    posts = [post for state in states for _, post in explicit(state)]
    caps = Caps.of(bounds).covering(states + posts)
    assert_lowering_agrees(bounds, machine.reading, states, caps, mutant.rules)
    relation = Relation.of(bounds, machine.reading, mutant.rules, caps)
    for state in random.Random(mutant.name).sample(deviating or states, min(2, len(deviating or states))):
        assert relation.solutions(state) == explicit(state), f"{mutant.name}: the z3 relation admits others at {state}"


def test_a_slip_in_the_relation_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the lowering of `prefix` (cut to a bound) keeping one item too many, the cross-check fails."""
    original = _Lower.sequence

    def slipped(self, x, env):
        if x.op == "prefix":
            x = type(x)("prefix", (x.args[0], x.args[1] + 1), x.t)
        return original(self, x, env)

    monkeypatch.setattr(_Lower, "sequence", slipped)
    bounds = CROSS_CHECKED["a crash and a race"]
    with pytest.raises(AssertionError, match="differ"):
        assert_lowering_agrees(bounds, CONFORMANT, reachable(Machine(bounds)))


def test_a_slip_in_the_explicit_successors_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the generated code's `prefix` keeping one item too many, the cross-check fails."""
    bounds = CROSS_CHECKED["a crash and a race"]
    states = reachable(Machine(bounds))
    original = _Writer.expr

    def slipped(self, x, env):
        code = original(self, x, env)
        return code.replace("[:", "[:1+") if x.op == "prefix" else code

    monkeypatch.setattr(_Writer, "expr", slipped)
    rules = RULES[:-1] + RULES[-1:]  # a table of its own, so that the slipped code is cached for it alone
    explicit = successor_function(bounds, CONFORMANT, rules)
    assert any(lowered_successors(bounds, CONFORMANT, state) != explicit(state) for state in states)

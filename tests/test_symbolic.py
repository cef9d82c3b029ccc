"""The symbolic engine against the explicit model: no drift between the two semantics, and proofs that
hold for behaviours of any length. (The engines' agreement, `check --engines`, runs on the relation:
tests/test_agreement.py.)"""

from __future__ import annotations

import json
from collections import deque

import pytest
import z3
from pausecheck.checks.cli import main
from pausecheck.checks.evidence import trace_of
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.symbolic.bmc import KIND, NAMES, bmc
from pausecheck.checks.symbolic.induction import KEY, STRENGTHENING, induction_semantics, prove
from pausecheck.checks.symbolic.mutants import SYMBOLIC_MUTANTS, mutant_semantics
from pausecheck.checks.symbolic.properties import holds, step_holds, step_shows
from pausecheck.checks.symbolic.readings import READING_TWINS, encoded_readings, reading_semantics
from pausecheck.checks.symbolic.rules import SYMBOLIC_RULES, Semantics, moves
from pausecheck.checks.symbolic.state import lift
from pausecheck.checks.symbolic.vec import same
from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import FAULT_ACTIONS, ClearHeld, CloseSuperseded
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.property import ALWAYS, SOMETIMES
from pausecheck.model.rules import RULES
from pausecheck.traces.replay import replay

TINY = Bounds(calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)  # 152 states
WIDER = (  # each exercises what the default bounds do not
    Bounds(sessions=2, calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1),
    Bounds(calls=1, artifacts=2, pauses=2, write_failures=0, observations=0, interim_writes=1, held_bound=1),
    Bounds(calls=1, artifacts=1, pauses=1, write_failures=0, observations=0, node_failures=1, held_bound=1),
    Bounds(turns=2, calls=1, artifacts=1, pauses=1, write_failures=1, observations=1, held_bound=1),
)
SAMPLE = 150  # states compared at most per bound set beyond TINY (each costs milliseconds of z3 terms)
MUTANT_SAMPLE = 12  # per mutant (51 of them)
SMALL_MUTANT = Bounds(calls=2, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)


def _true(term: z3.BoolRef) -> bool:
    value = z3.simplify(term)
    assert z3.is_true(value) or z3.is_false(value), f"not a constant: {value}"
    return z3.is_true(value)


def _reachable(machine: Machine) -> list:
    seen = {machine.init_states()[0]}
    queue, order = deque(seen), []
    while queue:
        state = queue.popleft()
        order.append(state)
        for _, post in machine.successors(state):
            if post not in seen:
                seen.add(post)
                queue.append(post)
    return order


def _no_drift(machine: Machine, m: Semantics, sample: int | None = None, also=lambda state: False) -> int:
    """Every explicit step is exactly one enabled move with the same successor, every enabled move is an
    explicit step, a sampled non-successor is no move's, and every property judges each state and step
    as the explicit model does. With `sample`, about that many states spread evenly over the reachable
    ones (all of them otherwise), and every state `also` picks. Returns the number of states compared."""
    states = _reachable(machine)
    ctx = machine.context()
    stride = max(1, len(states) // sample) if sample else 1
    compared = 0
    for index, state in enumerate(states):
        if index % stride and not also(state):
            continue
        compared += 1
        pre = lift(m.universe, state)
        enabled = [mv for mv in moves(m, pre) if _true(mv.guard)]
        successors = list(machine.successors(state))
        assert len(enabled) == len(successors), (state, [mv.label() for mv in enabled], successors)
        for name in NAMES:
            if KIND[name] == ALWAYS:
                explicit = next(p for p in machine.properties if p.name == name).check(state, ctx) is None
                assert _true(holds(m, name, pre)) == explicit, (name, state)
        posts = set()
        for action, post in successors:
            lifted = lift(m.universe, post)
            taking = [mv for mv in enabled if mv.matches(action) and _true(same(mv.post, lifted))]
            assert len(taking) == 1, (state, action, post)
            posts.add(post)
            for name in NAMES:
                kind = KIND[name]
                if kind in (ALWAYS, DEADLOCK):
                    continue
                shown, _ = machine.judge(name, state, action, post)
                symbolic = step_shows(m, name, taking[0], pre, lifted) if kind == SOMETIMES \
                    else z3.Not(step_holds(m, name, taking[0], pre, lifted))
                assert _true(symbolic) == shown, (name, state, action)
        other = states[(index + 1) % len(states)]
        if other not in posts:  # a non-transition: no move leads there
            lifted = lift(m.universe, other)
            assert not any(_true(same(mv.post, lifted)) for mv in enabled), (state, other)
    return compared


def test_the_symbolic_rules_mirror_the_rule_table():
    encoded = [kind for kind, _ in SYMBOLIC_RULES]
    explicit = [rule.action for rule in RULES if rule.action not in FAULT_ACTIONS + (ClearHeld, CloseSuperseded)]
    assert encoded == explicit


def test_no_drift_on_every_transition_and_property_of_small_bounds():
    assert _no_drift(Machine(bounds=TINY), Semantics.of(TINY)) == 152


@pytest.mark.slow
@pytest.mark.parametrize("bounds", WIDER, ids=["two-sessions", "interim", "node-failure", "two-turns"])
def test_no_drift_at_wider_bounds(bounds):
    assert _no_drift(Machine(bounds=bounds), Semantics.of(bounds), SAMPLE) > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SYMBOLIC_MUTANTS))
def test_no_drift_of_each_mutant_twin(name):
    mutant = mutant_named(name)
    bounds = mutant.bounds or SMALL_MUTANT
    assert _no_drift(mutate(Machine(bounds=bounds), mutant), mutant_semantics(name, bounds), MUTANT_SAMPLE) > 10


READING_BOUNDS = {"A-T11": (WIDER[1],)}  # interim messages; SMALL_MUTANT for the rest
NEVER_DIVERGE = {"A-T5=append", "A-T5=assign", "A-T9=put-back"}  # without a racing resume (docs/readings.md)


OWN_TWINS = tuple(r for r in encoded_readings() if READING_TWINS[r.switches[0]][1] not in SYMBOLIC_MUTANTS.values())


@pytest.mark.slow
@pytest.mark.parametrize("reading", OWN_TWINS, ids=lambda r: r.name.removeprefix("conformant+"))
def test_no_drift_of_each_reading_twin(reading):
    """Each reading's own twin against the explicit rules under that reading: a sample of its reachable
    states and of the states where the reading's successors differ from the conformant ones. (The seven
    readings whose twin is a mutant's are held to that mutant's deviation by its own no-drift test.)"""
    diverging = 0
    short = reading.name.removeprefix("conformant+")
    for bounds in READING_BOUNDS.get(reading.switches[0][0], (SMALL_MUTANT,)):
        machine, conformant = Machine(bounds=bounds, reading=reading), Machine(bounds=bounds)
        differ = [s for s in _reachable(machine) if set(machine.successors(s)) != set(conformant.successors(s))]
        diverging += len(differ)
        chosen = set(differ[::max(1, len(differ) // 6)])
        assert _no_drift(machine, reading_semantics(bounds, reading), 4, also=chosen.__contains__) > 3
    assert (diverging == 0) == (short in NEVER_DIVERGE), (short, diverging)


def test_a_bmc_counterexample_replays_on_the_explicit_model():
    mutant = mutant_named("no_put_back")
    machine = mutate(Machine(), mutant)
    result = bmc(mutant_semantics(mutant.name, Bounds()), machine, 9, ("failed_write_back_restores",))
    found = result.found["failed_write_back_restores"]
    assert found.depth == mutant.shortest
    document = trace_of(machine, found.discovery, name="failed_write_back_restores")
    done = replay(document, machine)
    assert done.diverged_at is None and done.reproduced


def test_induction_proves_the_six_key_properties():
    proof = prove(induction_semantics(1, 2, 3))
    assert {o.name for o in proof.outcomes} == set(KEY) | {i.name for i in STRENGTHENING} | {"fits_universe"}
    assert all(o.proved for o in proof.outcomes), [(o.name, o.reason) for o in proof.outcomes if not o.proved]


def test_induction_gives_a_counterexample_to_induction_for_what_it_cannot_prove():
    proof = prove(induction_semantics(1, 2, 3), ("merge_order",))
    merge = next(o for o in proof.outcomes if o.name == "merge_order")
    assert not merge.proved and merge.pre is not None and merge.post is not None and merge.move


def test_induction_fails_on_a_mutant():
    m = mutant_semantics("take_keeps_held", Bounds())
    outcomes = {o.name: o for o in prove(m).outcomes}
    assert not outcomes["no_loss"].proved


def test_prove_cli(capsys, tmp_path):
    assert main(["prove", "--bmc", "6", "--calls", "1", "--out", str(tmp_path), "--json"]) == 3  # witnesses deeper
    out = json.loads(capsys.readouterr().out)
    approve = next(p for p in out["properties"] if p["name"] == "approve")
    assert approve["depth"] == 4 and approve["trace"]
    assert main(["replay", approve["trace"], "--quiet"]) == 0
    assert main(["prove", "--bmc", "3", "--calls", "1", "--reading", "A-T12=with-artifacts"]) == 3  # every reading
    capsys.readouterr()
    assert main(["prove", "--bmc", "3", "--calls", "1", "--crashes", "1", "--json"]) == 3  # and every fault
    assert json.loads(capsys.readouterr().out)["depth"] == 3
    capsys.readouterr()
    assert main(["prove", "--bmc", "4", "--calls", "1", "--reading", "A-G1=leave", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert next(p for p in out["properties"] if p["name"] == "resume_supersedes")["depth"] == 4
    assert main(["prove"]) == 2


def test_a_drift_between_the_engines_is_one_verdict_line(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`prove --bmc` names the step where z3 and the explicit model part, in one line, never a traceback."""
    from pausecheck.checks.symbolic import unrolled as module

    def drifting(*args: object, **kwargs: object) -> None:
        raise module.Drift("step 3 (poll e1) from <pre> to <post> is no step of the explicit model")

    monkeypatch.setattr(module, "bmc", drifting)
    assert main(["prove", "--bmc", "3", "--calls", "1", "--pauses", "0"]) == 1
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert last == "[drift] step 3 (poll e1) from <pre> to <post> is no step of the explicit model"

"""The two engines held to each other (`checks/symbolic/agreement.py`, `check --engines bfs,bmc`): the
breadth-first search and z3's bounded model checking over the relation derived from each variant's rule
table give the same verdict and minimal depth for every property, and a disagreement is caught.

At small bounds here; the default bounds (the whole graph of the default, each mutant) are slow.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.compare import changed_rules
from pausecheck.checks.mutants import MUTANTS, WITNESS_LOST, mutant_named, mutate
from pausecheck.checks.mutants.flips import singles
from pausecheck.checks.symbolic import agreement as module
from pausecheck.checks.symbolic.agreement import (
    Variant,
    agreement,
    compare_engines,
    reached,
    unexercised,
    variants,
)
from pausecheck.checks.symbolic.relation import Caps
from pausecheck.checks.symbolic.unrolled import Drift, UniverseTooSmall, bmc
from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import Action, ToolFails
from pausecheck.model.reading import SWITCHES, reading_named
from pausecheck.model.rules import RULES
from pausecheck.model.state import State

from .sampling import first_of_each

SMALL = Bounds(calls=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)  # 62 states, 9 deep


def _disagreements(found: module.Agreement) -> list[str]:
    return [r.property for r in found.rows if not r.agree] + ([f"drift: {found.drift}"] if found.drift else [])


def test_the_engines_agree_on_the_default_over_the_whole_graph_of_small_bounds() -> None:
    found = agreement("default", Machine(SMALL), whole=True)
    assert _disagreements(found) == []
    assert found.bfs_states == 62 and found.bmc_depth == found.bfs_depth + 1 == 10 and found.whole
    shown = {r.property: r.bmc_depth for r in found.rows if r.bmc in ("witnessed", "violated", "deadlock")}
    assert shown["approve"] == 4 and shown["tool_failure"] == 3 and "no_loss" not in shown


def test_the_engines_agree_on_a_mutant_and_both_catch_it() -> None:
    mutant = mutant_named("interrupt_recorded_failed")
    found = agreement(mutant.name, mutate(Machine(SMALL), mutant), depth=mutant.shortest + 1)
    assert _disagreements(found) == []
    row = next(r for r in found.rows if r.property == mutant.target)
    assert row.bfs == row.bmc == "violated" and row.bmc_depth == mutant.shortest


def test_a_mutant_whose_states_outgrow_the_capacities_is_unrolled_in_wider_ones() -> None:
    """`pause_writes_interim_message` writes a message the bounds' capacities have no room for: BMC over them
    stops at the step out of them; over capacities that cover every state the search reaches, it agrees."""
    mutant = mutant_named("pause_writes_interim_message")
    machine, depth = mutate(Machine(SMALL), mutant), mutant.shortest + 1
    narrow = Caps.of(SMALL)
    assert narrow.covering(reached(machine, depth + 1)).messages == narrow.messages + 1
    with pytest.raises(UniverseTooSmall):
        bmc(machine, depth, rules=machine.rules, caps=narrow)
    found = agreement(mutant.name, machine, depth=depth)
    assert _disagreements(found) == [] and found.bmc_depth == depth


def test_the_engines_agree_on_a_reading_that_needs_a_fault() -> None:
    """A-T6 write-first differs only after a crash: the relation models the reading and the crash, and both
    engines lose an artifact in the same five steps."""
    machine = Machine(dataclasses.replace(SMALL, crashes=1), reading_named("A-T6=write-first"))
    found = agreement("A-T6=write-first", machine)
    assert _disagreements(found) == []
    assert next(r for r in found.rows if r.property == "no_loss").bmc_depth == 5


def test_without_a_depth_bmc_goes_one_step_past_the_deepest_discovery() -> None:
    """At these bounds the deepest witness (completes_after_pause) is 6 steps long, the graph 9 deep."""
    found = agreement("default", Machine(SMALL), names=("completes_after_pause", "no_loss", "deadlock"))
    assert _disagreements(found) == [] and found.bmc_depth == 7 and not found.whole
    assert [(r.bmc, r.bmc_depth) for r in found.rows] == [("witnessed", 6), ("no violation", None), ("none", None)]


def test_reached_stops_at_a_depth() -> None:
    machine = Machine(SMALL)
    assert len(reached(machine)) == 62 and reached(machine, 0) == list(machine.init_states())
    assert len(reached(machine, 3)) < len(reached(machine, 4)) < 62


@dataclasses.dataclass(frozen=True)
class _NoToolFailures(Machine):
    """The explicit model with one behaviour cut out of its search (a tool never fails), over the same rules."""

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        return [(a, post) for a, post in super().successors(state) if not isinstance(a, ToolFails)]


def test_a_disagreement_is_caught() -> None:
    """The search of a perturbed machine against BMC over the unperturbed rules: the behaviours the search
    misses are found by z3, and every property they show is a row that disagrees."""
    found = agreement("perturbed", _NoToolFailures(SMALL), depth=5)
    assert found.drift is None
    differ = {r.property: (r.bfs, r.bfs_depth, r.bmc, r.bmc_depth) for r in found.rows if not r.agree}
    assert differ["tool_failure"] == ("not witnessed", None, "witnessed", 3)
    assert "approve" not in differ  # what the search still reaches, the engines agree on


def test_a_drift_is_a_disagreement_not_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def drifting(*args: object, **kwargs: object) -> None:
        raise Drift("step 2 (poll e1) from <pre> to <post> is no step of the explicit model")

    monkeypatch.setattr(module, "bmc", drifting)
    found = agreement("default", Machine(SMALL))
    assert found.drift is not None and found.rows == () and not found.agree
    argv = ["check", "--engines", "bfs,bmc", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--write-failures",
            "0", "--observations", "0", "--held-bound", "1", "--only", "default", "--jobs", "1"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "[drift] step 2 (poll e1)" in out and out.strip().splitlines()[-1].startswith("[disagree] 1 verdict")


def test_every_variant_is_compared_but_the_wire_view_mutant_and_the_readings_whose_fault_is_off() -> None:
    chosen, skipped = variants(Bounds())
    names = [v.name for v in chosen]
    assert skipped == ("poll_shows_held",) and mutant_named("poll_shows_held").rules is RULES
    assert names[0] == "default" and set(names[1:len(MUTANTS)]) == {m.name for m in MUTANTS} - set(skipped)
    singles = [f"{s.ambiguity}={v}" for s in SWITCHES for v in s.values if v != s.default]
    idle = unexercised(Bounds())
    assert idle["A-T6=take-first"] == ("--crashes 1",) and idle["A-T7=racy"] == ("--races 1",) and len(idle) == 11
    assert names[len(MUTANTS):] == [n for n in singles if n not in idle]  # the readings: none is "not encoded"
    with_faults = Bounds(crashes=1, expiries=1, races=1, node_failures=1)
    assert unexercised(with_faults) == {} and len(variants(with_faults)[0]) == len(MUTANTS) + len(singles)
    equivalent = next(v for v in chosen if v.name == "put_back_by_assignment")
    assert equivalent.depth is None  # compared as the default is


def test_check_engines_cli(capsys: pytest.CaptureFixture[str]) -> None:
    small = ["--calls", "1", "--artifacts", "1", "--pauses", "1", "--write-failures", "0", "--observations", "0",
             "--held-bound", "1"]
    argv = ["check", "--engines", "bfs,bmc", *small, "--only", "interrupt_keeps_running", "--only", "A-G1=leave",
            "--jobs", "1", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["not_encoded"] == [] and out["drift"] == [] and out["exit"] == 0
    assert {r["variant"] for r in out["agreement"]} == {"interrupt_keeps_running", "A-G1=leave"}
    assert all(r["bfs"] == r["bmc"] and r["bfs_depth"] == r["bmc_depth"] for r in out["agreement"])
    # A mutant BMC cannot run, and a reading whose fault is off, are named: the run is incomplete (exit 3).
    assert main(["check", "--engines", "bfs,bmc", *small, "--only", "poll_shows_held", "--only", "A-T7=racy"]) == 3
    lines = capsys.readouterr().out.strip().splitlines()
    assert "poll_shows_held" in lines[-1] and "(add --races 1): A-T7=racy" in lines[-1]
    assert lines[0].startswith("pausecheck check --engines: bfs and z3's bmc on each variant, at sessions=1 ") \
        and "calls=1 " in lines[0], lines[0]  # the bounds it compared at
    assert not any(" holds " in line for line in lines)  # never "holds": a bound may leave a property unexercised
    assert main(["check", "--engines", "bfs,bmc", "--only", "nonsense"]) == 2
    assert main(["check", "--engines", "bfs,tlc"]) == 2
    assert main(["check", "--engines", "bfs,bmc", "--reading", "A-G1=leave"]) == 2


def test_the_variants_run_in_workers_in_the_order_given() -> None:
    """The results, and what is told of each as it is done (the lines `check --engines` prints), come in the
    variants' order whichever process ends first: the default, the slowest here, first."""
    names = ("default", "interrupt_recorded_failed", "interrupt_keeps_running")
    chosen = tuple(v for v in variants(SMALL, readings=False)[0] if v.name in names)
    told: list[str] = []
    results = compare_engines(chosen, jobs=2, done=lambda found: told.append(found.variant))
    assert [r.variant for r in results] == list(names) == told
    assert [d for found in results for d in _disagreements(found)] == []


# At the default bounds: one test per variant, so that pytest-xdist spreads the z3 work over the cores.
DEFAULT_VARIANTS = variants(Bounds(), readings=False)[0]


@pytest.mark.slow
def test_bfs_and_bmc_agree_on_the_default_at_the_default_bounds_over_8_steps() -> None:
    """Every verdict over the behaviours of up to 8 steps. One step past the deepest witness (BMC to 13
    steps, the whole graph: `pausecheck check --engines bfs,bmc`) took 176 s of the suite; it agreed."""
    found = agreement("default", Machine(Bounds()), depth=8)
    assert _disagreements(found) == []
    assert found.bfs_states == 305 and found.bfs_depth == 8 and found.bmc_depth == 8
    witnessed = {r.property for r in found.rows if r.bfs == "witnessed"}
    assert len(witnessed) == 16 and "delivers_after_a_put_back" not in witnessed  # 12 steps: past the depth


def _small_for(mutant) -> Bounds:
    """SMALL with the mutant's own sessions, turns, interim writes, node failures and faults."""
    own = mutant.bounds or Bounds()
    return SMALL.replace(sessions=own.sessions, turns=own.turns, interim_writes=own.interim_writes,
                         node_failures=own.node_failures, new_turns=own.new_turns, crashes=own.crashes,
                         expiries=own.expiries, races=own.races, write_failures=min(own.write_failures, 1))


# At small bounds (a few seconds each), in the suite the first mutant of each set of rules the mutants edit (all
# 56 took 288 s of the suite, past CI's half hour: PAUSECHECK_FULL=1 runs every one). What differs between mutants
# is their relation, and every mutant's relation is checked against its explicit successors in test_successors;
# the unrolling and the properties' lowering are the same code for all. At its own bounds, where its target's
# shortest length is stated, a few of the quickest, one per area (all of them took 2,000 s of the suite: that run
# is measured with `pausecheck check --engines bfs,bmc`, not here).
@pytest.mark.slow
@pytest.mark.parametrize("mutant", first_of_each([m for m in MUTANTS if m.rules is not RULES],
                                                 lambda m: tuple(changed_rules(RULES, m.rules))), ids=lambda m: m.name)
def test_bfs_and_bmc_agree_on_each_mutant_at_small_bounds(mutant) -> None:
    found = agreement(mutant.name, mutate(Machine(_small_for(mutant)), mutant))
    assert _disagreements(found) == []


AT_OWN_BOUNDS = ("take_keeps_held", "failure_not_reported", "stale_answer_overrides", "failed_run_strands_held",
                 "calls_after_unhandled_failure")


@pytest.mark.slow
@pytest.mark.parametrize("name", AT_OWN_BOUNDS)
def test_bfs_and_bmc_agree_on_a_mutant_at_its_own_bounds_and_find_its_target_at_its_length(name: str) -> None:
    mutant = mutant_named(name)
    found = compare_engines(tuple(v for v in DEFAULT_VARIANTS if v.mutant == name), jobs=1)[0]
    assert _disagreements(found) == []
    row = next(r for r in found.rows if r.property == mutant.target.removeprefix(WITNESS_LOST))
    assert (row.bmc_depth == mutant.shortest) if row.bmc in ("violated", "deadlock") else row.bmc == "not witnessed"


SINGLES = {v.reading.removeprefix("conformant+"): v for v in singles(SMALL)}  # at the fault each switch needs


def test_every_single_switch_reading_is_compared() -> None:
    assert len(SINGLES) == 26 == sum(len(s.values) - 1 for s in SWITCHES)


# In the suite, one value of each ambiguity (the first in order; CI's half hour): `pausecheck check --engines
# bfs,bmc` compares every one, and PAUSECHECK_FULL=1 runs them all here.
EACH_AMBIGUITY = first_of_each(sorted(SINGLES), lambda name: name.split("=")[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", EACH_AMBIGUITY)
def test_bfs_and_bmc_agree_on_each_single_switch_reading_at_small_bounds(name: str) -> None:
    """Each at the small bounds with the fault its switch needs (as the flip matrix runs it)."""
    single = SINGLES[name]
    (found,) = compare_engines((Variant(name, single.bounds, None, None, single.reading),), jobs=1)
    assert _disagreements(found) == []
    broken = {r.property for r in found.rows if r.bmc == "violated"}
    assert name != "A-G1=leave" or "resume_supersedes" in broken, broken

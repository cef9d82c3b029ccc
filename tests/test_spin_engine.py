"""`pausecheck check --engine spin` (`checks/spin/engine.py`): Spin's verdicts are the Python engine's.

Where `spin` and `gcc` are on the PATH: the verdict of every property Spin checks, and of deadlock, equals
the verdict of the Python property of the same name, on the default reading at small bounds with every
fault, and (marked slow) under every single-switch reading at tiny bounds with faults, and every mutant
that deviates in the rule table (all but `poll_shows_held`, a wire-view deviation). A counterexample's trail
becomes an ITF trace that `replay` re-executes; a stuck state is found; transition properties and
witnesses are checked inside the steps; incomplete or probabilistic searches are exit 3. Without the tools:
one line naming the Debian packages, exit 2 (runs everywhere).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.compare import changed_rules
from pausecheck.checks.mutants import MUTANTS, bounds_of, mutate
from pausecheck.checks.search.explore import explore
from pausecheck.checks.spin.assertions import Assertions
from pausecheck.checks.spin.engine import (
    HOLDS,
    NOT_EXERCISED,
    NOT_WITNESSED,
    UNKNOWN,
    VACUOUS,
    VIOLATED,
    WITNESSED,
    spin_check,
)
from pausecheck.checks.spin.fair import LTL
from pausecheck.checks.spin.promela import capacities
from pausecheck.checks.spin.properties import SPIN_PROPERTIES, SpinProperty
from pausecheck.model import Bounds, Machine, reading_named
from pausecheck.model.actions import StartTurn
from pausecheck.model.config import COMPANIONS
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import var
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.reading import SWITCHES
from pausecheck.model.rules import ANSWER, RULES, WRITE_MESSAGE, S
from pausecheck.model.state import PAUSED, State
from pausecheck.traces.replay import replay

from .sampling import first_of_each
from .strategies import reachable

TOOLS = shutil.which("spin") is not None and shutil.which("gcc") is not None
needs_spin = pytest.mark.skipif(not TOOLS, reason="spin or gcc is not on the PATH: install the Debian packages "
                                "spin and gcc (`apt-get install -y spin gcc`; .ci/run does)")

SMALL = Bounds(calls=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=1)
TINY = Bounds(calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)
SWEEP = TINY.replace(crashes=1, expiries=1, races=1)
FAST = "-O0"  # a tenth of gcc's time; pan's search is short at these bounds
NAMES = {p.name for p in SPIN_PROPERTIES}


def python_verdicts(machine: Machine) -> dict[str, str]:
    """What the Python engine finds of each property Spin checks, and of deadlock: broken, witnessed, or
    neither ("-")."""
    machine = dataclasses.replace(machine, properties=tuple(p for p in PROPERTIES if p.name in NAMES), liveness=())
    result = explore(machine)
    assert result.complete
    verdicts = {name: "broken" if name in result.violations else "witnessed" if name in result.witnesses else "-"
                for name in NAMES}
    verdicts["deadlock"] = "broken" if result.deadlock is not None else "-"
    return verdicts


def spin_verdicts(bounds: Bounds, reading: str, **options) -> dict[str, str]:
    """What Spin finds of each property, and of deadlock, in the same words; every trail decodes into a
    path of the explicit model on which the Python engine sees the same."""
    report = spin_check(bounds, reading_named(reading), SPIN_PROPERTIES, optimise=FAST, **options)
    assert report.run.complete, report.run.output
    for v in report.verdicts:
        assert v.note is None or v.status not in (VIOLATED, WITNESSED), (v.name, v.note)
    return {v.name: {VIOLATED: "broken", WITNESSED: "witnessed"}.get(v.status, "-") for v in report.verdicts}


def test_every_formula_is_checked_by_spin() -> None:
    """Every property of the registry that has a formula, with its kind and clauses; none is skipped."""
    assert {p.name for p in SPIN_PROPERTIES} == set(FORMULAS)
    python = {p.name: p for p in PROPERTIES}
    for p in SPIN_PROPERTIES:
        assert python[p.name].kind == p.kind and tuple(python[p.name].clauses) == p.clauses
    assert Assertions(SMALL, reading_named("conformant"), SPIN_PROPERTIES).skipped == {}


@needs_spin
@pytest.mark.parametrize("bounds", [SMALL, SMALL.replace(crashes=1, expiries=1, races=1), TINY.replace(new_turns=1),
                                    dict(COMPANIONS)["two sessions"]], ids=["small", "faults", "new turns", "sessions"])
def test_spin_agrees_on_the_default_reading(bounds: Bounds) -> None:
    assert spin_verdicts(bounds, "conformant") == python_verdicts(Machine(bounds, reading_named("conformant")))


SINGLE_SWITCHES = [f"conformant+{switch.ambiguity}={value}" for switch in SWITCHES for value in switch.values
                   if value != reading_named("conformant").value(switch.ambiguity)]


# In the suite, one value of each ambiguity (the first its switch lists: all 26 took 127 s of the suite, past CI's
# half hour); every value's relation is checked against the explicit successors in test_successors, and
# PAUSECHECK_FULL=1 runs every one here.
@needs_spin
@pytest.mark.slow
@pytest.mark.parametrize("name", first_of_each(SINGLE_SWITCHES, lambda name: name.split("=")[0]))
def test_spin_agrees_under_every_single_switch_reading(name: str) -> None:
    assert spin_verdicts(SWEEP, name) == python_verdicts(Machine(SWEEP, reading_named(name))), name


def test_some_single_switch_reading_breaks_a_property_spin_checks() -> None:
    """The sweep compares violations, not only agreement on `holds`: at least one reading breaks one."""
    machine = Machine(TINY, reading_named("conformant+A-G4=failed-unmarked"))
    assert "broken" in python_verdicts(machine).values()


# Every mutant that deviates in the rule table (poll_shows_held deviates in the wire view, which Spin's
# model does not carry).
RULE_MUTANTS = [m for m in MUTANTS if m.rules is not RULES]
# In the suite, the first mutant of each set of rules the mutants edit (14 of 56: some six minutes of pan for all
# of them, past CI's half hour); PAUSECHECK_FULL=1 runs every one.
EACH_RULE = first_of_each(RULE_MUTANTS, lambda m: tuple(changed_rules(RULES, m.rules)))


@needs_spin
@pytest.mark.slow
@pytest.mark.parametrize("mutant", EACH_RULE, ids=lambda m: m.name)
def test_spin_agrees_on_every_mutant(mutant) -> None:
    bounds = bounds_of(mutant, SMALL)
    if bounds.sessions > 1:  # two sessions: no write failure (a quarter of the states; isolation still breaks)
        bounds = bounds.replace(write_failures=0)
    machine = mutate(Machine(bounds, reading_named("conformant")), mutant)
    caps = capacities(bounds, machine.reading).covering(reachable(machine))  # a mutant's lists may be longer
    assert spin_verdicts(bounds, "conformant", rules=mutant.rules, machine=machine, caps=caps) \
        == python_verdicts(machine)


@needs_spin
def test_a_counterexample_becomes_an_itf_trace_that_replays(tmp_path: Path, capsys) -> None:
    code = main(["check", "--engine", "spin", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--observations",
                 "0", "--held-bound", "1", "--reading", "conformant+A-G4=failed-unmarked", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 1
    assert re.search(r"tool_failures_handled +always +VIOLATED", out) and "[fail] violated:" in out
    assert "[spin] pan is searching" in err
    trace = tmp_path / "violation-tool_failures_handled.itf.json"
    from pausecheck.traces.itf import load_trace
    document = load_trace(trace)
    outcome = replay(document, Machine(TINY, reading_named("conformant+A-G4=failed-unmarked")))
    assert outcome.diverged_at is None and outcome.reproduced
    assert main(["replay", "--quiet", str(trace)]) == 1
    assert "and the trace breaks tool_failures_handled" in capsys.readouterr().out


@needs_spin
@pytest.mark.parametrize("rule", [WRITE_MESSAGE, ANSWER], ids=["no write", "no answer"])
def test_a_stuck_state_is_found_and_a_final_one_is_not(rule) -> None:
    """Without the rule that writes the message, no execution finishes (no option is enabled); without the
    answer, a paused execution can only be polled (a step that changes nothing): pan reports deadlock either
    way, on a path the explicit model without that rule confirms; with every rule, the final states (every
    turn run, every execution finished) are valid end states."""
    rules = tuple(r for r in RULES if r is not rule)
    machine = Machine(TINY, reading_named("conformant"), rules=rules)
    stuck = spin_check(TINY, reading_named("conformant"), (), optimise=FAST, rules=rules, machine=machine)
    assert [(v.name, v.status, v.note) for v in stuck.verdicts] == [("deadlock", VIOLATED, None)]
    assert stuck.exit_code == 1 and stuck.verdicts[0].document["#meta"]["verdict"] == "deadlock"
    fine = spin_check(TINY, reading_named("conformant"), (), optimise=FAST)
    assert [(v.name, v.status) for v in fine.verdicts] == [("deadlock", HOLDS)] and fine.exit_code == 0


@needs_spin
def test_transition_properties_and_witnesses_are_checked_in_the_steps() -> None:
    P = var("P", State)
    properties = (
        SpinProperty("turns_never_start", "transition", (), P.executions.size == S.executions.size, (StartTurn,)),
        SpinProperty("executions_never_shrink", "transition", (), S.executions.size <= P.executions.size),
        SpinProperty("pauses", "sometimes", (), S.executions.any_of(lambda x: x.status == PAUSED)),
        SpinProperty("holds_ten", "sometimes", (), S.executions.any_of(lambda x: x.held.size > 10)),
    )
    report = spin_check(TINY, reading_named("conformant"), properties, optimise=FAST)
    verdicts = {v.name: v for v in report.verdicts}
    assert verdicts["turns_never_start"].status == VIOLATED
    assert len(verdicts["turns_never_start"].document["states"]) == 2  # the first step breaks it
    assert verdicts["executions_never_shrink"].status == HOLDS
    assert verdicts["pauses"].status == WITNESSED and verdicts["pauses"].document["#meta"]["verdict"] == "witness"
    assert verdicts["holds_ten"].status == NOT_WITNESSED


@needs_spin
@pytest.mark.parametrize("flags, words", [(["--store", "hash-compact"], "probabilistic: hash compaction"),
                                          (["--store", "bitstate"], "probabilistic: the bitstate store"),
                                          (["--spin-depth", "3"], "depth limit")])
def test_an_incomplete_or_probabilistic_search_is_exit_3_in_words(flags: list[str], words: str, capsys) -> None:
    code = main(["check", "--engine", "spin", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--observations",
                 "0", "--held-bound", "1", *flags])
    out = capsys.readouterr().out
    assert code == 3 and "[incomplete]" in out and words in out, out


def test_without_spin_or_gcc_one_line_names_the_packages(monkeypatch, capsys) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    assert main(["check", "--engine", "spin"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "spin and gcc" in err and "apt-get install" in err


@pytest.mark.parametrize("flags, words", [(["--sessions", "10"], "at most 9 executions"),
                                          (["--calls", "-1"], "calls"), (["--symmetry"], "Python engine"),
                                          (["--hash-bits", "3"], "from 10 to 36"),
                                          (["--engines", "bfs,bmc"], "--engines")])
def test_bad_bounds_and_flags_are_one_line(flags: list[str], words: str, capsys) -> None:
    if not TOOLS and words not in ("calls", "--engines"):
        words = "apt-get install"  # the tools are checked first: without them the one line names the packages
    assert main(["check", "--engine", "spin", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_flag_of_the_spin_engine_without_it_is_one_line(capsys) -> None:
    assert main(["check", "--store", "bitstate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--store: a flag of --engine spin" in err


@needs_spin
def test_a_step_formula_reads_the_action_and_its_kind() -> None:
    """As `model/formulas.py` writes them: `act.<field>` (neutral where the action has none), `kind:<Action>`."""
    P = var("P", State)
    started = var("kind:StartTurn", bool)
    properties = (
        # a fresh execution's id is the action's own: broken by nothing
        SpinProperty("own_execution", "transition", (),
                     ~started | P.executions.any_of(lambda x: x.session == var("act.session", int))),
        # `act.call` is "" on a step without a call: StartTurn breaks "every step names a call"
        SpinProperty("every_step_names_a_call", "transition", (), var("act.call", str) != ""),
        SpinProperty("approve", "sometimes", (), var("act.approve", bool)),
    )
    verdicts = {v.name: v for v in spin_check(TINY, reading_named("conformant"), properties, optimise=FAST).verdicts}
    assert verdicts["own_execution"].status == HOLDS
    assert verdicts["every_step_names_a_call"].status == VIOLATED
    assert verdicts["every_step_names_a_call"].document["states"][1]["#meta"]["action"]["kind"] == "start-turn"
    assert verdicts["approve"].status == WITNESSED
    steps = verdicts["approve"].document["states"]
    assert steps[-1]["#meta"]["action"]["kind"] == "answer" and steps[-1]["#meta"]["action"]["approve"] is True


@needs_spin
def test_vacuity_and_what_the_bounds_cannot_exercise_are_judged_as_the_python_engine_does() -> None:
    never = S.executions.any_of(lambda x: x.held.size > 10)
    properties = (
        SpinProperty("bounded", "always", (), S.executions.size <= 1, situation="holds_ten"),
        SpinProperty("holds_ten", "sometimes", (), never),
        SpinProperty("two_sessions", "sometimes", (), never, requires=lambda bounds: "--sessions 2"),
        SpinProperty("bounded_too", "always", (), S.executions.size <= 1, situation="two_sessions"),
    )
    report = spin_check(TINY, reading_named("conformant"), properties, optimise=FAST)
    status = {v.name: v.status for v in report.verdicts}
    assert status == {"bounded": VACUOUS, "holds_ten": NOT_WITNESSED, "two_sessions": NOT_EXERCISED,
                      "bounded_too": NOT_EXERCISED, "deadlock": HOLDS}
    assert report.exit_code == 3 and not any("vacuity" in left for left in report.left_to_python)
    accepted = spin_check(TINY, reading_named("conformant"), properties[2:], optimise=FAST, accept_unexercised=True)
    assert accepted.exit_code == 0


@needs_spin
def test_a_search_stopped_by_its_time_limit_says_so_and_is_exit_3() -> None:
    """Two sessions and a new turn at small bounds: far more states than pan visits in the seconds given (at
    tiny bounds a fast machine finished them in 24 s), so pan is stopped (SIGINT: it prints the statistics it
    reached) once those seconds are spent (deadlock only: a short compile)."""
    report = spin_check(SMALL.replace(sessions=2, new_turns=1), reading_named("conformant"), (),
                        optimise=FAST, max_seconds=15)  # gcc takes 3 to 12 s of them; pan stores some
    assert report.run.interrupted and not report.run.complete and report.run.states > 0  # 800,000 in 12 s
    assert report.exit_code == 3 and {v.status for v in report.verdicts} == {UNKNOWN}
    assert report.wall_seconds < 25


@needs_spin
def test_json_gives_the_statistics_and_every_verdict(capsys) -> None:
    code = main(["check", "--engine", "spin", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--observations",
                 "0", "--held-bound", "1", "--accept-unexercised", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["exit_code"] == 0 and out["engine"] == "spin" and out["complete"]
    assert out["states"] == explore(Machine(TINY, reading_named("conformant"), properties=())).states
    assert {p["name"] for p in out["properties"]} == set(FORMULAS) | {"deadlock"} | set(LTL)
    assert out["incomplete"] is None
    assert set(out) >= {"transitions", "depth", "memory_mb", "pan_seconds", "seconds", "store", "left_to_python"}


def test_pan_s_output_is_read() -> None:
    """The counts, the reports with their trails, and any other assertion (a successor past an array)."""
    from pausecheck.checks.spin.pan import parse
    run = parse("pan:1: assertion violated holds_no_loss (at depth 3)\npan: wrote model.pml1.trail\n"
                "pan:2: assertion violated ((crashed_n<=1)) (at depth 5)\npan: wrote model.pml2.trail\n"
                "State-vector 108 byte, depth reached 25, errors: 2\n    73409 states, stored\n"
                "   197926 transitions (= stored+matched)\n   46.400\ttotal actual memory usage\n"
                "pan: elapsed time 0.08 seconds\n")
    assert run.reports == [("holds_no_loss", 1)]
    assert run.overflows == ["assertion violated ((crashed_n<=1)) (at depth 5)"]
    assert (run.states, run.transitions, run.depth, run.state_vector, run.memory_mb, run.seconds) == \
        (73409, 197926, 25, 108, 46.4, 0.08)
    assert run.complete and not parse("error: max search depth too small\n").complete
    big = parse("State-vector 276 byte, depth reached 60, errors: 0\n 41251566 states, stored\n"
                "2.61366e+08 transitions (= stored+matched)\n")
    assert (big.states, big.transitions) == (41251566, 261366000)  # a large count, printed as a double


@needs_spin
def test_an_option_split_into_several_d_steps_stores_the_same_states_and_its_trails_decode(monkeypatch) -> None:
    """Spin takes at most 2,047 statements in a d_step (a crash with two executions at the default bounds
    needs more): a longer option is several d_steps in one atomic, whose states between them pan does not
    store. Shown here by splitting every option past 40 statements."""
    from pausecheck.checks.spin import promela
    monkeypatch.setattr(promela, "D_STEP", 40)
    bounds, name = SWEEP, "conformant+A-G1=leave"
    assert "atomic { d_step {" in promela.promela(bounds, reading_named(name))
    report = spin_check(bounds, reading_named(name), SPIN_PROPERTIES, optimise=FAST)
    assert report.run.states == explore(Machine(bounds, reading_named(name), properties=())).states
    verdicts = {v.name: v.status for v in report.verdicts}
    assert verdicts["no_phantom_pause"] == VIOLATED and verdicts["deadlock"] == VIOLATED
    assert all(v.note is None for v in report.verdicts if v.status in (VIOLATED, WITNESSED))

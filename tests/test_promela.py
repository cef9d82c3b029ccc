"""The Promela model generated from the rule table (`checks/spin/promela.py`) is the explicit model.

Where `spin` and `gcc` are on the PATH, each case is generated, compiled with -DSAFETY -DNOREDUCE and
searched by pan, whose stored states (and transitions, one more: pan counts reaching the initial state)
must equal `explore(Machine(bounds, reading, properties=()))`'s: at the default bounds, the three
companions (two sessions, interim writes, node failures), each fault at small bounds, and two
non-default readings; and (marked slow, half a minute) every single-switch reading at tiny bounds
with faults. Without them the search is skipped; the rest (the committed benchmark model is the
generated one, the command line's errors) runs everywhere.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import bounds_of, mutant_named, mutate
from pausecheck.checks.search.explore import explore
from pausecheck.checks.spin.promela import CC_FLAGS, PAN_FLAGS, SPIN_FLAGS, capacities, promela
from pausecheck.checks.symbolic.relation import Caps
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine, reading_named
from pausecheck.model.config import COMPANIONS
from pausecheck.model.reading import SWITCHES

from .sampling import FULL, first_of_each
from .strategies import reachable

ROOT = Path(__file__).resolve().parent.parent
SMALL = Bounds(calls=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=1)
TINY = Bounds(calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)
COMPANION = dict(COMPANIONS)

CASES: dict[str, tuple[Bounds, str]] = {
    "defaults": (DEFAULT_BOUNDS, "conformant"),
    "two sessions": (COMPANION["two sessions"], "conformant"),
    "interim writes": (COMPANION["interim messages"], "conformant"),
    "node failures": (COMPANION["node failures"], "conformant"),
    "crashes": (SMALL.replace(crashes=1), "conformant"),
    "expiries": (SMALL.replace(expiries=1), "conformant"),
    "races": (SMALL.replace(races=1), "conformant"),
    "new turns": (TINY.replace(new_turns=1), "conformant"),
    "racy read-then-clear": (TINY.replace(races=1), "conformant+A-T7=racy-read-then-clear"),
    "write-first, new-first, with artifacts": (
        SMALL.replace(crashes=1), "conformant+A-T6=write-first+A-G3=new-first+A-T12=with-artifacts+A-T4=merge"),
}

CC = tuple("-O0" if flag.startswith("-O") else flag for flag in CC_FLAGS)  # a tenth of the compile time

TOOLS = shutil.which("spin") is not None and shutil.which("gcc") is not None
needs_spin = pytest.mark.skipif(not TOOLS, reason="spin or gcc is not on the PATH: install the Debian packages "
                                "spin and gcc (`apt-get install -y spin gcc`; .ci/run does)")


def pan(model: str, folder: Path) -> tuple[int, int, str]:
    """Spin's search of a model: (states stored, transitions, pan's output); fails on any pan error."""
    (folder / "model.pml").write_text(model, encoding="utf-8")
    subprocess.run(["spin", *SPIN_FLAGS, "model.pml"], cwd=folder, check=True, capture_output=True)
    subprocess.run(["gcc", *CC, "-o", "pan", "pan.c"], cwd=folder, check=True, capture_output=True)
    out = subprocess.run(["./pan", *PAN_FLAGS], cwd=folder, check=True, capture_output=True, text=True).stdout
    assert "errors: 0" in out, out
    assert "max search depth too small" not in out, out
    states = re.search(r"(\d+) states, stored", out)
    transitions = re.search(r"(\d+) transitions", out)
    assert states and transitions, out
    return int(states.group(1)), int(transitions.group(1)), out


@needs_spin
@pytest.mark.parametrize("case", CASES)
def test_pan_stores_the_states_check_stores(case: str, tmp_path: Path) -> None:
    bounds, name = CASES[case]
    reading = reading_named(name)
    states, transitions, _ = pan(promela(bounds, reading), tmp_path)
    result = explore(Machine(bounds, reading, properties=()))
    assert result.complete
    assert (states, transitions) == (result.states, result.transitions + 1), case


# Mutants are deviations of the rule table, so Spin runs them too: a value replaced by a fold, an effect
# restated on every execution, a rule added (a compile each, so three of the most unlike the rules).
# The two-session mutant took 47 s of the suite (past CI's half hour): under PAUSECHECK_FULL=1 only; two sessions
# are stored by pan in the suite through test_spin_engine's default reading at two sessions.
MUTANTS_IN_SPIN = ("question_per_gated_call", "resume_without_answer") + (("held_keyed_per_workflow",) if FULL else ())


@needs_spin
@pytest.mark.parametrize("name", MUTANTS_IN_SPIN)
def test_pan_stores_the_states_check_stores_on_a_mutant(name: str, tmp_path: Path) -> None:
    mutant = mutant_named(name)
    sessions = bounds_of(mutant).sessions  # two sessions: no write failure (406,129 states rather than 1.6 million)
    bounds = TINY.replace(sessions=sessions, calls=2, write_failures=int(sessions == 1))
    machine = mutate(Machine(bounds, properties=()), mutant)
    result, states = explore(machine), reachable(machine)
    assert result.complete and set(states) != set(reachable(Machine(bounds))), "the bounds show the deviation"
    caps = capacities(bounds, machine.reading).covering(states)  # a mutant's lists may be longer
    states, transitions, _ = pan(promela(bounds, machine.reading, caps=caps, rules=mutant.rules), tmp_path)
    assert (states, transitions) == (result.states, result.transitions + 1), name


SWEEP = TINY.replace(crashes=1, expiries=1, races=1)
SINGLE_SWITCHES = [f"conformant+{switch.ambiguity}={value}" for switch in SWITCHES for value in switch.values
                   if value != reading_named("conformant").value(switch.ambiguity)]


@needs_spin
@pytest.mark.slow
@pytest.mark.parametrize("name", first_of_each(SINGLE_SWITCHES, lambda name: name.split("=")[0]))  # all: FULL
def test_pan_agrees_under_every_single_switch_reading(name: str, tmp_path: Path) -> None:
    """Every reading one switch away from the conformant one, at tiny bounds with a crash, an expiry and a race."""
    reading = reading_named(name)
    states, transitions, _ = pan(promela(SWEEP, reading), tmp_path)
    result = explore(Machine(SWEEP, reading, properties=()))
    assert (states, transitions) == (result.states, result.transitions + 1), name


@needs_spin
def test_a_successor_that_overflows_an_array_fails_an_assert(tmp_path: Path) -> None:
    """Arrays shorter than the bounds reach (one attempt): pan reports an assertion violated."""
    caps = Caps.of(SMALL)
    model = promela(SMALL, reading_named("conformant"), caps=dataclasses.replace(caps, attempts=1))
    with pytest.raises(AssertionError, match="assertion violated"):
        pan(model, tmp_path)


def test_the_benchmark_model_is_the_generated_one() -> None:
    """benchmarks/flowdrop.pml is what `pausecheck export --format promela` writes at the defaults."""
    committed = (ROOT / "benchmarks" / "flowdrop.pml").read_text(encoding="utf-8")
    assert committed == promela(DEFAULT_BOUNDS, reading_named("conformant"), "benchmarks/flowdrop.pml"), \
        "regenerate it: pausecheck export --format promela --out benchmarks/flowdrop.pml"


def test_every_rule_reading_and_fault_reaches_the_model() -> None:
    """Each rule the bounds and reading can enable has its options (the faults and split steps included)."""
    model = promela(SMALL.replace(crashes=1, expiries=1, races=1, new_turns=1),
                    reading_named("conformant+A-T7=racy-read-then-clear+A-G3=new-first"))
    for action in ("StartTurn", "CallTool", "ToolReturns", "ToolFails", "ToolInterrupts", "Poll", "Answer",
                   "StartWriteBack", "WriteMessage", "PutBack", "ReportFailure", "ClearHeld", "CloseSuperseded",
                   "Crash", "Expire", "LoseRace", "ResumeAgain"):
        assert f"d_step {{ /* {action}: " in model, action


def test_export_writes_the_model_and_refuses_what_it_cannot_encode(tmp_path: Path, capsys) -> None:
    out = tmp_path / "m.pml"
    assert main(["export", "--format", "promela", "--calls", "1", "--crashes", "1", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("/*\n * m.pml: GENERATED")
    assert "--calls 1 --crashes 1" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["export", "--format", "promela", "--sessions", "10", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "at most 9 executions" in error


@needs_spin
def test_a_slip_in_the_promela_is_caught(tmp_path: Path) -> None:
    """One rule's options dropped from the generated model (ToolFails): pan's count no longer equals check's."""
    bounds, reading = TINY, reading_named("conformant")
    lines = promela(bounds, reading).splitlines(keepends=True)
    kept, skipping = [], False
    for line in lines:
        if line.startswith("    :: d_step { /* "):
            skipping = "/* ToolFails: " in line
        elif not line.startswith("        ") and not line.startswith("       }"):
            skipping = False
        if not skipping:
            kept.append(line)
    slipped = "".join(kept)
    assert "ToolFails: segment slot" not in slipped and len(slipped) < len("".join(lines))
    states, _, _ = pan(slipped, tmp_path)
    assert states != explore(Machine(bounds, reading, properties=())).states

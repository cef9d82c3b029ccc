"""`prove --induction` over the whole model: the relation derived from the rule table, the properties'
formulas, and strengthening invariants mined from the reachable states and cut down by Houdini."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import z3
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named
from pausecheck.checks.mutants.flips import singles
from pausecheck.checks.search.explore import explore
from pausecheck.checks.symbolic import inductive
from pausecheck.checks.symbolic.candidates import Candidate, mine, screen
from pausecheck.checks.symbolic.inductive import FITS, KEY, MINING, Step, prove
from pausecheck.checks.symbolic.judge import Judge
from pausecheck.checks.symbolic.refute import Refuter
from pausecheck.checks.symbolic.sampling import reach
from pausecheck.model import Bounds, Machine
from pausecheck.model.formulas import FORMULAS, S
from pausecheck.model.reading import reading_named
from pausecheck.model.rules import RULES

from .sampling import first_of_each

SMALL = Bounds(calls=1, pauses=1, artifacts=1, observations=0, write_failures=1, held_bound=1)
FLAGS = ["--calls", "1", "--pauses", "1", "--artifacts", "1", "--observations", "0", "--held-bound", "1"]


def test_the_six_key_properties_are_proved_at_small_bounds() -> None:
    proof = prove(SMALL)
    outcomes = {o.name: o for o in proof.outcomes}
    assert set(outcomes) == set(KEY) | {FITS}
    assert all(o.proved for o in proof.outcomes), [(o.name, o.reason) for o in proof.outcomes if not o.proved]
    assert proof.kept and len(proof.kept) <= proof.mined and not proof.incomplete


def test_candidates_hold_on_every_state_they_were_screened_on() -> None:
    """Instantiated from a thinned sample, screened on every state reached: what the sample missed widens a
    range (a template instantiated again with the state that broke it), and nothing that a reached state breaks
    is kept."""
    bounds = SMALL.replace(calls=2, pauses=2)  # 12,193 states
    machine = Machine(bounds)
    reached = reach(machine, sample=500)
    assert len(reached.states) > 10 * len(reached.sample) and reached.complete
    thin = mine(reached.sample, bounds)
    found = mine(reached.sample, bounds, states=reached.states)
    assert len(found) > 50 and any("refs name artifacts" in c.name for c in found)
    check = Judge(found, bounds).screen(found)
    assert all(check(state) == ([], []) for state in reached.states)
    missed = {c.name for c in thin} - {c.name for c in found}
    widened = {c.name for c in found} - {c.name for c in thin}
    assert missed and widened  # a range the sample missed comes back wider
    assert screen(thin, reached.states, bounds)[0] == [c for c in thin if c.name not in missed]


def test_candidates_screened_on_workers_are_those_screened_here() -> None:
    """The candidates shared among two workers: the same candidates kept, the same witnesses in the same order,
    as one process screening them all; and the progress told reaches the end."""
    from pausecheck.checks.symbolic import candidates

    bounds = SMALL.replace(calls=2, pauses=2)
    reached = reach(Machine(bounds), sample=200)
    found = candidates.templates(reached.sample, bounds)
    alone = screen(found, reached.states, bounds)
    told: list[tuple[int, int]] = []
    split = screen(found, reached.states, bounds, screened=lambda done, of: told.append((done, of)), workers=2)
    assert split[0] == alone[0] and split[1] == alone[1]
    assert len(alone[1]) > 5 and len(found) - len(alone[0]) > 100 and told[-1] == (len(reached.states),) * 2


def test_each_counterexample_to_induction_drops_every_candidate_the_states_around_it_break() -> None:
    """A Houdini round drops what z3's step breaks and what steps around it break, several candidates at once (and
    before the first, what steps around states one edit away from reachable ones break)."""
    said: list[str] = []
    proof = prove(SMALL, progress=said.append)
    assert proof.proved and proof.refuted > 0 and proof.explored > 0
    rounds = [line for line in said if line.startswith("Houdini round")]
    around = [int(re.search(r", (\d+) by steps around it", line)[1]) for line in rounds]
    early = int(next(re.match(r"(\d+) dropped by steps around [\d,]+ states near reachable ones, before z3", line)[1]
                     for line in said if "before z3" in line))
    assert max(around + [early]) >= 2 and early + sum(around) == proof.refuted and proof.dropped > proof.rounds


@pytest.mark.slow
def test_houdini_keeps_the_same_invariants_with_or_without_the_states_around_its_counterexamples(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the states around z3's counterexamples drop, z3 would have dropped: the same greatest inductive
    subset, in fewer rounds."""
    from pausecheck.checks.symbolic import inductive
    proof = prove(SMALL)
    monkeypatch.setattr(inductive.Refuter, "refute", lambda self, pre, post, active, budget=None: [])
    alone = prove(SMALL)
    assert proof.proved and alone.proved and alone.refuted == 0 and alone.rounds > proof.rounds
    assert [c.name for c in alone.kept] == [c.name for c in proof.kept]


def test_a_break_the_relation_does_not_confirm_drops_nothing() -> None:
    """Around a counterexample, a candidate is dropped only where the relation's lowering confirms the step and
    the break: with no step confirmed (as where the explicit model and the lowering part), none is."""
    machine = Machine(SMALL)
    reached = reach(machine)
    found = mine(reached.sample, SMALL, states=reached.states)
    st = Step(SMALL, machine.reading, machine.rules)
    items = list(found)
    pre = next(s for s in reached.states if s.segments)
    tight = [Candidate("no execution completes", S.executions.all_of(lambda x: x.status != "completed"))]
    refuter = Refuter(machine, st, items + tight)
    assert refuter.refute(pre, pre, items + tight) == tight and refuter.unconfirmed == 0
    doubting = Refuter(machine, st, items + tight)
    doubting._successors = lambda state: set()  # no step of the relation: nothing confirmed
    assert doubting.refute(pre, pre, items + tight) == [] and doubting.unconfirmed > 0


@pytest.mark.parametrize("name", ["interrupt_keeps_running", "failed_write_back_releases_collected",
                                  "interrupt_recorded_failed"])
def test_a_mutant_whose_property_is_false_is_not_proved(name: str) -> None:
    """Soundness: under a mutant whose target property fails in a reachable state, candidates mined from its own
    states and dropped around its counterexamples, the target is never proved, and its counterexample to
    induction is a step of the mutant's explicit model (for `interrupted_not_failed`, a transition property,
    the step found by the one query of its move that asks every transition property)."""
    mutant = mutant_named(name)
    rules = mutant.table()
    proof = prove(SMALL, rules=rules)
    target = next(o for o in proof.outcomes if o.name == mutant.target)
    assert not proof.incomplete and not target.proved and not proof.proved
    assert target.cti is not None and target.cti.replays
    assert mutant.target in explore(Machine(SMALL, rules=rules)).violations  # the property is false at these bounds


@pytest.mark.parametrize("stage", ["Houdini", "the goals"])
def test_a_stopped_proof_reports_how_far_it_got(stage: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Stopped as the watchdog stops it (z3 interrupted, LimitReached), in Houdini's first query after its
    second round (a move's counterexample to induction) or in the first query after Houdini, the proof reports
    the states reached and screened, the candidates mined, the rounds run and what they dropped (and how many
    of those the states around its counterexamples dropped), what is left, and which properties Houdini left
    standing: not zeros."""
    from pausecheck.checks.search.budget import LimitReached
    from pausecheck.checks.symbolic import inductive

    real, asked, found_sat = inductive.solve, [], []

    def stopping(solver, deadline):  # in place of solve: the watchdog's stop, on cue
        frame, callers = sys._getframe(1), set()
        while frame is not None:
            callers.add(frame.f_code.co_name)
            frame = frame.f_back
        asked.append("houdini" if "houdini" in callers else "goals")
        if len(found_sat) == 2 if stage == "Houdini" else (asked[-1] != "houdini"):
            raise LimitReached("max-seconds")
        verdict = real(solver, deadline)
        if verdict == z3.sat and asked[-1] == "houdini":
            found_sat.append(len(asked))  # a round: a counterexample to induction
        return verdict

    monkeypatch.setattr(inductive, "solve", stopping)  # in this process: every query asked here (--workers 1)
    assert main(["prove", "--induction", *FLAGS, "--workers", "1", "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    reached = reach(Machine(SMALL))
    mined = len(mine(reached.sample, SMALL, states=reached.states))
    properties = ["no_double_delivery", "no_loss", "held_hidden", "no_phantom_pause"]  # the state properties of KEY
    stopped = out["stopped"]
    rounds = len(found_sat)
    found = len(reached.states)
    assert stopped == {"by": "max-seconds", "stage": stage, "sampled": found, "screened": [found, found],
                       "mined": mined, "rounds": rounds, "dropped": stopped["dropped"], "refuted": stopped["refuted"],
                       "explored": stopped["explored"], "left": mined + 4 - stopped["dropped"],
                       "properties_left": properties}
    assert rounds == 2 if stage == "Houdini" else rounds >= 2, rounds
    assert 0 < stopped["refuted"] < stopped["dropped"] < mined and stopped["explored"] > 0 and not out["complete"]
    # The goals: the properties Houdini kept are proved (relative to the invariants), nothing else was settled.
    assert [p["name"] for p in out["properties"]] == ([] if stage == "Houdini" else properties)
    assert len(out["invariants"]) == (0 if stage == "Houdini" else stopped["left"] - 4)
    asked.clear()
    found_sat.clear()
    assert main(["prove", "--induction", *FLAGS, "--workers", "1"]) == 3
    text = capsys.readouterr().out
    assert f"  reached: stopped in {stage}: sampled {found} reachable states; mined {mined} candidate " in text
    assert re.search(r"dropped \d+ \(\d+ of them by \d+ states around its counterexamples\)", text)
    assert "[incomplete] stopped at --max-seconds after " in text and f"in {stage}: " in text
    assert ("nothing is proved" if stage == "Houdini" else "but fits_capacities was not settled") in text
    assert "0 of 0" not in text


def test_a_proof_stopped_while_mining_says_how_many_states_it_screened(monkeypatch: pytest.MonkeyPatch) -> None:
    from pausecheck.checks.symbolic import candidates, inductive

    real = candidates.screen

    def stopping(found, states, bounds, late, screened, workers):  # the deadline passes once half are screened
        def told(done: int, of: int) -> None:
            screened(done, of)
            if done >= of // 2:
                raise KeyboardInterrupt
        return real(found, states, bounds, late, told, workers)

    monkeypatch.setattr(candidates, "screen", stopping)
    monkeypatch.setattr(inductive, "reach", lambda machine, **given: reach(machine, sample=300, **given))
    proof = prove(SMALL.replace(calls=2, pauses=2))  # 12,193 states
    assert proof.incomplete and not proof.proved and proof.stage == MINING and proof.stopped == "interrupted"
    done, of = proof.screened
    assert proof.sampled == of > 4096 and 0 < done < of
    assert proof.progress().startswith(f"stopped in mining candidate invariants: sampled {of:,} reachable states; "
                                       f"screened the candidates on {done:,} of them")


@pytest.mark.slow
def test_a_reading_that_breaks_a_property_gives_a_counterexample_to_induction_that_replays(tmp_path: Path,
                                                                                              capsys) -> None:
    # A-G1=leave: a decline leaves the interrupted attempt interrupted, so a finished run holds one (G6.5).
    code = main(["prove", "--induction", *FLAGS, "--reading", "A-G1=leave", "--out", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["exit"] == 1
    row = next(p for p in out["properties"] if p["name"] == "no_phantom_pause")
    assert not row["proved"] and row["counterexample"]["replays"] and row["trace"]
    assert main(["replay", row["trace"], "--quiet"]) == 0


@pytest.mark.slow
def test_prove_induction_cli_says_what_it_proved_and_screens_as_asked(capsys, monkeypatch) -> None:
    """What was proved, as JSON and as text. `--screen N` takes the first N reachable states breadth first (with the
    walks' besides) to screen the candidates on: fewer than without it, and the proof is still settled by z3 (the
    screen costs strength of the guesses, never soundness)."""
    proofs: dict[int, Any] = {}  # by the screen: each proof (some 20 s) asked once, said as JSON and as text

    def once(*args: Any, screen: int, **kwargs: Any) -> Any:
        if screen not in proofs:
            proofs[screen] = prove(*args, screen=screen, **kwargs)
        return proofs[screen]

    monkeypatch.setattr(inductive, "prove", once)
    screened = {}
    for flag in ([], ["--screen", "40"]):
        assert main(["prove", "--induction", *FLAGS, *flag, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert {p["name"] for p in out["properties"] if p["proved"]} == set(KEY) | {FITS}
        assert out["invariants"] and "Houdini" in out["strengthening"]
        screened[bool(flag)] = int(re.search(r"mined from ([\d,]+) reachable states", out["strengthening"])[1])
    assert 40 <= screened[True] < screened[False], screened
    assert main(["prove", "--induction", *FLAGS]) == 0
    text = capsys.readouterr().out
    assert "[ok]" in text and "strengthening" in text
    assert main(["prove", "--induction", "--k", "2"]) == 2


@pytest.mark.slow  # --new-turns (over two minutes of Houdini here): `benchmarks/proofs.py --only faults` proves it
@pytest.mark.parametrize("flag", ["--crashes", "--expiries", "--races"])
def test_each_fault_is_proved_with_the_capacities(flag: str, capsys) -> None:
    """Every key property and fits_capacities, under each fault (a lost race needs the candidate that counts the
    races' attempts: without it, a call overflows the attempts' capacity from a state Houdini cannot rule out)."""
    code = main(["prove", "--induction", *FLAGS, flag, "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert {p["name"] for p in out["properties"] if p["proved"]} == set(KEY) | {FITS}


# Each single-switch reading at the fault bounds its switch needs, but for the three that need a race: Houdini
# takes minutes there (the --races fault is proved above under the conformant reading, and every reading's
# relation is cross-checked in test_successors); `benchmarks/proofs.py --only readings` proves all of them.
UNRACED = [v for v in singles(SMALL) if not v.bounds.races]
# In the suite, one value of each ambiguity (the first its switch lists): each proof is some 20 s of Houdini, and
# the suite must stay within CI's half hour; `benchmarks/proofs.py --only readings --with-faults` proves every value.
EACH_AMBIGUITY = first_of_each(UNRACED, lambda v: v.reading.split("=")[0])


@pytest.mark.slow
@pytest.mark.parametrize("variant", EACH_AMBIGUITY, ids=lambda v: v.reading.removeprefix("conformant+"))
def test_every_single_switch_reading_is_proved_or_refuted_with_a_replaying_counterexample(variant) -> None:
    proof = prove(variant.bounds, reading_named(variant.reading))
    assert not proof.incomplete, variant.reading
    for o in proof.outcomes:
        assert o.proved or o.name == FITS or (o.cti is not None and o.cti.replays), (variant.reading, o.name)


def test_an_interrupt_inside_a_ctypes_call_of_z3_stops_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGTERM or Ctrl-C that comes while z3's terms are built arrives inside one of z3's ctypes calls,
    which wraps it in a ctypes.ArgumentError: the proof is stopped as interrupted, not an internal error."""
    import ctypes

    def building(*args, **kwargs):
        raise ctypes.ArgumentError("argument 1: KeyboardInterrupt: ")

    monkeypatch.setattr(inductive, "Step", building)
    proof = prove(SMALL)
    assert proof.incomplete and proof.stopped == "interrupted" and proof.stage == inductive.BUILDING

    def limited(*args, **kwargs):
        raise ctypes.ArgumentError("argument 1: LimitReached: max-memory")

    monkeypatch.setattr(inductive, "Step", limited)
    proof = prove(SMALL)
    assert proof.incomplete and proof.stopped == "max-memory" and proof.stage == inductive.BUILDING

    def broken(*args, **kwargs):
        raise ctypes.ArgumentError("argument 1: TypeError: wrong type")

    monkeypatch.setattr(inductive, "Step", broken)
    with pytest.raises(ctypes.ArgumentError):
        prove(SMALL)


def test_a_move_houdini_does_not_ask_of_an_item_cannot_change_it() -> None:
    """`Step.touches`: where it says a move cannot change a term, z3 finds no step of that move (its successor
    linked) after which the term differs from what it was before; and the frame is not everything, so some
    pair is skipped."""
    st = Step(SMALL.replace(crashes=1), reading_named("conformant"), RULES)
    names = [n for n in KEY if not FORMULAS[n].step]
    skipped = 0
    for k in range(len(st.moves)):
        for name in names:
            before, after = st.state(name, st.s0), st.state(name, st.s1)
            if st.touches(k, after):
                continue
            skipped += 1
            assert st.ask(k, [], before != after, None) is None, (st.moves[k].kind.__name__, name)
    assert 0 < skipped < len(st.moves) * len(names)

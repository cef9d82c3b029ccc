"""Liveness on Spin (`checks/spin/fair.py`): the same verdicts as the search, under each fairness, with lassos
that replay; one process per action, exactly the actions the explicit model takes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants.catalogue import mutant_named, mutate
from pausecheck.checks.mutants.evidence import lasso_document
from pausecheck.checks.search.liveness import LivenessVerdict, check_liveness
from pausecheck.checks.spin.fair import LTL, liveness_model, spin_liveness
from pausecheck.checks.spin.promela import reached_states
from pausecheck.model import Bounds, Machine, reading_named
from pausecheck.model.actions import WriteMessage
from pausecheck.model.liveness import liveness_named
from pausecheck.traces.replay import replay

from pausecheck import explore

needs_spin = pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                                reason="needs spin and gcc: apt-get install -y spin gcc")

# A write-back that may fail without limit: the graph has cycles (docs/commands.md's example).
ENDLESS = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1,
                 endless_writes=1)
FLAGS = ["--calls", "2", "--artifacts", "1", "--pauses", "1", "--observations", "0", "--held-bound", "1",
         "--write-failures", "any"]
CONFORMANT = reading_named("conformant")


def _agree(machine: Machine, fairness: tuple[str, ...]) -> dict[str, bool]:
    """Spin's verdict of each LTL property equals the search's; each Spin lasso replays as a fair loop."""
    fair = Machine(machine.bounds, machine.reading, machine.rules, fairness=fairness)
    searched = check_liveness(fair)
    verdicts, _ = spin_liveness(machine.bounds, machine.reading, fairness, rules=machine.rules, machine=fair)
    holds = {}
    for v in verdicts:
        assert v.status in ("holds", "VIOLATED"), v
        holds[v.name] = v.status == "holds"
        assert holds[v.name] == searched.verdict(v.name).holds, (fairness, v.name)
        if v.lasso is not None:
            prop = liveness_named(v.name)
            document = lasso_document(fair, LivenessVerdict(v.name, prop.clauses, prop.doc, False, v.lasso))
            assert document["loop"] == v.lasso.loop_start
            again = replay(document, fair)
            assert again.reproduced, (fairness, v.name, again.message)
    return holds


@needs_spin
@pytest.mark.parametrize("fairness", [("steps", "write"), ("steps",), ("write",), ()])
def test_spin_and_the_search_agree_under_each_fairness(fairness: tuple[str, ...]) -> None:
    holds = _agree(Machine(ENDLESS, CONFORMANT), fairness)
    # Both hold only with both assumptions: without the write's, a write-back is refused forever; without the
    # steps', a run may stop anywhere.
    assert all(holds.values()) == (fairness == ("steps", "write")), holds


@needs_spin
@pytest.mark.parametrize("name", ["retry_always_fails", "held_write_refused"])
def test_spin_kills_the_liveness_only_mutants_as_the_search_does(name: str) -> None:
    mutant = mutant_named(name)
    machine = mutate(Machine(mutant.bounds, CONFORMANT), mutant)
    holds = _agree(machine, ("steps", "write"))
    assert not holds["eventual_delivery"]  # a held artifact never delivered: both retry a write forever


def test_one_process_per_action_and_every_action_taken_has_one() -> None:
    model = liveness_model(ENDLESS, CONFORMANT, ("steps", "write"))
    assert len(set(model.processes)) == len(model.processes)
    machine = Machine(ENDLESS, CONFORMANT, properties=())
    seen = set(reached_states(machine, sample=10**9))
    taken = {action for state in seen for action, _ in machine.successors(state)}
    assert len(seen) == explore(machine).states
    assert taken <= set(model.processes), sorted(map(repr, taken - set(model.processes)))
    # strong fairness: one conjunct (its enabledness a macro) per process of a write that succeeds
    writes = [a for a in model.processes if type(a) is WriteMessage and a.ok]
    assert writes and model.text.count("#define en_") == len(writes)
    assert all(f"never {name} {{" in model.text for name in LTL)  # each by spin -f, not an ltl block


@needs_spin
def test_check_engine_spin_judges_liveness_under_the_fairness_given(tmp_path: Path, capsys) -> None:
    code = main(["check", "--engine", "spin", *FLAGS, "--fairness", "steps", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "liveness: pan -a on a model of one process per action" in out
    assert "[fail] violated: eventual_delivery, declined_run_completes" in out and "--fairness steps" in out
    document = json.loads((tmp_path / "violation-eventual_delivery.itf.json").read_text())
    assert document["#meta"]["fairness"] == ["steps"] and document["loop"] > 0
    assert main(["replay", str(tmp_path / "violation-eventual_delivery.itf.json")]) == 1  # reproduced: exit 1
    capsys.readouterr()
    assert main(["check", "--engine", "spin", *FLAGS, "--accept-unexercised", "--json"]) == 0
    verdicts = {p["name"]: p["verdict"] for p in json.loads(capsys.readouterr().out)["properties"]}
    assert verdicts["eventual_delivery"] == verdicts["declined_run_completes"] == "holds"
    assert main(["check", "--engine", "spin", *FLAGS, "--accept-unexercised", "--no-liveness", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert not set(LTL) & {p["name"] for p in shown["properties"]} and shown["fairness"] is None


@needs_spin
def test_engines_bfs_spin_compares_each_variant_and_names_what_it_cannot(capsys) -> None:
    code = main(["check", "--engines", "bfs,spin", *FLAGS, "--only", "default", "--only", "held_write_refused",
                 "--only", "resume_as_fresh_call", "--only", "take_keeps_held", "--json"])
    out = json.loads(capsys.readouterr().out)
    rows = {(r["variant"], r["property"]): (r["bfs"], r["spin"]) for r in out["agreement"]}
    assert all(r["agree"] for r in out["agreement"]) and not out["drift"]
    assert rows[("held_write_refused", "eventual_delivery")] == ("VIOLATED", "VIOLATED")
    assert rows[("default", "eventual_delivery")] == ("holds", "holds")
    # a fresh call on resume goes past the rules' call count: its actions still have their own processes
    assert rows[("resume_as_fresh_call", "eventual_delivery")] == ("holds", "holds")
    assert "grows past" in out["endless"]["take_keeps_held"] and code == out["exit"] == 3
    # the exit code says whether the engines agree, not whether a property holds
    assert main(["check", "--engines", "bfs,spin", *FLAGS, "--fairness", "steps", "--only", "default"]) == 0
    shown = capsys.readouterr().out
    assert "eventual_delivery            bfs VIOLATED  spin VIOLATED         agree" in shown and "[ok]" in shown
    assert main(["check", "--engines", "bfs,tlc"]) == 2
    assert "--engines takes bfs,bmc" in capsys.readouterr().err

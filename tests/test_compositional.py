"""Two sessions from one, proved by z3 (`checks/symbolic/compositional.py`): the symbolic projection is the
model's projection on every reachable state, the proof holds at small bounds, and it fails where isolation
does (a mutant that keys held lists by workflow) with a counterexample on the explicit model."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.symbolic import compositional
from pausecheck.checks.symbolic.compositional import PREMISES
from pausecheck.checks.symbolic.crosscheck import action_of
from pausecheck.checks.symbolic.projected import Ghost, owner, seen_as, spent_after, view
from pausecheck.checks.symbolic.relation import Caps, decode, lift, moves
from pausecheck.checks.symbolic.values import CONCRETE, same
from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import Crash
from pausecheck.model.projection import Spent, project, project_action, session_of
from pausecheck.model.projection import spent_after as spent_after_model
from pausecheck.model.reading import CONFORMANT

from .conftest import composed, in_fresh_process
from .strategies import first_reachable

TINY = dict(calls=1, artifacts=1, pauses=1, observations=0, held_bound=1)
FAULTS = [{}, {"crashes": 1}, {"races": 1}, {"new_turns": 1}, {"expiries": 1, "calls": 2, "artifacts": 2}]


@pytest.mark.parametrize("faults", FAULTS, ids=lambda f: "+".join(f) or "no fault")
def test_the_symbolic_projection_is_the_model_s(faults: dict[str, int]) -> None:
    """On reachable two-session states (the first 600) and every lowered step from them: the view, the
    step's owner, its action as each session sees it and the ghost after it agree with model/projection.py."""
    two = Bounds(sessions=2, **{**TINY, **faults})
    caps2, caps1 = Caps.of(two, CONFORMANT), Caps.of(two.replace(sessions=1), CONFORMANT)
    alone = Machine(two.replace(sessions=1))
    steps = 0
    for state in first_reachable(Machine(two), 600):
        value = lift(CONCRETE, caps2, state)
        spent = (Spent(state.write_failures, state.races, state.crashes), Spent(0, 0, 0))
        views = {k: project(state, k, spent[k - 1]) for k in (1, 2)}
        for k in (1, 2):
            mine = view(CONCRETE, caps1, value, k, Ghost(*spent[k - 1]))
            assert same(CONCRETE, mine, lift(CONCRETE, caps1, views[k]))
        crashable = {k for k in (1, 2) if any(isinstance(a, Crash) for a, _ in alone.successors(views[k]))}
        for move in moves(caps2, two, CONFORMANT, value, CONCRETE):
            if not move.guard:
                continue
            steps += 1
            action, post = action_of(move), decode(move.post)
            after = spent_after_model(spent, state, action, post, crashable.__contains__)
            for k in (1, 2):
                mine = owner(CONCRETE, value, move, k)
                assert mine == (session_of(action, state) == k)
                if mine:
                    assert action_of(dataclasses.replace(move, fields=seen_as(CONCRETE, value, move, k))) == \
                        project_action(action, state, k)
                caught = isinstance(action, Crash) and k in crashable
                got = spent_after(CONCRETE, value, move.post, Ghost(*spent[k - 1]), mine, caught)
                assert Spent(*got) == after[k - 1]
    assert steps > 600


def _tiny() -> Bounds:
    return Bounds(**TINY, write_failures=0)


@pytest.mark.slow  # about a minute and a half (shared with the README's example)
def test_two_sessions_behave_each_as_one_alone(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                               shared_composition: Any) -> None:
    monkeypatch.setattr(compositional, "prove_compositional", shared_composition)  # the README example's proof
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in _tiny().as_dict().items()]
    code = main(["prove", "--compositional", "--json", *flags])
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["proved"] and found["complete"] and found["reached"] is None
    assert {p["name"] for p in found["premises"]} == set(PREMISES)
    assert all(p["proved"] for p in found["premises"]) and all(p["carried"] for p in found["carried"])
    carried = {p["name"] for p in found["carried"]}
    assert {"no_double_delivery", "no_loss", "held_hidden", "isolation", "interrupted_not_failed"} <= carried


def test_a_stopped_proof_says_where_it_stopped(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step the proof told of is what a stop reports, in its verdict line and its JSON."""
    def told_then_stopped(result: Any, one: Any, many: Any, reading: Any, rules: Any, say: Any, deadline: Any,
                          workers: int) -> None:
        say("Houdini round 3: 1 dropped by a CallTool step, 40 left")
        raise compositional.Late

    monkeypatch.setattr(compositional, "_prove", told_then_stopped)
    assert main(["prove", "--compositional", "--calls", "1"]) == 3
    out = capsys.readouterr().out
    assert re.search(r"\[incomplete\] stopped at --max-seconds after [\d.]+ s, at: Houdini round 3: 1 dropped by a "
                     r"CallTool step, 40 left; nothing is proved\n$", out), out[-300:]
    assert main(["prove", "--compositional", "--calls", "1", "--json"]) == 3
    found = json.loads(capsys.readouterr().out)
    assert not found["complete"] and found["reached"] == "Houdini round 3: 1 dropped by a CallTool step, 40 left"


@pytest.mark.slow  # about a minute and a half
def test_held_lists_shared_between_sessions_break_isolation() -> None:
    proof = in_fresh_process(composed, _tiny(), "conformant", "held_keyed_per_workflow", 2)  # as the CLI would
    assert not proof.proved and not proof.incomplete
    (isolation, *_) = [p for p in proof.premises if p.name == "isolation" and not p.proved]
    cti = isolation.cti
    assert cti is not None and cti.replays
    # on the explicit model: the step is another session's, and it changes this session's part
    assert session_of(cti.action, cti.pre) != isolation.session
    assert project(cti.pre, isolation.session) != project(cti.post, isolation.session)


@pytest.mark.slow  # one more proof, in this process (about half a minute): the other is the README example's
def test_the_premises_asked_on_workers_are_those_asked_in_one_process(shared_composition: Any) -> None:
    """Each premise and each property's carrying, asked on two forked workers (the command line's default), comes
    back to its own place: the same verdicts and reasons, in the same order, as when every query is asked here."""
    here, forked = (shared_composition(_tiny(), workers=n) for n in (1, 2))

    def said(proof: Any) -> list[tuple[Any, ...]]:
        return [(p.name, p.session, p.proved, p.reason) for p in proof.premises + proof.carried]

    assert said(here) == said(forked) and len(said(here)) > 30
    assert [c.name for c in here.kept] == [c.name for c in forked.kept] and here.properties == forked.properties

"""The properties' z3 form is derived from the same formulas the explicit search compiles: on every state
and step the searches below reach, each formula lowered with the relation's lowering (on Python values,
and on z3 terms for samples) gives the compiled test's verdict; a slip in one derivation is caught."""

from __future__ import annotations

import pytest
import z3
from pausecheck.checks.symbolic import terms
from pausecheck.checks.symbolic.crosscheck import action_of
from pausecheck.checks.symbolic.relation import Caps, Lower, decode, lift, moves
from pausecheck.checks.symbolic.terms import state_term, step_term
from pausecheck.checks.symbolic.values import CONCRETE, Z3
from pausecheck.model import Bounds, Machine
from pausecheck.model.config import COMPANION_BOUNDS
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.pycheck import compiled_for
from pausecheck.model.reading import CONFORMANT

from .strategies import first_reachable

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
SETS = {"small": SMALL, "crash and race": SMALL.replace(pauses=1, observations=0, crashes=1, races=1),
        "two sessions": COMPANION_BOUNDS, "faults": SMALL.replace(expiries=1, interim_writes=1, node_failures=1)}
ON = {p.name: p.on for p in PROPERTIES}
FIRST = 600


def _disagreements(bounds: Bounds, states: list) -> list:
    caps = Caps.of(bounds, CONFORMANT)
    tests = compiled_for(bounds)
    out = []
    for state in states:
        pre = lift(CONCRETE, caps, state)
        for name, f in FORMULAS.items():
            if not f.step and state_term(name, caps, bounds, pre, CONCRETE) != tests.state[name](state):
                out.append((name, state))
        for move in moves(caps, bounds, CONFORMANT, pre, CONCRETE):
            if not move.guard:
                continue
            action, post = action_of(move), decode(move.post)
            for name, f in FORMULAS.items():
                if f.step and (not ON[name] or move.kind in ON[name]):
                    if step_term(name, caps, bounds, pre, move, move.post, CONCRETE) != \
                            tests.step(name, move.kind)(state, action, post):
                        out.append((name, state, action))
    return out


@pytest.mark.parametrize("which", SETS)
def test_each_lowered_formula_agrees_with_the_compiled_test(which: str) -> None:
    bounds = SETS[which]
    assert _disagreements(bounds, first_reachable(Machine(bounds), FIRST)) == []


def test_the_z3_terms_agree_on_samples() -> None:
    bounds = SMALL
    caps = Caps.of(bounds, CONFORMANT)
    tests = compiled_for(bounds)
    for state in first_reachable(Machine(bounds), 400)[::40]:
        for name, f in FORMULAS.items():
            if f.step:
                continue
            term = z3.simplify(state_term(name, caps, bounds, lift(Z3, caps, state), Z3))
            assert z3.is_true(term) == tests.state[name](state), (name, state)


def test_a_slip_in_the_lowering_of_one_operation_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    class Slipped(Lower):
        def sequence(self, x, env):  # type: ignore[no-untyped-def]
            out = super().sequence(x, env)
            return self.A.add(out, self.n(1)) if x.op == "count" else out  # counts one too many

    monkeypatch.setattr(terms, "Lower", Slipped)
    assert _disagreements(SMALL, first_reachable(Machine(SMALL), 200))

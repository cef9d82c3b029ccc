"""The one-pass screen of the invariants: the artifact ledger stands for exactly the properties it claims to."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.model import Bounds, Machine
from pausecheck.model.config import COMPANION_BOUNDS
from pausecheck.model.properties import PROPERTIES, _ledger_holds, property_named, screen
from pausecheck.model.property import ALWAYS, Context

from .strategies import reachable

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=1)
LEDGER = ("no_loss", "isolation", "no_double_delivery", "held_hidden")

# Mutants whose reachable states break the ledger's properties, each in its own way, and the default.
MACHINES = {
    "default": Machine(SMALL),
    "two sessions": Machine(COMPANION_BOUNDS),
    **{name: mutate(Machine(SMALL), mutant_named(name))
       for name in ("failed_write_lands", "take_keeps_held", "resume_reemits_artifacts", "drop_without_warning",
                    "pause_discards_collected", "read_then_clear_take")},
    "held_keyed_per_workflow": mutate(Machine(COMPANION_BOUNDS.replace(calls=2, write_failures=0)),
                                      mutant_named("held_keyed_per_workflow")),
}
FIRST = 30_000  # the first states in breadth-first order where a machine has more (two sessions)


def _first(machine: Machine, count: int) -> list:
    order = list(machine.init_states())
    seen = set(order)
    for state in order:
        for _, post in machine.successors(state):
            if post not in seen and len(order) < count:
                seen.add(post)
                order.append(post)
    return order


@pytest.mark.parametrize("name", MACHINES)
def test_the_ledger_holds_exactly_when_no_loss_and_isolation_hold_and_then_so_do_the_others(name: str) -> None:
    machine = MACHINES[name]
    ctx = machine.context()
    checks = {p: property_named(p).check for p in LEDGER}
    broken = 0
    for state in (_first(machine, FIRST) if machine.bounds.sessions > 1 else reachable(machine)):
        holds = {p: check(state, ctx) is None for p, check in checks.items()}
        ledger = _ledger_holds(state)
        assert ledger == (holds["no_loss"] and holds["isolation"]), state
        if ledger:
            assert holds["no_double_delivery"] and holds["held_hidden"], state
        broken += not ledger
    assert broken or name in ("default", "two sessions"), "the mutant never broke the ledger: the test saw nothing"


def _left(properties: tuple, ctx: Context) -> set[str]:
    return {p.name for p in screen(properties, ctx)[1]}


def test_the_screen_leaves_to_their_own_checks_what_the_ledger_does_not_cover() -> None:
    always = tuple(p for p in PROPERTIES if p.kind == ALWAYS)
    ctx = Machine().context()
    assert not _left(always, ctx) & set(LEDGER)
    # Another wire view: held_hidden is no longer implied.
    assert _left(always, ctx._replace(shown=lambda state: ())) & set(LEDGER) == {"held_hidden"}
    # Without isolation (say, once broken), the ledger is off: the others are checked one by one.
    rest = tuple(p for p in always if p.name != "isolation")
    assert _left(rest, ctx) & set(LEDGER) == {"no_loss", "no_double_delivery", "held_hidden"}

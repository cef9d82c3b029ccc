"""`check --engines bfs,spin`: the search and Spin on each variant's liveness, under the same fairness.

For the default, every mutant with a rule table of its own (at its own bounds, else the bounds given) and
every single-switch reading the bounds exercise (the variants of `check --engines bfs,bmc`), each liveness
property LTL can say (`fair.LTL`) is decided twice: by the search's fair-cycle refinement on the reachable
graph (`checks/search/liveness.py`) and by Spin's acceptance-cycle search on the model of one process per
action (`fair.py`). A Spin lasso is judged by the explicit model too: one it does not confirm is a drift.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Machine, reading_named

from ..search.liveness import check_liveness
from ..search.parallel import run_all
from ..symbolic.agreement import Variant, base_of
from .fair import optimise_for, spin_liveness

__all__ = ["LiveRow", "LiveAgreement", "compare_liveness"]


@dataclass(frozen=True, slots=True)
class LiveRow:
    """One property of one variant: the search's verdict and Spin's."""

    variant: str
    property: str
    bfs: str
    spin: str

    @property
    def agree(self) -> bool:
        return self.bfs == self.spin

    def to_json(self) -> dict[str, object]:
        return {"variant": self.variant, "property": self.property, "bfs": self.bfs, "spin": self.spin,
                "agree": self.agree}


@dataclass(frozen=True, slots=True)
class LiveAgreement:
    """One variant compared: its rows, a lasso of Spin's the explicit model does not confirm, the times."""

    variant: str
    rows: tuple[LiveRow, ...]
    drift: str | None
    bfs_seconds: float
    spin_seconds: float
    skipped: str | None = None  # why it was not compared: its state space has no end at these bounds


def _machine(variant: Variant, fairness: tuple[str, ...]) -> Machine:
    from ..mutants import mutant_named, mutate
    base = base_of(variant.draft)
    reading = reading_named(variant.reading or "conformant")
    machine = Machine(variant.bounds, reading, base, fairness=fairness)
    return machine if variant.mutant is None else mutate(machine, mutant_named(variant.mutant))


LONGEST = 64  # a list this long: the variant's lists grow without end at these bounds (a byte holds 255 in Promela)
STATES = 1_000_000  # states both engines hold at most


def _endless(machine: Machine) -> str | None:
    """Why a variant's state space cannot be searched to its end, if it cannot: a list that grows without end
    (a mutant that keeps what it takes, retried forever), or more states than `STATES`."""
    seen = set(machine.init_states())
    level = list(seen)
    while level:
        after = []
        for state in level:
            for _, post in machine.successors(state):
                if post in seen:
                    continue
                longest = max([len(x) for e in post.executions for x in (e.held, e.messages, *e.messages)]
                              + [len(g.taken) for g in post.segments] + [0])
                if longest > LONGEST:
                    return f"a list grows past {LONGEST} items within {len(seen):,} states: an endless state space"
                if len(seen) >= STATES:
                    return f"more than {STATES:,} states"
                seen.add(post)
                after.append(post)
        level = after
    return None


def _compare(variant: Variant, fairness: tuple[str, ...]) -> LiveAgreement:
    machine = _machine(variant, fairness)
    endless = _endless(machine)
    if endless is not None:
        return LiveAgreement(variant.name, (), None, 0.0, 0.0, endless)
    started = time.monotonic()
    searched = check_liveness(machine)
    middle = time.monotonic()
    verdicts, _ = spin_liveness(machine.bounds, machine.reading, fairness, rules=machine.rules, machine=machine,
                                optimise=optimise_for(searched.facts.states))
    ended = time.monotonic()
    rows, drift = [], None
    for v in verdicts:
        rows.append(LiveRow(variant.name, v.name, "holds" if searched.verdict(v.name).holds else "VIOLATED", v.status))
        if v.lasso is not None and not machine.judge_eventually(v.name, v.lasso.states, v.lasso.loop_start,
                                                                v.lasso.actions)[0]:
            drift = f"Spin's lasso for {v.name} is not a fair loop that breaks it in the explicit model"
        elif v.note and drift is None:
            drift = v.note
    return LiveAgreement(variant.name, tuple(rows), drift, middle - started, ended - middle)


def compare_liveness(chosen: tuple[Variant, ...], fairness: tuple[str, ...], jobs: int | None = None,
                     done: Callable[[LiveAgreement], Any] | None = None) -> list[LiveAgreement]:
    """Both engines' liveness on each variant, `jobs` at once (default: every core); results in the order given."""
    return run_all(_compare, chosen, jobs=jobs, args=(fairness,),
                   done=None if done is None else lambda _, result: done(result))

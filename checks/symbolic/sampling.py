"""The reachable states candidate invariants are mined from and screened on, at the bounds being proved.

Two sources, both over the explicit model (every fault the bounds allow): a breadth-first prefix of the
reachable states (the first `PREFIX`, a million by default), and a seeded simulation (`WALKS` random
walks from the initial state, each stopped where no step leads anywhere new), which reaches deeper
states than a breadth-first prefix does. Everything here is the same from run to run.

`Reached.states` holds every state found (the screen: a candidate some state breaks never reaches z3);
`Reached.sample` an evenly thinned part of them (the templates are instantiated from it: what a range's
ends are, which words a field takes), with every walk's states, since those are the deep ones.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model.machine import Machine
from pausecheck.model.state import State

__all__ = ["PREFIX", "SAMPLE", "WALKS", "Reached", "reach", "sample_states"]

PREFIX = 1_000_000  # breadth-first states screened, at most
SAMPLE = 20_000  # breadth-first states the templates are instantiated from, at most (evenly thinned)
WALKS = 1_000  # random walks of the simulation
LENGTH = 400  # steps of a walk, at most


@dataclass(frozen=True)
class Reached:
    """Reachable states: all those found (breadth first, then the walks'), and the sample thinned from them."""

    states: list[State]
    sample: list[State]
    prefix: int  # how many of `states` the breadth-first prefix found (the rest are the walks')
    complete: bool  # the prefix is every reachable state


def reach(machine: Machine, prefix: int = PREFIX, sample: int = SAMPLE, walks: int = WALKS,
          late: Callable[[], bool] = lambda: False, told: Callable[[int], None] = lambda found: None) -> Reached:
    """The first `prefix` reachable states breadth first, then those `walks` random walks reach besides;
    `told(found)` hears how many so far (a stop says it); once `late()`, what was found by then."""
    order = list(machine.init_states())
    seen = set(order)
    complete = True
    for i, state in enumerate(order):
        if len(order) >= prefix:
            complete = False
            break
        if i % 4096 == 0:
            told(len(order))
            if late():
                return Reached(order, order, len(order), False)
        for _, post in machine.successors(state):
            if post not in seen:
                seen.add(post)
                order.append(post)
    breadth = len(order)
    deep = [] if complete else _walks(machine, seen, walks, late)
    told(len(order) + len(deep))
    step = max(1, breadth // sample)
    return Reached(order + deep, order[:breadth:step] + deep, breadth, complete)


def _walks(machine: Machine, seen: set[State], walks: int, late: Callable[[], bool]) -> list[State]:
    """The states seeded walks reach that `seen` does not hold (added to it), in the order found (those found
    by then, once `late()`). Half the walks choose each step at random; the other half climb: each has its
    own random weights on the counts of a state (`_counts`) and takes, of three steps drawn at random, the one
    that raises their weighted sum most (one step in five at random), so that counts reach the largest
    values the bounds allow, which a random walk rarely does. A candidate's range is instantiated from what
    the walks saw: one whose bound is below what is reachable is no invariant, and Houdini would spend a
    round of z3 on each."""
    chooser = random.Random(0)
    out = []
    start = machine.init_states()[0]
    for n in range(walks):
        weights: dict[Any, float] | None = None if n % 2 == 0 else {}
        state = start
        for _ in range(LENGTH):
            options = [post for _, post in machine.successors(state) if post != state]
            if not options:
                break
            if weights is None or chooser.random() < 0.2:
                state = chooser.choice(options)
            else:
                drawn = chooser.sample(options, min(3, len(options)))
                state = max(drawn, key=lambda post: _weighed(post, weights, chooser))
            if state not in seen:
                seen.add(state)
                out.append(state)
        if late():
            break
    return out


def _weighed(state: State, weights: dict[Any, float], chooser: random.Random) -> float:
    """The sum of a state's counts, each by its weight (drawn on first sight)."""
    total = 0.0
    for key, count in _counts(state).items():
        weight = weights.get(key)
        if weight is None:
            weight = weights[key] = chooser.random()
        total += weight * count
    return total


def _counts(value: Any, path: str = "", out: Counter | None = None) -> Counter:
    """Every count of a state, summed over the items of its lists: the numbers, the lists' lengths, and how
    often each word stands in each field (attempts by status, say)."""
    out = Counter() if out is None else out
    if isinstance(value, bool | int):
        out[path] += value
    elif isinstance(value, str):
        out[path, value] += 1
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for name, item in zip(value._fields, value, strict=True):
            _counts(item, f"{path}.{name}", out)
    elif isinstance(value, tuple):
        out[path] += len(value)
        for item in value:
            _counts(item, path + "[]", out)
    return out


def sample_states(machine: Machine, limit: int = SAMPLE, late: Callable[[], bool] = lambda: False) -> list[State]:
    """A sample of the reachable states: all if there are at most `limit`, else `limit` thinned from the first
    4 * limit breadth first, with the states 200 random walks reach besides (what the templates of a proof
    that screens no further are instantiated from and checked on: `prove --compositional`)."""
    return reach(machine, 4 * limit, limit, 200, late).sample

"""Two rule tables walked together by the same actions: the shortest behaviour only each allows.

`walk_together` goes breadth first over the pairs of states both tables reach by the same actions; a step one
allows and the other does not, or after which a client sees something else (`observe`), ends a shortest
behaviour only one allows. `diff` compares a draft with the rules by it, `likeness.py` names the catalogued
mutant or reading a draft behaves as by it, `ladder.py` climbs larger bounds with it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Bounds, Machine, Reading
from pausecheck.model.actions import Action
from pausecheck.model.lang import Rule, same_rule
from pausecheck.model.machine import StepError
from pausecheck.model.observe import observe
from pausecheck.model.pygen import Successors, successor_function
from pausecheck.model.state import State
from pausecheck.traces.replay import first_difference

__all__ = ["Behaviour", "Walk", "walk_together", "parts_along", "split", "changed_rules", "same_table"]


@dataclass(frozen=True, slots=True)
class Behaviour:
    """A shortest behaviour one table allows and the other does not: its actions, its states on the table
    that allows it, and why the other does not (its last action is not enabled there, or a client sees
    something else after it)."""

    actions: tuple[Action, ...]
    states: tuple[State, ...]
    why: str


@dataclass(frozen=True, slots=True)
class Walk:
    """The two tables walked together: what only each allows, how many pairs were walked, whether every
    pair was one state (the same state graph), and whether the walk ended (not stopped by a limit)."""

    only_in_first: Behaviour | None
    only_in_second: Behaviour | None
    pairs: int
    same_states: bool
    complete: bool

    @property
    def same(self) -> bool:
        """No behaviour tells the tables apart (the walk ended)."""
        return self.complete and self.only_in_first is None and self.only_in_second is None


def walk_together(first: Machine, second: Machine, max_pairs: int | None = None,
                  seen_by: Callable[[State], Any] = observe,
                  names: tuple[str, str] = ("the first table", "the second table"),
                  shared: tuple[Successors, Successors, Successors] | None = None,
                  deadline: float | None = None) -> Walk:
    """Breadth first over the pairs of states both machines reach by the same actions; stops once a
    shortest behaviour only each allows is known, or every pair is walked (or `max_pairs`). `names` name
    the two tables in what a behaviour says of the other. `shared` (`split`): the successors of the rules
    both tables share, and of each one's own; from a pair that is one state, the shared rules' steps are
    the same in both and are taken once. `deadline` (a `time.perf_counter()` value): stop there, undecided."""
    start = (first.init_states()[0], second.init_states()[0])
    parents: dict[tuple[State, State], tuple[tuple[State, State], Action] | None] = {start: None}
    found: list[Behaviour | None] = [None, None]
    views: dict[State, Any] = {}
    same_states = True

    def view(state: State) -> Any:
        if state not in views:
            views[state] = seen_by(state)
        return views[state]

    def path(pair: tuple[State, State], side: int) -> tuple[list[Action], list[State]]:
        actions, states = [], [pair[side]]
        while parents[pair] is not None:
            pair, action = parents[pair]  # type: ignore[misc]
            actions.append(action)
            states.append(pair[side])
        return actions[::-1], states[::-1]

    def note(side: int, pair: tuple[State, State], action: Action, post: State, why: str) -> None:
        if found[side] is None:
            actions, states = path(pair, side)
            found[side] = Behaviour(tuple(actions) + (action,), tuple(states) + (post,), why)

    level = [start]
    while level and None in found:
        after = []
        for pair in level:
            a, b = pair
            if shared is not None and (a is b or a == b):
                for action, post in _stepped(shared[0], a, names[0]):  # a rule both share, from one state: one step
                    if (post, post) not in parents:
                        parents[post, post] = (pair, action)
                        after.append((post, post))
                steps_b, steps_a = dict(_stepped(shared[2], b, names[1])), _stepped(shared[1], a, names[0])
            else:
                steps_b = dict(_stepped(second.successors, b, names[1]))
                steps_a = _stepped(first.successors, a, names[0])
            for action, post_a in steps_a:
                post_b = steps_b.pop(action, None)
                if post_b is None:
                    note(0, pair, action, post_a, f"its last step is not allowed under {names[1]}")
                    continue
                if post_a != post_b:
                    same_states = False
                    seen = _seen(view(post_a), view(post_b))
                    if seen is not None:
                        where, one, other = seen
                        note(0, pair, action, post_a, f"after its last step a client sees {where} = {one}, and "
                             f"{other} under {names[1]}")
                        note(1, pair, action, post_b, f"after its last step a client sees {where} = {other}, and "
                             f"{one} under {names[0]}")
                        continue
                nxt = (post_a, post_b)
                if nxt not in parents:
                    parents[nxt] = (pair, action)
                    after.append(nxt)
            for action, post_b in steps_b.items():  # allowed by the second table only
                note(1, pair, action, post_b, f"its last step is not allowed under {names[0]}")
            if (max_pairs is not None and len(parents) > max_pairs) or \
                    (deadline is not None and len(parents) % 256 == 0 and time.perf_counter() > deadline):
                return Walk(found[0], found[1], len(parents), same_states, False)  # cut: not decided
        level = after
    complete = not level or None not in found
    return Walk(found[0], found[1], len(parents), same_states and found == [None, None] and not level, complete)


def parts_along(first: Machine, second: Machine, actions: tuple[Action, ...],
                seen_by: Callable[[State], Any] = observe) -> bool:
    """Do these actions, taken by both machines, reach a step one allows and the other does not, or after
    which a client sees something else? (A behaviour found at some bounds, replayed at others.)"""
    a, b = first.init_states()[0], second.init_states()[0]
    for action in actions:
        post_a, post_b = first.step(a, action), second.step(b, action)
        if (post_a is None) != (post_b is None):
            return True
        if post_a is None or post_b is None:
            return False
        if post_a != post_b and _seen(seen_by(post_a), seen_by(post_b)) is not None:
            return True
        a, b = post_a, post_b
    return False


def _stepped(successors: Callable[[State], Any], state: State, name: str) -> Any:
    """The successors of a state, or StepError naming the table that cannot step from it."""
    try:
        return successors(state)
    except StepError as error:
        raise StepError(error.state, error.error, error.table or name) from None
    except Exception as error:  # a draft's table that fails on a state it reaches
        raise StepError(state, error, name) from None


def split(bounds: Bounds, reading: Reading, first: tuple[Rule, ...],
          second: tuple[Rule, ...]) -> tuple[Successors, Successors, Successors] | None:
    """The successor functions of the rules two tables share (in the same place, `same_rule`) and of each
    one's others, where no action kind is in both parts (else None: the walk steps each table whole)."""
    if len(first) != len(second):
        return None
    alike = [same_rule(a, b) for a, b in zip(first, second, strict=True)]
    common = tuple(a for a, same in zip(first, alike, strict=True) if same)
    own = (tuple(a for a, same in zip(first, alike, strict=True) if not same),
           tuple(b for b, same in zip(second, alike, strict=True) if not same))
    if {r.action for r in common} & {r.action for r in own[0] + own[1]}:
        return None
    return (successor_function(bounds, reading, common), successor_function(bounds, reading, own[0]),
            successor_function(bounds, reading, own[1]))


def _seen(one: Any, other: Any) -> tuple[str, str, str] | None:
    """Where two client views first differ (a JSON path) and the value there in each (a list whose length
    differs: the whole list), as JSON; None where they are the same."""
    found = first_difference(one, other)
    if found is None:
        return None
    where = found[0].removesuffix(" (length)")
    values = []
    for view in (one, other):
        for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", where):
            inside = view if isinstance(view, (dict, list)) else {}
            present = (int(index) < len(inside)) if index and isinstance(inside, list) else key in inside
            if not present:  # the path names an entry only the other view has (a call of another id, say)
                view = _ABSENT
                break
            view = inside[int(index)] if index else inside[key]
        values.append("(absent)" if view is _ABSENT else json.dumps(view))
    return where.lstrip("."), values[0], values[1]


_ABSENT = object()


def changed_rules(first: tuple[Rule, ...], second: tuple[Rule, ...]) -> list[str]:
    """The rules that differ, by action kind, in table order (a rule only one table has counts too)."""
    names = []
    for k in range(max(len(first), len(second))):
        a = first[k] if k < len(first) else None
        b = second[k] if k < len(second) else None
        if a is None or b is None or not same_rule(a, b):
            names.append((a or b).action.__name__)  # type: ignore[union-attr]
    return names


def same_table(first: tuple[Rule, ...], second: tuple[Rule, ...]) -> bool:
    return len(first) == len(second) and all(same_rule(a, b) for a, b in zip(first, second, strict=True))

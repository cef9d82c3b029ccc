"""Candidate invariants and state properties judged in Python on concrete states.

Each item's formula (a candidate's expression, or a state property's formula in `model/formulas.py`) is
compiled by the explicit engine's code generator (`model/pycheck.py`): the very expression z3 judges
through `terms.py`, so the two cannot drift apart. The items are judged in fixed chunks, each one
compiled test of all its items whose walks over one sequence are joined (`compiled_all`); only a chunk
whose test fails (or raises) is judged item by item. Used to screen the candidates on the reachable
states before z3 sees any (`candidates.mine`), and to find, near a counterexample to induction, every
candidate that concrete states break (`refute.py`).

A test may raise on a state no reachable one resembles (an index past a list's end, a lookup that finds
nothing): such an item is *unjudged* there, neither broken nor held.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pausecheck.model.config import Bounds
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import Expr
from pausecheck.model.pycheck import compiled_all, compiled_expr
from pausecheck.model.state import State

__all__ = ["CHUNK", "ODD", "Judge", "expression"]

CHUNK = 32  # items per compiled screen (Python's parser refuses the nesting of many more joined at once)
ODD = (  # what a compiled test raises on a state no reachable one resembles
    IndexError, KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError, RecursionError)


def expression(item: Any) -> Expr:
    """An item's formula over the state `S`: a candidate's expression, or a state property's (by name)."""
    return FORMULAS[item].expr if isinstance(item, str) else item.expr


class Judge:
    """Compiled tests of a fixed list of items (candidates and state property names) under one set of bounds."""

    def __init__(self, items: Iterable[Any], bounds: Bounds) -> None:
        self.bounds = bounds
        self.items = list(items)
        self.chunk = {id(c): k // CHUNK for k, c in enumerate(self.items)}
        self.tests: dict[int, Callable[[State], Any]] = {}
        self.screens: dict[tuple[int, ...], Callable[[State], Any] | None] = {}

    def test(self, item: Any) -> Callable[[State], Any]:
        found = self.tests.get(id(item))
        if found is None:
            found = self.tests[id(item)] = compiled_expr(expression(item), self.bounds)
        return found

    def holds(self, item: Any, state: State) -> bool | None:
        """Does the item hold in the state (None: unjudged there)?"""
        try:
            return bool(self.test(item)(state))
        except ODD:
            return None

    def screen(self, active: list[Any]) -> Callable[[State], tuple[list[Any], list[Any]]]:
        """A function of a state: the items of `active` it breaks and those it leaves unjudged, each in order."""
        groups: dict[int, list[Any]] = {}
        for c in active:
            groups.setdefault(self.chunk[id(c)], []).append(c)
        chunks = [(group, self._compiled(group)) for group in groups.values()]

        def judge(state: State) -> tuple[list[Any], list[Any]]:
            broken: list[Any] = []
            odd: list[Any] = []
            for group, all_hold in chunks:
                try:
                    if all_hold is not None and all_hold(state):
                        continue
                except ODD:
                    pass
                for c in group:
                    verdict = self.holds(c, state)
                    if verdict is None:
                        odd.append(c)
                    elif not verdict:
                        broken.append(c)
            return broken, odd

        return judge

    def _compiled(self, group: list[Any]) -> Callable[[State], Any] | None:
        key = tuple(id(c) for c in group)
        if key not in self.screens:
            try:
                self.screens[key] = compiled_all([expression(c) for c in group], self.bounds)
            except (SyntaxError, RecursionError, MemoryError):  # too deep for the parser: judged one by one
                self.screens[key] = None
        return self.screens[key]

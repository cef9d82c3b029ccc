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
from pausecheck.model.lang import Expr, walk
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
    """Compiled tests of a fixed list of items (candidates and state property names) under one set of bounds.

    An item that tests each record of one sequence of the state by itself (`S.executions.all_of(test)`, where
    `test` reads no other field of the state, or only a few: a segment's execution) is judged once per
    distinct record (with those fields), not once per state: a state shares most of its records with others,
    so a million states hold a few tens of thousands of distinct executions."""

    def __init__(self, items: Iterable[Any], bounds: Bounds) -> None:
        self.bounds = bounds
        self.items = list(items)
        self.index = {id(c): k for k, c in enumerate(self.items)}
        self.part = {id(c): _local(expression(c)) for c in self.items}  # its sequence, if judged per record
        counts: dict[Any, int] = {}
        self.chunk: dict[int, int] = {}
        for c in self.items:
            part = self.part[id(c)]
            self.chunk[id(c)] = counts.get(part, 0) // CHUNK
            counts[part] = counts.get(part, 0) + 1
        self.tests: dict[int, Callable[[State], Any]] = {}
        self.screens: dict[tuple[int, ...], Callable[[State], Any] | None] = {}
        # per sequence: the record -> (what it breaks, what it leaves unjudged), and the items it was judged for
        self.memo: dict[Any, dict[Any, tuple[tuple[Any, ...], tuple[Any, ...]]]] = {}
        self.memo_for: dict[Any, frozenset[int]] = {}

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
        groups: dict[tuple[Any, int], list[Any]] = {}
        for c in active:
            groups.setdefault((self.part[id(c)], self.chunk[id(c)]), []).append(c)
        whole = [(group, self._compiled(group)) for (part, _), group in groups.items() if part is None]
        local: dict[tuple[str, tuple[str, ...]], list[tuple[list[Any], Callable[[State], Any] | None]]] = {}
        for (part, _), group in groups.items():
            if part is not None:
                local.setdefault(part, []).append((group, self._compiled(group)))
        alive = {id(c) for c in active}
        for part in local:
            judged = frozenset(id(c) for c in active if self.part[id(c)] == part)
            if not judged <= self.memo_for.get(part, frozenset()):  # judged for fewer: judge again
                self.memo[part] = {}
            self.memo_for[part] = judged
        order = self.index.__getitem__

        def judge(state: State) -> tuple[list[Any], list[Any]]:
            broken, odd = self._judged(state, whole)
            for part, chunks in local.items():
                memo = self.memo[part]
                name, reads = part
                context = tuple(getattr(state, f) for f in reads)
                for record in getattr(state, name):
                    key = (record, context) if reads else record
                    found = memo.get(key)
                    if found is None:
                        alone = State()._replace(**{name: (record,)}, **dict(zip(reads, context, strict=True)))
                        got = self._judged(alone, chunks)
                        found = memo[key] = (tuple(got[0]), tuple(got[1]))
                    broken += [c for c in found[0] if id(c) in alive]
                    odd += [c for c in found[1] if id(c) in alive]
            if local and (broken or odd):  # a record of several, or a part of several, may say one again
                broken = sorted({id(c): c for c in broken}.values(), key=lambda c: order(id(c)))
                odd = sorted({id(c): c for c in odd}.values(), key=lambda c: order(id(c)))
            return broken, odd

        return judge

    def _judged(self, state: State, chunks: list[tuple[list[Any], Callable[[State], Any] | None]]
                ) -> tuple[list[Any], list[Any]]:
        """The items of the chunks the state breaks, and those it leaves unjudged."""
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

    def _compiled(self, group: list[Any]) -> Callable[[State], Any] | None:
        key = tuple(id(c) for c in group)
        if key not in self.screens:
            try:
                self.screens[key] = compiled_all([expression(c) for c in group], self.bounds)
            except (SyntaxError, RecursionError, MemoryError):  # too deep for the parser: judged one by one
                self.screens[key] = None
        return self.screens[key]


def _local(x: Expr) -> tuple[str, tuple[str, ...]] | None:
    """Where `x` tests each record of one sequence of the state by itself: that sequence, and the other fields of
    the state the test reads (none, or the executions a segment's test looks its execution up in, say)."""
    if x.op != "all":
        return None
    seq, body = x.args[0], x.args[-1]
    if not (seq.op == "field" and _is_state(seq.args[0])):
        return None
    nodes = walk(body)
    reads = {n.args[1] for n in nodes if n.op == "field" and _is_state(n.args[0])}
    if sum(map(_is_state, nodes)) != sum(1 for n in nodes if n.op == "field" and _is_state(n.args[0])):
        return None  # the state read otherwise than by a field
    return seq.args[1], tuple(sorted(reads - {seq.args[1]}))


def _is_state(x: Any) -> bool:
    return isinstance(x, Expr) and x.op == "var" and x.args[0] == "S"

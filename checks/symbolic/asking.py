"""The queries of an induction proof, one move each, asked in this process or on forked worker processes.

A query asks z3 for a step of one move (`Step.ask`) from a state where some items hold (candidates, state
properties: `hyps`, by index) to one where a goal holds: some of the items fail after the step
(`("items", indices)`), a state property fails after it (`("state", name)`, which holds before), some of
the transition properties named are broken (`("steps", names)`: asked again of the others after each step
found, so that the answer names every one the move breaks), or the successor overflows a capacity
(`("fits",)`, the successor left free). Each query is a fresh solver over facts, never literals assumed: z3
then simplifies with the items and substitutes the successor: at every fault at the defaults, up to seven
times faster than one incremental solver a move with every item behind an assumed literal, and Houdini ends
where it did not (docs/speed.md).

`Asker.each` answers queries in the order given, each as soon as it and those before it are answered (a
Houdini pass, or every goal after it). With `workers` above one, every query is answered in a
process forked for it alone from this one (so the terms need not travel, and what z3 answers does not depend
on what a process asked before), at most `workers` at once, the next started as soon as one is done. Each
answer comes back as data (the items the step breaks, the counterexample decoded as states), never as a z3
object, so a proof is the same from run to run and at any number of workers above one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.machine import Machine

from ..search.parallel import ordered
from .relation import post_fits
from .values import Z3

__all__ = ["Query", "Answer", "Asker", "Late", "solve"]


class Late(Exception):
    """The deadline passed (or z3 gave up) before the proof was done."""


def solve(solver: z3.Solver, deadline: float | None) -> Any:
    """The solver's verdict, within what is left of the deadline (Late if none is, or z3 gives up)."""
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise Late
        solver.set("timeout", max(1, int(left * 1000)))
    verdict = solver.check()
    if verdict == z3.unknown:
        raise Late
    return verdict


@dataclass(frozen=True)
class Query:
    """A step of move `k` from a state where the items `hyps` hold, to one where `goal` holds; `check`: the
    items whose value after the step the answer reports."""

    k: int
    hyps: tuple[int, ...]
    goal: tuple[Any, ...]
    check: tuple[int, ...] = ()


@dataclass(frozen=True)
class Answer:
    """No such step (`found` false), or one: the items of `check` false after it, the counterexample to
    induction (None where it does not decode to states, or no machine was given), and for `("fits",)`, which
    step overflows in words."""

    found: bool
    failing: tuple[int, ...] = ()
    cti: Any = None
    overflow: str = ""
    broken: tuple[tuple[str, Any], ...] = ()  # of `("steps", names)`: each one broken, with its counterexample
    late: bool = False  # the deadline passed (or z3 gave up) before z3 answered (`Asker.each` raises Late)


class Asker:
    """Answers queries over the step `st` about `items`, here or on `workers` forked processes."""

    def __init__(self, st: Any, items: Sequence[Any], machine: Machine | None, deadline: float | None,
                 workers: int = 1) -> None:
        self.st, self.items, self.machine, self.deadline = st, list(items), machine, deadline
        self.pre = [st.state(c, st.s0) for c in self.items]
        self.post = [st.state(c, st.s1) for c in self.items]
        self.workers = max(1, workers)

    def each(self, queries: Sequence[Query]) -> Iterator[tuple[Query, Answer]]:
        """Each query with its answer, in the order given, each given as soon as it and those before it are
        answered. With workers, each query is answered in a process forked for it alone, at most `workers` at
        once, the next started as soon as one is done (not waiting on a slower one), so that queries of unequal
        cost are no slower together than apart: every query starts from this process as it is, so what z3
        answers does not depend on which process asked what before. Late as soon as an answer in order is."""
        with closing(ordered(_answer, queries, jobs=self.workers, args=(self,))) as answers:
            for q, answer in answers:
                if answer.late:
                    raise Late
                yield q, answer

    def answer(self, q: Query) -> Answer:
        """One query, in this process."""
        st, kind = self.st, q.goal[0]
        facts = [self.pre[i] for i in q.hyps]
        if kind == "steps":
            return self._steps(q, facts)
        if kind == "items":
            goal = z3.Or([z3.Not(self.post[i]) for i in q.goal[1]])
        elif kind == "state":
            facts.append(st.state(q.goal[1], st.s0))
            goal = z3.Not(st.state(q.goal[1], st.s1))
        else:
            goal = z3.Not(post_fits(Z3, st.moves[q.k].post))
        try:
            model = st.ask(q.k, facts, goal, self.deadline, linked=kind != "fits")
        except Late:
            return Answer(False, late=True)
        if model is None:
            return Answer(False)
        failing = tuple(i for i in q.check if z3.is_false(model.eval(self.post[i], model_completion=True)))
        if kind == "fits":
            return Answer(True, failing, overflow=st.overflow(model))
        return Answer(True, failing, None if self.machine is None else st.cti(model, self.machine, q.k))

    def _steps(self, q: Query, facts: list[Any]) -> Answer:
        """The transition properties `q.goal[1]` that move `q.k` breaks, one query for all of them, asked again
        of those left after each step found, each with the counterexample of the step that broke it."""
        st, left, broken = self.st, list(q.goal[1]), []
        while left:
            try:
                model = st.ask(q.k, facts, z3.Or([z3.Not(st.kept_by(n, q.k)) for n in left]), self.deadline)
            except Late:
                return Answer(False, late=True)
            if model is None:
                break
            hit = [n for n in left if z3.is_false(model.eval(st.kept_by(n, q.k), model_completion=True))]
            if not hit:  # the model of their disjunction breaks none of them: z3 and the terms disagree
                raise AssertionError(f"a step of move {q.k} breaks none of {left}")
            cti = None if self.machine is None else st.cti(model, self.machine, q.k)
            broken += [(n, cti) for n in hit]
            left = [n for n in left if n not in hit]
        return Answer(bool(broken), broken=tuple(broken))


def _answer(q: Query, asker: Asker) -> Answer:
    return asker.answer(q)

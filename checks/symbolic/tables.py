"""Two rule tables' step relations compared by z3, for behaviours of any length at the bounds given.

Both tables are lowered over the same state (`relation.moves`), and their moves paired by action: the n-th
move of a kind in one with the n-th of that kind in the other (a kind only one table has is paired with
nothing). At a state, the tables *differ* if some action is enabled under one and not the other, or leads
to another state under each. Then:

- **a differing behaviour** (bounded model checking): the rules' relation unrolled from the initial state,
  depth by depth, until a reachable state where the tables differ. Up to that state both took the same
  steps to the same states (the first difference is the one found), so the path replays on both tables, and
  its last step is taken on each by the explicit model to say what differs (what a client sees, or only the
  state inside);
- **the same for every length** (induction): no well-formed state at all where the tables differ, or none
  where the invariants `prove --induction` keeps for the first table hold. Those invariants hold on every
  state the first table reaches and are inductive for it; where the tables agree on every such state, the
  second table reaches exactly the same states by the same steps, so every behaviour of either, of any
  length, is one of the other;
- **not proved**: a state the invariants allow where the tables differ, which no bounded search reached: it
  may be unreachable (a counterexample to induction, given in the traces' words).

Only this room imports z3; `checks/diff.py` asks it for `diff`'s `relation`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model import Machine
from pausecheck.model.config import Bounds
from pausecheck.model.lang import Rule
from pausecheck.model.observe import observe
from pausecheck.model.reading import Reading
from pausecheck.model.state import State

from .asking import Late, solve
from .crosscheck import action_of
from .relation import Caps, Move, decode, moves, post_fits, well_formed
from .unrolled import Drift, Unrolling
from .values import Z3, leaves, reader, same

__all__ = ["Compared", "compare_tables", "NotPaired"]


SHALLOW = 10  # depths searched for a differing behaviour before induction is tried


class NotPaired(ValueError):
    """The tables' moves of one action kind cannot be paired (a rule that ranges over other values)."""


@dataclass(frozen=True)
class Compared:
    """What z3 established of two tables at these bounds: `verdict` is "same" (proved for every length),
    "differs" (a behaviour both take, then a step on which they part, replayed on both), "not proved" (a
    counterexample to induction) or "not established" (not compared, or stopped), with the words saying how."""

    verdict: str
    how: str
    states: tuple[State, ...] = ()  # the differing behaviour's states (both tables), up to the step they part on
    actions: tuple[Any, ...] = ()  # its actions, the last the one they part on
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "how": self.how, "steps": len(self.actions) or None,
                "actions": [str(a) for a in self.actions], "seconds": round(self.seconds, 3)}


def _pairs(first: list[Move], second: list[Move]) -> list[tuple[Move | None, Move | None]]:
    """The moves of both tables paired by action kind, in order; NotPaired where a kind's counts differ."""
    kinds = list(dict.fromkeys([m.kind for m in first] + [m.kind for m in second]))
    out: list[tuple[Move | None, Move | None]] = []
    for kind in kinds:
        mine, theirs = [m for m in first if m.kind is kind], [m for m in second if m.kind is kind]
        if mine and theirs and len(mine) != len(theirs):
            raise NotPaired(f"{kind.__name__} has {len(mine)} action instance(s) in one table and {len(theirs)} in "
                            "the other")
        if not theirs:
            out += [(m, None) for m in mine]
        elif not mine:
            out += [(None, m) for m in theirs]
        else:
            out += list(zip(mine, theirs, strict=True))
    return out


def _identical(a: Move, b: Move) -> bool:
    """The same terms (an unchanged rule lowers alike: z3 shares equal terms)."""
    return a.guard.eq(b.guard) and all(x.eq(y) for x, y in zip(leaves(a.post), leaves(b.post), strict=True)) \
        and all(not z3.is_expr(x) or x.eq(y) for x, y in zip(a.fields, b.fields, strict=True))


def _parts(pairs: list[tuple[Move | None, Move | None]]) -> list[tuple[int, Any]]:
    """For each pair that may differ, the term saying it does at the state the moves were lowered from."""
    out = []
    for k, (a, b) in enumerate(pairs):
        if a is None or b is None:
            out.append((k, (a or b).guard))  # type: ignore[union-attr]
        elif not _identical(a, b):
            fields = z3.And([x == y for x, y in zip(a.fields, b.fields, strict=True) if z3.is_expr(x)])
            differ = z3.Or(z3.Xor(a.guard, b.guard),
                           z3.And(a.guard, b.guard, z3.Or(z3.Not(fields), z3.Not(same(Z3, a.post, b.post)))))
            out.append((k, differ))
    return out


def _overflow(pairs: list[tuple[Move | None, Move | None]]) -> Any:
    return z3.Or([z3.And(m.guard, z3.Not(post_fits(Z3, m.post))) for pair in pairs for m in pair if m is not None]
                 or [z3.BoolVal(False)])


def compare_tables(bounds: Bounds, reading: Reading, first: tuple[Rule, ...], second: tuple[Rule, ...], *,
                   depth: int = 30, deadline: float | None = None, invariants: bool = True,
                   names: tuple[str, str] = ("the first table", "the second table")) -> Compared:
    """Compare the tables' relations: a differing behaviour of up to `depth` steps, else a proof that none of any
    length exists (with the first table's kept invariants where `invariants`), else not proved."""
    started = time.perf_counter()
    caps = Caps.of(bounds, reading)
    try:
        return _compare(bounds, reading, first, second, caps, depth, deadline, invariants, started, names)
    except NotPaired as why:
        return Compared("not established", f"not compared: {why}", seconds=time.perf_counter() - started)
    except Late:
        return Compared("not established", "stopped before z3 answered (the time given ran out)",
                        seconds=time.perf_counter() - started)


def _compare(bounds: Bounds, reading: Reading, first: tuple[Rule, ...], second: tuple[Rule, ...], caps: Caps,
             depth: int, deadline: float | None, invariants: bool, started: float,
             names: tuple[str, str]) -> Compared:
    unrolling = Unrolling(bounds, reading, first, caps)
    template = unrolling.template
    pairs = _pairs(template.moves, list(moves(caps, bounds, reading, template.pre, Z3, second)))
    parts = _parts(pairs)
    if not parts:
        return Compared("same", "the same for every length at these bounds: proved, every action's guard and "
                        "successor lower to the same terms under both tables", seconds=time.perf_counter() - started)
    differ, overflow = z3.Or([term for _, term in parts]), _overflow(pairs)
    first_machine, second_machine = Machine(bounds, reading, first), Machine(bounds, reading, second)
    # The shallow depths first (cheap), then induction (a proof needs no depth), then the deeper depths.
    proved: Compared | None = None
    for t in range(depth + 1):
        if t == min(SHALLOW, depth) + 1 and proved is None:
            proved = _induction(bounds, reading, first, second, caps, deadline, invariants, started, t - 1,
                                (template.pre, pairs, differ))
            if proved.verdict == "same":
                return proved
        if deadline is not None and time.perf_counter() > deadline:
            raise Late
        if t > 0:
            unrolling.grow()
        if deadline is not None:
            unrolling.solver.set("timeout", max(1, int((deadline - time.perf_counter()) * 1000)))
        try:
            model = unrolling.ask(z3.Or(template.at(differ, t), template.at(overflow, t)))
        except RuntimeError:  # z3 gave up (its timeout): the time given ran out
            raise Late from None
        if model is None:
            continue
        if z3.is_true(model.eval(template.at(overflow, t), model_completion=True)):
            return Compared("not established", f"a step from depth {t} leaves the symbolic capacities {caps}",
                            seconds=time.perf_counter() - started)
        try:
            path = unrolling.path(model, t, first_machine)
        except Drift as drift:
            return Compared("not established", f"a drift between the engines: {drift}",
                            seconds=time.perf_counter() - started)
        read = reader(model)
        k = next(k for k, term in parts if z3.is_true(model.eval(template.at(term, t), model_completion=True)))
        a, b = pairs[k]
        move = a if a is not None and read(template.at(a.guard, t)) else b
        assert move is not None
        action = action_of(Move(move.kind, tuple(template.at(f, t) if z3.is_expr(f) else f for f in move.fields),
                                move.guard, move.post), read)
        return _parted(path.states, path.actions, action, first_machine, second_machine, started, names)
    if proved is None:
        proved = _induction(bounds, reading, first, second, caps, deadline, invariants, started, depth,
                            (template.pre, pairs, differ))
    return proved


def _parted(states: tuple[State, ...], actions: tuple[Any, ...], action: Any, first: Machine, second: Machine,
            started: float, names: tuple[str, str]) -> Compared:
    """The behaviour z3 found, taken on both tables by the explicit model: what differs after its last step."""
    here = states[-1]
    for machine in (first, second):  # the path is a path of both: z3 found the first state where they part
        walked = states[0]
        for step in actions:
            walked = machine.step(walked, step)
        if walked != here:
            return Compared("not established", "z3's behaviour does not replay on both tables (a drift between the "
                            "engines)", seconds=time.perf_counter() - started)
    one, other = first.step(here, action), second.step(here, action)
    if (one is None) == (other is None) and one == other:
        return Compared("not established", f"z3 says the tables part on {action}; the explicit model disagrees (a "
                        "drift)", seconds=time.perf_counter() - started)
    if one is None or other is None:
        how = f"{action} is enabled only under {names[1] if one is None else names[0]}"
    elif observe(one) != observe(other):
        how = f"after {action}, a client sees something else under each table"
    else:
        how = f"after {action}, the tables reach other states, which a client sees alike"
    return Compared("differs", f"a behaviour of {len(actions) + 1} step(s) found by z3 (bounded model checking of the "
                    f"first table's relation) and replayed on both: {how}", states, actions + (action,),
                    time.perf_counter() - started)


def _induction(bounds: Bounds, reading: Reading, first: tuple[Rule, ...], second: tuple[Rule, ...], caps: Caps,
               deadline: float | None, invariants: bool, started: float, depth: int,
               lowered: tuple[Any, list[tuple[Move | None, Move | None]], Any]) -> Compared:
    """No state where the tables differ: among all well-formed states, else among those the first table's kept
    invariants allow (which must fit the capacities, as `prove --induction` proves). `lowered`: a state, the
    tables' moves from it paired, and the term saying they differ there (the unrolling's template, built once)."""
    s0, pairs, differ = lowered
    solver = z3.SolverFor("QF_BV")
    solver.add(well_formed(Z3, s0), differ)
    if solve(solver, deadline) == z3.unsat:
        return Compared("same", "the same for every length at these bounds: proved by z3, no state at all where one "
                        "table takes a step the other does not take to the same state",
                        seconds=time.perf_counter() - started)
    if not invariants:
        return Compared("not proved", _cti_words(solver.model(), s0, pairs, caps), seconds=time.perf_counter() -
                        started)
    from .inductive import FITS, Step, prove

    proof = prove(bounds, reading, names=(), rules=first, deadline=deadline)
    if proof.incomplete:
        raise Late
    fits = next((o for o in proof.outcomes if o.name == FITS), None)
    st = Step(bounds, reading, first, caps)
    pairs = _pairs(st.moves, list(moves(caps, bounds, reading, st.s0, Z3, second)))
    solver = z3.SolverFor("QF_BV")
    solver.add(well_formed(Z3, st.s0), *[st.state(c, st.s0) for c in proof.kept],
               z3.Or([term for _, term in _parts(pairs)]))
    if solve(solver, deadline) == z3.unsat and fits is not None and fits.proved:
        return Compared("same", f"the same for every length at these bounds: proved by z3, no state where one table "
                        f"takes a step the other does not take to the same state among those the {len(proof.kept)} "
                        "invariants `prove --induction` keeps for the first table allow (every state it reaches)",
                        seconds=time.perf_counter() - started)
    if fits is None or not fits.proved:
        return Compared("not proved", "the first table's kept invariants do not keep its states within the symbolic "
                        "capacities", seconds=time.perf_counter() - started)
    return Compared("not proved", _cti_words(solver.model(), st.s0, pairs, caps) + f" (and none up to {depth} steps "
                    "by bounded model checking)", seconds=time.perf_counter() - started)


def _cti_words(model: z3.ModelRef, s0: Any, pairs: list[tuple[Move | None, Move | None]], caps: Caps) -> str:
    """A state the tables part on that no bounded search reached, in the traces' words."""
    from pausecheck.traces.itf import encode_state
    from pausecheck.traces.render import changes, flat_view

    read = reader(model)
    try:
        state = decode(s0, read)
    except (IndexError, ValueError, KeyError):
        return "not proved: z3 found a state where the tables part, which it cannot decode"
    shown = "; ".join(changes({}, flat_view(encode_state(state))))  # its fields that are not empty
    parted = [a or b for a, b in pairs if (a is not None and read(a.guard)) or (b is not None and read(b.guard))]
    return (f"not proved: from a state no bounded search reached ({shown or 'nothing started'}) the tables take "
            f"{'a step' if not parted else parted[0].kind.__name__} otherwise; it may be unreachable")

"""The cross-check that makes drift between the engines' forms of the rules impossible to miss.

Both the explicit successors (`model/pygen.py`) and the z3 relation (`relation.py`) are derived from
the one rule table; a slip in either derivation shows as a state where they disagree:

- `lowered_successors`: the relation's lowering run with Python values (the `CONCRETE` algebra) on a
  concrete state: every move whose guard holds, with its successor. Fast enough (about 1 ms a state)
  to compare with the explicit successors on every reachable state of a bound set.
- `Relation.solutions`: the relation as one z3 formula over a symbolic pre-state and post-state, asked
  for every (action, successor) it admits from a concrete state, one solution at a time: each
  explicit successor must satisfy it and it must admit no other (about 30 ms a state).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.lang import Rule
from pausecheck.model.reading import Reading
from pausecheck.model.rules import RULES
from pausecheck.model.state import State

from .relation import Caps, Move, decode, fresh, lift, moves, post_fits
from .values import CONCRETE, Z3, TooSmall, decode_str, reader, same

__all__ = ["lowered_successors", "Relation", "action_of", "Overflow"]


class Overflow(TooSmall):
    """A successor that does not fit the capacities: the universe is too small for these bounds."""


def action_of(move: Move, read: Any = lambda x: x) -> Any:
    """The concrete action a move stands for (its fields read from values)."""
    values = []  # typed by the action's own fields: a draft's declared action as the model's
    for field, value in zip(dataclasses.fields(move.kind), move.fields, strict=True):
        v = read(value)
        values.append(decode_str(v) if field.type == "str" else bool(v) if field.type == "bool" else v)
    return move.kind(*values)


def lowered_successors(bounds: Bounds, reading: Reading, state: State, rules: tuple[Rule, ...] = RULES,
                       caps: Caps | None = None) -> list[tuple[Any, State]]:
    """The relation's successors of a concrete state, computed by its lowering on Python values."""
    caps = caps or Caps.of(bounds, reading)
    out = []
    for move in moves(caps, bounds, reading, lift(CONCRETE, caps, state), CONCRETE, rules):
        if move.guard:
            if not post_fits(CONCRETE, move.post):
                raise Overflow(f"{action_of(move)} from {state} overflows a capacity of {caps}")
            out.append((action_of(move), decode(move.post)))
    return out


@dataclass
class Relation:
    """The transition relation as one z3 formula: `which` names the move, `pre` and `post` the states."""

    caps: Caps
    pre: Any
    post: Any
    which: Any
    moves: list[Move]
    formula: Any

    @staticmethod
    def of(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...] = RULES, caps: Caps | None = None) -> Relation:
        """The relation of `rules` (the table or a mutant's deviation of it) over capacities `caps`."""
        caps = caps or Caps.of(bounds, reading)
        pre, post = fresh(caps, "pre"), fresh(caps, "post")
        found = list(moves(caps, bounds, reading, pre, Z3, rules))
        which = z3.BitVec("which", 16)
        formula = z3.Or([z3.And(which == k, m.guard, same(Z3, post, m.post)) for k, m in enumerate(found)])
        return Relation(caps, pre, post, which, found, formula)

    def solutions(self, state: State) -> list[tuple[Any, State]]:
        """Every (action, successor) the formula admits from a concrete state, in the rule table's order."""
        solver = z3.Solver()
        solver.add(self.formula, same(Z3, self.pre, lift(Z3, self.caps, state)))
        out = []
        while solver.check() == z3.sat:
            read = reader(solver.model())
            k = read(self.which)
            post = decode(self.post, read)
            move = self.moves[k]
            out.append((k, action_of(move, read), post))
            solver.add(z3.Not(z3.And(self.which == k, same(Z3, self.post, lift(Z3, self.caps, post)))))
        return [(action, post) for _, action, post in sorted(out, key=lambda item: item[0])]

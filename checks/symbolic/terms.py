"""The properties as values over an algebra: each formula of `model/formulas.py` lowered with the
relation's own lowering (`relation.py`), so that z3 (and the cross-check's Python values) judge a
state or a step by the very formula the explicit search compiles. Nothing here is written per property.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from pausecheck.model.config import Bounds
from pausecheck.model.formulas import FORMULAS, step_values
from pausecheck.model.lang import specialize
from pausecheck.model.reading import CONFORMANT

from .relation import Caps, Lower, Move
from .values import Z3, Algebra

__all__ = ["state_term", "step_term", "term_of"]


def state_term(name: str, caps: Caps, bounds: Bounds, state: Any, A: Algebra = Z3) -> Any:
    """Does the invariant `name` hold in the state value?"""
    formula = FORMULAS[name]
    if formula.step:
        raise ValueError(f"{name} is a property of steps, not of states")
    return Lower(A, caps).expr(specialize(formula.expr, bounds, CONFORMANT), {"S": state})


def term_of(x: Any, caps: Caps, bounds: Bounds, state: Any, A: Algebra = Z3) -> Any:
    """Any expression over the state `S` (a candidate invariant, say), lowered on a state value."""
    return Lower(A, caps).expr(specialize(x, bounds, CONFORMANT), {"S": state})


def step_term(name: str, caps: Caps, bounds: Bounds, pre: Any, move: Move, post: Any, A: Algebra = Z3) -> Any:
    """Does the step `move` from `pre` to `post` keep the transition property `name` (or show the witness)?
    `post` is the successor's value (`move.post`, or a state it is constrained equal to)."""
    formula = FORMULAS[name]
    x = specialize(formula.expr, bounds, CONFORMANT, step_values(move.kind))
    env = {"S": pre, "P": post, **{f"act.{f.name}": v for f, v in zip(fields(move.kind), move.fields, strict=True)}}
    return Lower(A, caps).expr(x, env)

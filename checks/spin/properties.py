"""The properties Spin checks: every formula of `model/formulas.py`, with what the registry says of it.

A formula is a property's predicate in the rule language (`name`, `expr`, `step`); the property registry
(`model/properties.py`) gives its kind (always, transition, sometimes), clauses, the action kinds it looks
at (`on`), the witness of its situation (vacuity) and, for a witness, the flag the bounds need for it to
be reachable at all (`requires`). `SpinProperty` holds both; any sequence of them can be checked
(`engine.spin_check`), e.g. a property written for a test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from pausecheck.model.config import Bounds
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import Expr
from pausecheck.model.properties import property_named

__all__ = ["SpinProperty", "SPIN_PROPERTIES", "from_registry"]


class SpinProperty(NamedTuple):
    """A property as Spin checks it: name, kind, clauses, and a bool `Expr` (see the module's doc)."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    expr: Expr
    on: tuple[type, ...] = ()  # a step property's action kinds (empty: every step)
    step: bool = False  # over a step (S, P, act, kind) even where it reads only S
    situation: str | None = None  # the witness that it is exercised (vacuity), if Spin checks it too
    requires: Callable[[Bounds], str | None] | None = None  # a witness: the flag the bounds lack, or None


def from_registry(formulas: Iterable[Any]) -> tuple[SpinProperty, ...]:
    """Formulas (`name`, `expr`, `step`) with what the property registry says of each property: its kind,
    clauses, action kinds, situation and the bounds it requires."""
    out = []
    for f in formulas:
        p = property_named(f.name)
        out.append(SpinProperty(f.name, p.kind, tuple(p.clauses), f.expr, tuple(p.on), getattr(f, "step", False),
                                p.situation, p.requires))
    return tuple(out)


# The properties `check --engine spin` checks: every formula, each as the registry describes its property.
SPIN_PROPERTIES: tuple[SpinProperty, ...] = from_registry(FORMULAS.values())

"""The properties Spin checks: until `model/formulas.py` (`FORMULAS`) lands, stand-ins in the rule language.

Each stand-in is written in the rule language (`model/lang.py`) and bears the name of the Python property
it mirrors (`model/properties.py`), so that the two engines' verdicts can be compared name by name. They
are temporary: `SPIN_PROPERTIES` becomes `FORMULAS`, one line, when the properties are written once as
data for every engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from pausecheck.model.config import Bounds
from pausecheck.model.lang import B, Expr, span
from pausecheck.model.properties import property_named
from pausecheck.model.rules import S
from pausecheck.model.state import CANCELLED, COMPLETED, FAILED, INTERRUPTED, PAUSED, PENDING

__all__ = ["SpinProperty", "STAND_INS", "SPIN_PROPERTIES", "from_registry"]


class SpinProperty(NamedTuple):
    """A property as `model/formulas.py` will have it: name, kind, clauses, and a bool `Expr`."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    expr: Expr
    on: tuple[type, ...] = ()  # a step property's action kinds (empty: every step)
    step: bool = False  # over a step (S, P, act, kind) even where it reads only S
    situation: str | None = None  # the witness that it is exercised (vacuity), if Spin checks it too
    requires: Callable[[Bounds], str | None] | None = None  # a witness: the flag the bounds lack, or None

def _finished(status: Expr) -> Expr:
    return status.one_of(COMPLETED, FAILED, CANCELLED)


def _unrouted(x: Expr) -> Expr:
    return x.node_failures.count(lambda routed: ~routed)


def _pending(x: Expr) -> Expr:
    return x.questions.count(lambda q: q.status == PENDING)


def _owned(x: Expr) -> Expr:
    """Every ref an execution holds or delivered is one it produced."""
    mine = lambda r: S.artifacts.at(r - 1).execution == x.id  # noqa: E731 - a predicate, used twice
    return x.held.all_of(mine) & x.messages.all_of(lambda m: m.all_of(mine))


def _delivered(r: Expr) -> Expr:
    """How many times the ref is on a message of any execution."""
    return S.executions.total(lambda x: x.messages.total(lambda m: m.count(lambda k: k == r)))


STAND_INS: tuple[SpinProperty, ...] = (
    SpinProperty("no_double_delivery", "always", ("T7.7", "T7.8"),
                 span(1, S.artifacts.size + 1).all_of(lambda r: _delivered(r) <= 1)),
    SpinProperty("finished_holds_nothing", "always", ("T7.4", "T7.12"),
                 S.executions.all_of(lambda x: ~_finished(x.status) | (x.held.size == 0))),
    SpinProperty("held_bounded", "always", ("T7.13",), S.executions.all_of(lambda x: x.held.size <= B.held_bound)),
    SpinProperty("isolation", "always", ("T7.2", "T7.4"),
                 S.executions.all_of(_owned)
                 & S.warnings.all_of(lambda w: S.artifacts.at(w.ref - 1).execution == w.execution)),
    SpinProperty("no_phantom_pause", "always", ("G6.5", "O11.2"), S.executions.all_of(
        lambda x: ~(_finished(x.status) & x.attempts.any_of(lambda a: a.status == INTERRUPTED))
        & ((x.status == PAUSED) | (_pending(x) == 0)) & ((x.status != PAUSED) | (_pending(x) == 1)))),
    SpinProperty("tool_failures_handled", "always", ("G6.6", "G6.8", "E9.5"),
                 S.executions.all_of(lambda x: x.unhandled == _unrouted(x))),
    SpinProperty("handled_run_completes", "always", ("G6.7", "E9.1", "O11.1", "O11.4", "G5.2"), S.executions.all_of(
        lambda x: ~_finished(x.status) | (x.status == CANCELLED)
        | ((_unrouted(x) > 0) & (x.status == FAILED)) | ((_unrouted(x) == 0) & (x.status == COMPLETED)))),
)



def from_registry(formulas: Iterable[Any]) -> tuple[SpinProperty, ...]:
    """Formulas (`name`, `expr`, `step`) with what the property registry says of each property: its kind,
    clauses, action kinds, situation and the bounds it requires."""
    out = []
    for f in formulas:
        p = property_named(f.name)
        out.append(SpinProperty(f.name, p.kind, tuple(p.clauses), f.expr, tuple(p.on), getattr(f, "step", False),
                                p.situation, p.requires))
    return tuple(out)


# The properties `check --engine spin` checks. When model/formulas.py lands:
# SPIN_PROPERTIES = from_registry(FORMULAS.values())
SPIN_PROPERTIES: tuple[Any, ...] = STAND_INS

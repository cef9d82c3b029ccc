"""The vocabulary of checks: the kinds, the context a check may consult, and the Property record.

- `always`: a predicate over every reachable state, given a `Context` (bounds, what the wire shows);
- `transition`: a predicate over every step (pre, action, post, context) of the action kinds it names;
- `sometimes`: a witness; finding none is a failure (the model or the bounds are vacuous).

An `always` or `transition` check returns None when it holds, else a sentence naming the concrete
values that break it. Every such property names the `sometimes` witness of its situation: if the
situation never occurs within the bounds, the property is reported vacuous and the check fails.
A `sometimes` property names what the bounds must allow for its situation to be reachable at all
(`requires`: the missing flag, or None); below that it is "not exercised", which says something about
the bounds, while a witness the bounds allow but the search never finds says the model is vacuous.
An `always` or `transition` property is exercised exactly when its situation is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .config import Bounds
from .state import State

__all__ = ["ALWAYS", "TRANSITION", "SOMETIMES", "Context", "Property"]

ALWAYS, TRANSITION, SOMETIMES = "always", "transition", "sometimes"


class Context(NamedTuple):
    """What an `always` check may consult beside the state: the bounds and the wire's artifacts."""

    bounds: Bounds
    shown: Callable[[State], tuple[tuple[str, tuple[int, ...]], ...]]


@dataclass(frozen=True, slots=True)
class Property:
    """A named check: its kind, clause ids, predicate, witness of its situation, and meaning."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    check: Callable[..., Any]
    doc: str
    situation: str | None = None  # the `sometimes` property witnessing that this one is exercised
    on: tuple[type, ...] = ()  # transition and sometimes: the action kinds looked at (empty: all)
    requires: Callable[[Bounds], str | None] | None = None  # sometimes: the flag the bounds lack, or None
    # always, optionally: the same invariant of one execution record (record, context) -> complaint or None,
    # where it holds of a state exactly when it holds of each record (`properties.screen` tests only the
    # records a step changed)
    each: Callable[[Any, Context], str | None] | None = None
    # transition, optionally: the action kinds on which a step that changes nothing (post equal to pre) can
    # break it; () where no such step can, whatever its kind. The explorer skips it on the others' stutter
    # steps (a poll, a late answer): tests/test_stutter.py checks the claim on every reachable state.
    stutter: tuple[type, ...] | None = None


def stutter_proof(prop: Property, action_type: type) -> bool:
    """Can no step of this kind that changes nothing break this transition property (its `stutter`)?"""
    kinds = getattr(prop, "stutter", None)
    return kinds is not None and action_type not in kinds

"""Checks decided by their formulas: the compiled formula (`pycheck.py`) says whether a property holds,
a Python function only says, in words, how it fails.

Each wrapper keeps the registry's signatures (`check(state, ctx)`, `check(pre, action, post, ctx)`,
`each(record, ctx)`): None where the property holds, else the explanation (a witness: shown or not).
An explanation that finds nothing to say still reports the failure, by the property's doc. Each check
keeps its explanation as `check.explain`, for the test that they agree (tests/test_formulas.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .observe import shown
from .pycheck import Tests, compiled_for

__all__ = ["state_check", "each_check", "step_check", "witness_check", "decided_by_formula"]

Explain = Callable[..., "str | None"]
_LAST: list[Any] = [None, None]  # the bounds last asked for, and their tests (a search asks with the same object)


def _tests(bounds: Any) -> Tests:
    if bounds is not _LAST[0]:
        _LAST[0], _LAST[1] = bounds, compiled_for(bounds)
    return _LAST[1]


def _failed(name: str, doc: str, said: str | None) -> str:
    return said if said is not None else f"{name} does not hold: {doc}"


def state_check(name: str, doc: str, explain: Explain, wire: bool = False) -> Callable[[Any, Any], str | None]:
    """An invariant's check. `wire`: the formula reads what the wire shows (`formulas.wire`, the default
    view); under another view (a mutant's `show`), the explanation decides alone."""
    def check(state: Any, ctx: Any) -> str | None:
        if wire and ctx.shown is not shown:
            return explain(state, ctx)
        if _tests(ctx.bounds).state[name](state):
            return None
        return _failed(name, doc, explain(state, ctx))
    check.explain = explain  # type: ignore[attr-defined]
    check.decides = name  # type: ignore[attr-defined]
    check.wire = wire  # type: ignore[attr-defined]
    return check


def each_check(name: str, doc: str, explain: Explain) -> Callable[[Any, Any], str | None]:
    """An invariant's check of one execution record."""
    def check(record: Any, ctx: Any) -> str | None:
        if _tests(ctx.bounds).each[name](record):
            return None
        return _failed(name, doc, explain(record, ctx))
    check.explain = explain  # type: ignore[attr-defined]
    return check


def step_check(name: str, doc: str, explain: Explain) -> Callable[[Any, Any, Any, Any], str | None]:
    """A transition property's check of one step."""
    def check(pre: Any, action: Any, post: Any, ctx: Any) -> str | None:
        if _tests(ctx.bounds).step(name, type(action))(pre, action, post):
            return None
        return _failed(name, doc, explain(pre, action, post, ctx))
    check.explain = explain  # type: ignore[attr-defined]
    check.decides = name  # type: ignore[attr-defined]
    return check


def witness_check(name: str) -> Callable[[Any, Any, Any, Any], bool]:
    """A witness's check of one step: does the step show it?"""
    def check(pre: Any, action: Any, post: Any, ctx: Any) -> bool:
        return _tests(ctx.bounds).step(name, type(action))(pre, action, post)
    check.decides = name  # type: ignore[attr-defined]
    return check


def decided_by_formula(prop: Any, shown_by: Any = shown) -> bool:
    """Is this property's check its formula's (so that a search may test it with others in one compiled
    expression)? Not a wire-reading invariant under another wire view than the default."""
    check = prop.check
    wire_differs = getattr(check, "wire", False) and shown_by is not shown
    return getattr(check, "decides", None) == prop.name and not wire_differs

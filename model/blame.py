"""Which clauses a counterexample breaks: those of the part of the property's formula that failed.

A property names every clause it formalises; its formula may be written as parts (`formulas.Part`), each
conjunct with the clauses it is about. A counterexample breaks some of the conjuncts, at its last state
(an invariant) or its last step (a transition property): the clauses of those are *blamed* (violated),
the property's other clauses only *involved*. An invariant's part may tell its clauses apart by the
step that broke it (`by_step`: an artifact lost by a write-back is T7.12's, one dropped past the bound
without a warning T7.15's). A property with no parts, or whose formula the counterexample does not
break where it ends (a wire view other than the formula's, a liveness lasso), blames every clause it names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .formulas import FORMULAS, Part
from .pycheck import compiled_expr, compiled_step_expr

__all__ = ["blamed"]

_TESTS: dict[tuple[Any, ...], Callable[..., Any]] = {}  # (expression, bounds, kind or None) -> compiled test


def _test(x: Any, bounds: Any, kind: type | None) -> Callable[..., Any]:
    key = (x, bounds, kind)
    found = _TESTS.get(key)
    if found is None:
        if len(_TESTS) >= 1024:
            _TESTS.clear()
        found = _TESTS[key] = compiled_expr(x, bounds) if kind is None else compiled_step_expr(x, bounds, kind)
    return found


def _fails(part: Part, bounds: Any, step: bool, pre: Any, action: Any, post: Any) -> bool:
    """Does the counterexample break this part? A part read alone may reach what the conjuncts before it
    guard (the last of an empty list, on a table a draft edited): then it is not shown broken."""
    try:
        if step:
            return action is not None and not _test(part.test, bounds, type(action))(pre, action, post)
        return not _test(part.test, bounds, None)(post)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError, ZeroDivisionError):
        return False


def _clauses_of(part: Part, bounds: Any, pre: Any, action: Any, post: Any) -> tuple[str, ...]:
    """An invariant's part's clauses, told apart by the step that broke it where it says how."""
    if action is not None:
        for test, clauses in part.by_step:
            try:
                if _test(test, bounds, type(action))(pre, action, post):
                    return clauses
            except (IndexError, KeyError, TypeError, AttributeError, ValueError, ZeroDivisionError):
                continue  # a step the test cannot read (no segment in flight): not this one
    return part.clauses


def blamed(name: str, clauses: tuple[str, ...], bounds: Any, states: Sequence[Any],
           actions: Sequence[Any]) -> tuple[str, ...]:
    """The clauses (of `clauses`, in their order) that the path `states`/`actions` breaks where it ends, for
    the property `name`: those of its formula's failing parts; every one of `clauses` where it has no parts
    or no part fails there."""
    formula = FORMULAS.get(name)
    if formula is None or not formula.parts or not states:
        return clauses
    post = states[-1]
    pre, action = (states[-2], actions[-1]) if actions and len(states) >= 2 else (None, None)
    failing = [p for p in formula.parts if _fails(p, bounds, formula.step, pre, action, post)]
    if not failing:
        return clauses
    named = {c for p in failing for c in (_clauses_of(p, bounds, pre, action, post) if not formula.step
                                           else p.clauses)}
    return tuple(c for c in clauses if c in named)

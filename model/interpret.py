"""The rule language's meaning as a small interpreter: one rule table run on one state, statement by statement.

This is the semantics `lang.py` states, executed directly and slowly, with nothing derived: the statements
of an effect run in order on the state itself; `e` is read from the state each time (the execution whose id
is the step's `e.id`), `g` likewise (the segment whose key is the step's `g.execution`); `End` removes `g`
from the state there and then. The engines (`pygen.py`, the z3 relation, the Promela model) each compile
the table their own way, through `lowering.py`; the differential test (`tests/test_semantics.py`) holds
each of them to this interpreter on random statements over random states.

`successors(bounds, reading, state, rules)` gives what `pygen.successor_function(...)(state)` gives: every
enabled action with its successor, in the table's order (rule, then binder, then parameter values).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .lang import End, Expr, Let, Rule, Set, When, specialize, specialize_block
from .state import Segment, State, id_key

__all__ = ["successors", "run_effect", "value", "InterpretError"]


class InterpretError(ValueError):
    """A step the language gives no meaning: `e` or `g` read where the state no longer holds it."""


def successors(bounds: Any, reading: Any, state: State, rules: tuple[Rule, ...]) -> list[tuple[Any, State]]:
    """Every enabled action of the table on `state`, with its successor, in the table's order."""
    out: list[tuple[Any, State]] = []
    for rule in rules:
        for env in _binders(rule, bounds, state):
            for given in itertools.product(*[c.domain(bounds) for c in rule.choose]):
                values = {c.name: v for c, v in zip(rule.choose, given, strict=True)}
                scope = {**env, **values}
                guard = [specialize(x, bounds, reading, values) for x in rule.guard]
                if not all(value(x, scope, state) for x in guard):
                    continue
                fields = [value(specialize(x, bounds, reading, values), scope, state) for x in rule.fields]
                effect = specialize_block(rule.effect, bounds, reading, values)
                out.append((rule.action(*fields), run_effect(effect, scope, state)))
    return out


def _binders(rule: Rule, bounds: Any, state: State) -> list[dict[str, Any]]:
    """The variables each instance of the rule's binder gives, in order (`e` and `g` as keys)."""
    over = rule.over.name
    if over == "sessions":
        return [{"session": k} for k in range(1, bounds.sessions + 1)]
    if over == "executions":
        return [{"e": x.id} for x in state.executions]
    if over == "segments":
        out = []
        for g in state.segments:
            execution = next(x for x in state.executions if x.id == g.execution.rstrip("'"))
            run = next((a for a in execution.attempts if a.status == "running"), None)
            out.append({"e": execution.id, "g": g.execution, "run": run})
        return out
    return [{}]


def run_effect(stmts: tuple[Any, ...], env: dict[str, Any], state: State) -> State:
    """The state after the statements, run in order (`e` and `g` in `env` are the step's keys)."""
    for st in stmts:
        if isinstance(st, Let):
            env[st.name] = value(st.value, env, state)
        elif isinstance(st, Set):
            state = _set(st, env, state)
        elif isinstance(st, End):
            key = env["g"]
            state = state._replace(segments=tuple(x for x in state.segments if x.execution != key))
            env["g"] = None  # ended: `g` reads nothing from here on
        elif isinstance(st, When):
            branch = st.then if value(st.test, env, state) else st.otherwise
            state = run_effect(branch, env, state)
    return state


def _set(st: Set, env: dict[str, Any], state: State) -> State:
    record, field = st.target.args[0].args[0], st.target.args[1]
    new = value(st.value, env, state)
    if record == "S":
        return state._replace(**{field: new})
    if record == "e":
        k = _index(state.executions, "id", env["e"], "e")
        items = state.executions
        return state._replace(executions=items[:k] + (items[k]._replace(**{field: new}),) + items[k + 1:])
    k = _index(state.segments, "execution", env["g"], "g")
    items = state.segments
    return state._replace(segments=items[:k] + (items[k]._replace(**{field: new}),) + items[k + 1:])


def _index(items: tuple[Any, ...], key: str, wanted: Any, name: str) -> int:
    for k, x in enumerate(items):
        if getattr(x, key) == wanted:
            return k
    raise InterpretError(f"`{name}` ({wanted}) is no longer in the state")


# ---------------------------------------------------------------------------------------------
# Expressions


def value(x: Expr, env: dict[str, Any], state: State) -> Any:  # noqa: C901 - one case per operator
    """The value of a specialised expression (bounds and readings resolved) in `env` on `state`."""
    op, a = x.op, x.args
    if op == "const":
        return a[0]
    if op == "var":
        name = a[0]
        if name == "S":
            return state
        if name == "e":
            return state.executions[_index(state.executions, "id", env["e"], "e")]
        if name == "g":
            if env["g"] is None:
                raise InterpretError("`g` is read after the segment ended")
            return state.segments[_index(state.segments, "execution", env["g"], "g")]
        return env[name]
    if op == "field":
        return getattr(value(a[0], env, state), a[1])
    if op in _STRICT:
        return _STRICT[op](*(value(y, env, state) for y in a))
    if op == "and":
        return value(a[0], env, state) and value(a[1], env, state)
    if op == "or":
        return value(a[0], env, state) or value(a[1], env, state)
    if op == "ite":
        return value(a[1], env, state) if value(a[0], env, state) else value(a[2], env, state)
    if op in _OVER:
        seq, bound, body = value(a[0], env, state), a[1].args[0], a[2]

        def test(item: Any) -> Any:
            return value(body, {**env, bound: item}, state)

        return _OVER[op](seq, test, lambda item: value(a[3], {**env, bound: item}, state) if len(a) > 3 else None)
    if op == "fold":
        acc = value(a[1], env, state)
        for item in value(a[0], env, state):
            acc = value(a[4], {**env, a[2].args[0]: acc, a[3].args[0]: item}, state)
        return acc
    if op == "zip_all":
        u, v = a[2].args[0], a[3].args[0]
        pairs = zip(value(a[0], env, state), value(a[1], env, state), strict=False)  # as far as both go
        return all(value(a[4], {**env, u: p, v: q}, state) for p, q in pairs)
    if op == "new":
        return a[0](*(value(y, env, state) for y in a[1]))
    if op == "with":
        return value(a[0], env, state)._replace(**{k: value(v, env, state) for k, v in a[1]})
    raise ValueError(f"the interpreter has no meaning for {op!r} (still unresolved: {x!r})")


def _insert(items: tuple[Any, ...], item: Segment) -> tuple[Any, ...]:
    others = tuple(x for x in items if x.execution != item.execution)
    return tuple(sorted(others + (item,), key=lambda x: id_key(x.execution)))


def _update_last(seq: tuple[Any, ...], test: Callable[[Any], Any], change: Callable[[Any], Any]) -> tuple[Any, ...]:
    for k in range(len(seq) - 1, -1, -1):
        if test(seq[k]):
            return seq[:k] + (change(seq[k]),) + seq[k + 1:]
    return seq


_STRICT: dict[str, Callable[..., Any]] = {
    "+": lambda p, q: p + q, "-": lambda p, q: p - q, "==": lambda p, q: p == q, "!=": lambda p, q: p != q,
    "<": lambda p, q: p < q, "<=": lambda p, q: p <= q, "not": lambda p: not p, "min": min, "len": len,
    "at": lambda s, k: s[k], "last": lambda s: s[-1], "append": lambda s, y: s + (y,), "concat": lambda s, t: s + t,
    "prefix": lambda s, n: s[:n], "suffix": lambda s, n: s[n:], "set_last": lambda s, y: s[:-1] + (y,),
    "insert": _insert, "contains": lambda s, y: y in s, "span": lambda p, q: tuple(range(p, q)),
    "repeat": lambda y, n: (y,) * n, "exec_id": lambda n: f"e{n}", "call_id": lambda n: f"c{n}",
    "race_key": lambda k: k + "'", "base_of": lambda k: k.rstrip("'"), "is_race": lambda k: k.endswith("'"),
    "is_none": lambda y: y is None,
}

_OVER: dict[str, Callable[..., Any]] = {
    "filter": lambda s, t, c: tuple(y for y in s if t(y)),
    "map": lambda s, t, c: tuple(t(y) for y in s),
    "count": lambda s, t, c: sum(1 for y in s if t(y)),
    "any": lambda s, t, c: any(t(y) for y in s),
    "all": lambda s, t, c: all(t(y) for y in s),
    "sum": lambda s, t, c: sum(t(y) for y in s),
    "first": lambda s, t, c: next((y for y in s if t(y)), None),
    "update_last": lambda s, t, c: _update_last(s, t, c),
    "update_where": lambda s, t, c: tuple(c(y) if t(y) else y for y in s),
}

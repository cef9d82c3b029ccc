"""One rule's edits of its own execution and of the list of executions, lowered to an edit of the list alone.

An effect edits the execution `e` (`Set(e.held, ...)`) and, where it must reach other records, the list
`S.executions` (`Set(S.executions, ...)`). The engines apply the edits of `e` when the step ends, in `e`'s
place in the list; a rule that edits both would have two answers for `e`'s record. Lowered, it has one:
the list the effect set, with `e`'s field edits applied to `e`'s record in it. So a draft says "the
write-back also lands its message on the session's first turn" in a line or two, beside the rule's own
edits of `e`, instead of restating the whole rule on the list.

The lowering (`lowered(rule)`, the same object for a rule that needs none):
- each field `f` of `e` the effect sets is a local `_e_f`, first bound to `e.f`; each `Set(e.f, v)` rebinds
  it, and each read of `e.f` in the effect reads it (as the engines read an edited field);
- `S.executions` is a local too: each `Set(S.executions, v)` rebinds it; reads of `S.executions` still see
  the state before the step, as everywhere in the language;
- one `Set(S.executions, ...)` at the end writes the list back with `e`'s record (found by its id) given
  the new fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .lang import End, Expr, Let, Rule, Set, When, ite, var
from .state import Execution, State

__all__ = ["lowered"]

_DONE: dict[int, tuple[Rule, Rule]] = {}  # id(rule) -> (rule, its lowered form)


def lowered(rule: Rule) -> Rule:
    """The rule with edits of both `e` and `S.executions` lowered to one edit of the list; else itself."""
    found = _DONE.get(id(rule))
    if found is None or found[0] is not rule:
        found = _DONE[id(rule)] = (rule, _lower(rule))
    return found[1]


def _sets(stmts: tuple[Any, ...]) -> list[Set]:
    out: list[Set] = []
    for st in stmts:
        if isinstance(st, Set):
            out.append(st)
        elif isinstance(st, When):
            out += _sets(st.then) + _sets(st.otherwise)
    return out


def _target(st: Set) -> tuple[str, str]:
    return st.target.args[0].args[0], st.target.args[1]


def _lower(rule: Rule) -> Rule:
    sets = [_target(st) for st in _sets(rule.effect)]
    fields = list(dict.fromkeys(f for record, f in sets if record == "e"))
    if ("S", "executions") not in sets or not fields:
        return rule
    e, state = var("e", Execution), var("S", State)
    locals_ = {f: var(f"_e_{f}", getattr(e, f).t) for f in fields}
    executions = var("_S_executions", state.executions.t)

    def expr(x: Any) -> Any:
        if not isinstance(x, Expr):
            return x
        if x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == "e" and x.args[1] in locals_:
            return locals_[x.args[1]]
        args = tuple(_arg(a, expr) for a in x.args)
        return x if all(a is b for a, b in zip(args, x.args, strict=True)) else Expr(x.op, args, x.t)

    def block(stmts: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for st in stmts:
            if isinstance(st, Set) and _target(st)[0] == "e" and _target(st)[1] in locals_:
                out.append(Let(locals_[_target(st)[1]].args[0], expr(st.value)))
            elif isinstance(st, Set) and _target(st) == ("S", "executions"):
                out.append(Let("_S_executions", expr(st.value)))
            elif isinstance(st, Set):
                out.append(Set(st.target, expr(st.value)))
            elif isinstance(st, Let):
                out.append(Let(st.name, expr(st.value)))
            elif isinstance(st, When):
                out.append(When(expr(st.test), block(st.then), block(st.otherwise)))
            else:
                out.append(st)
        return tuple(out)

    start = tuple(Let(local.args[0], getattr(e, f)) for f, local in locals_.items())
    start += (Let("_S_executions", state.executions),)
    written = executions.map(lambda x: ite(x.id == e.id, x.but(**locals_), x))
    body = block(rule.effect)
    ends = tuple(st for st in body if isinstance(st, End))
    body = tuple(st for st in body if not isinstance(st, End))
    return dataclasses.replace(rule, effect=start + body + (Set(state.executions, written),) + ends)


def _arg(a: Any, go: Any) -> Any:
    if isinstance(a, Expr):
        return go(a)
    if isinstance(a, tuple):
        return tuple(_arg(v, go) for v in a)
    return a


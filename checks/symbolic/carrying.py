"""Which properties carry to any number of sessions: a property *carries* when it holds of a state (or a step) of
any number of sessions wherever it holds of each session's part (each moving session's projected step, every other
session's part unchanged). Read from each property's formula with the footprint walk (`footprint.py`): a state
property item by item, or as a comparison of two sums of every session's counts; a transition property step kind
by step kind (docs/symbolic.md, "Any number of sessions", gives the forms and why each carries).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.exprtext import expr_text
from pausecheck.model.formulas import step_values
from pausecheck.model.lang import Expr, Rule, Set, When, specialize, walk
from pausecheck.model.reading import Reading
from pausecheck.model.rules import ONCE

from .footprint import (
    LEMMAS,
    SHARED,
    Finding,
    Unfollowed,
    Walk,
    added,
    derived,
    new_items,
    scalars,
    shared_list,
)
from .relation import Caps, fresh, plan
from .values import BITS, Z3, base_key

__all__ = ["carries", "carries_step"]


def carries(bounds: Bounds, reading: Reading, formula: Expr) -> Finding:
    """Does a state property hold of a state of any number of sessions wherever it holds of each session's part?
    Each conjunct must be a property of each item of a shared list whose reads see only its session's items, or
    a comparison of two counts each the sum of every session's (`|X| <= |S.artifacts|`)."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    findings: list[Finding] = []
    walker = Walk(caps, bounds, None, findings)
    env: dict[str, Any] = {"S": fresh(caps, "S")}
    facts = scalars(env["S"], bounds)
    for part in _conjuncts(specialize(formula, bounds, reading)):
        try:
            if part.op == "all" and derived(part.args[0]):
                who = walker.someone()
                value, known = walker.element(part.args[0], env, who)
                walker.visit(part.args[2], {**env, part.args[1].args[0]: value}, facts + known, who)
            elif part.op == "<=" and all(_additive(side) for side in part.args):
                for side in part.args:
                    summed(walker, side.args[0], env, facts)
            else:
                walker.find("followed", part, False, "a form no lemma reads: neither a property of each item nor a "
                          "comparison of two sums")
        except Unfollowed as error:
            walker.find("followed", part, False, str(error))
    bad = [f for f in findings if not f.holds]
    return Finding("", "", "carries", not bad, "; ".join(f"{f.what[:80]}: {f.why or LEMMAS[f.lemma]}" for f in bad))


def carries_step(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...], formula: Expr,
                 on: tuple[type, ...] = ()) -> Finding:
    """Does a transition property hold of a step of any number of sessions wherever it holds of each moving
    session's part of it (the others' parts unchanged)? Asked step kind by step kind (those of `on`, if any: the
    kinds the property speaks of)."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    table = plan(bounds, reading.switches, rules)
    growing = _growing(table)
    problems: list[str] = []
    for rule, _instances in table:
        if on and rule.action not in on:
            continue
        x = specialize(formula, bounds, reading, step_values(rule.action))
        if x.op == "const" and x.args[0]:
            continue
        shrinks = [n for n in ("executions", "warnings") if n not in growing and _reads_new_or_pairs(x, n)]
        if shrinks:
            problems.append(f"{rule.action.__name__}: {', '.join(shrinks)} may lose items, so its new items and "
                            "pairs are not its parts'")
            continue
        walker = Walk(caps, bounds, rule, [])
        me = z3.BitVec("me", BITS)
        env: dict[str, Any] = {"S": fresh(caps, "S"), "P": fresh(caps, "P")}
        facts = scalars(env["S"], bounds) + scalars(env["P"], bounds)
        for n in walk(x):
            if n.op == "var" and n.args[0].startswith("act.") and n.args[0] not in env:
                env[n.args[0]] = z3.Bool(n.args[0]) if n.t is bool else z3.BitVec(n.args[0], BITS)
        if "act.execution" in env:  # the step's execution (or segment key) is the acting session's
            facts += walker.execution_id(base_key(Z3, env["act.execution"]), me)
        if "act.session" in env:
            facts.append(env["act.session"] == me)
        walker.actor = None if rule.over is ONCE else me
        try:
            why = implied(walker, x, env, facts, me)
        except Unfollowed as error:
            why = str(error)
        if why:
            problems.append(f"{rule.action.__name__}: {why}")
    return Finding("", "", "carries", not problems, "; ".join(problems))


def _growing(table: list[Any]) -> set[str]:
    """The shared lists every rule only appends to or edits in place (never drops nor reorders an item)."""
    shrinking = set()
    for _rule, instances in table:
        for _given, _guard, _fields, effect in instances:
            for st in _statements(effect):
                if isinstance(st, Set) and shared_list(st.target):
                    y = st.value
                    while isinstance(y, Expr) and y.op in ("append", "concat", "map", "update_where", "update_last"):
                        y = y.args[0]
                    if shared_list(y) != shared_list(st.target):
                        shrinking.add(shared_list(st.target))
    return set(SHARED) - shrinking


def _statements(stmts: tuple[Any, ...]) -> Iterator[Any]:
    for st in stmts:
        yield st
        if isinstance(st, When):
            yield from _statements(st.then)
            yield from _statements(st.otherwise)


def _reads_new_or_pairs(x: Expr, name: str) -> bool:
    return any(new_items(n) and shared_list(n.args[0]) == name or n.op == "zip_all" and shared_list(n.args[0]) == name
               for n in walk(x))


def _conjuncts(x: Expr) -> list[Expr]:
    return _conjuncts(x.args[0]) + _conjuncts(x.args[1]) if x.op == "and" else [x]


def _additive(x: Expr) -> bool:
    """|X| for a list X gathered from the shared lists item by item (so the sum of each session's)."""
    return x.op == "len" and (shared_list(x.args[0]) is not None or derived(x.args[0]) is not None)


def implied(w: Walk, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
    """"" where the value of `x` on the whole step follows from its value on each moving session's part (every
    other session's part unchanged), else why not."""
    if x.op == "const":
        return "" if x.args[0] else "false at this step"
    if x.op in ("and", "or"):
        return implied(w, x.args[0], env, facts, me) or implied(w, x.args[1], env, facts, me)
    if x.op == "zip_all" and shared_list(x.args[0]) == shared_list(x.args[1]) == "executions":
        return zipped(w, x, env, facts, me)
    if x.op == "all" and new_items(x.args[0]):
        who = w.someone()
        value, known = w.element(x.args[0], env, who)
        return exact(w, x.args[2], {**env, x.args[1].args[0]: value}, facts + known, who)
    sides = x.args[:2] if x.op in ("==", "<=") else ()
    if len(sides) == 2 and all(isinstance(y, Expr) and y.op == "len" and shared_list(y.args[0]) for y in sides) \
            and shared_list(sides[0].args[0]) == shared_list(sides[1].args[0]):
        return ""  # |S.L| and |P.L|: every other session adds nothing to either
    if x.op == "==" and all(shared_list(y) for y in sides) and shared_list(sides[0]) == shared_list(sides[1]) or \
            x.op == "==" and {y.op == "var" and y.args[0] for y in sides} == {"S", "P"}:
        return ""  # S.L = P.L, or P = S: every other session's part is as it was (and the counters, `spends`)
    if w.actor is None:
        return f"{expr_text(x)[:100]}: a crash moves every session, and this form is not read of each"
    return exact(w, x, env, facts, me)

def exact(w: Walk, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
    """"" where every read of `x` sees only session `me`'s items (so its value is its value on `me`'s part)."""
    saved = w.findings, w.seen
    w.findings, w.seen = [], set()
    try:
        w.visit(x, env, facts, me)
        bad = [f for f in w.findings if not f.holds]
    except Unfollowed as error:
        bad = [Finding("", expr_text(x), "followed", False, str(error))]
    finally:
        w.findings, w.seen = saved
    return "; ".join(f"{f.what[:100]}: {f.why or LEMMAS[f.lemma]}" for f in bad)

def zipped(w: Walk, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
    """`S.executions.zip_all(P.executions, body)`: each pair of a moving session is its part's pair (executions
    are never removed), whose body sees only that session's items; every other session's pair is an
    execution and itself, for which the body must hold."""
    u, v, body = x.args[2].args[0], x.args[3].args[0], x.args[4]
    who = w.someone()
    before, known = w.item("executions", who)
    after, known_after = w.item("executions", who)
    moving = [before[0] == after[0]] + ([who == w.actor] if w.actor is not None else [])
    why = exact(w, body, {**env, u: before, v: after}, facts + known + known_after + moving, who)
    if why:
        return why
    other = w.someone("other")
    same_item, known = w.item("executions", other)
    stutters = [other != me] if w.actor is not None else []
    ok, why = w.holds(facts + known + stutters, w.L.expr(body, {**env, u: same_item, v: same_item}))
    return "" if ok else f"{expr_text(x)[:100]}: fails for another session's unchanged execution ({why})"

def summed(w: Walk, x: Expr, env: dict[str, Any], facts: list[Any]) -> None:
    """The list `x` is gathered from shared lists item by item, each item adding what only it and its
    session's items give (so its length is the sum of each session's part's)."""
    if shared_list(x) is not None:
        return
    if x.op == "concat":
        for side in x.args[:2]:
            summed(w, side, env, facts)
        return
    if x.op in ("map", "fold") and shared_list(x.args[0]):
        who = w.someone()
        value, known = w.item(shared_list(x.args[0]), who)
        if x.op == "map":
            w.visit(x.args[2], {**env, x.args[1].args[0]: value}, facts + known, who)
            return
        acc, step = x.args[2].args[0], x.args[4]
        gathered = x.args[1].op == "const" and x.args[1].args[0] == () and added(x) is not None
        w.find("transparent", x, gathered, "" if gathered else "not gathered item by item")
        w.visit(step, {**env, acc: w.any_value(x.args[1].t), x.args[3].args[0]: value}, facts + known, who)
        return
    raise Unfollowed(f"|{x.op}| of a shared list, not a sum of each session's")

"""Deviations of the rule table: a mutant is the table with a few named edits, so every engine runs it.

A deviation never touches `rules.py`. It builds a new table from `RULES`, rule by rule, with edits a
reader can follow as sentences ("in the pause, hold only what the segment collected"):

- `Replace(anchor, new, when=...)`: the statements the anchor names say something else; `when`
  keeps the rule's own statement where the test fails (the test is read at the statement's place);
- `Drop(anchor, when=...)`: the statements the anchor names are left out (where `when` holds);
- `First(...)`, `Also(...)`, `After(anchor, ...)`: statements added at the start of the effect, at its
  end (before a final `End`), or after each statement the anchor names;
- `Reads(ambiguity, value)`: the rule reads one ambiguity one way, whatever the reading says;
- `Only(test)`: the action is taken only where `test` holds (a conjunct added to the guard: behaviour
  removed);
- `Effect(...)`: the rule's effect restated whole (for a deviation the other edits cannot say);
- and, on the table, `deviate(..., add=(rule, ...))`: actions the rules do not have (behaviour added).

An anchor is a field of `e`, `g` or `S` (`e.held`: a `Set` of it), the name of a `Let` (a `Let` of it), or
one statement of the rule (that object: `rules.py` names the ones a mutant deviates at). An anchor must name
exactly one statement of the rule: one that names several is refused, with the way to aim at one of them,
`nth(anchor, k)` (the k-th in reading order, from 1), or at all of them, `every(anchor)`. An edit that finds
nothing to edit is refused too, when the table is built, so a deviation cannot silently leave a rule as it
was, nor edit a statement its author did not mean.

Engines cache what they derive from a table by its identity: build each deviant table once and keep it.
`deviate(...)` builds a table at once (a draft's `RULES`); `Deviation(...)` holds the same edits and builds
the table only when asked, from whichever base it is given (the rules, or a draft), once per base: so
that an edit of the rules that leaves a mutant's anchor naming nothing is reported where the mutant is
used, never raised when the catalogue is imported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .lang import End, Expr, Let, Rule, Set, Stmt, When, lift, site_of
from .rules import RULES

__all__ = ["Replace", "Drop", "First", "Also", "After", "Reads", "Only", "Effect", "Edit", "on", "deviate",
           "Deviation", "DeviationError", "nth", "every"]


class DeviationError(ValueError):
    """A deviation that does not fit the rule it edits (an anchor that names nothing, say)."""


@dataclass(frozen=True, eq=False)
class Replace:
    """The statements `anchor` names say `new` instead: a value (or a function of the old value) for a
    `Set` or `Let`, else a statement or a tuple of statements. With `when`, only where `when` holds."""

    anchor: Any
    new: Any
    when: Expr | None = None


@dataclass(frozen=True, eq=False)
class Drop:
    """The statements `anchor` names are left out (with `when`, only where `when` holds)."""

    anchor: Any
    when: Expr | None = None


@dataclass(frozen=True, eq=False)
class First:
    """Statements run before the rule's own."""

    stmts: tuple[Stmt, ...]

    def __init__(self, *stmts: Stmt) -> None:
        object.__setattr__(self, "stmts", stmts)


@dataclass(frozen=True, eq=False)
class Also:
    """Statements run after the rule's own (before a final `End`, while the segment still exists)."""

    stmts: tuple[Stmt, ...]

    def __init__(self, *stmts: Stmt) -> None:
        object.__setattr__(self, "stmts", stmts)


@dataclass(frozen=True, eq=False)
class After:
    """Statements run right after each statement `anchor` names."""

    anchor: Any
    stmts: tuple[Stmt, ...]

    def __init__(self, anchor: Any, *stmts: Stmt) -> None:
        object.__setattr__(self, "anchor", anchor)
        object.__setattr__(self, "stmts", stmts)


@dataclass(frozen=True, eq=False)
class Reads:
    """The rule reads `ambiguity` as `value` whatever the reading (its `reads` and `pick` resolved)."""

    ambiguity: str
    value: str


@dataclass(frozen=True, eq=False)
class Only:
    """The action is taken only where `test` holds: a conjunct added to the guard."""

    test: Expr


@dataclass(frozen=True, eq=False)
class Effect:
    """The rule's effect restated whole."""

    stmts: tuple[Stmt, ...]

    def __init__(self, *stmts: Stmt) -> None:
        object.__setattr__(self, "stmts", stmts)


Edit = Replace | Drop | First | Also | After | Reads | Only | Effect


@dataclass(frozen=True, eq=False)
class _Aim:
    """An anchor aimed: at its k-th statement in reading order (from 1), or, `k` None, at every one."""

    anchor: Any
    k: int | None


def nth(anchor: Any, k: int) -> _Aim:
    """The k-th statement (from 1, in reading order) the anchor names: where it names several."""
    if not isinstance(k, int) or k < 1:
        raise DeviationError(f"nth({_anchor_text(anchor)}, {k!r}): k counts from 1")
    return _Aim(anchor, k)


def every(anchor: Any) -> _Aim:
    """Every statement the anchor names (an edit of several on purpose)."""
    return _Aim(anchor, None)


@dataclass(frozen=True, eq=False)
class _On:
    """The edits of one rule (named by its action kind)."""

    action: type
    edits: tuple[Edit, ...]


def on(action: type, *edits: Edit) -> _On:
    """The edits of the rule of `action`, applied in order."""
    return _On(action, edits)


def deviate(*changes: _On, add: tuple[Rule, ...] = (), base: tuple[Rule, ...] = RULES) -> tuple[Rule, ...]:
    """The table `base` with each rule's edits applied and the rules `add` appended (their successors
    come after the table's, in the order given)."""
    edits: dict[type, list[Edit]] = {}
    for change in changes:
        edits.setdefault(change.action, []).extend(change.edits)
    known = {rule.action for rule in base}
    for action in edits:
        if action not in known:
            raise DeviationError(f"no rule of {action.__name__} to deviate")
    out = []
    for rule in base:
        for edit in edits.get(rule.action, ()):
            rule = _apply(rule, edit)
        out.append(rule)
    return tuple(out) + tuple(add)


class Deviation:
    """Edits of a rule table, applied when asked (`table(base)`), to any base, each base's table built once.

    `Deviation(on(...), ..., add=(rule, ...))` says what `deviate(on(...), ..., add=...)` does, later."""

    __slots__ = ("changes", "add", "_tables")

    def __init__(self, *changes: _On, add: tuple[Rule, ...] = ()) -> None:
        self.changes, self.add = changes, add
        self._tables: dict[int, tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}  # id(base) -> (base, table)

    def table(self, base: tuple[Rule, ...] = RULES) -> tuple[Rule, ...]:
        """The base with these edits (the same object for the same base); DeviationError where an edit no
        longer fits the base."""
        found = self._tables.get(id(base))
        if found is None or found[0] is not base:
            found = self._tables[id(base)] = (base, deviate(*self.changes, add=self.add, base=base))
        return found[1]


# ---------------------------------------------------------------------------------------------
# Applying one edit


def _apply(rule: Rule, edit: Edit) -> Rule:
    name = f"{type(edit).__name__} in {rule.action.__name__}"
    if isinstance(edit, Only):
        return dataclasses.replace(rule, guard=rule.guard + (lift(edit.test),))
    if isinstance(edit, Effect):
        return dataclasses.replace(rule, effect=edit.stmts)
    if isinstance(edit, First):
        return dataclasses.replace(rule, effect=edit.stmts + rule.effect)
    if isinstance(edit, Also):
        body = rule.effect
        if body and isinstance(body[-1], End):
            return dataclasses.replace(rule, effect=body[:-1] + edit.stmts + body[-1:])
        return dataclasses.replace(rule, effect=body + edit.stmts)
    if isinstance(edit, Reads):
        return _reads(rule, edit, name)
    aim = edit.anchor if isinstance(edit.anchor, _Aim) else _Aim(edit.anchor, 0)  # 0: the one it names
    named = _named(rule.effect, aim.anchor)
    if not named:
        raise DeviationError(f"{name}: {_anchor_text(aim.anchor)} names no statement of the rule")
    if aim.k == 0 and len(named) > 1:
        shown = _anchor_code(aim.anchor)
        raise DeviationError(
            f"{name}: {_anchor_text(aim.anchor)} names {len(named)} statements "
            f"({', '.join(_where(st) for st in named)}): aim at one with nth({shown}, 1) ... nth({shown}, "
            f"{len(named)}), or at all of them with every({shown})")
    if aim.k and aim.k > len(named):
        raise DeviationError(f"{name}: nth({_anchor_code(aim.anchor)}, {aim.k}): the anchor names "
                             f"{len(named)} statement(s)")
    chosen = named if aim.k is None else [named[max(aim.k, 1) - 1]]
    found = [0]

    def swap(st: Stmt) -> tuple[Stmt, ...] | None:
        if not any(st is x for x in chosen):
            return None
        found[0] += 1
        if isinstance(edit, After):
            return (st,) + edit.stmts
        new: tuple[Stmt, ...] = () if isinstance(edit, Drop) else _replacement(st, edit.new)
        if edit.when is not None:
            return (When(edit.when, new, (st,)),)
        return new

    effect = _rewrite(rule.effect, swap)
    return dataclasses.replace(rule, effect=effect)


def _named(stmts: tuple[Stmt, ...], anchor: Any) -> list[Stmt]:
    """The statements `anchor` names, in reading order (a named `When` is not searched inside)."""
    out: list[Stmt] = []
    for st in stmts:
        if _names(anchor, st):
            out.append(st)
        elif isinstance(st, When):
            out += _named(st.then, anchor) + _named(st.otherwise, anchor)
    return out


def _where(st: Stmt) -> str:
    site = site_of(st)
    path, _, line = site.rpartition(":")
    return f"{path.rsplit('/', 1)[-1]}:{line}" if site else "a statement"


def _anchor_code(anchor: Any) -> str:
    if isinstance(anchor, str):
        return repr(anchor)
    if isinstance(anchor, Expr):
        return f"{anchor.args[0].args[0]}.{anchor.args[1]}"
    return "the statement"


def _names(anchor: Any, st: Stmt) -> bool:
    """Does `anchor` name this statement?"""
    if isinstance(anchor, str):
        return isinstance(st, Let) and st.name == anchor
    if isinstance(anchor, Expr):
        if anchor.op != "field" or anchor.args[0].op != "var":
            raise DeviationError(f"an anchor is a field of e, g or S, a Let's name or a statement, not {anchor!r}")
        return isinstance(st, Set) and st.target.args[0].args[0] == anchor.args[0].args[0] \
            and st.target.args[1] == anchor.args[1]
    return st is anchor


def _replacement(st: Stmt, new: Any) -> tuple[Stmt, ...]:
    """What replaces `st`: statements as given, or the same `Set` or `Let` with a new value."""
    if isinstance(new, (Let, Set, When, End)):
        return (new,)
    if isinstance(new, tuple) and new and all(isinstance(x, (Let, Set, When, End)) for x in new):
        return new
    if isinstance(st, Set):
        return (Set(st.target, new(st.value) if callable(new) else new),)
    if isinstance(st, Let):
        return (Let(st.name, lift(new(st.value) if callable(new) else new, st.value.t)),)
    raise DeviationError(f"a value replaces a Set or a Let, not {type(st).__name__}")


def _rewrite(stmts: tuple[Stmt, ...], swap: Callable[[Stmt], tuple[Stmt, ...] | None]) -> tuple[Stmt, ...]:
    """The statements with each one `swap` names replaced (inside `When`s too)."""
    out: list[Stmt] = []
    for st in stmts:
        new = swap(st)
        if new is not None:
            out.extend(new)
        elif isinstance(st, When):
            then, otherwise = _rewrite(st.then, swap), _rewrite(st.otherwise, swap)
            same = _same(then, st.then) and _same(otherwise, st.otherwise)
            out.append(st if same else When(st.test, then, otherwise))  # kept whole, so anchors still name it
        else:
            out.append(st)
    return tuple(out)


def _same(a: tuple[Stmt, ...], b: tuple[Stmt, ...]) -> bool:
    """The same statements, by identity (statements hold Exprs, which `==` cannot compare)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _anchor_text(anchor: Any) -> str:
    if isinstance(anchor, str):
        return f"Let {anchor!r}"
    if isinstance(anchor, Expr):
        return f"Set of {anchor.args[0].args[0]}.{anchor.args[1]}"
    return f"the statement {anchor!r}"


# ---------------------------------------------------------------------------------------------
# One ambiguity read one way


def _reads(rule: Rule, edit: Reads, name: str) -> Rule:
    found = [0]

    def resolve(x: Expr) -> Expr | None:
        if x.op == "reads" and x.args[0] == edit.ambiguity:
            found[0] += 1
            return Expr("const", (x.args[1] == edit.value,), bool)
        if x.op == "pick" and x.args[0] == edit.ambiguity:
            found[0] += 1
            chosen = dict(x.args[1]).get(edit.value)
            if chosen is None:
                raise DeviationError(f"{name}: {edit.ambiguity} has no value {edit.value!r} here")
            return _map(chosen, resolve)
        return None

    guard = tuple(_map(x, resolve) for x in rule.guard)
    fields = tuple(_map(x, resolve) for x in rule.fields)
    effect = _map_stmts(rule.effect, resolve)
    if not found[0]:
        raise DeviationError(f"{name}: the rule never reads {edit.ambiguity}")
    return dataclasses.replace(rule, guard=guard, fields=fields, effect=effect)


def _map(x: Any, fn: Callable[[Expr], Expr | None]) -> Any:
    """The expression with every node `fn` rewrites rewritten (others rebuilt only where a child changed)."""
    if isinstance(x, tuple):
        items = tuple(_map(v, fn) for v in x)
        return x if all(a is b for a, b in zip(items, x, strict=True)) else items
    if not isinstance(x, Expr):
        return x
    new = fn(x)
    if new is not None:
        return new
    args = tuple(_map(a, fn) for a in x.args)
    return x if all(a is b for a, b in zip(args, x.args, strict=True)) else Expr(x.op, args, x.t)


def _map_stmts(stmts: tuple[Stmt, ...], fn: Callable[[Expr], Expr | None]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for st in stmts:
        if isinstance(st, Let):
            out.append(Let(st.name, _map(st.value, fn)))
        elif isinstance(st, Set):
            out.append(Set(st.target, _map(st.value, fn)))
        elif isinstance(st, When):
            out.append(When(_map(st.test, fn), _map_stmts(st.then, fn), _map_stmts(st.otherwise, fn)))
        else:
            out.append(st)
    return tuple(out)

"""The transition relation derived from the rule table (`model/rules.py`): the rules lowered to values.

`moves(caps, bounds, reading, pre, algebra)` lowers every rule, for each binder slot (session,
execution slot, segment slot) and each value of its parameters, to a `Move`: the action's fields, the
guard and the successor, as values of `values.py` over the algebra: z3 terms for the solver, or
Python values for the cross-check on every reachable state. Every reading and every fault is lowered,
from the same table the explicit successors are generated from (`model/pygen.py`); nothing here is
written per rule.

`Caps` gives each sequence of a state its capacity from the bounds; `lift`, `decode`, `fresh` and
`well_formed` go between concrete states and values and describe the values a state can take.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import RECORDS, End, Expr, Let, Opt, Rule, SeqOf, Set, When, specialize, specialize_block
from pausecheck.model.lowering import lowered
from pausecheck.model.reading import Reading
from pausecheck.model.rules import EXECUTIONS, ONCE, RULES, SEGMENTS, SESSIONS
from pausecheck.model.state import State
from pausecheck.model.tablecache import PerTable
from pausecheck.model.tablecheck import check_rules

from .values import (
    BITS,
    CALL,
    EXEC,
    RACE,
    Z3,
    Algebra,
    OptV,
    Seq,
    TooSmall,
    base_key,
    decode_str,
    encode_str,
    leaves,
    pick,
    racing,
    resize,
    same,
    zero_like,
)

__all__ = ["Caps", "COPYING", "Move", "moves", "lift", "decode", "fresh", "fresh_value", "well_formed", "initial",
           "post_fits", "Lower", "lower_block", "assemble", "plan"]


# The readings under which a list of refs can hold an artifact twice: re-collected (A-T12), read and kept
# (A-T6 write-first, A-T7 read-then-clear), or put back merged (A-T4). Seen on the Promela side first:
# with-artifacts needs lists of 3 where artifacts * (1 + races) gives 2, read-then-clear 5 where it gives 4.
COPYING = (("A-T12", "with-artifacts"), ("A-T6", "write-first"), ("A-T7", "racy-read-then-clear"), ("A-T4", "merge"))


@dataclass(frozen=True, slots=True)
class Caps:
    """The capacity of every sequence of a state, from the bounds (generous where a reading or a fault
    can make one longer; a step past a capacity is refused by `post_fits`, never silently cut)."""

    executions: int
    segments: int
    lists: int  # every list of refs: held, collected, taken, a message, crashed
    warnings: int
    artifacts: int
    new_turns: int
    attempts: int
    questions: int
    messages: int
    node_failures: int

    @staticmethod
    def of(bounds: Bounds, reading: Reading | None = None) -> Caps:
        """Capacities every state reachable within `bounds` under `reading` fits (lists of refs twice as
        long under a reading that can put an artifact on one list twice, `COPYING`)."""
        executions = bounds.sessions * bounds.turns + bounds.new_turns
        segments_per_execution = bounds.pauses + 1
        copying = reading is not None and any(reading.value(a) == v for a, v in COPYING)
        lists = bounds.artifacts * (1 + bounds.races) * (2 if copying else 1)
        return Caps(
            executions=executions,
            segments=executions * (2 if bounds.races else 1),
            lists=lists,
            warnings=lists + bounds.artifacts,
            artifacts=bounds.artifacts,
            new_turns=bounds.new_turns,
            attempts=bounds.calls * segments_per_execution + bounds.pauses + bounds.races,
            questions=bounds.pauses,
            messages=bounds.interim_writes + 1 + bounds.write_failures + bounds.expiries + bounds.races,
            node_failures=bounds.node_failures,
        )

    def covering(self, states: Iterable[State]) -> Caps:
        """These capacities, widened where one of `states` holds a longer sequence (a mutant's states may:
        a message carrying an artifact twice, a question more per pause)."""
        need = {f: getattr(self, f) for f in self.__slots__}
        for state in states:
            for f, key in (("executions", "executions"), ("segments", "segments"), ("warnings", "warnings"),
                           ("artifacts", "artifacts"), ("crashed", "lists"), ("new_turns", "new_turns")):
                need[key] = max(need[key], len(getattr(state, f)))
            for e in state.executions:
                for f, key in (("attempts", "attempts"), ("questions", "questions"), ("held", "lists"),
                               ("messages", "messages"), ("node_failures", "node_failures")):
                    need[key] = max(need[key], len(getattr(e, f)))
                need["lists"] = max([need["lists"]] + [len(m) for m in e.messages])
            for g in state.segments:
                need["lists"] = max(need["lists"], len(g.collected), len(g.taken))
        return Caps(**need)

    def of_field(self, record: type, name: str) -> int:
        """The capacity of a record's sequence field."""
        if record is State:
            return {"executions": self.executions, "segments": self.segments, "warnings": self.warnings,
                    "artifacts": self.artifacts, "crashed": self.lists, "new_turns": self.new_turns}[name]
        return {"attempts": self.attempts, "questions": self.questions, "held": self.lists, "messages": self.messages,
                "node_failures": self.node_failures, "collected": self.lists, "taken": self.lists}[name]


# ---------------------------------------------------------------------------------------------
# Between concrete values and symbolic ones


def _zero(A: Algebra, caps: Caps, t: Any, cap: int | None = None) -> Any:
    """The zero value of a type (a sequence empty, at capacity `cap` or the type's own)."""
    if t in RECORDS:
        return tuple(_zero(A, caps, ft, caps.of_field(t, f) if isinstance(ft, SeqOf) else None)
                     for f, ft in FIELD_TYPES[t].items())
    if isinstance(t, SeqOf):
        cap = caps.lists if cap is None else cap
        return Seq(A.num(0), tuple(_zero(A, caps, t.item) for _ in range(cap)), t)
    if isinstance(t, Opt):
        return OptV(A.boolean(False), _zero(A, caps, t.item))
    return A.boolean(False) if t is bool else A.num(0)


def _lift(A: Algebra, caps: Caps, t: Any, value: Any, cap: int | None = None) -> Any:
    if t in RECORDS:
        return tuple(_lift(A, caps, ft, getattr(value, f), caps.of_field(t, f) if isinstance(ft, SeqOf) else None)
                     for f, ft in FIELD_TYPES[t].items())
    if isinstance(t, SeqOf):
        cap = caps.lists if cap is None else cap
        if len(value) > cap:
            raise TooSmall(f"a sequence of {len(value)} does not fit a capacity of {cap}")
        items = tuple(_lift(A, caps, t.item, x) for x in value) + tuple(
            _zero(A, caps, t.item) for _ in range(cap - len(value)))
        return Seq(A.num(len(value)), items, t)
    if t is bool:
        return A.boolean(bool(value))
    if t is str:
        return A.num(encode_str(value))
    if not 0 <= value < 2 ** (BITS - 1):
        raise TooSmall(f"{value} is out of the symbolic integers' range")
    return A.num(value)


def lift(A: Algebra, caps: Caps, state: State) -> Any:
    """The value of a concrete state (TooSmall if a capacity or an id range is exceeded)."""
    return _lift(A, caps, State, state)


def _decode(t: Any, value: Any, read: Callable[[Any], Any]) -> Any:
    if t in RECORDS:
        return t._make(_decode(ft, v, read) for ft, v in zip(FIELD_TYPES[t].values(), value, strict=True))
    if isinstance(t, SeqOf):
        n = read(value.length)
        return tuple(_decode(t.item, value.items[k], read) for k in range(n))
    if t is bool:
        return bool(read(value))
    if t is str:
        return decode_str(read(value))
    return read(value)


def decode(value: Any, read: Callable[[Any], Any] = lambda x: x) -> State:
    """The concrete state a value stands for; `read` turns a leaf into a Python value (a z3 model's eval)."""
    return _decode(State, value, read)


def fresh(caps: Caps, name: str) -> Any:
    """A state of fresh z3 variables named after `name`."""
    return fresh_value(caps, State, name)


def fresh_value(caps: Caps, t: Any, name: str, cap: int | None = None) -> Any:
    """A value of the language type `t` (a record, a sequence at `cap` or the lists' capacity, a scalar) made
    of fresh z3 variables named after `name`."""
    if t in RECORDS:
        return tuple(fresh_value(caps, ft, f"{name}.{f}", caps.of_field(t, f) if isinstance(ft, SeqOf) else None)
                     for f, ft in FIELD_TYPES[t].items())
    if isinstance(t, SeqOf):
        cap = caps.lists if cap is None else cap
        return Seq(z3.BitVec(f"{name}.len", BITS), tuple(fresh_value(caps, t.item, f"{name}[{k}]") for k in range(cap)),
                   t)
    if isinstance(t, Opt):
        return OptV(z3.Bool(f"{name}.present"), fresh_value(caps, t.item, f"{name}.value"))
    return z3.Bool(name) if t is bool else z3.BitVec(name, BITS)


def well_formed(A: Algebra, value: Any, t: Any = State) -> Any:
    """Lengths within capacity, everything past a length zero, and every number and word code at least 0
    (z3 compares bit-vectors signed, and a model reads them unsigned): the shape every lifted state has."""
    parts: list[Any] = []

    def go(t: Any, v: Any) -> None:
        if t is int or t is str:
            parts.append(A.le(A.num(0), v))
        elif t in RECORDS:
            for ft, x in zip(FIELD_TYPES[t].values(), v, strict=True):
                go(ft, x)
        elif isinstance(t, SeqOf):
            parts.append(A.le(A.num(0), v.length))
            parts.append(A.le(v.length, A.num(v.cap)))
            for k, item in enumerate(v.items):
                zero = [A.eq(x, y) for x, y in zip(leaves(item), leaves(zero_like(A, item)), strict=True)]
                parts.append(A.disj(A.lt(A.num(k), v.length), A.conj(*zero)))
                go(t.item, item)

    go(t, value)
    return A.conj(*parts)


def post_fits(A: Algebra, value: Any) -> Any:
    """Does every sequence of a successor fit its capacity, and every number stay in the symbolic integers'
    range? (A step that overflows either needs larger caps or more bits.)"""
    parts: list[Any] = []

    def go(v: Any) -> None:
        if z3.is_bv(v) or (isinstance(v, int) and not isinstance(v, bool)):
            parts.append(A.le(A.num(0), v))
        elif isinstance(v, Seq):
            parts.append(A.le(v.length, A.num(v.cap)))
            for item in v.items:
                go(item)
        elif isinstance(v, OptV):
            go(v.value)
        elif isinstance(v, tuple):
            for x in v:
                go(x)

    go(value)
    return A.conj(*parts)


def shaped(A: Algebra, caps: Caps, value: Any, t: Any = State, cap: int | None = None) -> Any:
    """The value with every sequence at its capacity in a state (so that a successor has the shape of a
    fresh state; a length past a capacity stays, for `post_fits` to report)."""
    if t in RECORDS:
        return tuple(shaped(A, caps, v, ft, caps.of_field(t, f) if isinstance(ft, SeqOf) else None)
                     for (f, ft), v in zip(FIELD_TYPES[t].items(), value, strict=True))
    if isinstance(t, SeqOf):
        cap = caps.lists if cap is None else cap
        value = resize(A, value, cap, _zero(A, caps, t.item))
        if t.item in RECORDS or isinstance(t.item, SeqOf):
            value = Seq(value.length, tuple(shaped(A, caps, item, t.item) for item in value.items), value.t)
        return value
    return value


def initial(A: Algebra, caps: Caps) -> Any:
    return lift(A, caps, State())


# ---------------------------------------------------------------------------------------------
# Expressions


class _Lower:
    """Lowers expressions and statements of the rule language to values over an algebra."""

    def __init__(self, A: Algebra, caps: Caps) -> None:
        self.A, self.caps = A, caps

    def n(self, value: int) -> Any:
        return self.A.num(value)

    def mux(self, index: Any, items: tuple[Any, ...], zero: Any) -> Any:
        """items[index] (zero outside)."""
        out = zero
        for k in range(len(items) - 1, -1, -1):
            out = pick(self.A, self.A.eq(index, self.n(k)), items[k], out)
        return out

    def present(self, s: Seq, k: int) -> Any:
        return self.A.lt(self.n(k), s.length)

    def item_zero(self, s: Seq) -> Any:
        return zero_like(self.A, s.items[0]) if s.items else _zero(self.A, self.caps, s.t.item)

    def compact(self, s: Seq, keep: list[Any]) -> Seq:
        """The items whose `keep` holds, in order, at the same capacity."""
        A = self.A
        ranks, rank = [], self.n(0)
        for k in range(s.cap):
            ranks.append(rank)
            rank = A.ite(keep[k], A.add(rank, self.n(1)), rank)
        zero = self.item_zero(s)
        items = []
        for slot in range(s.cap):
            value = zero
            for k in range(s.cap - 1, slot - 1, -1):
                value = pick(A, A.conj(keep[k], A.eq(ranks[k], self.n(slot))), s.items[k], value)
            items.append(value)
        return Seq(rank, tuple(items), s.t)

    def expr(self, x: Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case per operator
        A, op, a = self.A, x.op, x.args
        if op == "const":
            v = a[0]
            if v == ():
                return Seq(self.n(0), (), x.t)
            return A.boolean(v) if isinstance(v, bool) else A.num(encode_str(v) if isinstance(v, str) else v)
        if op == "var":
            return env[a[0]]
        if op == "field":
            obj = self.expr(a[0], env)
            record = a[0].t.item if isinstance(a[0].t, Opt) else a[0].t
            if isinstance(obj, OptV):
                obj = obj.value
            return obj[record._fields.index(a[1])]
        if op in ("==", "!="):
            test = same(A, self.expr(a[0], env), self.expr(a[1], env))
            return test if op == "==" else A.neg(test)
        if op in ("+", "-", "<", "<=", "min"):
            p, q = self.expr(a[0], env), self.expr(a[1], env)
            return {"+": A.add, "-": A.sub, "<": A.lt, "<=": A.le,
                    "min": lambda u, v: A.ite(A.lt(u, v), u, v)}[op](p, q)
        if op == "and":
            p = self.expr(a[0], env)
            return p if A.known(p) is False else A.conj(p, self.expr(a[1], env))
        if op == "or":
            p = self.expr(a[0], env)
            return p if A.known(p) is True else A.disj(p, self.expr(a[1], env))
        if op == "not":
            return A.neg(self.expr(a[0], env))
        if op == "ite":
            c = self.expr(a[0], env)
            k = A.known(c)
            if k is not None:
                return self.expr(a[1] if k else a[2], env)
            return pick(A, c, self.expr(a[1], env), self.expr(a[2], env))
        if op == "is_none":
            return A.neg(self.expr(a[0], env).present)
        if op == "exec_id":
            return A.add(self.expr(a[0], env), self.n(EXEC))
        if op == "call_id":
            return A.add(self.expr(a[0], env), self.n(CALL))
        if op == "race_key":
            return A.add(self.expr(a[0], env), self.n(RACE - EXEC))
        if op in ("base_of", "is_race"):
            k = self.expr(a[0], env)
            return racing(A, k) if op == "is_race" else base_key(A, k)
        if op == "new":
            record = a[0]
            return tuple(self._fit(record, f, self.expr(v, env)) for f, v in zip(record._fields, a[1], strict=True))
        if op == "with":
            obj = list(self.expr(a[0], env))
            for name, v in a[1]:
                obj[x.t._fields.index(name)] = self._fit(x.t, name, self.expr(v, env))
            return tuple(obj)
        return self.sequence(x, env)

    def _fit(self, record: type, name: str, value: Any) -> Any:
        """A field's value at the field's own capacity (a sequence field of a record)."""
        if isinstance(value, Seq) and record in RECORDS:
            return resize(self.A, value, self.caps.of_field(record, name), _zero(self.A, self.caps, value.t.item))
        return value

    def sequence(self, x: Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case per operator
        A, op, a = self.A, x.op, x.args
        if op == "span":
            start, stop = self.expr(a[0], env), self.expr(a[1], env)
            cap = self.caps.artifacts
            items = tuple(A.ite(A.lt(A.add(start, self.n(k)), stop), A.add(start, self.n(k)), self.n(0))
                          for k in range(cap))
            return Seq(A.ite(A.lt(start, stop), A.sub(stop, start), self.n(0)), items, x.t)
        if op == "repeat":
            item, count = self.expr(a[0], env), a[1]
            if count.op != "const":
                raise TooSmall("repeat needs a constant count in the symbolic engine")
            return Seq(self.n(count.args[0]), (item,) * count.args[0], x.t)
        s = self.expr(a[0], env)
        if op == "len":
            return s.length
        if op == "at":
            return self.mux(self.expr(a[1], env), s.items, self.item_zero(s))
        if op == "last":
            return self.mux(A.sub(s.length, self.n(1)), s.items, self.item_zero(s))
        if op == "append":
            item = self.expr(a[1], env)
            zero = zero_like(A, item)
            items = tuple(pick(A, A.eq(s.length, self.n(k)), item, old) for k, old in enumerate(s.items))
            items += (pick(A, A.eq(s.length, self.n(s.cap)), item, zero),)
            return Seq(A.add(s.length, self.n(1)), items, s.t)
        if op == "concat":
            other = self.expr(a[1], env)
            if not other.items:
                return s
            if not s.items:
                return other
            zero = self.item_zero(s)
            items = []
            for k in range(s.cap + other.cap):
                theirs = zero
                for j in range(min(k, other.cap - 1), -1, -1):  # other[j] lands at k when s.length == k - j
                    theirs = pick(A, A.eq(s.length, self.n(k - j)), other.items[j], theirs)
                mine = s.items[k] if k < s.cap else zero
                items.append(pick(A, A.lt(self.n(k), s.length), mine, theirs))
            return Seq(A.add(s.length, other.length), tuple(items), s.t)
        if op == "prefix":
            n = self.expr(a[1], env)
            items = tuple(pick(A, A.lt(self.n(k), n), item, zero_like(A, item)) for k, item in enumerate(s.items))
            return Seq(A.ite(A.lt(s.length, n), s.length, n), items, s.t)
        if op == "suffix":
            n = self.expr(a[1], env)
            zero = self.item_zero(s)
            items = tuple(self.mux(A.add(n, self.n(k)), s.items, zero) for k in range(s.cap))
            return Seq(A.ite(A.lt(n, s.length), A.sub(s.length, n), self.n(0)), items, s.t)
        if op == "set_last":
            item = self.expr(a[1], env)
            last = A.sub(s.length, self.n(1))
            return Seq(s.length, tuple(pick(A, A.eq(last, self.n(k)), item, old) for k, old in enumerate(s.items)), s.t)
        if op == "insert":
            return self.insert(s, self.expr(a[1], env))
        if op == "contains":
            item = self.expr(a[1], env)
            return A.disj(*[A.conj(self.present(s, k), same(A, it, item)) for k, it in enumerate(s.items)])
        if op == "fold":
            acc_name, v = a[2].args[0], a[3].args[0]
            acc = self.expr(a[1], env)
            for k, item in enumerate(s.items):
                acc = pick(A, self.present(s, k), self.expr(a[4], {**env, acc_name: acc, v: item}), acc)
            return acc
        if op == "zip_all":
            other, u, v = self.expr(a[1], env), a[2].args[0], a[3].args[0]
            return A.conj(*[A.disj(A.neg(A.conj(self.present(s, k), self.present(other, k))),
                                   self.expr(a[4], {**env, u: s.items[k], v: other.items[k]}))
                            for k in range(min(s.cap, other.cap))])
        v = a[1].args[0]
        bodies = [self.expr(a[2], {**env, v: item}) for item in s.items]
        keep = [A.conj(self.present(s, k), body) for k, body in enumerate(bodies)] if op not in ("map", "sum") else []
        if op == "filter":
            return self.compact(s, keep)
        if op == "count" or op == "sum":
            total = self.n(0)
            for k, body in enumerate(bodies):
                total = A.ite(keep[k], A.add(total, self.n(1)), total) if op == "count" else \
                    A.ite(self.present(s, k), A.add(total, body), total)
            return total
        if op == "any":
            return A.disj(*keep)
        if op == "all":
            return A.conj(*[A.disj(A.neg(self.present(s, k)), body) for k, body in enumerate(bodies)])
        if op == "map":
            items = tuple(pick(A, self.present(s, k), body, zero_like(A, body)) for k, body in enumerate(bodies))
            return Seq(s.length, items, x.t)
        if op == "first":
            found, value = A.boolean(False), self.item_zero(s)
            for k in range(s.cap - 1, -1, -1):
                value = pick(A, keep[k], s.items[k], value)
                found = A.disj(keep[k], found)
            return OptV(found, value)
        if op in ("update_last", "update_where"):
            changed = [self.expr(a[3], {**env, v: item}) for item in s.items]
            later = A.boolean(False)
            items = list(s.items)
            for k in range(s.cap - 1, -1, -1):
                hit = keep[k] if op == "update_where" else A.conj(keep[k], A.neg(later))
                items[k] = pick(A, hit, changed[k], s.items[k])
                later = A.disj(later, keep[k])
            return Seq(s.length, tuple(items), s.t)
        raise ValueError(f"the symbolic engine cannot lower {op!r} (still unresolved: {x!r})")

    def insert(self, s: Seq, item: Any) -> Seq:
        """The segments with `item` in key order (one of the same key replaced): e1 < e2 < ... < e1' < ..."""
        A = self.A
        key = item[0]
        kept = self.compact(s, [A.conj(self.present(s, k), A.neg(A.eq(it[0], key))) for k, it in enumerate(s.items)])
        before = [A.conj(self.present(kept, k), A.lt(it[0], key)) for k, it in enumerate(kept.items)]
        position = self.n(0)
        for b in before:
            position = A.ite(b, A.add(position, self.n(1)), position)
        zero = zero_like(A, item)
        items = []
        for k in range(kept.cap + 1):
            mine = kept.items[k] if k < kept.cap else zero
            shifted = kept.items[k - 1] if k >= 1 else zero
            items.append(pick(A, A.lt(self.n(k), position), mine, pick(A, A.eq(self.n(k), position), item, shifted)))
        return Seq(A.add(kept.length, self.n(1)), tuple(items), s.t)


# ---------------------------------------------------------------------------------------------
# Statements and moves


@dataclass(frozen=True)
class Move:
    """One action instance: its kind and fields (values), its guard, the successor."""

    kind: type
    fields: tuple[Any, ...]
    guard: Any
    post: Any


def _block(L: _Lower, stmts: tuple[Any, ...], env: dict[str, Any]) -> dict[str, Any]:
    """Run statements on an environment (records e, g, S; lets; `_ended`); a `When` runs both branches and
    merges them value by value."""
    A = L.A
    for st in stmts:
        if isinstance(st, Let):
            env = {**env, st.name: L.expr(st.value, env)}
        elif isinstance(st, Set):
            record_name, field_name = st.target.args[0].args[0], st.target.args[1]
            record = st.target.args[0].t
            value = L._fit(record, field_name, L.expr(st.value, env))
            fields = list(env[record_name])
            fields[record._fields.index(field_name)] = value
            env = {**env, record_name: tuple(fields)}
        elif isinstance(st, End):
            env = {**env, "_ended": A.boolean(True)}
        elif isinstance(st, When):
            c = L.expr(st.test, env)
            k = A.known(c)
            if k is not None:
                env = _block(L, st.then if k else st.otherwise, env)
                continue
            then, otherwise = _block(L, st.then, env), _block(L, st.otherwise, env)
            env = {name: pick(A, c, then[name], otherwise[name]) if name in otherwise else then[name]
                   for name in then}
    return env


def _remove(L: _Lower, s: Seq, j: int) -> Seq:
    """The sequence without its item j (present)."""
    zero = L.item_zero(s)
    items = s.items[:j] + s.items[j + 1:] + (zero,)
    return Seq(L.A.sub(s.length, L.n(1)), items[:s.cap], s.t)


def _replace(s: Seq, j: int, item: Any) -> Seq:
    return Seq(s.length, s.items[:j] + (item,) + s.items[j + 1:], s.t)


def moves(caps: Caps, bounds: Bounds, reading: Reading, pre: Any, A: Algebra = Z3,
          rules: tuple[Rule, ...] = RULES) -> Iterator[Move]:
    """Every action instance from the state value `pre`, in the rule table's order: for each rule, each
    binder slot in order, each parameter value in order."""
    L = _Lower(A, caps)
    executions, segments = pre[0], pre[1]
    for rule, instances in _plan(bounds, reading.switches, rules):
        for slot in _slots(rule, bounds, caps):
            env, present, index = _bind(L, rule, slot, pre)
            if A.known(present) is False:
                continue
            for given, guard_parts, fields, effect in instances:
                scope = {**env, **{name: _constant(A, v) for name, v in given.items()}}
                tests = [present]
                for part in guard_parts:
                    test = L.expr(part, scope)
                    tests.append(test)
                    if A.known(test) is False:
                        break
                guard = A.conj(*tests)
                if A.known(guard) is False:
                    continue
                after = _block(L, effect, {**scope, "_ended": A.boolean(False)})
                yield Move(rule.action, tuple(L.expr(x, scope) for x in fields), guard,
                           _assemble(L, rule, slot, index, env, after, executions, segments))


_PLANS: PerTable[list[Any]] = PerTable(256)


def _plan(bounds: Bounds, switches: tuple[tuple[str, str], ...], rules: tuple[Rule, ...]) -> list[Any]:
    """Each rule with, for each value of its parameters, its guard's parts, the action's fields and its
    effect, specialised to the bounds, the reading and the parameters (once per bounds and reading)."""
    return _PLANS.get(rules, (bounds, switches), lambda: _planned(bounds, switches, rules))


def _planned(bounds: Bounds, switches: tuple[tuple[str, str], ...], rules: tuple[Rule, ...]) -> list[Any]:
    from pausecheck.model.reading import reading_named
    reading = reading_named("+".join(["conformant"] + [f"{a}={v}" for a, v in switches]))
    check_rules(rules)  # a statement the language cannot mean is refused here, in one line, never lowered
    plan = []
    for rule in map(lowered, rules):  # an edit of e beside one of S.executions: one edit of the list
        instances = []
        for values in itertools.product(*[c.domain(bounds) for c in rule.choose]):
            given = {c.name: v for c, v in zip(rule.choose, values, strict=True)}
            parts = [specialize(x, bounds, reading, given) for x in rule.guard]
            if any(x.op == "const" and not x.args[0] for x in parts):
                continue
            parts = [x for x in parts if x.op != "const"]
            instances.append((given, parts, tuple(specialize(x, bounds, reading, given) for x in rule.fields),
                              specialize_block(rule.effect, bounds, reading, given)))
        if instances:
            plan.append((rule, instances))
    return plan


def _constant(A: Algebra, v: Any) -> Any:
    return A.boolean(v) if isinstance(v, bool) else A.num(v)


def _slots(rule: Rule, bounds: Bounds, caps: Caps) -> range:
    return {SESSIONS.name: range(1, bounds.sessions + 1), EXECUTIONS.name: range(caps.executions),
            SEGMENTS.name: range(caps.segments), ONCE.name: range(1)}[rule.over.name]


def _bind(L: _Lower, rule: Rule, slot: int, pre: Any) -> tuple[dict[str, Any], Any, Any]:
    """The variables a binder slot gives (e, g, run, session, S), whether the slot is filled, and the
    execution's index."""
    A = L.A
    executions, segments = pre[0], pre[1]
    env: dict[str, Any] = {"S": pre}
    if rule.over is SESSIONS:
        return {**env, "session": A.num(slot)}, A.boolean(True), None
    if rule.over is EXECUTIONS:
        return {**env, "e": executions.items[slot]}, L.present(executions, slot), A.num(slot)
    if rule.over is SEGMENTS:
        g = segments.items[slot]
        key = g[0]
        index = A.sub(base_key(A, key), A.num(EXEC + 1))
        e = L.mux(index, executions.items, L.item_zero(executions))
        attempts = e[4]
        running = [A.conj(L.present(attempts, k), A.eq(a[1], A.num(encode_str("running"))))
                   for k, a in enumerate(attempts.items)]
        found, value = A.boolean(False), L.item_zero(attempts)
        for k in range(attempts.cap - 1, -1, -1):
            value = pick(A, running[k], attempts.items[k], value)
            found = A.disj(running[k], found)
        return {**env, "g": g, "e": e, "run": OptV(found, value)}, L.present(segments, slot), index
    return env, A.boolean(True), None


def _assemble(L: _Lower, rule: Rule, slot: int, index: Any, env: dict[str, Any], after: dict[str, Any],
              executions: Seq, segments: Seq) -> Any:
    """The successor: the state as the effect left it, with the edits of e and g written back."""
    A = L.A
    state = list(after["S"])
    if after["S"][0] is executions and "e" in env and after["e"] is not env["e"]:
        items = tuple(pick(A, A.eq(index, A.num(k)), after["e"], item) for k, item in enumerate(executions.items))
        state[0] = Seq(executions.length, items, executions.t)
    if rule.over is SEGMENTS and after["S"][1] is segments:
        kept = _replace(segments, slot, after["g"]) if after["g"] is not env["g"] else segments
        state[1] = pick(A, after["_ended"], _remove(L, segments, slot), kept)
    return shaped(A, L.caps, tuple(state))


# The lowering's parts, for engines that lower the same table over an algebra of their own (Promela:
# `checks/spin/promela.py`, which binds its own slots).
Lower = _Lower
lower_block = _block
assemble = _assemble
plan = _plan

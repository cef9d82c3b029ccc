"""Symbolic values of the rule language: scalars, records and fixed-capacity sequences, over an algebra.

The lowering of the rules (`relation.py`) is written once against an `Algebra`: `Z3` builds z3 terms
(what the solver sees), `CONCRETE` computes with Python values (the same lowering run on concrete
states, fast enough to hold it against the explicit successors on every reachable state). A value is
a scalar term, a record (a tuple of values in field order), a `Seq` (a length and `cap` items, the
items past the length all zero, so that two values are equal exactly when what they stand for is),
or an `Opt` (present?, value).

Strings are small integers: the status and phase words 1..31, "" 0, execution `e<n>` 32+n, a racing
resume's segment `e<n>'` 48+n, call `c<n>` 64+n, all below 128 so that z3's signed bit-vector
comparisons read them right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.state import WORDS

# Every integer of a state is a bit-vector of BITS bits: the solver bit-blasts the formulas to SAT, far
# faster than linear integer arithmetic on these small finite domains. Comparisons are signed, so a
# well-formed state keeps every number at least 0 (`relation.well_formed`), and a step whose successor
# leaves that range is reported (`relation.post_fits`); the values a state holds (a count, a ref, an
# id) stay far below 2**(BITS-1).
BITS = 8


__all__ = ["BITS", "reader", "Algebra", "Z3", "CONCRETE", "Seq", "OptV", "encode_str", "decode_str", "EXEC", "RACE",
           "CALL", "TooSmall", "zero_like", "pick", "same", "resize", "leaves", "racing", "base_key"]

_WORD = {w: i + 1 for i, w in enumerate(WORDS)}
EXEC, RACE, CALL = 32, 48, 64  # e<n> -> 32+n (n < 16), e<n>' -> 48+n, c<n> -> 64+n (n < 64)


class TooSmall(ValueError):
    """A concrete value the encoding cannot hold (a capacity or an id range exceeded)."""


def encode_str(text: str) -> int:
    if text == "":
        return 0
    if text in _WORD:
        return _WORD[text]
    kind, digits = text[0], text[1:].rstrip("'")
    if kind in "ec" and digits.isdigit():
        n = int(digits)
        racing = text.endswith("'")
        base, limit = (RACE, 16) if racing else (EXEC, 16) if kind == "e" else (CALL, 64)
        if 1 <= n < limit and (n < 10 or kind == "c"):  # e10 and up would sort differently from their codes
            return base + n
    raise TooSmall(f"the symbolic encoding has no code for {text!r}")


def decode_str(value: int) -> str:
    if value == 0:
        return ""
    if value < EXEC:
        return WORDS[value - 1]
    if value < RACE:
        return f"e{value - EXEC}"
    if value < CALL:
        return f"e{value - RACE}'"
    return f"c{value - CALL}"


class Algebra:
    """The primitive operations a lowering needs; `Z3` and `CONCRETE` implement them."""

    def num(self, value: int) -> Any: ...
    def boolean(self, value: bool) -> Any: ...
    def ite(self, c: Any, a: Any, b: Any) -> Any: ...
    def conj(self, *xs: Any) -> Any: ...
    def disj(self, *xs: Any) -> Any: ...
    def neg(self, x: Any) -> Any: ...
    def eq(self, a: Any, b: Any) -> Any: ...

    # Python's operators mean the same on z3 bit-vectors and on ints: one definition serves both algebras.
    def lt(self, a: Any, b: Any) -> Any:
        return a < b

    def le(self, a: Any, b: Any) -> Any:
        return a <= b

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def known(self, x: Any) -> bool | None:
        """The Python truth of a boolean term if it is a constant, else None (so that dead code is skipped)."""


class _Z3(Algebra):
    def num(self, value: int) -> Any:
        return z3.BitVecVal(value, BITS)

    def boolean(self, value: bool) -> Any:
        return z3.BoolVal(value)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if a is b or (z3.is_expr(a) and a.eq(b)):
            return a
        k = self.known(c)
        return z3.If(c, a, b) if k is None else (a if k else b)

    def conj(self, *xs: Any) -> Any:
        xs = tuple(x for x in xs if self.known(x) is not True)
        return _FALSE if any(self.known(x) is False for x in xs) else z3.And(xs) if xs else _TRUE

    def disj(self, *xs: Any) -> Any:
        xs = tuple(x for x in xs if self.known(x) is not False)
        return _TRUE if any(self.known(x) is True for x in xs) else z3.Or(xs) if xs else _FALSE

    def neg(self, x: Any) -> Any:
        k = self.known(x)
        return z3.Not(x) if k is None else z3.BoolVal(not k)

    def eq(self, a: Any, b: Any) -> Any:
        return z3.BoolVal(True) if a.eq(b) else a == b

    def known(self, x: Any) -> bool | None:
        # by node identity: z3 shares one `true` and one `false` (kept alive below), and one call to z3 is much
        # cheaper than z3.is_true's several (the lowering asks this of nearly every term it builds)
        i = x.get_id()
        return True if i == _TRUE_ID else False if i == _FALSE_ID else None


_TRUE, _FALSE = z3.BoolVal(True), z3.BoolVal(False)
_TRUE_ID, _FALSE_ID = _TRUE.get_id(), _FALSE.get_id()


class _Concrete(Algebra):
    def num(self, value: int) -> Any:
        return value

    def boolean(self, value: bool) -> Any:
        return value

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    def conj(self, *xs: Any) -> Any:
        return all(xs)

    def disj(self, *xs: Any) -> Any:
        return any(xs)

    def neg(self, x: Any) -> Any:
        return not x

    def eq(self, a: Any, b: Any) -> Any:
        return a == b

    def known(self, x: Any) -> bool | None:
        return bool(x)


Z3, CONCRETE = _Z3(), _Concrete()


@dataclass(frozen=True, slots=True)
class Seq:
    """A sequence of at most `cap` items: a length and the items, those past the length zero."""

    length: Any
    items: tuple[Any, ...]
    t: Any  # the language type of the sequence (SeqOf)

    @property
    def cap(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True)
class OptV:
    """An optional value: present?, and the value (zero where absent)."""

    present: Any
    value: Any


def zero_like(A: Algebra, v: Any) -> Any:
    """The zero value of the same shape (a sequence of the same capacity, empty)."""
    if isinstance(v, Seq):
        return Seq(A.num(0), tuple(zero_like(A, x) for x in v.items), v.t)
    if isinstance(v, OptV):
        return OptV(A.boolean(False), zero_like(A, v.value))
    if isinstance(v, tuple):
        return tuple(zero_like(A, x) for x in v)
    if A is Z3:
        return z3.BoolVal(False) if z3.is_bool(v) else A.num(0)
    return False if isinstance(v, bool) else 0


def resize(A: Algebra, s: Seq, cap: int, zero: Any = None) -> Seq:
    """The same sequence at another capacity (a length past it stays, for well-formedness to reject)."""
    if cap <= s.cap:
        return Seq(s.length, s.items[:cap], s.t)
    if zero is None:
        if not s.items:
            raise TooSmall("cannot widen an empty-capacity sequence without a zero item")
        zero = zero_like(A, s.items[0])
    return Seq(s.length, s.items + (zero,) * (cap - s.cap), s.t)


def pick(A: Algebra, c: Any, a: Any, b: Any) -> Any:
    """`a` where `c` holds, else `b`, leaf by leaf (sequences widened to the larger capacity)."""
    if a is b:
        return a
    k = A.known(c)
    if k is not None:
        return a if k else b
    if isinstance(a, Seq):
        if a.cap != b.cap:
            cap = max(a.cap, b.cap)
            zero = zero_like(A, (a.items or b.items)[0])
            a, b = resize(A, a, cap, zero), resize(A, b, cap, zero)
        return Seq(A.ite(c, a.length, b.length), tuple(pick(A, c, x, y) for x, y in zip(a.items, b.items, strict=True)),
                   a.t)
    if isinstance(a, OptV):
        return OptV(A.ite(c, a.present, b.present), pick(A, c, a.value, b.value))
    if isinstance(a, tuple):
        return tuple(pick(A, c, x, y) for x, y in zip(a, b, strict=True))
    return A.ite(c, a, b)


def racing(A: Algebra, key: Any) -> Any:
    """Is the segment key `key` a racing resume's (e<n>')?"""
    return A.conj(A.lt(A.num(RACE), key), A.lt(key, A.num(CALL)))


def base_key(A: Algebra, key: Any) -> Any:
    """The execution id of the segment key `key` (e<n>' is e<n>'s)."""
    return A.ite(racing(A, key), A.sub(key, A.num(RACE - EXEC)), key)


def reader(model: z3.ModelRef) -> Callable[[Any], Any]:
    """A function that reads a leaf's value in a z3 model, as a Python bool or int."""
    def read(x: Any) -> Any:
        value = model.eval(x, model_completion=True)
        return z3.is_true(value) if z3.is_bool(value) else value.as_long()
    return read


def leaves(v: Any) -> list[Any]:
    """Every scalar of a value, in a fixed order."""
    if isinstance(v, Seq):
        return [v.length] + [x for item in v.items for x in leaves(item)]
    if isinstance(v, OptV):
        return [v.present] + leaves(v.value)
    if isinstance(v, tuple):
        return [x for item in v for x in leaves(item)]
    return [v]


def same(A: Algebra, a: Any, b: Any) -> Any:
    """Leaf-by-leaf equality (sequences compared at the larger capacity)."""
    if isinstance(a, Seq) and a.cap != b.cap:
        cap = max(a.cap, b.cap)
        zero = zero_like(A, (a.items or b.items)[0]) if (a.items or b.items) else None
        if zero is None:
            return A.eq(a.length, b.length)
        a, b = resize(A, a, cap, zero), resize(A, b, cap, zero)
    return A.conj(*[A.eq(x, y) for x, y in zip(leaves(a), leaves(b), strict=True)])

"""Fixed-capacity symbolic sequences: what a tuple of the model is inside a z3 formula.

A `Vec` is at most `cap` rows of `width` integer terms and a length term; slots past the length
hold 0, so that two Vecs are equal exactly when the sequences they stand for are. An operation that
would grow a Vec past its capacity yields a length over `cap`, which no well-formed state has: the
encoding reports such a step as the universe being too small (`overflows`), never drops it silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import z3

__all__ = ["Vec", "pick", "same", "leaves", "ZERO", "ONE", "TRUE", "FALSE", "BITS", "var", "num", "total"]

# Every integer of a state is a bit-vector of BITS bits, read unsigned: the solver bit-blasts the
# formulas to SAT, far faster than linear integer arithmetic on these small finite domains. The
# largest value a state holds (a count, a ref, an id) stays far below 2**(BITS-1).
BITS = 8


def var(name: str) -> z3.BitVecRef:
    """A fresh integer variable."""
    return z3.BitVec(name, BITS)


ZERO, ONE = z3.BitVecVal(0, BITS), z3.BitVecVal(1, BITS)
TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)
Row = tuple[Any, ...]


def num(value: int | bool | z3.ExprRef) -> z3.ExprRef:
    """A term for a Python int or bool (terms pass through)."""
    if isinstance(value, bool):
        return z3.BoolVal(value)
    if isinstance(value, int):
        return z3.BitVecVal(value, BITS)
    return value


def total(terms: Iterable[z3.ExprRef]) -> z3.ArithRef:
    """The sum of integer terms (0 for none)."""
    terms = list(terms)
    return z3.Sum(terms) if terms else ZERO


class Vec:
    """A sequence of at most `cap` rows of `width` integer terms."""

    __slots__ = ("length", "items", "width")

    def __init__(self, length: z3.ArithRef, items: Sequence[Row], width: int) -> None:
        self.length = length
        self.items = tuple(items)
        self.width = width

    @property
    def cap(self) -> int:
        return len(self.items)

    @staticmethod
    def fresh(name: str, cap: int, width: int) -> Vec:
        rows = [tuple(var(f"{name}[{j}].{k}") for k in range(width)) for j in range(cap)]
        return Vec(var(f"{name}.len"), rows, width)

    @staticmethod
    def of(rows: Sequence[Sequence[int]], cap: int, width: int) -> Vec:
        """The constant Vec of concrete rows (ValueError if they do not fit)."""
        if len(rows) > cap:
            raise ValueError(f"{len(rows)} rows do not fit a capacity of {cap}")
        padded = [tuple(num(x) for x in row) for row in rows] + [(ZERO,) * width] * (cap - len(rows))
        return Vec(num(len(rows)), padded, width)

    @staticmethod
    def empty(cap: int, width: int) -> Vec:
        return Vec.of((), cap, width)

    def well_formed(self) -> z3.BoolRef:
        pad = [z3.Implies(self.length <= j, z3.And([x == 0 for x in row])) for j, row in enumerate(self.items)]
        return z3.And(self.length >= 0, self.length <= self.cap, *pad)

    def present(self, j: int) -> z3.BoolRef:
        """Is slot j inside the sequence?"""
        return j < self.length

    def rows(self) -> list[tuple[z3.BoolRef, Row]]:
        """Each slot as (inside the sequence?, row)."""
        return [(self.present(j), row) for j, row in enumerate(self.items)]

    def at(self, index: z3.ArithRef | int) -> Row:
        """The row at a (symbolic) index; zeros outside the capacity."""
        row: Row = (ZERO,) * self.width
        for j in range(self.cap - 1, -1, -1):
            row = tuple(z3.If(index == j, x, y) for x, y in zip(self.items[j], row, strict=True))
        return row

    def last(self) -> Row:
        return self.at(self.length - 1)

    def append(self, row: Row, when: z3.BoolRef | bool = True) -> Vec:
        """The sequence with `row` appended (where `when` holds)."""
        row = tuple(num(x) for x in row)
        items = [tuple(z3.If(z3.And(num(when), self.length == j), x, y) for x, y in zip(row, old, strict=True))
                 for j, old in enumerate(self.items)]
        return Vec(z3.If(num(when), self.length + 1, self.length), items, self.width)

    def extend(self, other: Vec) -> Vec:
        """self ++ other, at self's capacity."""
        items = []
        for j, mine in enumerate(self.items):
            theirs: Row = (ZERO,) * self.width
            for k in range(min(j, other.cap - 1), -1, -1):  # other[k] lands at j when self.length == j - k
                theirs = tuple(z3.If(self.length == j - k, x, y) for x, y in zip(other.items[k], theirs, strict=True))
            items.append(tuple(z3.If(j < self.length, x, y) for x, y in zip(mine, theirs, strict=True)))
        return Vec(self.length + other.length, items, self.width)

    def prefix(self, n: int) -> Vec:
        """The first n rows."""
        items = [row if j < n else (ZERO,) * self.width for j, row in enumerate(self.items)]
        return Vec(z3.If(self.length < n, self.length, n), items, self.width)

    def upto(self, n: z3.ArithRef) -> Vec:
        """The first n rows, n symbolic."""
        items = [tuple(z3.If(j < n, x, ZERO) for x in row) for j, row in enumerate(self.items)]
        return Vec(z3.If(self.length < n, self.length, n), items, self.width)

    def pop(self) -> Vec:
        """Without its last row (empty stays empty)."""
        items = [tuple(z3.If(self.length - 1 == j, ZERO, x) for x in row) for j, row in enumerate(self.items)]
        return Vec(z3.If(self.length > 0, self.length - 1, self.length), items, self.width)

    def over(self, older: Vec) -> Vec:
        """This sequence with its first rows, as many as `older` has, taken from `older` (same capacity)."""
        items = [tuple(z3.If(j < older.length, x, y) for x, y in zip(o, row, strict=True))
                 for j, (o, row) in enumerate(zip(older.items, self.items, strict=True))]
        return Vec(self.length, items, self.width)

    def suffix(self, n: int, cap: int | None = None) -> Vec:
        """Everything after the first n rows, at capacity `cap` (default: what is left)."""
        rest = list(self.items[n:])
        cap = len(rest) if cap is None else cap
        rest = (rest + [(ZERO,) * self.width] * cap)[:cap]
        return Vec(z3.If(self.length > n, self.length - n, 0), rest, self.width)

    def resized(self, cap: int) -> Vec:
        """The same sequence at another capacity (a length past it stays, to be reported as overflow)."""
        items = (list(self.items) + [(ZERO,) * self.width] * cap)[:cap]
        return Vec(self.length, items, self.width)

    def where(self, test: Callable[[Row], z3.BoolRef], change: Callable[[Row], Row]) -> Vec:
        """Each present row that passes `test` replaced by `change(row)`."""
        items = [tuple(z3.If(z3.And(present, test(row)), x, y) for x, y in zip(change(row), row, strict=True))
                 for present, row in self.rows()]
        return Vec(self.length, items, self.width)

    def latest(self, test: Callable[[Row], z3.BoolRef], change: Callable[[Row], Row]) -> Vec:
        """The last present row that passes `test` replaced by `change(row)` (none: unchanged)."""
        later = FALSE
        items: list[Row] = []
        for present, row in reversed(self.rows()):
            hit = z3.And(present, test(row))
            chosen = z3.And(hit, z3.Not(later))
            items.append(tuple(z3.If(chosen, x, y) for x, y in zip(change(row), row, strict=True)))
            later = z3.Or(later, hit)
        return Vec(self.length, list(reversed(items)), self.width)

    def first(self, test: Callable[[Row], z3.BoolRef]) -> tuple[z3.BoolRef, Row]:
        """(is there a present row passing `test`?, the first such row, zeros if none)."""
        found, row = FALSE, (ZERO,) * self.width
        for present, item in reversed(self.rows()):
            hit = z3.And(present, test(item))
            found = z3.Or(hit, found)
            row = tuple(z3.If(hit, x, y) for x, y in zip(item, row, strict=True))
        return found, row

    def set_at(self, index: z3.ArithRef, change: Callable[[Row], Row]) -> Vec:
        """The row at a (symbolic) index replaced by `change(row)`, if it is present."""
        items = [tuple(z3.If(z3.And(present, index == j), x, y) for x, y in zip(change(row), row, strict=True))
                 for j, (present, row) in enumerate(self.rows())]
        return Vec(self.length, items, self.width)

    def tagged(self, tag: z3.ArithRef | int) -> Vec:
        """Each row of a width-1 Vec as (tag, value), the padding still zero."""
        items = [(z3.If(present, num(tag), ZERO), row[0]) for present, row in self.rows()]
        return Vec(self.length, items, 2)

    def last_where(self, test: Callable[[Row], z3.BoolRef]) -> tuple[z3.BoolRef, Row]:
        """(is there a present row passing `test`?, the last such row, zeros if none)."""
        found, row = FALSE, (ZERO,) * self.width
        for present, item in self.rows():
            hit = z3.And(present, test(item))
            found = z3.Or(hit, found)
            row = tuple(z3.If(hit, x, y) for x, y in zip(item, row, strict=True))
        return found, row

    def suffix_at(self, n: z3.ArithRef) -> Vec:
        """Everything after the first n rows, n symbolic, at the same capacity."""
        items = [self.at(n + j) for j in range(self.cap)]
        return Vec(z3.If(self.length > n, self.length - n, 0), items, self.width)

    def only(self, test: Callable[[Row], z3.BoolRef], column: int) -> Vec:
        """The width-1 sequence of `column` of the rows passing `test`, in order (a filter)."""
        passing = [z3.And(present, test(row)) for present, row in self.rows()]
        ranks = [total(z3.If(p, ONE, ZERO) for p in passing[:j]) for j in range(self.cap)]
        items = []
        for k in range(self.cap):
            value: z3.ArithRef = ZERO
            for j in range(self.cap - 1, k - 1, -1):
                value = z3.If(z3.And(passing[j], ranks[j] == k), self.items[j][column], value)
            items.append((value,))
        return Vec(total(z3.If(p, ONE, ZERO) for p in passing), items, 1)

    def any(self, test: Callable[[Row], z3.BoolRef]) -> z3.BoolRef:
        return z3.Or([z3.And(present, test(row)) for present, row in self.rows()]) if self.items else FALSE

    def all(self, test: Callable[[Row], z3.BoolRef]) -> z3.BoolRef:
        return z3.And([z3.Implies(present, test(row)) for present, row in self.rows()])

    def count(self, test: Callable[[Row], z3.BoolRef]) -> z3.ArithRef:
        return total(z3.If(z3.And(present, test(row)), ONE, ZERO) for present, row in self.rows())

    def contains(self, value: z3.ArithRef) -> z3.BoolRef:
        return self.any(lambda row: row[0] == value)


def leaves(value: Any) -> list[z3.ExprRef]:
    """Every term of a record, row, Vec or term, in a fixed order."""
    if isinstance(value, Vec):
        return [value.length] + [x for row in value.items for x in row]
    if isinstance(value, tuple):
        return [x for item in value for x in leaves(item)]
    return [value]


def same(a: Any, b: Any) -> z3.BoolRef:
    """Term-by-term equality of two values of the same shape."""
    pairs = [x == y for x, y in zip(leaves(a), leaves(b), strict=True) if not x.eq(y)]
    return z3.And(pairs) if pairs else TRUE


def pick(cond: z3.BoolRef, a: Any, b: Any) -> Any:
    """`a` where `cond` holds, else `b`: term by term through records, rows and Vecs of one shape."""
    if a is b:
        return a
    if isinstance(a, Vec):
        if a.cap != b.cap:
            raise ValueError(f"pick: capacities differ ({a.cap} and {b.cap})")
        return Vec(pick(cond, a.length, b.length), [pick(cond, x, y) for x, y in zip(a.items, b.items, strict=True)],
                   a.width)
    if isinstance(a, tuple):
        parts = [pick(cond, x, y) for x, y in zip(a, b, strict=True)]
        return type(a)._make(parts) if hasattr(a, "_make") else tuple(parts)
    if a.eq(b):
        return a
    return z3.If(cond, a, b)

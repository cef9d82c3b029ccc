"""Promela expressions as an algebra of the symbolic lowering (`checks/symbolic/values.Algebra`).

A value is a Python constant (an int, or a bool) where it is known when the model is written, else the
text of a Promela expression over the state's variables. Operations on constants fold, so that a
reading's dead branches and a slot's impossible cases vanish before Spin sees them.

With `emit=True` (an effect, inside a `d_step`), an expression grown past a few dozen characters is
put in a hidden temporary `_t[k]` by a statement of its own (in `statements`, in the order they are
needed) and named by it from then on: no expression in the model grows past a line. Without it (a
guard, which must be one expression: the first statement of its `d_step`) nothing is emitted.
"""

from __future__ import annotations

from typing import Any

from ..symbolic.values import Algebra

__all__ = ["Code", "text"]

LONG = 72  # characters: a longer expression of an effect gets a temporary of its own


def text(x: Any) -> str:
    """The Promela text of a value: a constant (true is 1) or an expression."""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    return x


class Code(Algebra):
    """The algebra of Promela expressions (see the module's doc)."""

    def __init__(self, emit: bool = False, array: str = "_t", long: int = LONG) -> None:
        self.emit, self.array, self.long = emit, array, long
        self.statements: list[str] = []
        self.used = 0  # temporaries <array>[0 .. used-1]
        self.sums: dict[str, tuple[Any, Any]] = {}  # an addition's text -> its terms
        self.named: dict[str, str] = {}  # an expression's text -> the temporary that holds it

    def _name(self, expr: str) -> str:
        """The expression, or (emitting, and long) the temporary that holds it: one per distinct expression,
        as every expression is pure and no temporary is written twice in a step."""
        if not self.emit or len(expr) <= self.long:
            return expr
        name = self.named.get(expr)
        if name is None:
            name = self.named[expr] = f"{self.array}[{self.used}]"
            self.used += 1
            self.statements.append(f"{name} = {expr}")
        return name

    def num(self, value: int) -> Any:
        return value

    def boolean(self, value: bool) -> Any:
        return bool(value)

    def known(self, x: Any) -> bool | None:
        return None if isinstance(x, str) else bool(x)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        k = self.known(c)
        if k is not None:
            return a if k else b
        if a is b or (type(a) is type(b) and a == b):
            return a
        if a is True and b is False:
            return c
        if isinstance(a, str) and self.sums.get(a, (None,))[0] == b:
            # a count or a sum, `c ? t + x : t`: written `t + (c -> x : 0)`, so that `t` is written once
            return self.add(b, self.ite(c, self.sums[a][1], 0))
        return self._name(f"({text(c)} -> {text(a)} : {text(b)})")

    def conj(self, *xs: Any) -> Any:
        if any(self.known(x) is False for x in xs):
            return False
        parts = list(dict.fromkeys(x for x in xs if self.known(x) is None))
        if not parts:
            return True
        return parts[0] if len(parts) == 1 else self._name("(" + " && ".join(parts) + ")")

    def disj(self, *xs: Any) -> Any:
        if any(self.known(x) is True for x in xs):
            return True
        parts = list(dict.fromkeys(x for x in xs if self.known(x) is None))
        if not parts:
            return False
        return parts[0] if len(parts) == 1 else self._name("(" + " || ".join(parts) + ")")

    def neg(self, x: Any) -> Any:
        k = self.known(x)
        if k is not None:
            return not k
        return self._name(f"!{x}" if (x.startswith("(") or " " not in x) and not x.startswith("!") else f"!({x})")

    def _binary(self, op: str, a: Any, b: Any, fold: Any) -> Any:
        if not isinstance(a, str) and not isinstance(b, str):
            return fold(a, b)
        return self._name(f"({text(a)} {op} {text(b)})")

    def eq(self, a: Any, b: Any) -> Any:
        if isinstance(a, str) and a == b:
            return True
        for x, y in ((a, b), (b, a)):  # `t == t + k` with k a non-zero constant (an append's new length)
            term, step = self.sums.get(y, (None, None)) if isinstance(y, str) else (None, None)
            if isinstance(x, str) and term == x and isinstance(step, int) and not isinstance(step, bool) and step:
                return False
        return self._binary("==", a, b, lambda u, v: u == v)

    def lt(self, a: Any, b: Any) -> Any:
        return self._binary("<", a, b, lambda u, v: u < v)

    def le(self, a: Any, b: Any) -> Any:
        return self._binary("<=", a, b, lambda u, v: u <= v)

    def add(self, a: Any, b: Any) -> Any:
        if b is not True and b == 0 and not isinstance(b, str):
            return a
        if a is not True and a == 0 and not isinstance(a, str):
            return b
        total = self._binary("+", a, b, lambda u, v: int(u) + int(v))
        if isinstance(total, str):
            self.sums[total] = (a, b)
        return total

    def sub(self, a: Any, b: Any) -> Any:
        if not isinstance(b, str) and b is not True and b == 0:
            return a
        if isinstance(a, str) and a == b:  # `t - t`: what a step appended to an unchanged list is nothing
            return 0
        return self._binary("-", a, b, lambda u, v: int(u) - int(v))

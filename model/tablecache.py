"""Values computed once per rule table: the compiled successors, the lowered plan, a coverage search.

A rule table (the rules, a draft's, a mutant's deviation) holds closures, so it is keyed by identity; the
cache holds the table beside each value, so that an id reused by a later table never finds a stale value.
Bounded: past `size` entries it starts afresh (a batch of mutants or readings makes hundreds of tables).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["PerTable"]

T = TypeVar("T")


class PerTable(Generic[T]):
    """A cache of `make()` by (rule table, key)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict[tuple[int, Hashable], tuple[Any, T]] = {}

    def get(self, rules: Any, key: Hashable, make: Callable[[], T]) -> T:
        found = self._values.get((id(rules), key))
        if found is None or found[0] is not rules:
            value = make()  # first: an interrupt while it is made leaves nothing behind
            if len(self._values) >= self.size:
                self._values.clear()
            found = self._values[id(rules), key] = (rules, value)
        return found[1]

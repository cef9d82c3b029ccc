"""What the suite samples of a large family of cases, and how to run the whole family.

CI has half an hour on two cores, so a family whose members exercise the same code in the same way is run
one member per group in the suite: the first of each group, in the family's order. `PAUSECHECK_FULL=1` runs
every member (docs/development.md lists the sampled families and where each is run whole).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

__all__ = ["FULL", "first_of_each"]

FULL = os.environ.get("PAUSECHECK_FULL") == "1"

T = TypeVar("T")


def first_of_each(items: Sequence[T], group: Callable[[T], Hashable]) -> list[T]:
    """The first item of each group, in order (every item under PAUSECHECK_FULL=1)."""
    if FULL:
        return list(items)
    seen: set[Hashable] = set()
    out = []
    for item in items:
        if group(item) not in seen:
            seen.add(group(item))
            out.append(item)
    return out

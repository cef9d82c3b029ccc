"""When a search stops early, and the memory it holds: what the search and the command's budget share.

`explore.py` stops at a `Limits`; `budget.py` keeps a whole command's seconds and memory and hands each search
the part left. Both read `resident_bytes`. This module imports nothing of the project's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Limits", "NO_LIMITS", "resident_bytes"]


@dataclass(frozen=True, slots=True)
class Limits:
    """When to stop early; an early stop makes the result incomplete.

    Reaching `max_depth` counts as stopping early even when the states at that depth happen to have
    no new successors: they were not expanded, so nothing beyond them is established.
    """

    max_states: int | None = None
    max_depth: int | None = None
    max_seconds: float | None = None
    max_memory: int | None = None  # bytes of resident memory the process may reach


NO_LIMITS = Limits()


def resident_bytes() -> int:
    """This process's resident memory now (Linux /proc; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0

"""The words Spin's verdicts are said in, as the Python engine says them (`engine.py`, `fair.py`)."""

from __future__ import annotations

__all__ = ["HOLDS", "VIOLATED", "WITNESSED", "NOT_WITNESSED", "UNKNOWN", "VACUOUS", "NOT_EXERCISED"]

HOLDS, VIOLATED, WITNESSED, NOT_WITNESSED, UNKNOWN = "holds", "VIOLATED", "witnessed", "NOT WITNESSED", \
    "not established"
VACUOUS, NOT_EXERCISED = "VACUOUS", "not exercised"

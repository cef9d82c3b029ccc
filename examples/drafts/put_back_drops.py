"""A draft in which a failed write-back drops what it took instead of putting it back (against T7.10).

The put-back's `Set(e.held, ...)` is dropped: what the write-back took is gone once the write fails.
"""

from pausecheck.model.actions import PutBack
from pausecheck.model.deviate import Drop, deviate, on
from pausecheck.model.rules import e

RULES = deviate(on(PutBack, Drop(e.held)))

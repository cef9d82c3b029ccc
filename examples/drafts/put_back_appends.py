"""A draft in which a failed write-back appends what it took to the held list instead of prepending it.

T7.10 says "put back"; A-T5 asks where. Between a take and its put-back nothing is held (holds happen only
at a pause, and a segment in a write-back makes no call), so the held list is empty when the put-back
lands: appending and prepending give the same list, and a client sees nothing different.
"""

from pausecheck.model.actions import PutBack
from pausecheck.model.deviate import Reads, deviate, on

RULES = deviate(on(PutBack, Reads("A-T5", "append")))

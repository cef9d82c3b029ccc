"""A draft of RT-TOOL-7 in which the write-back copies the held list instead of taking it.

T7.7 says "Taking is destructive". This draft drops the statement that empties the held list when the
write-back takes it (`Set(e.held, ())` in the rule of StartWriteBack): the list is read, not taken.
"""

from pausecheck.model.actions import StartWriteBack
from pausecheck.model.deviate import Drop, deviate, on
from pausecheck.model.rules import e

RULES = deviate(on(StartWriteBack, Drop(e.held)))

"""A draft in which the assistant message lists the resumed segment's new artifacts before the held ones.

T7.5 says the held artifacts come first ("prepend"); this draft replaces the statement that builds the
message (`message` in `model/rules.py`) with the other order.
"""

from pausecheck.model.actions import WriteMessage
from pausecheck.model.deviate import Replace, deviate, on
from pausecheck.model.rules import g, message

RULES = deviate(on(WriteMessage, Replace(message, g.collected + g.taken)))

"""A draft in which a write-back lands its message on the session's first turn, not on its own.

It edits another execution's record (the session's first turn) beside the write-back's own edits of its
execution (its status, at the end of the segment): the rule language lowers the two to one edit of the list
of executions (`model/lowering.py`), so the draft is the statement it changes and nothing more.
"""

from pausecheck.model.actions import WriteMessage
from pausecheck.model.deviate import Replace, deviate, every, on
from pausecheck.model.lang import Set
from pausecheck.model.rules import S, e, message

first_turn = S.executions.first(lambda x: x.session == e.session)
landed = S.executions.update_where(lambda x: x.id == first_turn.id,
                                   lambda x: x.but(messages=x.messages.append(message.ref)))
RULES = deviate(on(WriteMessage, Replace(every(e.messages), Set(S.executions, landed))))

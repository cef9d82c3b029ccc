"""A draft with a step of its own: a caller cancels a paused run, and what the run holds is discarded.

The rules have no such step (a paused run ends only by an answer, or by its question expiring), so the draft
declares one (`declare`: its name, its fields and the line a trace shows for it), says what it ranges over,
when it is enabled, what it does and the clauses it enacts (none of the two rules': it is the draft's own), and
adds it to the table. Every engine runs it (the search, Spin, z3) and every trace names it by its own text.
"""

from pausecheck.model.actions import declare
from pausecheck.model.deviate import deviate
from pausecheck.model.lang import Rule, Set
from pausecheck.model.rules import EXECUTIONS, asking, e, q
from pausecheck.model.state import CANCELLED, EXPIRED, INTERRUPTED

CancelPaused = declare("CancelPaused", "{execution}: the caller cancels the paused run", execution=str)

CANCEL = Rule(
    CancelPaused, EXECUTIONS,
    guard=(asking,),  # paused on a pending question
    fields=(e.id,),
    effect=(
        Set(e.attempts, e.attempts.update_where(lambda a: (a.call == q.call) & (a.status == INTERRUPTED),
                                                lambda a: a.but(status=CANCELLED))),  # no interrupt left open
        Set(e.questions, e.questions.set_last(q.but(status=EXPIRED))),
        Set(e.status, CANCELLED),
        Set(e.held, ()),  # what it held is discarded, with no warning and no message
    ),
    clauses=(), doc="a caller cancels a paused run; what it holds is discarded")

RULES = deviate(add=(CANCEL,))

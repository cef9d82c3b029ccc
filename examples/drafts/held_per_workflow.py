"""A draft of RT-TOOL-7 in which the held list is one record per workflow, not per execution.

T7.2 says artifacts are held "for the run". This draft reads "the run" as the workflow: every session's
executions share one held list, which a pause pools and re-homes to the execution that paused last (the
catalogue's mutant `held_keyed_per_workflow`). One session alone cannot tell the difference: with two, a
pause in one session empties what the other holds. `prove --compositional --sessions any` refuses it.
"""

from pausecheck.checks.mutants.deviations import HELD_KEYED_PER_WORKFLOW

RULES = HELD_KEYED_PER_WORKFLOW.table()

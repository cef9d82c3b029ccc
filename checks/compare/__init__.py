"""Comparing two rule tables: walked together (`walk.py`), what a draft behaves as (`likeness.py`), and larger
bounds climbed to where they part (`ladder.py`). `checks/diff.py` puts them together for `pausecheck diff`.

Imports the model, traces and the search's limits only (the floor of the engines).
"""

from .ladder import Climb, Raise, climb, near_raises, raises_for
from .likeness import behaves_as
from .walk import Behaviour, Walk, changed_rules, same_table, split, walk_together

__all__ = ["Behaviour", "Walk", "walk_together", "split", "changed_rules", "same_table", "behaves_as", "Climb",
           "Raise", "climb", "near_raises", "raises_for"]

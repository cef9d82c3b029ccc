"""Session symmetry: sessions are interchangeable, so states that differ only in which session is
which are one state up to renaming.

Execution ids are given in creation order, whatever session creates them; a permutation of the
sessions therefore changes only `Execution.session` and `State.new_turns`. Renaming the sessions
in order of their first execution (the first to start a turn becomes 1, the next 2, ...; those that
never started keep the remaining numbers in order) maps every state of one symmetry class to the
same state: a canonical form. No rule, property or observation tells sessions apart by number, so
a search that stores one state per class (`Machine(symmetry=True)`) judges every property as the
full search does; the states it keeps and the paths to them stay concrete, so every trace replays.
"""

from __future__ import annotations

from .state import State

__all__ = ["canonical_sessions"]


def canonical_sessions(state: State) -> State:
    """The state with its sessions renamed in order of their first execution."""
    order: dict[int, int] = {}
    for e in state.executions:
        if e.session not in order:
            order[e.session] = len(order) + 1
    if all(old == new for old, new in order.items()):
        return state
    executions = tuple(e if order[e.session] == e.session else e._replace(session=order[e.session])
                       for e in state.executions)
    return state._replace(executions=executions, new_turns=tuple(order[s] for s in state.new_turns))

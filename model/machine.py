"""The FlowDrop machine: the model as the explorer sees it (initial states, successors, checks).

It binds bounds, a reading and a rule table to the pure rules, and carries the observation function,
so that a mutant (in `checks/`) is the same machine with a deviant table (`deviate.py`) or wire view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .actions import Action
from .config import DEFAULT_BOUNDS, Bounds
from .decided import decided_by_formula
from .lang import Rule
from .liveness import FAIR, LIVENESS, Eventually, fairness_named, judge_lasso, judge_witness, unfair
from .observe import shown
from .properties import ALWAYS, PROPERTIES, SOMETIMES, Context, Property, screen
from .pycheck import compiled_for
from .pygen import step, successor_function
from .reading import CONFORMANT, Reading
from .rules import RULES
from .state import FINISHED, INITIAL, State, spread_key
from .symmetry import canonical_sessions

__all__ = ["Machine", "DEADLOCK", "DEADLOCK_DOC", "StepError"]

DEADLOCK = "deadlock"  # the pseudo-property broken by a state that is not final and cannot move
DEADLOCK_DOC = "a state that is not finished and has no enabled action"


class StepError(ValueError):
    """A rule table that cannot step from a state it reaches (a draft whose effect leaves a segment of an
    execution that does not exist, say): the state, and what the successor function raised."""

    def __init__(self, state: State, error: Exception, table: str | None = None) -> None:
        self.state, self.error, self.table = state, error, table  # table: which one, where two are compared
        super().__init__(f"cannot step from a state it reaches: {type(error).__name__}: {error}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Raised in a worker process, it reaches the parent whole (its constructor takes the state and error)."""
        return StepError, (self.state, self.error, self.table)


@dataclass(frozen=True)
class Machine:
    """The model under given bounds and reading; `rules` and `show` are for mutants (a deviation of the
    rule table, `deviate.py`, and a deviant wire view)."""

    bounds: Bounds = DEFAULT_BOUNDS
    reading: Reading = CONFORMANT
    rules: tuple[Rule, ...] = RULES  # the rule table, or a mutant's deviation of it
    show: Callable[[State], tuple] = shown
    properties: tuple[Property, ...] = field(default=PROPERTIES)
    liveness: tuple[Eventually, ...] = field(default=LIVENESS)
    symmetry: bool = False  # store one state per class of states equal up to renaming sessions
    fairness: tuple[str, ...] = FAIR  # the fairness assumptions on (`liveness.FAIRNESS`): which loops count

    def canonical(self) -> Callable[[State], State] | None:
        """The canonical form the explorer keys stored states by, if any (`symmetry.py`)."""
        return canonical_sessions if self.symmetry and self.bounds.sessions > 1 else None

    def spread_key(self) -> Callable[[State], tuple[int, ...]]:
        """What a search spread over processes shares states out by (`state.spread_key`)."""
        return spread_key

    def init_states(self) -> tuple[State, ...]:
        """The single initial state: no session has started a turn."""
        return (INITIAL,)

    @cached_property
    def compiled(self) -> Callable[[State], list[tuple[Action, State]]]:
        """The rule table compiled for these bounds and this reading (`pygen.py`), looked up once."""
        return successor_function(self.bounds, self.reading, self.rules)

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """Each enabled action with its successor, in canonical order: the rule table compiled for these
        bounds and this reading (`pygen.py`), the code `pygen.step` runs too. StepError where the table
        cannot step from `state` (only a draft's can: the rules' successors are total on what they reach)."""
        try:
            return self.compiled(state)
        except Exception as error:  # free in the search: Python 3.11's try costs nothing until it catches
            raise StepError(state, error) from None

    def step(self, state: State, action: Action) -> State | None:
        """The successor under one action, or None if it is not enabled (StepError as for `successors`)."""
        try:
            return step(self.bounds, self.reading, state, action, self.rules)
        except Exception as error:
            raise StepError(state, error) from None

    def is_final(self, state: State) -> bool:
        """Every session has run all its turns and every execution has finished."""
        return (
            len(state.executions) - len(state.new_turns) == self.bounds.sessions * self.bounds.turns
            and all(e.status in FINISHED for e in state.executions)
        )

    def deadlocked(self, state: State) -> bool:
        """Not final, and no enabled action leads anywhere else."""
        return not self.is_final(state) and all(post == state for _, post in self.successors(state))

    def judge(self, name: str, pre: State | None, action: Action | None, post: State) -> tuple[bool, str | None]:
        """Does this step (or, with no pre and action, this initial state) show `name`?

        For an `always` or `transition` property and for DEADLOCK: (broken, how); for a `sometimes`
        property: (witnessed, None). A name the machine does not know is shown by nothing.
        """
        if name == DEADLOCK:
            stuck = self.deadlocked(post)
            return stuck, DEADLOCK_DOC if stuck else None
        prop = next((p for p in self.properties if p.name == name), None)
        if prop is None:
            return False, None
        if prop.kind == ALWAYS:
            message = prop.check(post, self.context())
            return message is not None, message
        if action is None or (prop.on and type(action) not in prop.on):
            return False, None
        outcome = prop.check(pre, action, post, self.context())
        if prop.kind == SOMETIMES:
            return bool(outcome), None
        return outcome is not None, outcome

    def judge_eventually(self, name: str, states: Sequence[State], loop_start: int | None,
                         actions: Sequence[Action] = ()) -> tuple[bool, str | None]:
        """For a liveness property: with `loop_start`, does this lasso break it (broken, what persists)? It
        must close, and its loop be fair under the machine's assumptions (`actions`: the lasso's steps, the
        closing one last if recorded). Without, does this path witness it (witnessed, None)? An unknown name is
        shown by nothing."""
        prop = next((p for p in self.liveness if p.name == name), None)
        if prop is None or not states:
            return False, None
        if loop_start is None:
            return judge_witness(prop, states, self.bounds, self.is_final), None
        last = states[-1]
        if loop_start == len(states) - 1:  # a stutter always closes; fairness says whether it may go on forever
            closes = True
        else:
            closes = 0 <= loop_start < len(states) \
                and any(post == states[loop_start] for _, post in self.successors(last))
        broken, how = judge_lasso(prop, states, loop_start, self.bounds, closes)
        if broken:
            loop = states[loop_start:]
            taken = set(actions[loop_start:])
            if len(actions) < len(states):  # the closing step is not recorded: any that closes the loop
                taken |= {a for a, post in self.successors(last) if post == loop[0] and post != last}
            enabled = [{a for a, post in self.successors(s) if post != s} for s in loop]
            why = unfair(fairness_named(self.fairness), enabled, taken)
            if why is not None:
                return False, f"the loop is not a fair behaviour: {why}"
        return broken, how

    def screen(self, properties: Sequence[Property], ctx: Context) -> tuple[Callable[[State, State | None], bool],
                                                                           tuple[Property, ...]]:
        """The invariants of one execution record, checked in one pass over the records a step changed
        (`properties.screen`), and the invariants left to check one by one."""
        return screen(properties, ctx)

    def edge_screen(self, properties: Sequence[Property], kind: type,
                    stutter: bool = False) -> tuple[Callable[..., object], ...]:
        """The checks of a step of this kind for these transition properties and witnesses: those decided
        by their formulas as one compiled test (true where the step breaks or shows one of them, for the
        search to look at one by one), the others' own checks after it. With `stutter`, for steps of this
        kind that change nothing (the compiled test reads the state after as the state before)."""
        covered = [p for p in properties if decided_by_formula(p)]
        others = tuple(p.check for p in properties if p not in covered)
        if not covered:
            return others
        keep = tuple(p.name for p in covered if p.kind != SOMETIMES)
        show = tuple(p.name for p in covered if p.kind == SOMETIMES)
        return (compiled_for(self.bounds).attention(keep, show, kind, stutter),) + others

    def context(self) -> Context:
        """What `always` checks consult beside the state."""
        return Context(self.bounds, self.show)

"""The FlowDrop machine: the model as the explorer sees it (initial states, successors, checks).

It binds bounds and a reading to the pure rules, and carries the observation function, so that a
mutant (in `checks/`) can be the same machine with one deviation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .actions import Action
from .config import DEFAULT_BOUNDS, Bounds
from .liveness import LIVENESS, Eventually, judge_lasso, judge_witness
from .observe import shown
from .properties import ALWAYS, PROPERTIES, SOMETIMES, Context, Property, screen
from .pygen import successor_function
from .reading import CONFORMANT, Reading
from .lang import Rule
from .rules import RULES, step
from .state import FINISHED, INITIAL, State
from .symmetry import canonical_sessions

__all__ = ["Machine", "Patch", "Block", "Extra", "DEADLOCK", "DEADLOCK_DOC"]

DEADLOCK = "deadlock"  # the pseudo-property broken by a state that is not final and cannot move
DEADLOCK_DOC = "a state that is not finished and has no enabled action"

# A deviation applied to a default successor: (bounds, pre, action, post) -> the deviant post.
Patch = Callable[[Bounds, State, Action, State], State]
# A deviation that withholds an action the rules enable: (bounds, pre, action) -> withheld?
Block = Callable[[Bounds, State, Action], bool]
# A deviation that enables actions the rules do not: (bounds, pre) -> (action, post) pairs.
Extra = Callable[[Bounds, State], Iterator[tuple[Action, State]]]


@dataclass(frozen=True)
class Machine:
    """The model under given bounds and reading; `patch`, `block`, `extra` and `show` are for mutants."""

    bounds: Bounds = DEFAULT_BOUNDS
    reading: Reading = CONFORMANT
    rules: tuple[Rule, ...] = RULES  # the rule table, or a mutant's deviation of it (`deviate.py`)
    patch: Patch | None = None
    block: Block | None = None
    extra: Extra | None = None
    show: Callable[[State], tuple] = shown
    properties: tuple[Property, ...] = field(default=PROPERTIES)
    liveness: tuple[Eventually, ...] = field(default=LIVENESS)
    symmetry: bool = False  # store one state per class of states equal up to renaming sessions

    def canonical(self) -> Callable[[State], State] | None:
        """The canonical form the explorer keys stored states by, if any (`symmetry.py`)."""
        return canonical_sessions if self.symmetry and self.bounds.sessions > 1 else None

    def init_states(self) -> tuple[State, ...]:
        """The single initial state: no session has started a turn."""
        return (INITIAL,)

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """Each enabled action with its successor, in canonical order."""
        pairs = self.rule_successors(state)
        if self.patch is None and self.block is None and self.extra is None:
            return pairs
        return self.deviated(state, pairs)

    def rule_successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """The rules' own successors, before any deviation: the rule table compiled for these bounds and
        this reading (`pygen.py`), the code `rules.step` runs too."""
        return successor_function(self.bounds, self.reading, self.rules)(state)

    def deviated(self, state: State, pairs: Iterable[tuple[Action, State]]) -> Iterator[tuple[Action, State]]:
        """The rules' successors `pairs` of `state` with the deviations applied: blocked actions left
        out, each post-state patched, extra actions after."""
        bounds, patch, block = self.bounds, self.patch, self.block
        for action, post in pairs:
            if block is None or not block(bounds, state, action):
                yield action, post if patch is None else patch(bounds, state, action, post)
        if self.extra is not None:
            yield from self.extra(bounds, state)

    def step(self, state: State, action: Action) -> State | None:
        """The successor under one action, or None if it is not enabled."""
        if self.block is not None and self.block(self.bounds, state, action):
            return None
        post = step(self.bounds, self.reading, state, action, self.rules)
        if post is None and self.extra is not None:
            return next((after for added, after in self.extra(self.bounds, state) if added == action), None)
        if post is not None and self.patch is not None:
            post = self.patch(self.bounds, state, action, post)
        return post

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

    def judge_eventually(self, name: str, states: Sequence[State], loop_start: int | None) -> tuple[bool, str | None]:
        """For a liveness property: with `loop_start`, does this lasso break it (broken, what persists)?
        Without, does this path witness it (witnessed, None)? An unknown name is shown by nothing."""
        prop = next((p for p in self.liveness if p.name == name), None)
        if prop is None or not states:
            return False, None
        if loop_start is None:
            return judge_witness(prop, states, self.bounds, self.is_final), None
        last = states[-1]
        if loop_start == len(states) - 1:
            closes = all(post == last for _, post in self.successors(last))
        else:
            closes = 0 <= loop_start < len(states) \
                and any(post == states[loop_start] for _, post in self.successors(last))
        return judge_lasso(prop, states, loop_start, self.bounds, closes)

    def screen(self, properties: Sequence[Property], ctx: Context) -> tuple[Callable[[State, State | None], bool],
                                                                           tuple[Property, ...]]:
        """The invariants of one execution record, checked in one pass over the records a step changed
        (`properties.screen`), and the invariants left to check one by one."""
        return screen(properties, ctx)

    def context(self) -> Context:
        """What `always` checks consult beside the state."""
        return Context(self.bounds, self.show)

"""The bounds of a search: one frozen record, every field a CLI flag.

A bound limits what the environment may do (how many turns start, how many tool calls a segment
makes, how many write-backs fail, ...). The held-list bound is different: it is a parameter of the
system under check (T7.13), chosen small so that a pause can hold more than it keeps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["Bounds", "BoundError", "BOUND_MAXIMUM", "FAULTS", "without_faults",
           "DEFAULT_BOUNDS", "COMPANION_BOUNDS", "COMPANIONS", "FUZZ_BOUNDS",
           "BOUND_HELP"]


class BoundError(ValueError):
    """A bound outside its range; carries the field name and the value."""

    def __init__(self, field: str, value: object, minimum: int) -> None:
        shown = repr(value) if len(repr(value)) <= 24 else repr(value)[:21] + "..."
        super().__init__(f"bound {field.replace('_', '-')}={shown}: must be a whole number from {minimum} to "
                         f"{BOUND_MAXIMUM:,}")
        self.field = field
        self.value = value
        self.minimum = minimum


# No bound may exceed this: each step enumerates up to a bound's worth of actions (a start-turn per
# session, an artifact count per tool result), so a larger bound cannot be searched at all, not even
# for the first few states that --max-states allows.
BOUND_MAXIMUM = 1_000


# field -> (minimum, one-line meaning); the CLI builds its flags and --help from this table.
BOUND_HELP: dict[str, tuple[int, str]] = {
    "sessions": (1, "sessions, each running one turn at a time"),
    "turns": (1, "turns started per session (each turn runs one execution)"),
    "calls": (1, "fresh tool calls per run segment"),
    "per_call": (0, "artifacts one tool result may carry"),
    "artifacts": (0, "artifacts produced in total"),
    "pauses": (0, "pauses (interrupts that raise a question) per execution"),
    "write_failures": (0, "write-backs that fail, in total"),
    "observations": (0, "repeated observations of one pending interrupt"),
    "interim_writes": (0, "interim assistant messages one execution may write before its last (A-T11)"),
    "node_failures": (0, "graph-node units that fail, in total (routed along an error edge or not)"),
    "held_bound": (0, "capacity of a held list (T7.13); overflow drops the newest with a warning"),
    # Faults: off (0) in the default search; `pausecheck readings` turns on those a reading needs.
    "crashes": (0, "fault: crashes of the runtime, each followed by a restart (volatile state is lost)"),
    "expiries": (0, "fault: paused executions cancelled by expiry of their question (I18.1, G1.8)"),
    "races": (0, "fault: races: a second path pausing on the same pending question (A-G9), or a second tab's "
              "approval resuming the run again where that is not atomic (A-T7)"),
    "new_turns": (0, "fault: turns a caller starts instead of answering a paused one (INT-13)"),
}

# The faults among the bounds: each is off by default.
FAULTS: tuple[str, ...] = ("crashes", "expiries", "races", "new_turns")


@dataclass(frozen=True, slots=True)
class Bounds:
    """Limits on the environment's choices, and the held-list capacity of the system."""

    sessions: int = 1
    turns: int = 1
    calls: int = 2
    per_call: int = 1
    artifacts: int = 3
    pauses: int = 2
    write_failures: int = 1
    observations: int = 1
    interim_writes: int = 0
    node_failures: int = 0
    held_bound: int = 2
    crashes: int = 0
    expiries: int = 0
    races: int = 0
    new_turns: int = 0

    def __post_init__(self) -> None:
        for name, (minimum, _) in BOUND_HELP.items():
            value = getattr(self, name)
            if type(value) is not int or not minimum <= value <= BOUND_MAXIMUM:
                raise BoundError(name, value, minimum)

    def as_dict(self) -> dict[str, int]:
        """The bounds as a plain mapping, in field order."""
        return dataclasses.asdict(self)

    def replace(self, **changes: int) -> Bounds:
        """A copy with some bounds changed (validated again)."""
        return dataclasses.replace(self, **changes)


DEFAULT_BOUNDS = Bounds()


def without_faults(bounds: Bounds) -> Bounds:
    """The same bounds with every fault off."""
    return bounds.replace(**{name: 0 for name in FAULTS})

# The companions of the default check: small bounds that exercise what the defaults do not, each
# for the properties that need it. The default check runs them after the main search (a few seconds).
COMPANIONS: tuple[tuple[str, Bounds], ...] = (
    ("two sessions", Bounds(sessions=2, calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1,
                            observations=0, interim_writes=0, node_failures=0, held_bound=1)),
    ("interim messages", Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=0, observations=0,
                                interim_writes=1, node_failures=0, held_bound=1)),
    ("node failures", Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0,
                             interim_writes=0, node_failures=1, held_bound=1)),
)
COMPANION_BOUNDS = COMPANIONS[0][1]  # the two-session companion (isolation, T7.2)

# The default bounds of random testing (`pausecheck fuzz`): far beyond what an exhaustive search covers,
# three sessions of two turns, long segments, four pauses, interim messages and node failures.
FUZZ_BOUNDS = Bounds(sessions=3, turns=2, calls=3, per_call=2, artifacts=8, pauses=4, write_failures=3,
                     observations=2, interim_writes=2, node_failures=2, held_bound=2)

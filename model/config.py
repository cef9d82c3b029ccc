"""The bounds of a search: one frozen record, every field a CLI flag.

A bound limits what the environment may do (how many turns start, how many tool calls a segment
makes, how many write-backs fail, ...). The held-list bound is different: it is a parameter of the
system under check (T7.13), chosen small so that a pause can hold more than it keeps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["Bounds", "BoundError", "BOUND_MAXIMUM", "BOUND_FIELDS", "FAULTS", "without_faults",
           "DEFAULT_BOUNDS", "COMPANION_BOUNDS", "COMPANIONS", "FUZZ_BOUNDS",
           "BOUND_HELP"]


class BoundError(ValueError):
    """A bound outside its range; carries the field name and the value."""

    def __init__(self, field: str, value: object, minimum: int, rule: str = "") -> None:
        shown = repr(value) if len(repr(value)) <= 24 else repr(value)[:21] + "..."
        super().__init__(f"bound {field.replace('_', '-')}={shown}: "
                         + (rule or f"must be a whole number from {minimum} to {BOUND_MAXIMUM:,}"))
        self.field = field
        self.value = value
        self.minimum = minimum


# No bound may exceed this: each step enumerates up to a bound's worth of actions (a start-turn per
# session, an artifact count per tool result), so a larger bound cannot be searched at all, not even
# for the first few states that --max-states allows.
BOUND_MAXIMUM = 1_000


# field -> (minimum, one-line meaning); the CLI builds its flags and --help from this table.
BOUND_HELP: dict[str, tuple[int, str]] = {
    "sessions": (1, "sessions, each running one turn at a time; any: with prove --compositional, a proof for every "
                    "number of sessions at once"),
    "turns": (1, "turns started per session (each turn runs one execution)"),
    "calls": (1, "fresh tool calls per run segment"),
    "per_call": (0, "artifacts one tool result may carry"),
    "artifacts": (0, "artifacts produced in total"),
    "pauses": (0, "pauses (interrupts that raise a question) per execution"),
    "write_failures": (0, "write-backs that fail, in total; any: without limit (a retried write-back may fail "
                          "forever: the graph has cycles, and liveness is judged under --fairness)"),
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
    # `--write-failures any`: a write may fail without limit, and the state does not count how often: the
    # failure counts (the model's and each turn's `write_failures`) stop at `write_failures`, read "that many
    # or more". A retried write-back then returns to a state it left, and the graph has cycles.
    endless_writes: int = 0

    def __post_init__(self) -> None:
        for name, (minimum, _) in BOUND_HELP.items():
            value = getattr(self, name)
            if type(value) is not int or not minimum <= value <= BOUND_MAXIMUM:
                raise BoundError(name, value, minimum)
        if type(self.endless_writes) is not int or self.endless_writes not in (0, 1):
            raise BoundError("endless_writes", self.endless_writes, 0, "must be 0 or 1 (1: --write-failures any)")
        if self.endless_writes and self.write_failures < 1:
            raise BoundError("write_failures", self.write_failures, 1, "endless writes need at least 1, the count "
                             "they stop at")

    @classmethod
    def of(cls, values: dict[str, int | str]) -> Bounds:
        """Bounds from bound values as a user gives them: `write_failures` may be "any" (endless writes, whose
        counts stop at one)."""
        values = dict(values)
        if values.get("write_failures") == "any":
            values.update(write_failures=1, endless_writes=1)
        return cls(**values)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, int]:
        """The bounds as a plain mapping, in field order; `endless_writes` only when it is on."""
        plain = dataclasses.asdict(self)
        if not self.endless_writes:
            del plain["endless_writes"]
        return plain

    def flags(self, keep: tuple[str, ...] = ()) -> str:
        """The flags that set these bounds from the defaults, as a user types them: every bound that differs (and
        those in `keep`); `--write-failures any` for endless writes. Empty for the default bounds."""
        words = []
        for name, value in self.as_dict().items():
            if name == "endless_writes":
                continue
            if name == "write_failures" and self.endless_writes:
                words.append("--write-failures any")
            elif value != getattr(DEFAULT_BOUNDS, name) or name in keep:
                words.append(f"--{name.replace('_', '-')} {value}")
        return " ".join(words)

    def replace(self, **changes: int) -> Bounds:
        """A copy with some bounds changed (validated again)."""
        return dataclasses.replace(self, **changes)


DEFAULT_BOUNDS = Bounds()
BOUND_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Bounds))  # BOUND_HELP's, endless_writes


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

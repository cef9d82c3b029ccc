"""The environment's choices, one small frozen record per event, joined in the union `Action`.

Every action has a kebab-case `KIND` (its name in traces, logs and the CLI), a JSON form
(`action_to_json` / `action_from_json`) and a one-line human form (`str(action)`).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, Union

__all__ = [
    "StartTurn", "CallTool", "ToolReturns", "ToolFails", "ToolInterrupts", "ObserveAgain",
    "Poll", "Answer", "NodeFails", "StartWriteBack", "WriteMessage", "PutBack", "ReportFailure", "WRITE_BACK",
    "ClearHeld", "CloseSuperseded", "Crash", "Expire", "LoseRace", "ResumeAgain", "FAULT_ACTIONS",
    "Action", "ACTION_TYPES", "action_to_json",
    "action_from_json", "ActionError", "sort_key", "declare", "declared",
]


@dataclass(frozen=True, slots=True)
class StartTurn:
    """A caller starts a turn in a session; the turn launches one execution."""

    KIND: ClassVar[str] = "start-turn"
    session: int

    def __str__(self) -> str:
        return f"start a turn in session s{self.session}"


@dataclass(frozen=True, slots=True)
class CallTool:
    """The consumer in the running segment invokes a fresh tool call (a new attempt, running)."""

    KIND: ClassVar[str] = "call-tool"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the consumer calls a tool"


@dataclass(frozen=True, slots=True)
class ToolReturns:
    """The running attempt of a call returns a result carrying `artifacts` new artifacts."""

    KIND: ClassVar[str] = "tool-returns"
    execution: str
    call: str
    artifacts: int

    def __str__(self) -> str:
        return f"{self.execution}: tool call {self.call} returns with {self.artifacts} artifact(s)"


@dataclass(frozen=True, slots=True)
class ToolFails:
    """The running attempt of a call fails; the consumer receives a recoverable error result."""

    KIND: ClassVar[str] = "tool-fails"
    execution: str
    call: str

    def __str__(self) -> str:
        return f"{self.execution}: tool call {self.call} fails"


@dataclass(frozen=True, slots=True)
class ToolInterrupts:
    """An interrupt escapes the running attempt of a call (a gate asks for consent): the run pauses."""

    KIND: ClassVar[str] = "tool-interrupts"
    execution: str
    call: str

    def __str__(self) -> str:
        return f"{self.execution}: tool call {self.call} interrupts (gate) and the run pauses"


@dataclass(frozen=True, slots=True)
class ObserveAgain:
    """The tool plane observes the same pending interrupt once more."""

    KIND: ClassVar[str] = "observe-again"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the tool plane observes the same interrupt again"


@dataclass(frozen=True, slots=True)
class Poll:
    """A caller reads the turn on the wire; it changes nothing."""

    KIND: ClassVar[str] = "poll"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: a caller polls the turn"


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer to question `question` (its number, q1, q2, ...) of the execution.

    An answer to the pending question settles it and resumes the run in a new segment; an answer to
    a question already answered (a second tab, a retried request) changes nothing (INT-19).
    """

    KIND: ClassVar[str] = "answer"
    execution: str
    question: int
    approve: bool

    def __str__(self) -> str:
        verb = "approves" if self.approve else "declines"
        return f"{self.execution}: the operator {verb} q{self.question}"


@dataclass(frozen=True, slots=True)
class NodeFails:
    """A graph-node unit of the run fails, with an error edge (`routed`: handled) or without (unhandled)."""

    KIND: ClassVar[str] = "node-fails"
    execution: str
    routed: bool

    def __str__(self) -> str:
        edge = "along its error edge (handled)" if self.routed else "with no error edge (unhandled)"
        return f"{self.execution}: a graph node fails {edge}"


@dataclass(frozen=True, slots=True)
class StartWriteBack:
    """The segment starts a write-back: it takes the held list (destructively, T7.7). `final`: the
    segment ends with this message; otherwise it writes an interim message and carries on (A-T11)."""

    KIND: ClassVar[str] = "start-write-back"
    execution: str
    final: bool

    def __str__(self) -> str:
        what = "finishes" if self.final else "writes an interim message"
        return f"{self.execution}: the segment {what}; its write-back takes the held list"


@dataclass(frozen=True, slots=True)
class WriteMessage:
    """The write-back writes the turn's assistant message (taken ++ collected), or the write fails."""

    KIND: ClassVar[str] = "write-message"
    execution: str
    ok: bool

    def __str__(self) -> str:
        return f"{self.execution}: the assistant message is written" if self.ok else \
            f"{self.execution}: writing the assistant message FAILS"


@dataclass(frozen=True, slots=True)
class PutBack:
    """A failed write-back puts what it took back in front of the held list (T7.10)."""

    KIND: ClassVar[str] = "put-back"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the failed write-back puts back what it took"


@dataclass(frozen=True, slots=True)
class ReportFailure:
    """A failed write-back reports its failure on the run (T7.11); the segment then only retries."""

    KIND: ClassVar[str] = "report-failure"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the failed write-back reports the failure"


@dataclass(frozen=True, slots=True)
class ClearHeld:
    """Where a reading splits the take (A-T6 write-first, A-T7 read-then-clear), the write-back removes
    what it read from the held list, after the message is written or before."""

    KIND: ClassVar[str] = "clear-held"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the write-back clears what it read from the held list"


@dataclass(frozen=True, slots=True)
class CloseSuperseded:
    """Where a reading splits the resume (A-G3 new-first), the superseded attempt is closed as cancelled
    after the new attempt was recorded."""

    KIND: ClassVar[str] = "close-superseded"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the superseded interrupted attempt is closed as cancelled"


@dataclass(frozen=True, slots=True)
class Crash:
    """Fault: the runtime crashes and restarts. Segments in flight and all they hold in memory are lost;
    run records, held lists, messages, questions and warnings survive; each running execution restarts
    in a fresh segment."""

    KIND: ClassVar[str] = "crash"

    def __str__(self) -> str:
        return "the runtime crashes and restarts"


@dataclass(frozen=True, slots=True)
class Expire:
    """Fault: the pending question of a paused execution expires and the execution is cancelled (I18.1)."""

    KIND: ClassVar[str] = "expire"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: the question expires and the paused execution is cancelled"


@dataclass(frozen=True, slots=True)
class LoseRace:
    """Fault: a second path reaches the same gated call while its question is pending (a consent race):
    its attempt is recorded interrupted and it pauses on the winner's question (G2.6, A-G9)."""

    KIND: ClassVar[str] = "lose-race"
    execution: str

    def __str__(self) -> str:
        return f"{self.execution}: a second path reaches the gated call and pauses on the same question"


@dataclass(frozen=True, slots=True)
class ResumeAgain:
    """Fault: a second tab approved the same question while the run was still paused; where the check
    and the resume are not atomic (A-T7) it resumes the run a second time, beside the first resume."""

    KIND: ClassVar[str] = "resume-again"
    execution: str
    question: int

    def __str__(self) -> str:
        return f"{self.execution}: a second tab's approval of q{self.question} resumes the run again"


# The steps of one write-back, in order: take, write, and on failure put back, then report.
WRITE_BACK: tuple[type, ...] = (StartWriteBack, WriteMessage, PutBack, ReportFailure, ClearHeld)
# The faults: environment actions only a non-zero fault bound enables.
FAULT_ACTIONS: tuple[type, ...] = (Crash, Expire, LoseRace, ResumeAgain)


Action = Union[
    StartTurn, CallTool, ToolReturns, ToolFails, ToolInterrupts, ObserveAgain, Poll, Answer, NodeFails,
    StartWriteBack, WriteMessage, PutBack, ReportFailure, ClearHeld, CloseSuperseded,
    Crash, Expire, LoseRace, ResumeAgain,
]
ACTION_TYPES: tuple[type, ...] = (
    StartTurn, CallTool, ToolReturns, ToolFails, ToolInterrupts, ObserveAgain, Poll, Answer, NodeFails,
    StartWriteBack, WriteMessage, PutBack, ReportFailure, ClearHeld, CloseSuperseded,
    Crash, Expire, LoseRace, ResumeAgain,
)
_BY_KIND = {cls.KIND: cls for cls in ACTION_TYPES}
_ORDER = {cls: i for i, cls in enumerate(ACTION_TYPES)}


def sort_key(action: Action) -> tuple[Any, ...]:
    """The canonical order of actions: by kind (table order), then by fields (ids in natural order)."""
    fields = dataclasses.astuple(action)
    return (_ORDER[type(action)],) + tuple((len(f), f) if isinstance(f, str) else f for f in fields)


def action_to_json(action: Action) -> dict[str, Any]:
    """The JSON form: {"kind": ..., field: value, ...}."""
    return {"kind": action.KIND, **dataclasses.asdict(action)}


class ActionError(ValueError):
    """An action's JSON form is malformed; `field` names the offending key."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def action_from_json(data: object) -> Action:
    """Parse the JSON form of an action, checking every field's presence and type."""
    if not isinstance(data, dict):
        raise ActionError("an action must be a JSON object", "")
    kind = data.get("kind")
    cls = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionError(f"unknown action kind {kind!r} (known: {', '.join(_BY_KIND)})", "kind")
    values = {}
    for field in dataclasses.fields(cls):
        if field.name not in data:
            raise ActionError(f"{cls.KIND} lacks field {field.name!r}", field.name)
        value = data[field.name]
        expected = {"int": int, "str": str, "bool": bool}[field.type]
        if type(value) is not expected:
            raise ActionError(f"{cls.KIND}.{field.name} must be {field.type}, got {value!r}", field.name)
        values[field.name] = value
    extra = sorted(set(data) - {"kind"} - set(values))
    if extra:
        raise ActionError(f"{cls.KIND} has unknown field {extra[0]!r}", extra[0])
    return cls(**values)


# ---------------------------------------------------------------------------------------------
# Actions a draft declares


_DECLARED: dict[str, type] = {}  # class name -> the action a draft declared, in the order declared


def declare(name: str, text: str, **fields: type) -> type:
    """A new kind of step, declared by a draft as data: its class name (`Withdraw`), its one-line text with its
    fields in braces (`"{execution}: the operator withdraws q{question}"`) and its fields with their types
    (int, str or bool), in order. It is a frozen record like the model's own, its KIND the name in kebab case
    (`withdraw`), known to traces, logs and replay from here on. Declaring the same action again (a draft
    loaded twice) gives the same class; ValueError for a name or kind the model has, or bad fields."""
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
        raise ValueError(f"an action's name is a class name (Withdraw), not {name!r}")
    kind = re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()
    if name in {cls.__name__ for cls in ACTION_TYPES} or kind in {cls.KIND for cls in ACTION_TYPES}:
        raise ValueError(f"{name} is one of the model's own actions: declare a new name")
    for field, t in fields.items():
        if t not in (int, str, bool):
            raise ValueError(f"{name}.{field}: a field is an int, a str or a bool, not {t!r}")
    try:
        text.format(**{f: t() for f, t in fields.items()})
    except (KeyError, IndexError, ValueError) as error:
        raise ValueError(f"{name}: its text names no field {error}") from None
    found = _DECLARED.get(name)
    if found is not None and found.TEXT == text and \
            [(f.name, f.type) for f in dataclasses.fields(found)] == [(f, t.__name__) for f, t in fields.items()]:
        return found
    namespace = {"__annotations__": {f: t.__name__ for f, t in fields.items()}, "KIND": kind, "TEXT": text,
                 "__doc__": f"A step a draft declares: {text}", "__module__": __name__,
                 "__str__": lambda self: type(self).TEXT.format(**dataclasses.asdict(self))}
    cls = dataclass(frozen=True, slots=True)(type(name, (), namespace))
    cls.__qualname__ = name
    _DECLARED[name] = cls
    setattr(sys.modules[__name__], name, cls)  # found by name, as the model's own are (pickle, a worker)
    _BY_KIND[kind] = cls
    _ORDER[cls] = len(ACTION_TYPES) + list(_DECLARED).index(name)
    return cls


def declared() -> tuple[type, ...]:
    """The actions drafts declared in this process, in the order declared."""
    return tuple(_DECLARED.values())

"""The pure-functional reference model of RT-TOOL-7 and RT-GATE-6 (standard library only)."""

from .actions import (
    ACTION_TYPES,
    WRITE_BACK,
    Action,
    ActionError,
    Answer,
    CallTool,
    ClearHeld,
    CloseSuperseded,
    Crash,
    Expire,
    LoseRace,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    ResumeAgain,
    StartTurn,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
    action_from_json,
    action_to_json,
)
from .clauses import CLAUSES, Clause, clause
from .config import BOUND_FIELDS, BOUND_HELP, COMPANION_BOUNDS, COMPANIONS, DEFAULT_BOUNDS, FAULTS, BoundError, Bounds
from .liveness import EVENTUALLY, LIVENESS, Eventually, liveness_named
from .machine import Machine
from .observe import observe, shown, white_box
from .properties import ALWAYS, PROPERTIES, SOMETIMES, TRANSITION, Context, Property, missing_bound, property_named
from .pygen import enabled, step
from .reading import CONFORMANT, READINGS, SWITCH_OF, SWITCHES, Choice, Reading, ReadingError, Switch, reading_named
from .rules import RULE_OF, RULES, Rule
from .state import INITIAL, State

MODEL_VERSION = "pausecheck-model/4"  # 4: an artifact keeps its producing call only where a reading reads it

__all__ = [
    "ACTION_TYPES", "Action", "ActionError", "Answer", "CallTool", "NodeFails", "PutBack", "ReportFailure",
    "StartWriteBack", "WriteMessage", "WRITE_BACK", "ObserveAgain", "Poll", "StartTurn", "ToolFails",
    "ToolInterrupts", "ToolReturns", "action_from_json", "action_to_json", "CLAUSES", "Clause", "clause",
    "BOUND_FIELDS", "BOUND_HELP", "COMPANION_BOUNDS", "COMPANIONS", "DEFAULT_BOUNDS", "BoundError", "Bounds", "Machine",
    "observe", "shown", "white_box", "ALWAYS", "PROPERTIES", "SOMETIMES", "TRANSITION", "Context", "Property",
    "property_named", "missing_bound", "CONFORMANT", "READINGS", "Choice", "Reading", "RULE_OF", "RULES", "Rule",
    "enabled", "step", "INITIAL", "State", "MODEL_VERSION",
    "SWITCHES", "SWITCH_OF", "Switch", "FAULTS", "ClearHeld", "CloseSuperseded", "Crash", "Expire", "LoseRace",
    "ResumeAgain", "ReadingError", "reading_named", "EVENTUALLY", "LIVENESS", "Eventually", "liveness_named",
]

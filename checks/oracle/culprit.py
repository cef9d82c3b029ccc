"""What broke: the property a divergence breaks, or the observation field that differs, with its clauses.

A divergence is found after a step, but the step's clauses say what the step does, not what the
runtime got wrong: a write-back that does not empty the held list is seen only when a later message
carries an artifact twice, a step that enacts T7.5, T7.6, T7.8 and O11.4. So a divergence names,
first, what broke and that property's clauses (`Property.clauses` of the model), then the step's:

1. a held list (the field that differs) that still holds what the model's write-back took or
   delivered: the take was not destructive (`no_double_delivery`: T7.7, then T7.8), whatever step
   shows it and whatever else that breaks. The field and the model's take say more than a black-box
   property broken as a consequence: a runtime that hides what is in flight and copies the held list
   is first seen after the write, where the copy on the wire breaks `held_hidden` (T7.3), which is
   named too (`Culprit.also`), its clauses after the take's;
2. else a black-box property (`blackbox.py`) broken by what the runtime showed: it holds under every
   reading, so the model's own observation never breaks it, and it is the most specific name;
3. else the observation field that differs, and the model property that judges that field at this
   kind of step (`FIELDS`, in order of preference: the first that looks at the step's action kind).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model.actions import Crash, WriteMessage
from pausecheck.model.properties import PROPERTIES, property_named
from pausecheck.model.property import ALWAYS, TRANSITION, Property
from pausecheck.model.rules import RULE_OF
from pausecheck.model.state import State, find_execution, find_segment, ref_name

from .blackbox import BLACK_BOX, History
from .macros import actions_of, enacts

__all__ = ["Culprit", "FIELDS", "KEPT_AFTER_TAKE", "culprit", "field_of", "merged"]

# Each observation field (and the white-box held lists) and the model properties that judge it, the
# more specific first: a transition property applies to the steps of the kinds it looks at (`on`, all
# when empty), an `always` property to every step.
FIELDS: dict[str, tuple[str, ...]] = {
    "held": ("failed_write_back_restores", "repause_holds_everything", "write_back_delivers", "no_loss",
             "held_bounded", "isolation"),
    "messages": ("merge_order", "write_back_delivers", "messages_only_from_write_back", "no_double_delivery",
                 "no_loss", "isolation"),
    "attempts": ("interrupted_not_failed", "failure_recorded_failed", "resume_supersedes", "trail_never_relabelled"),
    "questions": ("one_question_per_pause", "stale_answer_changes_nothing", "no_phantom_pause"),
    "status": ("handled_run_completes", "no_phantom_pause", "finished_holds_nothing"),
    "unhandled": ("tool_failures_handled",),
    "write_failures": ("failed_write_back_restores",),
    "warnings": ("drops_newest_with_warning", "held_bounded", "no_loss"),
    "session": ("isolation",),
}
KEPT_AFTER_TAKE = "no_double_delivery"  # a held list keeping what was taken: the take was not destructive (T7.7)
FAILED_WRITE = "failed_write_back_restores"  # a message after a refused write: a failed write-back writes nothing


@dataclass(frozen=True, slots=True)
class Culprit:
    """What broke: a property's name (None when no property of the field applies), the field, the clauses;
    `said`, what the runtime did to break it (where no black-box check says it), and `also`, the black-box
    properties it breaks as well, each with what its check says."""

    property: str | None
    field: str | None
    clauses: tuple[str, ...]
    said: str | None = None
    also: tuple[tuple[str, str], ...] = ()


def merged(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    """`first`, then whatever of `second` is not in it, each once, in order."""
    return tuple(dict.fromkeys((*first, *second)))


def field_of(path: str) -> str:
    """The field a JSON path of `first_difference` names: `held`, `warnings`, or a turn's key such as
    `messages` (`observation.turns.e1.messages[0] (length)` -> `messages`)."""
    names = re.findall(r"[A-Za-z_][\w-]*", path.split(" ")[0])
    if names[:1] == ["held"]:
        return "held"
    if names[1:2] == ["turns"] and len(names) >= 4:
        return names[3]
    return names[1] if len(names) > 1 else "".join(names)


def _applies(prop: Property, action: Any) -> bool:
    if prop.kind == ALWAYS:
        return True
    return prop.kind == TRANSITION and (not prop.on or type(action) in prop.on)


def _model_clauses(name: str, fallback: tuple[str, ...]) -> tuple[str, ...]:
    """The clauses of the model's property of this name, or `fallback` where the model has none."""
    try:
        return property_named(name).clauses
    except KeyError:
        return fallback


def _kept_after_take(post: State, shown_held: dict[str, list[str]] | None) -> str | None:
    """What the runtime's held lists still hold that the model's write-back took or delivered (in words), if any."""
    for eid, refs in sorted((shown_held or {}).items()):
        try:
            execution = find_execution(post, eid)
        except KeyError:  # a held list of an execution the model has not started: not a take
            continue
        segment = find_segment(post, eid)
        taken = {ref_name(r) for r in (segment.taken if segment is not None else ())}
        delivered = {ref_name(r) for m in execution.messages for r in m}
        kept = sorted((taken | delivered).intersection(refs) - {ref_name(r) for r in execution.held})
        if kept:
            how = "delivered" if kept[0] in delivered else "took"
            return f"{eid}'s held list keeps {kept[0]}, which the write-back {how}: T7.7, taking is destructive"
    return None


def culprit(step: tuple[State, Any, State] | None, history: History, path: str | None,
            restarted: bool = False) -> Culprit:
    """What broke after `step` (None: the reset): the black-box property the runtime's observation breaks,
    else the property judging the field at `path` (after a restart, the steps of a crash); its clauses first,
    then the step's (those of a crash after a restart)."""
    action = Crash() if restarted else step[1] if step else None
    own: tuple[str, ...] = RULE_OF[Crash].clauses if restarted else enacts(step) if step else ()
    broken = [(prop, said) for prop in BLACK_BOX if (said := prop.check(history))]
    field = field_of(path) if path is not None else None
    kept = _kept_after_take(step[2], history.held) if field == "held" and step is not None else None
    if kept is not None:  # the take first: what else broke follows from it
        others = [(prop, said) for prop, said in broken if prop.name != KEPT_AFTER_TAKE]
        also = tuple((prop.name, said) for prop, said in others)
        theirs = [c for prop, _ in others for c in _model_clauses(prop.name, prop.clauses)]
        return Culprit(KEPT_AFTER_TAKE, path, merged(merged(property_named(KEPT_AFTER_TAKE).clauses, theirs), own),
                       kept, also)
    if broken:
        prop = broken[0][0]
        return Culprit(prop.name, None, merged(_model_clauses(prop.name, prop.clauses), own))
    if path is None:
        return Culprit(None, None, own)
    known = {p.name for p in PROPERTIES}
    if field == "messages" and action is not None and any(
            isinstance(a, WriteMessage) and not a.ok for a in actions_of(action)):
        # A message shown after a write the store refused: the promise broken is that a failed write-back writes
        # nothing (T7.10, T7.12), before the order of a message that should not exist (merge_order, T7.5).
        prop = property_named(FAILED_WRITE)
        return Culprit(FAILED_WRITE, path, merged(prop.clauses, own))
    for name in FIELDS.get(field, ()):
        prop = property_named(name) if name in known else None
        if prop is not None and action is not None and any(_applies(prop, a) for a in actions_of(action)):
            return Culprit(name, path, merged(prop.clauses, own))
    return Culprit(None, path, own)

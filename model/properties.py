"""The properties: named invariants with a kind and the clauses they formalise (see `property`),
and the registry of every check, invariants first, then the witnesses (see `witnesses`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .actions import (
    Answer,
    CallTool,
    ClearHeld,
    CloseSuperseded,
    Crash,
    Expire,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)
from .config import Bounds
from .decided import decided_by_formula, each_check, state_check, step_check
from .property import ALWAYS, SOMETIMES, TRANSITION, Context, Property
from .pycheck import compiled_for
from .state import (
    CANCELLED,
    COMPLETED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    READ,
    RUNNING,
    WRITTEN,
    Execution,
    State,
    find_execution,
    find_segment,
    ref_name,
)
from .witnesses import WITNESSES

__all__ = ["Context", "Property", "PROPERTIES", "INVARIANTS", "ALWAYS", "TRANSITION", "SOMETIMES", "property_named",
           "missing_bound", "each_execution", "screen"]


def _names(refs: Any) -> str:
    return ", ".join(ref_name(r) for r in refs)


def _listed(refs: Any) -> str:
    """Artifact refs in plain words: "a1, a2", or "nothing"."""
    return _names(refs) or "nothing"


def _statuses(trail: Any) -> str:
    """Attempt statuses in plain words, oldest first: "interrupted, then cancelled"."""
    return ", then ".join(trail) or "none"


def _messages(messages: Any) -> str:
    """Assistant messages in plain words: "no message", "1 message (a1)", "2 messages (a1; no artifact)"."""
    if not messages:
        return "no message"
    each = "; ".join(_names(m) or "no artifact" for m in messages)
    return f"{len(messages)} message{'s' if len(messages) > 1 else ''} ({each})"


def _questions(ids: Any) -> str:
    """Question ids in plain words: "q1 and q2"."""
    return " and ".join(f"q{i}" for i in ids) or "none"


def _places(state: State) -> dict[int, list[str]]:
    """Where each artifact ref is now: collected by a segment, held, on a message, dropped."""
    places: dict[int, list[str]] = {r: [] for r in range(1, len(state.artifacts) + 1)}
    for segment in state.segments:
        for r in segment.collected:
            places[r].append(f"collected by the segment of {segment.execution}")
        if segment.phase not in (READ, WRITTEN):  # there, what the write-back has in hand is a copy
            for r in segment.taken:
                places[r].append(f"taken by the write-back of {segment.execution}")
    for r in state.crashed:
        places[r].append("lost with its segment in a crash before it was ever held")
    for e in state.executions:
        for r in e.held:
            places[r].append(f"held by {e.id}")
        for i, message in enumerate(e.messages, 1):
            for r in message:
                places[r].append(f"on message {i} of {e.id}")
    for w in state.warnings:
        places[w.ref].append(f"dropped with a warning by {w.execution}")
    return places


# ---------------------------------------------------------------------------------------------
# always


Record = Callable[[Execution, Context], "str | None"]


def each_execution(test: Record) -> Callable[[State, Context], str | None]:
    """The state check of an invariant of each execution record on its own (its `each`, which
    `screen` tests on the records a step changed only): the first record's complaint."""
    def check(state: State, ctx: Context) -> str | None:
        for e in state.executions:
            message = test(e, ctx)
            if message is not None:
                return message
        return None
    return check


def _always(name: str, clauses: tuple[str, ...], explain: Callable[[State, Context], str | None], doc: str,
            situation: str, wire: bool = False) -> Property:
    """An `always` property, decided by its formula (`formulas.py`); `explain` says how it fails."""
    return Property(name, ALWAYS, clauses, state_check(name, doc, explain, wire), doc, situation=situation)


def _of_each_execution(name: str, clauses: tuple[str, ...], explain: Record, doc: str, situation: str) -> Property:
    """An `always` property that holds of a state when it holds of each execution record (its formula's
    `each`); `explain` says how a record breaks it."""
    return Property(name, ALWAYS, clauses, state_check(name, doc, each_execution(explain)), doc, situation=situation,
                    each=each_check(name, doc, explain))


def _transition(name: str, clauses: tuple[str, ...], explain: Callable[..., str | None], doc: str, situation: str,
                on: tuple[type, ...] = (), stutter: tuple[type, ...] | None = None) -> Property:
    """A transition property, decided by its formula; `explain` says how a step breaks it."""
    return Property(name, TRANSITION, clauses, step_check(name, doc, explain), doc, situation=situation, on=on,
                    stutter=stutter)


def screen(properties: Sequence[Property], ctx: Context) -> tuple[Callable[[State, State | None], bool],
                                                                tuple[Property, ...]]:
    """One pass over a state for the invariants decided by their formulas, compiled into one test of the
    state and one of an execution record (`pycheck.all_hold`): True when all of them hold, given that
    they held in the parent state (if any), so that only the records the step changed are tested by the
    invariants of each record (successors share the others, by identity and position). Also returned:
    the invariants it does not cover, to be checked as usual. On False, the caller checks each one to
    find which fails and how."""
    compiled = compiled_for(ctx.bounds)
    covered = [p for p in properties if decided_by_formula(p, ctx.shown)]
    record = compiled.all_hold(tuple(p.name for p in covered if p.each is not None), each=True)
    whole = compiled.all_hold(tuple(p.name for p in covered if p.each is None))
    rest = tuple(p for p in properties if p not in covered)

    def all_hold(state: State, parent: State | None) -> bool:
        if not whole(state):
            return False
        before = () if parent is None else parent.executions
        n = len(before)
        for k, e in enumerate(state.executions):
            if k < n and before[k] is e:
                continue
            if not record(e):
                return False
        return True
    return all_hold, rest


def _no_double_delivery(state: State, ctx: Context) -> str | None:
    seen: dict[int, str] = {}
    for e in state.executions:
        for i, message in enumerate(e.messages, 1):
            for r in message:
                where = f"message {i} of {e.id}"
                if r in seen:
                    return f"{ref_name(r)} is delivered on {seen[r]} and again on {where}"
                seen[r] = where
    return None


def _no_loss(state: State, ctx: Context) -> str | None:
    for r, where in _places(state).items():
        if len(where) != 1:
            return f"{ref_name(r)} is " + (" and ".join(where) if where else "nowhere: lost without a warning")
    return None


def _held_hidden(state: State, ctx: Context) -> str | None:
    if not any(e.held for e in state.executions):
        return None
    wire = {r: turn for turn, refs in ctx.shown(state) for r in refs}
    for e in state.executions:
        for r in e.held:
            if r in wire:
                return f"{ref_name(r)} is held by {e.id} and shown on the turn of {wire[r]}"
    return None


def _finished_holds_nothing(e: Execution, ctx: Context) -> str | None:
    if e.status in FINISHED and e.held:
        return f"{e.id} finished {e.status} still holding {_names(e.held)}: never delivered nor warned"
    return None


def _merge_order(e: Execution, ctx: Context) -> str | None:
    for i, message in enumerate(e.messages, 1):
        if any(a >= b for a, b in zip(message, message[1:], strict=False)):
            return f"message {i} of {e.id} lists {_listed(message)}, not in arrival order"
    return None


def _held_bounded(e: Execution, ctx: Context) -> str | None:
    bound = ctx.bounds.held_bound
    if len(e.held) > bound:
        return f"{e.id} holds {len(e.held)} artifacts {_listed(e.held)}, over the bound {bound}"
    return None


def _isolation(state: State, ctx: Context) -> str | None:
    origin = state.artifacts
    for e in state.executions:
        lists = [("held by", e.held)] + [(f"on message {i} of", m) for i, m in enumerate(e.messages, 1)]
        for label, refs in lists:
            for r in refs:
                if origin[r - 1].execution != e.id:
                    return f"{ref_name(r)}, produced by {origin[r - 1].execution}, is {label} {e.id}"
    for w in state.warnings:
        if origin[w.ref - 1].execution != w.execution:
            return f"{ref_name(w.ref)}, produced by {origin[w.ref - 1].execution}, is dropped by {w.execution}"
    return None


def _no_phantom_pause(e: Execution, ctx: Context) -> str | None:
    if e.status in FINISHED and any(a.status == INTERRUPTED for a in e.attempts):
        return f"{e.id} is {e.status} but still has an interrupted attempt"
    pending = [q for q in e.questions if q.status == PENDING]
    if e.status == PAUSED and len(pending) != 1:
        return f"{e.id} is paused with {len(pending)} pending questions"
    if e.status != PAUSED and pending:
        return f"{e.id} is {e.status} with a pending question"
    return None


def _unrouted(execution: Any) -> int:
    """The graph-node failures of an execution with no error edge: its only unhandled failures."""
    return sum(1 for routed in execution.node_failures if not routed)


def _tool_failures_handled(e: Execution, ctx: Context) -> str | None:
    # The unhandled count is exactly the node failures without an error edge: tool failures never
    # count (E9.5, G6.8), routed node failures neither (E9.1).
    if e.unhandled != _unrouted(e):
        failed = sum(1 for a in e.attempts if a.status == FAILED)
        return f"{e.id} counts {e.unhandled} unhandled failure(s), yet only {_unrouted(e)} of its failures " \
               f"lack an error edge ({failed} tool failure(s), {len(e.node_failures)} node failure(s))"
    return None


def _failure_outranks_interrupt(e: Execution, ctx: Context) -> str | None:
    if e.unhandled and e.status == PAUSED:
        return f"{e.id} is paused with {e.unhandled} unhandled failure(s): ORC-11 ranks the failure first (O11.1)"
    return None


def _handled_run_completes(e: Execution, ctx: Context) -> str | None:
    if e.status not in FINISHED or e.status == CANCELLED:  # cancellation bypasses the ladder (O11.5)
        return None
    if _unrouted(e) and e.status != FAILED:
        return f"{e.id} finished {e.status} despite a node failure with no error edge (O11.1)"
    if not _unrouted(e) and e.status != COMPLETED:
        return f"{e.id} finished {e.status} although every failure in it was handled"
    return None


# ---------------------------------------------------------------------------------------------
# transition


def _changed(pre: State, post: State, keep: str | None = None) -> list[tuple[Execution | None, Execution]]:
    """The executions a step may have changed, each with its record before the step (None for one the
    step started): all but those it left as they were (the same object, as successors share untouched
    records), and always `keep`'s. Records are matched by position, as executions are only ever
    appended; by id wherever a step moved them."""
    old, new = pre.executions, post.executions
    if old is new and keep is None:
        return []
    n = len(old)
    if len(new) < n:
        return _changed_by_id(old, new)
    out: list[tuple[Execution | None, Execution]] = []
    for k, b in enumerate(new):
        if k >= n:
            out.append((None, b))
            continue
        a = old[k]
        if a is b and b.id != keep:
            continue
        if a.id != b.id:
            return _changed_by_id(old, new)
        out.append((a, b))
    return out


def _changed_by_id(old: tuple[Execution, ...], new: tuple[Execution, ...]) -> list[tuple[Execution | None, Execution]]:
    by_id = {e.id: e for e in old}
    return [(by_id.get(b.id), b) for b in new]


def _one_question_per_pause(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    pausing = action.execution if type(action) is ToolInterrupts else None
    for a, e in _changed(pre, post, pausing):
        before = () if a is None else a.questions
        if e.questions is before and e.id != pausing:
            continue
        old = tuple(q.id for q in before)
        kept = tuple(q.id for q in e.questions[:len(old)])
        if kept != old:
            return f"{e.id} replaced its question(s) {_questions(old)} by {_questions(kept)} ({action}): the same " \
                   "interrupt keeps its one question"
        raised, expected = len(e.questions) - len(old), 1 if e.id == pausing else 0
        if raised != expected:
            what = "pausing" if expected else f"{action}"
            return f"{e.id} raised {raised} question(s) on one step ({what}); a pause raises exactly one"
    return None


def _messages_only_from_write_back(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    writer = action.execution if type(action) is WriteMessage and action.ok else None
    for a, e in _changed(pre, post):
        before = () if a is None else a.messages
        if e.id != writer and e.messages is not before and e.messages != before:
            return f"{e.id}'s assistant messages went from {_messages(before)} to {_messages(e.messages)} on a " \
                   f"step that is no write-back ({action})"
    return None


_OWN_EVENT = {ToolReturns: COMPLETED, ToolFails: FAILED, ToolInterrupts: INTERRUPTED}


def _trail_never_relabelled(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    changed = _changed(pre, post)
    if not changed:
        return None  # no record changed
    if len(post.executions) < len(pre.executions):
        return f"execution records vanished on: {action}"
    for e, later in changed:
        if e is None or later.attempts is e.attempts:
            continue
        for i, (old, new) in enumerate(zip(e.attempts, later.attempts, strict=False), 1):
            if old == new:
                continue
            mine = getattr(action, "execution", None) == e.id
            own = mine and old.status == RUNNING and getattr(action, "call", None) == old.call \
                and _OWN_EVENT.get(type(action)) == new.status
            closed = mine and old.status == INTERRUPTED and new.status == CANCELLED
            answered = closed and type(action) is Answer and getattr(_answered(pre, action), "call", None) == old.call
            answered = answered or (closed and type(action) is Expire) or (
                closed and type(action) is CloseSuperseded and find_segment(pre, action.execution).closing == old.call)
            if not (own or answered):
                return f"attempt {i} of {e.id} ({old.call}) was relabelled from {old.status} to {new.status} " \
                       f"by: {action}"
        if len(later.attempts) < len(e.attempts):
            return f"{e.id} lost attempt records on: {action}"
    return None


def _trail(state: State, execution_id: str, call: str) -> list[str]:
    """The statuses of one call's attempts, oldest first."""
    return [a.status for a in find_execution(state, execution_id).attempts if a.call == call]


def _records(event: str, expected: str) -> Callable[[State, Any, State, Context], str | None]:
    """A check that the step's call ends with its latest attempt recorded `expected`."""
    def check(pre: State, action: Any, post: State, ctx: Context) -> str | None:
        last = _trail(post, action.execution, action.call)[-1]
        if last != expected:
            return f"the {event} of {action.call} in {action.execution} recorded the attempt {last}, not {expected}"
        return None
    return check


def _answered(state: State, action: Answer) -> Any:
    """The question an answer names, or None if the execution has none by that number."""
    return next((q for q in find_execution(state, action.execution).questions if q.id == action.question), None)


def _write_back_delivers(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    before, after = find_execution(pre, action.execution), find_execution(post, action.execution)
    segment = find_segment(pre, action.execution)
    if type(action) is StartWriteBack:
        read = find_segment(post, action.execution)
        left = before.held if read.phase == READ else ()  # a split take clears in a later step
        if read.taken != before.held or after.held != left:
            return f"the write-back of {action.execution} took {_listed(read.taken)} of the held list " \
                   f"{_listed(before.held)}, leaving {_listed(after.held)}"
        return None
    if type(action) is ClearHeld:
        left = tuple(r for r in before.held if r not in segment.taken)
        if after.held != left:
            return f"clearing what the write-back of {action.execution} read ({_listed(segment.taken)}) left " \
                   f"{_listed(after.held)} of {_listed(before.held)}, expected {_listed(left)}"
        return None
    if not action.ok:
        return None
    expected = segment.taken + segment.collected
    written = after.messages[len(before.messages):]
    if len(written) != 1 or written[0] != expected:
        got = _messages(written)
        return f"the write-back of {action.execution} wrote {got}, expected {_listed(expected)} (what it took first)"
    return None


def _failed_write_back_restores(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    before, after = find_execution(pre, action.execution), find_execution(post, action.execution)
    segment = find_segment(pre, action.execution)
    if len(post.warnings) != len(pre.warnings):
        return f"the failed write-back of {action.execution} dropped artifacts (T7.12: it destroys nothing)"
    if type(action) is WriteMessage:
        if not action.ok and after.messages != before.messages:
            return f"the failed write-back of {action.execution} still wrote a message"
        return None
    if type(action) is PutBack:
        if after.held != segment.taken + before.held:
            return f"the failed write-back of {action.execution} put back {_listed(after.held)}, expected " \
                   f"{_listed(segment.taken + before.held)} (what it took, in front)"
        return None
    if segment.taken:
        return f"the failed write-back of {action.execution} reported failure without putting back " \
               f"{_names(segment.taken)}"
    if after.write_failures != min(before.write_failures + 1, ctx.bounds.write_failures):
        return f"the failed write-back of {action.execution} was not reported"
    return None


def _stale_answer_changes_nothing(pre: State, action: Answer, post: State, ctx: Context) -> str | None:
    question = _answered(pre, action)
    if question is None and post != pre:
        return f"an answer naming q{action.question}, which {action.execution} never raised, changed the state"
    if question is not None and question.status != PENDING and post != pre:
        return f"an answer to q{question.id} of {action.execution}, already {question.status}, changed the state"
    return None


def _repause_holds_everything(pre: State, action: ToolInterrupts, post: State, ctx: Context) -> str | None:
    before, after = find_execution(pre, action.execution), find_execution(post, action.execution)
    dropped = {w.ref for w in post.warnings[len(pre.warnings):]}
    incoming = before.held + find_segment(pre, action.execution).collected
    missing = [r for r in incoming if r not in after.held and r not in dropped]
    if missing:
        return f"the pause of {action.execution} neither holds nor warns about {_names(missing)}"
    return None


def _drops_newest_with_warning(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    new = post.warnings[len(pre.warnings):]
    if not new or type(action) is Expire:  # an expiry's drops are no overflow (A-T8)
        return None
    bound = ctx.bounds.held_bound
    refs = [w.ref for w in new]
    if len(set(refs)) != len(refs):
        return f"one drop raised several warnings: {_listed(refs)}"
    for w in new:
        kept = find_execution(post, w.execution).held
        newer = [r for r in kept if r > w.ref]
        if newer:
            return f"{w.execution} dropped {ref_name(w.ref)} but kept the newer {_names(newer)}"
        if len(kept) < bound:
            return f"{w.execution} dropped {ref_name(w.ref)} while holding {len(kept)}, under the bound {bound}"
    return None


def _resume_supersedes(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    if type(action) is CloseSuperseded:  # the second half of a split resume (A-G3 new-first)
        call = find_segment(pre, action.execution).closing
        after = _trail(post, action.execution, call)
        if INTERRUPTED in after:
            return f"closing the superseded attempt of {call} in {action.execution} left its attempts " \
                   f"{_statuses(after)}"
        return None
    question = _answered(pre, action)
    if question is None or question.status != PENDING:
        return None
    before, after = _trail(pre, action.execution, question.call), _trail(post, action.execution, question.call)
    closed = [CANCELLED if status == INTERRUPTED else status for status in before]
    expected = closed + ([RUNNING] if action.approve else [])
    segment = find_segment(post, action.execution)
    if action.approve and segment is not None and segment.closing == question.call:
        expected = before + [RUNNING]  # the resume is split: the superseded attempt is closed next
    if after != expected:
        return f"answering resumed {question.call} of {action.execution} and left its attempts {_statuses(after)}, " \
               f"where the rules want {_statuses(expected)}"
    return None


def _unallowed(pre: State, post: State, field: str, keep: Callable[[Any, Any], bool]) -> str | None:
    """The first execution whose `field` the step changed where `keep(before, after)` says it may not."""
    for x, y in zip(pre.executions, post.executions, strict=False):
        if getattr(x, field) != getattr(y, field) and not keep(x, y):
            return f"{x.id}'s {field.replace('_', ' ')} went from {_worded(field, getattr(x, field))} to " \
                   f"{_worded(field, getattr(y, field))}"
    return None


def _worded(field: str, value: Any) -> str:
    """A field of an execution in the words the traces use: refs as a1, messages, attempt trails, questions."""
    if field == "held":
        return _listed(value)
    if field == "messages":
        return _messages(value)
    if field == "attempts":
        return ", ".join(f"{a.call} {a.status}" for a in value) or "none"
    if field == "questions":
        return ", ".join(f"q{q.id} ({q.call}) {q.status}" for q in value) or "none"
    if field == "node_failures":
        return ", ".join("routed" if routed else "unrouted" for routed in value) or "none"
    return str(value)


def _observing_changes_nothing_visible(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    if len(post.executions) != len(pre.executions):
        return f"{action} started an execution"
    if post.warnings != pre.warnings:
        return f"{action} changed the warnings to " + \
            (", ".join(f"{ref_name(w.ref)} dropped from {w.execution}" for w in post.warnings) or "none")
    for field in ("status", "attempts", "held", "messages", "unhandled", "write_failures", "node_failures", "calls"):
        found = _unallowed(pre, post, field, lambda x, y: False)
        if found:
            return f"{action}: {found}"
    for x, y in zip(pre.executions, post.executions, strict=False):
        if [q._replace(observations=0) for q in x.questions] != [q._replace(observations=0) for q in y.questions]:
            return f"{action}: {x.id}'s questions went from {_worded('questions', x.questions)} to " \
                   f"{_worded('questions', y.questions)}"
    return None


_HOLDS_OR_TAKES = (ToolInterrupts, StartWriteBack, ClearHeld, PutBack, Expire)


def _held_changes_only_at_hold_take_put_back(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    if type(action) is Crash:
        return None
    own = getattr(action, "execution", "").rstrip("'")
    found = _unallowed(pre, post, "held", lambda x, y: x.id == own and type(action) in _HOLDS_OR_TAKES)
    if found:
        return f"{action}: {found}"
    fresh = [y.id for y in post.executions[len(pre.executions):] if y.held]
    return f"{action} started {fresh[0]} holding artifacts" if fresh else None


def _work_skipped_after_unhandled_failure(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    unhandled = find_execution(pre, action.execution).unhandled
    if unhandled:
        return f"{action} ran after {unhandled} unhandled failure(s) of its run: the remaining work is skipped"
    return None


def _finished_status_is_final(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    found = _unallowed(pre, post, "status", lambda x, y: x.status not in FINISHED)
    return f"{action}: {found}, after it had finished" if found else None


def _status_decided_when_the_segment_ends(pre: State, action: Any, post: State, ctx: Context) -> str | None:
    live = {s.execution.rstrip("'") for s in post.segments}
    found = _unallowed(pre, post, "status", lambda x, y: y.status == RUNNING or y.id not in live)
    return f"{action}: {found} while a segment of it is still working" if found else None


INVARIANTS: tuple[Property, ...] = (
    _always("no_double_delivery", ("T7.7", "T7.8"), _no_double_delivery,
             "no artifact is delivered twice: at most one message carries it, once",
             situation="delivered_after_pause"),
    _always("no_loss", ("T7.1", "T7.12", "T7.15"), _no_loss,
             "every artifact is in exactly one place: collected, held, delivered, or dropped with a warning",
             situation="held_across_pause"),
    _always("held_hidden", ("T7.3",), _held_hidden,
            "no turn of any session shows an artifact that any execution holds", situation="poll_while_holding",
            wire=True),
    _of_each_execution("finished_holds_nothing", ("T7.4", "T7.12"), _finished_holds_nothing,
             "a finished execution holds nothing: its held artifacts were delivered or dropped with a warning",
             situation="completes_after_pause"),
    _of_each_execution("merge_order", ("T7.5", "T7.6"), _merge_order,
             "a message lists held artifacts first, then the resumed segment's, each in arrival order",
             situation="merged_held_and_new"),
    _of_each_execution("held_bounded", ("T7.13",), _held_bounded,
             "no held list exceeds the bound", situation="warned_drop"),
    _always("isolation", ("T7.2", "T7.4"), _isolation,
             "nothing of one execution is held for, shown on or dropped by another",
             situation="artifact_beside_another_execution"),
    _of_each_execution("no_phantom_pause", ("G6.5", "O11.2"), _no_phantom_pause,
             "a finished execution holds no interrupted attempt; a paused one has exactly one pending question",
             situation="completes_after_pause"),
    _of_each_execution("tool_failures_handled", ("G6.6", "G6.8", "E9.5"), _tool_failures_handled,
             "only node failures without an error edge count as unhandled; tool failures never do",
             situation="tool_failure"),
    _of_each_execution("failure_outranks_interrupt", ("O11.1", "O11.2"), _failure_outranks_interrupt,
             "an execution with an unhandled failure is never paused: ORC-11 ranks the failure above an interrupt",
             situation="fails_after_unrouted_failure"),
    _of_each_execution("handled_run_completes", ("G6.7", "E9.1", "O11.1", "O11.4", "G5.2"), _handled_run_completes,
             "a finished run is failed exactly when a node failed without an error edge, else completed",
             situation="fails_after_unrouted_failure"),
    _transition("write_back_delivers", ("T7.4", "T7.5", "T7.6", "T7.7"), _write_back_delivers,
             "a write-back takes the whole held list and writes what it took ++ what the segment collected on "
             "one message", situation="delivered_after_pause", on=(StartWriteBack, WriteMessage, ClearHeld)),
    _transition("repause_holds_everything", ("T7.9", "T7.1"), _repause_holds_everything,
             "a pause holds the old held list and everything the segment collected (or warns)",
             situation="repause_with_held", on=(ToolInterrupts,)),
    _transition("failed_write_back_restores", ("T7.10", "T7.11", "T7.12"), _failed_write_back_restores,
             "a failed write-back writes nothing, puts back what it took in front of the held list, then "
             "reports the failure, and drops nothing", situation="write_back_fails_with_held",
             on=(WriteMessage, PutBack, ReportFailure)),
    _transition("drops_newest_with_warning", ("T7.14", "T7.15"), _drops_newest_with_warning,
             "an overflow drops the newest entries, one warning each", situation="warned_drop", stutter=()),
    _transition("one_question_per_pause", ("G6.9",), _one_question_per_pause,
             "a pause raises exactly one question and no other step raises any, however often the "
             "interrupt is observed", situation="interrupt_observed_twice", stutter=(ToolInterrupts,)),
    _transition("messages_only_from_write_back", ("T7.3", "T7.4"), _messages_only_from_write_back,
             "no step but a successful write-back writes or changes a turn's assistant messages",
             situation="poll_while_holding", stutter=()),
    _transition("trail_never_relabelled", ("G6.2", "G6.4", "G6.6"), _trail_never_relabelled,
             "an attempt's status changes only by its own event: running to completed, failed or interrupted "
             "as its call returns, fails or interrupts; interrupted to cancelled when its question is answered",
             situation="approve", stutter=()),
    _transition("failure_recorded_failed", ("G6.6",), _records("failure", FAILED),
             "a failed tool call is recorded as a failed attempt (handled, not relabelled)",
             situation="tool_failure", on=(ToolFails,)),
    _transition("work_skipped_after_unhandled_failure", ("O11.1",), _work_skipped_after_unhandled_failure,
             "after an unhandled failure the run's remaining work is skipped: no tool call, no node",
             situation="fails_after_unrouted_failure", on=(CallTool, NodeFails)),
    _transition("interrupted_not_failed", ("G6.1", "G6.2"), _records("interrupt", INTERRUPTED),
             "an interrupt escaping a tool records the attempt interrupted, not failed",
             situation="held_across_pause", on=(ToolInterrupts,)),
    _transition("resume_supersedes", ("G6.3", "G6.4"), _resume_supersedes,
             "a resumed call records a new attempt and cancels the superseded interrupted one",
             situation="approve", on=(Answer, CloseSuperseded)),
    _transition("stale_answer_changes_nothing", ("G6.9",), _stale_answer_changes_nothing,
             "an answer to a question no longer pending (or never raised) changes nothing", situation="stale_answer",
             on=(Answer,), stutter=()),
    # Frame conditions: what a client sees changes only where a rule says it does.
    _transition("observing_changes_nothing_visible", ("G6.9", "T7.3"), _observing_changes_nothing_visible,
             "observing a run (a poll, the same interrupt seen again) changes nothing a client sees: no status, "
             "attempt, question, held artifact, message or warning; only the observation count",
             situation="interrupt_observed_twice", on=(ObserveAgain, Poll), stutter=()),
    _transition("held_changes_only_at_hold_take_put_back", ("T7.1", "T7.4", "T7.7", "T7.10"),
             _held_changes_only_at_hold_take_put_back,
             "a held list changes only at its own execution's pause, take, put-back or expiry, or in a crash "
             "recovery; a new execution holds nothing", situation="held_across_pause", stutter=()),
    _transition("finished_status_is_final", ("G5.2", "O11.1", "O11.4"), _finished_status_is_final,
             "a finished execution's status (completed, failed, cancelled) never changes",
             situation="completes_after_pause", stutter=()),
    _transition("status_decided_when_the_segment_ends", ("O11.1", "O11.2", "O11.4"),
             _status_decided_when_the_segment_ends,
             "an execution's status leaves running (paused, completed, failed, cancelled) only when no segment of "
             "it is left working", situation="completes_after_pause", stutter=()),
)
PROPERTIES: tuple[Property, ...] = INVARIANTS + WITNESSES


def missing_bound(prop: Property, bounds: Bounds, registry: tuple[Property, ...] | None = None) -> str | None:
    """What the bounds lack for `prop` to be exercised at all (a flag to raise), or None.

    A witness's own requirement; an invariant's is that of its situation, looked up in `registry`
    (default: every property of the model)."""
    by_name = {p.name: p for p in (PROPERTIES if registry is None else registry)}
    witness = prop if prop.kind == SOMETIMES else by_name.get(prop.situation or "")
    if witness is None or witness.requires is None:
        return None
    return witness.requires(bounds)


def property_named(name: str) -> Property:
    """The property with this name (KeyError if none)."""
    for p in PROPERTIES:
        if p.name == name:
            return p
    raise KeyError(name)

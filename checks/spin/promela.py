"""The Promela form of the rules: the rule table (`model/rules.py`) written out for Spin.

`promela(bounds, reading)` specialises every rule of `model.rules.RULES` to the bounds and the reading
(`lang.specialize` / `specialize_block`, through the symbolic engine's plan) and lowers its guard and
effect with the same lowering the z3 relation uses (`checks/symbolic/relation.py`), over an algebra
whose values are Promela expressions (`code.py`). Nothing here is written per rule: every reading and
every fault is exported, and a rule, reading or fault added to the table reaches Spin unchanged.

The model Spin explores is the explicit one, state for state (`pan` stores exactly the states
`pausecheck check` stores):
- the State is global arrays: each sequence a fixed array (its capacity from `capacities`: the z3
  relation's `Caps.of(bounds)`, lists of refs longer under readings that copy refs) and a length
  `<name>_n`, every slot past the length kept 0; records are typedefs; strings are the small integers
  of `values.encode_str` ("" is 0); one process whose control rests at the start of its loop;
- each rule is one `do` option per binder slot (sessions; execution slots; segment slots, each paired
  with the execution it belongs to) and parameter value, in the table's order: a `d_step` whose first
  statement is the guard, a pure expression, then the effect. Sequence operations (filter, count,
  fold, update_last, insert, ...) are unrolled over the arrays' capacities, as in the z3 relation,
  rather than written as loops: straight-line code whose every long intermediate value, and then every
  changed field that reads the state, is put in a hidden temporary `_t[k]` before any field is written
  (the rules read the state before the step); the temporaries are reset to 0 before the step ends (a loop);
- where a successor would not fit an array, an `assert` fails, so pan reports it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Protocol

from pausecheck.model.config import Bounds
from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import RECORDS, SeqOf
from pausecheck.model.reading import Reading
from pausecheck.model.rules import EXECUTIONS, ONCE, RULES, SEGMENTS, SESSIONS
from pausecheck.model.state import RUNNING, Attempt, Execution, State

from ..symbolic.relation import Caps, Lower, assemble, lower_block, plan
from ..symbolic.values import CALL, EXEC, RACE, OptV, Seq, encode_str, pick
from .code import Code, text

__all__ = ["promela", "generate", "Model", "Option", "Checks", "Move", "capacities", "reached_caps", "reached_states",
           "TooLarge", "command", "header", "PAN_FLAGS", "SPIN_FLAGS", "CC_FLAGS"]

SPIN_FLAGS = ("-a", "-o2")  # -o2: keep in the state vector even the variables the model only writes
CC_FLAGS = ("-O2", "-w", "-DSAFETY", "-DNOREDUCE")  # safety only; one process: nothing to reduce
PAN_FLAGS = ("-m1000000", "-w20")  # a depth limit far past the search's; 2^20 hash slots


class TooLarge(ValueError):
    """Bounds whose states the Promela encoding cannot hold (one line, for the command line)."""


def capacities(bounds: Bounds, reading: Reading, lists: int | None = None) -> Caps:
    """The arrays' capacities: those of the z3 relation, `Caps.of(bounds, reading)`, or every list of refs
    `lists` long if given (the warnings: that and the artifacts). Where a successor still does not fit,
    pan reports the failed `assert` (then export again with a larger `--list-capacity`)."""
    caps = Caps.of(bounds, reading)
    if lists is None:
        return caps
    return dataclasses.replace(caps, lists=lists, warnings=lists + caps.artifacts)


DRAFT_SAMPLE = 50_000  # states of a draft's own search its arrays are sized to hold (its lists may outgrow the rules')


def reached_states(machine: Any, sample: int = DRAFT_SAMPLE) -> list[Any]:
    """The first `sample` states a machine reaches (breadth first), and their successors."""
    seen = set(machine.init_states())
    level, found = list(seen), list(seen)
    while level and len(seen) < sample:
        after = []
        for state in level:
            for _, post in machine.successors(state):
                found.append(post)
                if post not in seen:
                    seen.add(post)
                    after.append(post)
        level = after
    return found


def reached_caps(machine: Any, sample: int = DRAFT_SAMPLE) -> Caps:
    """The arrays' capacities for a table of one's own (a draft, a mutant): the rules' at these bounds, widened to
    hold every state among the first `sample` it reaches and their successors (a draft may hold an artifact
    twice, say). A state further on that still does not fit is pan's failed assert."""
    return capacities(machine.bounds, machine.reading).covering(reached_states(machine, sample))


def _refuse(bounds: Bounds, caps: Caps) -> None:
    """Refuse bounds past the encoding: ids e1..e9 and c1..c63 (`values.encode_str`), bytes up to 255."""
    calls = bounds.calls * (bounds.pauses + 1)
    if caps.executions > 9:
        raise TooLarge(f"the Promela encoding holds at most 9 executions (sessions x turns + new-turns), not "
                       f"{caps.executions}")
    if calls > 63:
        raise TooLarge(f"the Promela encoding holds at most 63 calls per execution (calls x (pauses + 1)), not {calls}")
    if caps.warnings > 255 or bounds.observations > 255:
        raise TooLarge("the Promela encoding holds at most 255 of anything in a byte: fewer artifacts or observations")


# ---------------------------------------------------------------------------------------------
# The state: declarations, and the value whose leaves are the variables' names


def _declaration(t: Any, name: str, cap: int | None) -> list[str]:
    """The declarations of one field: a byte, a record, or a sequence (a length and an array)."""
    if isinstance(t, SeqOf):
        item = t.item
        kind = item.__name__ if item in RECORDS else "Refs" if isinstance(item, SeqOf) else "byte"
        return [f"byte {name}_n", f"{kind} {name}[{max(cap or 0, 1)}]"]
    return [f"byte {name}"]


def _typedef(record: type, caps: Caps) -> str:
    """A record as a typedef: its fields in order, each sequence at its capacity."""
    fields = []
    for name, t in FIELD_TYPES[record].items():
        fields += _declaration(t, name, caps.of_field(record, name) if isinstance(t, SeqOf) else None)
    return f"typedef {record.__name__} {{\n" + ";\n".join(f"    {f}" for f in fields) + "\n}"


def _paths(t: Any, path: str, cap: int | None, caps: Caps) -> Any:
    """The state value whose leaves are the names of the Promela variables that hold them."""
    if t in RECORDS:
        prefix = "" if t is State else f"{path}."
        return tuple(_paths(ft, f"{prefix}{f}", caps.of_field(t, f) if isinstance(ft, SeqOf) else None, caps)
                     for f, ft in FIELD_TYPES[t].items())
    if isinstance(t, SeqOf):
        cap = caps.lists if cap is None else cap
        if path.endswith("]"):  # an item of a sequence of sequences (a message): a `Refs`
            length, items = f"{path}.n", f"{path}.v"
        else:
            length, items = f"{path}_n", path
        return Seq(length, tuple(_paths(t.item, f"{items}[{k}]", None, caps) for k in range(cap)), t)
    return path


def _declarations(caps: Caps) -> list[str]:
    """The typedefs (a list of refs `Refs`, then each record, its parts first) and the State's globals."""
    out = [f"typedef Refs {{\n    byte n;\n    byte v[{max(caps.lists, 1)}]\n}}"]
    for record in RECORDS[::-1]:
        if record is not State:
            out.append(_typedef(record, caps))
    for name, t in FIELD_TYPES[State].items():
        out += [f"{d};" for d in _declaration(t, name, caps.of_field(State, name) if isinstance(t, SeqOf) else None)]
    return out


# ---------------------------------------------------------------------------------------------
# The binder slots


_ATTEMPTS, _STATUS = Execution._fields.index("attempts"), Attempt._fields.index("status")


def _slots(rule: Any, bounds: Bounds, caps: Caps) -> list[tuple[int, int]]:
    """(slot, execution slot) pairs: a segment slot is paired with each execution slot it may belong to,
    so that the execution an effect edits is a constant slot."""
    if rule.over is SESSIONS:
        return [(s, -1) for s in range(1, bounds.sessions + 1)]
    if rule.over is EXECUTIONS:
        return [(i, i) for i in range(caps.executions)]
    if rule.over is SEGMENTS:
        return [(j, i) for j in range(caps.segments) for i in range(caps.executions)]
    assert rule.over is ONCE
    return [(0, -1)]


def _bind(L: Lower, rule: Any, slot: int, index: int, pre: Any) -> tuple[dict[str, Any], Any]:
    """The variables a slot gives (S, session, e, g, run) and whether the slot is filled."""
    A = L.A
    executions, segments = pre[0], pre[1]
    env: dict[str, Any] = {"S": pre}
    if rule.over is SESSIONS:
        return {**env, "session": slot}, True
    if rule.over is EXECUTIONS:
        return {**env, "e": executions.items[slot]}, L.present(executions, slot)
    if rule.over is SEGMENTS:
        g, e = segments.items[slot], executions.items[index]
        key = g[0]
        racing = A.conj(A.lt(RACE, key), A.lt(key, CALL))
        belongs = A.eq(A.ite(racing, A.sub(key, RACE - EXEC), key), EXEC + 1 + index)
        attempts = e[_ATTEMPTS]
        found, value = False, L.item_zero(attempts)
        for k in range(attempts.cap - 1, -1, -1):  # the first running attempt, as the explicit successors find it
            running = A.conj(L.present(attempts, k), A.eq(attempts.items[k][_STATUS], encode_str(RUNNING)))
            value = pick(A, running, attempts.items[k], value)
            found = A.disj(running, found)
        return {**env, "g": g, "e": e, "run": OptV(found, value)}, A.conj(L.present(segments, slot), belongs)
    return env, True


# ---------------------------------------------------------------------------------------------
# The options


def _leaves(pre: Any, post: Any, out: list[tuple[str, Any]]) -> None:
    """(variable, new value) for every leaf of the successor, in order."""
    if isinstance(pre, Seq):
        out.append((pre.length, post.length))
        for a, b in zip(pre.items, post.items, strict=True):
            _leaves(a, b, out)
    elif isinstance(pre, tuple):
        for a, b in zip(pre, post, strict=True):
            _leaves(a, b, out)
    else:
        out.append((pre, post))


def _fits(A: Code, post: Any, out: list[Any]) -> None:
    """The tests that every sequence of the successor fits its array."""
    if isinstance(post, Seq):
        test = A.le(post.length, post.cap)
        if test is not True:
            out.append(test)
        for item in post.items:
            _fits(A, item, out)
    elif isinstance(post, OptV):
        _fits(A, post.value, out)
    elif isinstance(post, tuple):
        for item in post:
            _fits(A, item, out)


def _describe(rule: Any, slot: int, index: int, given: dict[str, Any]) -> str:
    """The option's comment: the rule, the slot, the parameters."""
    where = {SESSIONS.name: f"session {slot}", EXECUTIONS.name: f"execution slot {slot}",
             SEGMENTS.name: f"segment slot {slot} of execution slot {index}", ONCE.name: "once"}[rule.over.name]
    params = "".join(f", {k}={int(v) if isinstance(v, bool) else v}" for k, v in given.items())
    return f"{rule.action.__name__}: {where}{params}"


@dataclass(frozen=True)
class Option:
    """One option of the loop: a rule at one slot and parameter values (`rule` set), or a check of the
    properties (`check`: the property it reports); `line` is its guard's line in the model (1-based)."""

    line: int
    rule: Any = None
    slot: int = 0
    index: int = -1
    given: tuple[tuple[str, Any], ...] = ()
    check: str | None = None
    end: int = 0  # its last line (an option split into several d_steps goes on past its guard's)
    action: Any = None  # in a model of one process per action (`Actions`): the action it takes


@dataclass(frozen=True)
class Model:
    """A generated model: its text and every option of its loop in order (what a trail's steps name)."""

    text: str
    options: tuple[Option, ...]
    processes: tuple[Any, ...] = ()  # one process per action: the action of each process, by pid
    enabled: tuple[str, ...] = ()  # ... and where it is enabled: the disjunction of its options' guards

    def option_at(self, line: int) -> Option | None:
        """The option whose guard is on this line, or on the line before it (`:: d_step {`, to which spin's
        trail replay attributes the guard), if any."""
        return next((o for o in self.options if line in (o.line - 1, o.line)), None)

    def continues(self, line: int) -> bool:
        """Is this line inside an option past its guard (the second d_step of an atomic one)?"""
        return any(o.line < line <= o.end for o in self.options)


class Checks(Protocol):
    """What a model checks beside the rules (`checks/spin/assertions.py`): statements inside each step (on
    the pre-state and the step's post-state, before any variable is written), options of their own (a
    state's checks), and the hidden declarations they need. `moves` asks for, at each option, its guard and
    whether it changes the state (pure expressions), which a deadlock check reads."""

    moves: bool

    def declarations(self) -> list[str]: ...
    def step(self, code: Code, L: Lower, rule: Any, env: dict[str, Any], pre: Any, post: Any,
             fields: tuple[Any, ...]) -> list[str]: ...
    def options(self, pure: Code, L: Lower, pre: Any, moves: list[Move]) -> list[tuple[str, list[str]]]: ...


def _option(rule: Any, slot: int, index: int, env: dict[str, Any], guard: Any, effect: tuple[Any, ...],
            caps: Caps, pre: Any, checks: Checks | None = None, fields: tuple[Any, ...] = ()) -> tuple[list[str], int]:
    """The body of one option after its guard: the effect's temporaries, the asserts that the successor
    fits, the checks of the step (if any), every changed variable computed into a temporary then written,
    the temporaries reset."""
    steps = Code(emit=True)
    L = Lower(steps, caps)
    after = lower_block(L, effect, {**env, "_ended": False})
    post = assemble(L, rule, slot, index if index >= 0 else None, env, after, pre[0], pre[1])
    fits: list[Any] = []
    _fits(steps, post, fits)
    checked = [] if checks is None else checks.step(steps, L, rule, env, pre, post, fields)
    changed = [(var, value) for var, value in _pairs(pre, post) if value != var]
    # A new value that reads no variable of the state (a constant, or a temporary) is written as it is; the
    # others are put in a temporary first, before any variable is written (Spin allows a d_step at most
    # 2,047 statements: a crash with two executions needs this).
    staged = [(var, value) for var, value in changed if not _settled(value)]
    body = list(steps.statements) + [f"assert({text(test)})" for test in fits] + checked
    used, total = steps.used, steps.used + len(staged)
    body += [f"_t[{used + k}] = {text(value)}" for k, (_var, value) in enumerate(staged)]
    body += [f"{var} = _t[{used + k}]" for k, (var, _value) in enumerate(staged)]
    body += [f"{var} = {text(value)}" for var, value in changed if _settled(value)]
    body.append(f"_k = 0; do :: _k < {total} -> _t[_k] = 0; _k++ :: else -> break od; _k = 0" if total else "skip")
    return [f"        {text(guard)} ->"] + [f"        {b};" for b in body[:-1]] + [f"        {body[-1]}"], total


D_STEP = 1_900  # statements in one d_step: Spin refuses more than 2,047


def _chunks(body: list[str]) -> list[list[str]]:
    """The option's lines (guard first, each statement but the last ending in `;`) in d_steps Spin accepts:
    an option longer than D_STEP statements (a crash with two executions) becomes several d_steps in one
    `atomic`, whose states between them pan neither stores nor interleaves (it counts them as atomic
    steps), so that the states stored are the same. The temporaries carry the values across."""
    if len(body) <= D_STEP:
        return [body]
    chunks = [body[k:k + D_STEP] for k in range(0, len(body), D_STEP)]
    for chunk in chunks[:-1]:
        chunk[-1] = chunk[-1].removesuffix(";")
    return chunks


def _emit(lines: list[str], found: list[tuple[int, Option]], comment: str, option: Option, body: list[str]) -> None:
    """Append one option (its d_step, or d_steps in an atomic), noting where its guard is."""
    chunks = _chunks(body)
    opening = "    :: d_step {" if len(chunks) == 1 else "    :: atomic { d_step {"
    lines.append(f"{opening} /* {comment} */")
    found.append((len(lines), option))
    for k, chunk in enumerate(chunks):
        lines += ["       }; d_step {"] if k else []
        lines += chunk
    lines.append("       }" if len(chunks) == 1 else "       } }")


class Actions(Protocol):
    """How a model of one process per action names its options (`checks/spin/fair.py`): each option (a rule at
    one slot and parameter values) split into one option per action it can take, each with the guard that it
    takes that action (the option's guard and the action's fields' values)."""

    def __call__(self, pure: Code, L: Lower, rule: Any, slot: int, index: int, scope: dict[str, Any], guard: Any,
                 fields: tuple[Any, ...]) -> list[tuple[Any, Any]]: ...


def _settled(value: Any) -> bool:
    """Does a new value read no variable of the state: a constant, or one temporary of the step?"""
    return not isinstance(value, str) or re.fullmatch(r"_t\[\d+\]", value) is not None


def _changes(code: Code, caps: Caps, rule: Any, slot: int, index: int, env: dict[str, Any],
             effect: tuple[Any, ...], pre: Any) -> Any:
    """Does the step change the state? An expression over `code` (a poll never does; a late answer does not)."""
    L = Lower(code, caps)
    after = lower_block(L, effect, {**env, "_ended": False})
    post = assemble(L, rule, slot, index if index >= 0 else None, env, after, pre[0], pre[1])
    return code.neg(code.conj(*[code.eq(var, value) for var, value in _pairs(pre, post)]))


@dataclass(frozen=True)
class Move:
    """One option as a deadlock check reads it: its guard (pure) and whether it changes the state, pure
    where that is a constant (most rules change something whenever they are enabled), else to be lowered
    over the check's own code (`changes(code)`), whose temporaries share the long subexpressions."""

    guard: Any
    known: bool | None
    changes: Any  # Callable[[Code], Any]


def _options(bounds: Bounds, reading: Reading, caps: Caps, checks: Checks | None = None,
             rules: tuple[Any, ...] = RULES, actions: Actions | None = None
             ) -> tuple[list[str], int, list[tuple[int, Option]], dict[Any, list[str]], dict[Any, list[str]]]:
    """Every option of the loop, in the rule table's order (then the checks' own), the most temporaries one
    uses, and each option with its guard's line among the lines returned. With `actions`, each option is
    split into one per action and kept apart, by action, in the first dict returned (the lines stay empty),
    with its guards in the second."""
    pure = Code()
    pre = _paths(State, "", None, caps)
    lines: list[str] = []
    most = 0
    found: list[tuple[int, Option]] = []
    apart: dict[Any, list[str]] = {}
    guards: dict[Any, list[str]] = {}
    moves: list[Move] = []
    for rule, instances in plan(bounds, reading.switches, rules):
        if actions is None:
            lines.append(f"    /* {rule.action.__name__}: {rule.doc} */")
        for slot, index in _slots(rule, bounds, caps):
            env, present = _bind(Lower(pure, caps), rule, slot, index, pre)
            if pure.known(present) is False:
                continue
            for given, guard_parts, fields, effect in instances:
                scope = {**env, **given}
                guard = pure.conj(present, *[Lower(pure, caps).expr(part, scope) for part in guard_parts])
                if pure.known(guard) is False:
                    continue
                split = [(guard, None)] if actions is None else \
                    actions(pure, Lower(pure, caps), rule, slot, index, scope, guard, fields)
                for taken, action in split:
                    body, used = _option(rule, slot, index, scope, taken, effect, caps, pre, checks, fields)
                    most = max(most, used)
                    if checks is not None and checks.moves:
                        known = pure.known(_changes(Code(), caps, rule, slot, index, scope, effect, pre))
                        moves.append(Move(taken, known, functools.partial(
                            _changes, caps=caps, rule=rule, slot=slot, index=index, env=scope, effect=effect, pre=pre)))
                    comment = _describe(rule, slot, index, given) + ("" if action is None else f": {action!r}")
                    option = Option(0, rule, slot, index, tuple(given.items()), action=action)
                    _emit(lines if action is None else apart.setdefault(action, []), found, comment, option, body)
                    guards.setdefault(action, []).append(text(taken))
    if checks is not None:
        L = Lower(pure, caps)
        for name, body in checks.options(pure, L, pre, moves):
            _emit(lines, found, f"check: {name}", Option(0, check=name), body)
    return lines, most, found, apart, guards


def _pairs(pre: Any, post: Any) -> list[tuple[str, Any]]:
    """(variable, new value) for every leaf of the state."""
    out: list[tuple[str, Any]] = []
    _leaves(pre, post, out)
    return out


def command(bounds: Bounds, reading: Reading, out: str = "FILE", caps: Caps | None = None) -> str:
    """The command line that writes this model: the bounds that differ from the defaults, the reading, the
    list capacity if it is not the default one."""
    lists = "" if caps is None or caps.lists == capacities(bounds, reading).lists else f" --list-capacity {caps.lists}"
    flags = f" {bounds.flags()}" if bounds.flags() else ""
    chosen = "" if reading.name == "conformant" else f" --reading {reading.name}"
    return f"pausecheck export --format promela{flags}{chosen}{lists} --out {out}"


def _caps_of(caps: Caps | None, bounds: Bounds, reading: Reading) -> list[tuple[str, int]]:
    caps = caps or capacities(bounds, reading)
    return [(f, getattr(caps, f)) for f in caps.__slots__]


def header(bounds: Bounds, reading: Reading, out: str = "FILE", caps: Caps | None = None) -> str:
    """The generated file's opening comment: what it is, how it was made, how to run Spin on it."""
    name = out.rsplit("/", 1)[-1]
    sizes = "\n * ".join(textwrap.wrap(
        "An `assert` fails where a successor would not fit an array: pan then reports an error (export again "
        "with a larger --list-capacity). The capacities: " + ", ".join(
            f"{k} {v}" for k, v in _caps_of(caps, bounds, reading)) + ".", 100))
    given = "\n * ".join(textwrap.wrap("Bounds: " + ", ".join(f"{k}={v}" for k, v in bounds.as_dict().items()) + ".",
                                        96))
    return f"""/*
 * {name}: GENERATED from the rule table (model/rules.py) by checks/spin/promela.py; do not edit.
 *
 *     {command(bounds, reading, out, caps)}
 *
 * {given}
 * Reading: {reading.name}.
 *
 * Spin explores the states of `explore(Machine(bounds, reading, properties=()))`, state for state:
 *
 *     spin {" ".join(SPIN_FLAGS)} {name}
 *     gcc {" ".join(CC_FLAGS)} -o pan pan.c
 *     ./pan {" ".join(PAN_FLAGS)}
 *
 * pan's "states, stored" is the number of states `pausecheck check` stores at these bounds and this
 * reading. How the state maps: every sequence is an array (its capacity from the bounds) and a length
 * `<name>_n`, every slot past the length 0; strings are small integers ("" 0, statuses and phases 1..16,
 * execution e<n> 32+n, a racing resume's segment e<n>' 48+n, call c<n> 64+n). Each `do` option is one
 * action: a rule at one slot (a session; an execution slot; a segment slot with the execution slot it
 * belongs to) and one value of each parameter; its guard is the d_step's first statement, its effect
 * the rest. The hidden `_t` are the temporaries of one step, 0 between steps (not in the state vector).
 * {sizes}
 */
"""


def generate(bounds: Bounds, reading: Reading, out_name: str = "FILE", caps: Caps | None = None,
             checks: Checks | None = None, rules: tuple[Any, ...] = RULES, actions: Actions | None = None) -> Model:
    """The Promela model of the rules under these bounds and this reading (see the module's doc), with the
    `checks` of a search if given, and the line of every option's guard; the header's command names
    `out_name` as the file written. `caps` (default `Caps.of(bounds)`) sizes the arrays: smaller ones make
    pan report the successors that do not fit. `rules` (default the rule table) is the table written out:
    a mutant's deviating table, where it has one. With `actions`, one process per action (pid by first
    appearance in the table's order), each looping over the options that take it (`checks/spin/fair.py`)."""
    caps = caps or capacities(bounds, reading)
    _refuse(bounds, caps)
    assert actions is None or checks is None, "a model of one process per action checks nothing but liveness"
    options, most, found, apart, guards = _options(bounds, reading, caps, checks, rules, actions)
    out = [header(bounds, reading, out_name, caps)] + _declarations(caps)
    out.append(f"hidden int _t[{max(most, 1)}];  /* the temporaries of one step, 0 between steps */")
    out.append("hidden int _k;")
    out += [] if checks is None else checks.declarations()
    out.append("")
    bodies = [("flowdrop", None, options)] if actions is None else \
        [(f"p{pid}", action, lines) for pid, (action, lines) in enumerate(apart.items())]
    if len(bodies) > 255:
        raise TooLarge(f"one process per action needs {len(bodies)} processes; Spin holds at most 255: "
                       "lower the bounds")
    starts: list[int] = []  # the line before each process's first option
    for name, action, body in bodies:
        out.append(f"active proctype {name}() {{" + ("" if action is None else f"  /* {action!r} */"))
        out.append("end:")
        out.append("    do")
        starts.append("\n".join(out).count("\n") + 1)
        out += body
        out.append("    od")
        out.append("}")
    placed = []
    for b, (_, action, body) in enumerate(bodies):
        mine = [(k, o) for k, o in found if actions is None or o.action == action]  # offsets within `body`
        ends = [k for k, _ in mine[1:]] + [len(body) + 1]
        placed += [dataclasses.replace(option, line=starts[b] + k + 1, end=starts[b] + end - 1)
                   for (k, option), end in zip(mine, ends, strict=True)]
    processes = () if actions is None else tuple(action for _, action, _ in bodies)
    enabled = tuple(" || ".join(f"({g})" for g in guards[action]) for action in processes)
    return Model("\n".join(out) + "\n", tuple(placed), processes, enabled)


def promela(bounds: Bounds, reading: Reading, out_name: str = "FILE", caps: Caps | None = None,
            rules: tuple[Any, ...] = RULES) -> str:
    """The Promela model of the rules (`rules`: a mutant's table, where it has one) under these bounds and this
    reading, checking nothing but that every successor fits its arrays (`generate` with no checks)."""
    return generate(bounds, reading, out_name, caps, rules=rules).text

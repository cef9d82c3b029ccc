"""Any number of sessions, step by step: what each rule does to the lists every session shares.

The state keeps every session's items in shared lists (executions, segments, warnings, artifacts, crashed
refs, new turns) and shares three counters (failed write-backs, crashes, lost races). A step of one session
leaves every other session as it was, and moves its own part as it would move alone, if every read and write
of a shared list treats the items of the other sessions as if they were not there. That is a property of
each operation on a shared list, one item at a time, so it holds for lists of any length: for any number of
sessions. This module asks z3 whether it holds, for every operation of every rule of the table (a mutant's,
a draft's), on an item that stands for every item of every other session:

- *transparent*: a read (count, any, all, sum, first, fold) gives the same as if the item were absent (a
  count does not count it, a fold leaves its accumulator as it was, or only adds the other session's own
  refs to a list), and a write (map, filter, update) leaves it exactly as it was, or, for a crash, which is
  every session's step, keeps it the other session's;
- *own item*: what a step adds to a shared list (an execution, a segment, a warning, an artifact, a new
  turn) is the acting session's;
- *budget*: where a guard counts every session's items (expiries, new turns, artifacts, node failures) or
  reads a shared counter, it is monotone: it holds for fewer items or a smaller count wherever it holds
  for more, so what the others spent only narrows what the session may do (the session alone, with only
  its own share spent, may do it too);
- *fresh*: a new execution id (`|S.executions| + 1`) or new artifact refs (`|S.artifacts| + 1 ...`) are
  only ever the next names, which a session alone gives in the same order (the projection renames them);
- *crash*: a crash is enabled while any session has a segment in flight; for a session with none it must
  change nothing, which `checks/symbolic/anysessions.py` checks on the one-session states.

Every other item's content is arbitrary but for what each session's projection being a one-session state
gives (the induction hypothesis): its ids and refs are its own (`session_of(id)`, `execution_of(ref)`, two
uninterpreted functions), never the acting session's. Whatever a rule reads of the state besides the item
and its own records (another shared list, a let) is left arbitrary, so a finding that holds holds of every
state; one that fails comes with the item z3 found, which may be unreachable (then `anysessions` looks for a
run that shows it).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.exprtext import expr_text
from pausecheck.model.formulas import step_values
from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import RECORDS, End, Expr, Let, Rule, SeqOf, Set, When, specialize
from pausecheck.model.reading import Reading
from pausecheck.model.rules import EXECUTIONS, ONCE, SEGMENTS, SESSIONS
from pausecheck.model.state import Artifact, Execution, Segment, State, Warning

from .relation import Caps, Lower, _decode, fresh, fresh_value, plan, well_formed
from .values import BITS, CALL, EXEC, RACE, Z3, OptV, Seq, pick, reader, same

__all__ = ["Finding", "LEMMAS", "footprint", "carries", "carries_step"]

LEMMAS: dict[str, str] = {
    "transparent": "a read or write of a shared list treats another session's item as if it were not there",
    "own item": "what a step adds to a shared list is the acting session's",
    "budget": "a guard that counts every session's items, or reads a shared counter, holds for fewer wherever it "
              "holds for more",
    "fresh": "new execution ids and artifact refs are the next names, and no execution or artifact is dropped",
    "crash": "a crash is enabled by any session's segment in flight",
    "renamed": "refs are only compared (=, <) and looked up (S.artifacts.at(r - 1)), never counted with, so a session "
               "alone, its refs renumbered in order, sees the same",
    "followed": "every use of a shared list is one of the forms above",
}

SHARED = ("executions", "segments", "warnings", "artifacts", "crashed", "new_turns")
COUNTERS = ("write_failures", "crashes", "races")
_ITEM = {"executions": Execution, "segments": Segment, "warnings": Warning, "artifacts": Artifact,
         "crashed": int, "new_turns": int, "refs": int}
_READS = ("count", "any", "all", "sum", "first", "fold", "update_where", "update_last")
_BODIES = _READS + ("filter", "map")
# Operations that build a list from a list drawn from the shared ones: whoever reads the result judges it.
_BUILDERS = ("append", "insert", "concat", "set_last", "prefix", "suffix", "update_where", "update_last", "filter",
             "map")
_REF_FIELDS = {Execution: ("held", "messages"), Segment: ("collected", "taken"), Warning: ("ref",)}


@dataclass(frozen=True)
class Finding:
    """One use of a shared list (or counter) by one rule, the lemma it needs and whether z3 shows it."""

    rule: str  # the action kind
    what: str  # the expression, as the docs write it
    lemma: str  # a key of LEMMAS
    holds: bool
    why: str = ""  # where it fails: the other session's item z3 found


def _shared(x: Any) -> str | None:
    """The shared list `x` is (S.executions, ...; P.executions, ... in a transition property), if it is one."""
    if isinstance(x, Expr) and x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] in ("S", "P") \
            and x.args[1] in SHARED:
        return x.args[1]
    return None


def _counter(x: Any) -> bool:
    return isinstance(x, Expr) and x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == "S" \
        and x.args[1] in COUNTERS


def _mentions_size(x: Any, name: str) -> bool:
    return isinstance(x, Expr) and any(n.op == "len" and _shared(n.args[0]) == name for n in _walk(x))


def _walk(x: Any) -> Iterator[Expr]:
    if isinstance(x, Expr):
        yield x
        for a in x.args:
            yield from _walk(a)
    elif isinstance(x, tuple):
        for a in x:
            yield from _walk(a)


def _free_items(x: Expr) -> set[str]:
    """The items of lists `x` reads that it does not itself range over (a body's `_x<n>` from outside)."""
    used, bound = set(), set()
    for n in _walk(x):
        if n.op == "var" and n.args[0].startswith("_x"):
            used.add(n.args[0])
        if n.op in _BODIES or n.op == "zip_all":
            bound.update(a.args[0] for a in n.args[1:] if isinstance(a, Expr) and a.op == "var")
    return used - bound


# The names a rule's expressions read that are the same throughout a step but for what it sets (a read after a
# `Set` is keyed anew: `_Walk.writes`).
_FIXED = frozenset({"S", "P", "session", "e", "g", "run"})


def _reads_names(x: Expr) -> set[str]:
    return {n.args[0] for n in _walk(x) if n.op == "var" and not n.args[0].startswith(("_x", "act.", "kind:"))}


def _derived(x: Any) -> str | None:
    """The shared list whose items (some of them) `x` holds: the list itself, a filter, map or edit of one, or
    the range of every artifact ref (`range(1, |S.artifacts| + 1)`)."""
    name = _shared(x)
    if name is not None:
        return name
    if not isinstance(x, Expr):
        return None
    if x.op in ("filter", "map", "update_where", "update_last", "append", "insert", "set_last", "prefix", "suffix"):
        return _derived(x.args[0])
    if x.op == "concat":
        return _derived(x.args[0]) or _derived(x.args[1])
    if x.op == "fold" and isinstance(x.t, SeqOf) and _derived(x.args[0]):
        return "refs"
    if x.op == "span" and _mentions_size(x.args[1], "artifacts") and not _mentions_size(x.args[0], "artifacts"):
        return "refs"
    return None


class _Unfollowed(Exception):
    """A use of a shared list none of the lemmas speaks of."""


class _Havoc(Lower):
    """The lowering with every read of a shared list left arbitrary (a fresh value of its type), and an artifact
    read by its ref (`S.artifacts.at(r - 1)`) giving that ref's execution, `execution_of(r)`."""

    def __init__(self, walk: _Walk) -> None:
        super().__init__(Z3, walk.caps)
        self.w = walk
        self.given: dict[int, Any] = {}  # node id -> the value to use for it (a budget's two counts)
        self.same: dict[tuple[str, int], Any] = {}

    def expr(self, x: Expr, env: dict[str, Any]) -> Any:  # type: ignore[override]
        if id(x) in self.given:
            return self.given[id(x)]
        if x.op == "at" and _shared(x.args[0]) == "artifacts":
            ref = self.A.add(super().expr(x.args[1], env), self.n(1))
            return (self.w.art(ref), z3.BitVec(f"call{next(self.w.names)}", BITS))
        if x.op in ("any", "all", "count") and _shared(x.args[0]) and self.w.context is not None:
            decided = self.decided(x, env)
            if decided is not None:
                return decided
        if (x.op != "field" and x.args and _derived(x.args[0])) or x.op == "span" and _derived(x):
            if _free_items(x) or _reads_names(x) - _FIXED:
                return self.w.any_value(x.t)  # over an item of a list, or a let: arbitrary each time
            key = (expr_text(x), self.w.writes)  # the same read of the same state: the same arbitrary value
            if key not in self.same:
                self.same[key] = self.w.any_value(x.t)
            return self.same[key]
        return super().expr(x, env)


    def decided(self, x: Expr, env: dict[str, Any]) -> Any:
        """A read of a shared list whose test is the same for an item of any session (what is known where it is
        read, `_Walk.context`, decides it): its value; else None."""
        who = z3.BitVec(f"whose{next(self.w.names)}", BITS)
        item, known = self.w.item(_shared(x.args[0]), who)
        test = self.expr(x.args[2], {**env, x.args[1].args[0]: item})
        facts = self.w.context + known
        if self.w.holds(facts, z3.Not(test))[0]:  # no item passes
            return {"any": self.A.boolean(False), "all": None, "count": self.n(0)}[x.op] if x.op != "all" else None
        if x.op == "all" and self.w.holds(facts, test)[0]:
            return self.A.boolean(True)
        return None


class _Walk:
    """The findings of one rule instance: its guard's parts and its effect, walked with the values they see."""

    def __init__(self, caps: Caps, bounds: Bounds, rule: Rule | None, findings: list[Finding]) -> None:
        self.caps, self.bounds, self.rule, self.findings = caps, bounds, rule, findings
        self.names = itertools.count()
        self.session_of = z3.Function("session_of", z3.BitVecSort(BITS), z3.BitVecSort(BITS))
        self.execution_of = z3.Function("execution_of", z3.BitVecSort(BITS), z3.BitVecSort(BITS))
        self.L = _Havoc(self)
        self.once = rule is not None and rule.over is ONCE
        self.seen: set[tuple[str, str, bool]] = set()
        self.writes = 0  # statements that set something so far (a read after a write reads another state)
        self.actor: Any = None  # in a transition property: the acting session (None for a crash: every session's)
        self.context: list[Any] | None = None  # what is known where a filter's test is lowered (`_Havoc.decided`)

    # -- values and what the induction hypothesis says of them
    def any_value(self, t: Any) -> Any:
        return fresh_value(self.caps, t, f"v{next(self.names)}")

    def art(self, ref: Any) -> Any:
        return self.execution_of(ref)

    def base(self, key: Any) -> Any:
        racing = z3.And(z3.BitVecVal(RACE, BITS) < key, key < z3.BitVecVal(CALL, BITS))
        return z3.If(racing, key - (RACE - EXEC), key)

    def owner(self, value: Any, t: Any) -> Any:
        """The session an item of type `t` belongs to."""
        if t is Execution:
            return value[1]
        if t is Segment:
            return self.session_of(self.base(value[0]))
        if t in (Warning, Artifact):
            return self.session_of(value[0])
        if t == "session":
            return value
        return self.session_of(self.art(value))  # a ref

    def owned(self, value: Any, t: Any, who: Any) -> list[Any]:
        """What the induction hypothesis says of an item of type `t` that is session `who`'s: its shape, its own
        ids and its own refs."""
        facts = [well_formed(Z3, value, t)] if t in RECORDS or isinstance(t, SeqOf) else []
        if isinstance(t, SeqOf):
            for k, item in enumerate(value.items):
                facts += [z3.Implies(z3.BitVecVal(k, BITS) < value.length, f) for f in self.owned(item, t.item, who)]
            return facts
        if t is Execution:  # its id is an execution's (e1, e2, ...), and names it
            facts += [z3.BitVecVal(EXEC, BITS) < value[0], value[0] < z3.BitVecVal(RACE, BITS),
                      self.session_of(value[0]) == value[1]]
        if t in (Segment, Warning, Artifact):  # its execution is an execution's id
            base = self.base(value[0]) if t is Segment else value[0]
            facts += [z3.BitVecVal(EXEC, BITS) < base, base < z3.BitVecVal(RACE, BITS)]
        if t in RECORDS:
            facts.append(self.owner(value, t) == who)
            for name in _REF_FIELDS.get(t, ()):
                part, ft = value[t._fields.index(name)], FIELD_TYPES[t][name]
                facts += self.owned(part, ft, who) if isinstance(ft, SeqOf) else [self.owner(part, "ref") == who]
            return facts
        if t is int:  # a ref (the only scalars kept in the lists this is asked of)
            facts.append(self.owner(value, "ref") == who)
        return facts

    def item(self, list_name: str, who: Any) -> tuple[Any, list[Any]]:
        """A fresh item of a shared list that is session `who`'s, with what is known of it."""
        t = _ITEM[list_name]
        value = z3.BitVec(f"item{next(self.names)}", BITS) if t is int else self.any_value(t)
        if list_name == "new_turns":
            return value, [value == who]
        return value, self.owned(value, t, who)

    # -- asking z3
    def holds(self, facts: list[Any], goal: Any, item: Any = None, t: Any = None) -> tuple[bool, str]:
        """Does `goal` follow from `facts`? Where it does not, what z3 found: the other session's `item` (of type
        `t`), read from its model, if given."""
        solver = z3.Solver()
        solver.add(facts)
        solver.add(z3.Not(goal))
        if solver.check() == z3.unsat:
            return True, ""
        model = solver.model()
        if item is None:
            return False, "z3 finds a state where it fails"
        value = _decode(t, item, reader(model)) if t is not int else reader(model)(item)
        return False, f"another session's {getattr(t, '__name__', 'ref')} {value}"

    def find(self, lemma: str, x: Any, holds: bool, why: str = "") -> None:
        what = expr_text(x) if isinstance(x, Expr) else str(x)
        key = (lemma, what, holds)
        if key not in self.seen:
            self.seen.add(key)
            self.findings.append(Finding(self.rule.action.__name__ if self.rule else "", what, lemma, holds, why))

    # -- the other sessions' items a list value holds
    def foreign(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> tuple[Any, list[Any]] | None:
        """An item of the list `x` (derived from a shared list) that is another session's than `me`'s, with what
        is known of it; None where `x` can hold none (a filter keeps only `me`'s). A list with items from two
        places (a concat) must be asked of each: `foreigners`."""
        found = self.foreigners(x, env, facts, me)
        if len(found) > 1:
            raise _Unfollowed(f"another session's items from {len(found)} places, read as one")
        return found[0] if found else None

    def foreigners(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> list[tuple[Any, list[Any]]]:
        """Each kind of item of the list `x` that is another session's than `me`'s (one per place it comes from)."""
        name = _shared(x)
        if name is not None:
            other = z3.BitVec(f"other{next(self.names)}", BITS)
            value, known = self.item(name, other)
            return [(value, known + [other != me])]
        if x.op == "span":  # every artifact ref
            other = z3.BitVec(f"other{next(self.names)}", BITS)
            value = z3.BitVec(f"item{next(self.names)}", BITS)
            return [(value, [self.owner(value, "ref") == other, other != me])]
        if x.op == "concat":
            return [f for side in x.args[:2] if _derived(side) for f in self.foreigners(side, env, facts, me)]
        if _new_items(x):  # what the step added: the acting session's (a crash's: any session's)
            who = self.actor if self.actor is not None else z3.BitVec(f"other{next(self.names)}", BITS)
            value, known = self.item(_shared(x.args[0]), who)
            return [(value, known + [who != me])]
        if x.op in ("append", "insert", "set_last", "update_where", "update_last", "prefix", "suffix"):
            return self.foreigners(x.args[0], env, facts, me)
        if x.op == "fold" and isinstance(x.t, SeqOf) and x.t.item is int:
            # a list of refs gathered item by item: another session's item adds only its own refs (`read` asks
            # this of the fold), so the list's other refs are other sessions'
            other = z3.BitVec(f"other{next(self.names)}", BITS)
            value = z3.BitVec(f"item{next(self.names)}", BITS)
            return [(value, [self.owner(value, "ref") == other, other != me])]
        if x.op in ("filter", "map"):
            out = []
            for value, known in self.foreigners(x.args[0], env, facts, me):
                self.context = facts + known
                try:
                    body = self.L.expr(x.args[2], {**env, x.args[1].args[0]: value})
                finally:
                    self.context = None
                if x.op == "map":
                    out.append((body, known))
                    continue
                solver = z3.Solver()
                solver.add(facts + known + [body])
                if solver.check() != z3.unsat:
                    out.append((value, known + [body]))
            return out
        raise _Unfollowed(f"{x.op} of a shared list")

    # -- walking
    def instance(self, guard: list[Expr], fields: tuple[Expr, ...], effect: tuple[Any, ...]) -> None:
        me = z3.BitVec("me", BITS)
        env: dict[str, Any] = {"S": fresh(self.caps, "S")}
        facts: list[Any] = _scalars(env["S"], self.bounds)
        if self.rule.over is SESSIONS:
            env["session"] = me
        if self.rule.over in (EXECUTIONS, SEGMENTS):
            env["e"] = self.any_value(Execution)
            facts += self.owned(env["e"], Execution, me)
        if self.rule.over is SEGMENTS:
            env["g"] = self.any_value(Segment)
            env["run"] = OptV(z3.Bool("run.present"), self.any_value(FIELD_TYPES[Execution]["attempts"].item))
            facts += self.owned(env["g"], Segment, me) + [self.base(env["g"][0]) == env["e"][0]]
        for part in guard:
            self.visit(part, env, facts, me, part)
            facts = facts + [self.L.expr(part, env)]
        for x in fields:
            self.visit(x, env, facts, me)
        self.block(effect, env, facts, me)
        if not any(f.lemma == "renamed" and not f.holds and f.rule == self.rule.action.__name__ for f in self.findings):
            self.find("renamed", f"every ref {self.rule.action.__name__} reads", True)

    def block(self, stmts: tuple[Any, ...], env: dict[str, Any], facts: list[Any], me: Any) -> dict[str, Any]:
        for st in stmts:
            if isinstance(st, Let):
                self.visit(st.value, env, facts, me)
                if _derived(st.value):
                    self.mine_only(st.value, f"let {st.name}", env, facts, me)
                env = {**env, st.name: self.L.expr(st.value, env)}
            elif isinstance(st, Set):
                if not _counter(st.target):
                    self.visit(st.value, env, facts, me)
                env = self.write(st, env, facts, me)
                self.writes += 1
            elif isinstance(st, When):
                self.visit(st.test, env, facts, me)
                test = self.L.expr(st.test, env)
                then = self.block(st.then, env, facts + [test], me)
                otherwise = self.block(st.otherwise, env, facts + [z3.Not(test)], me)
                env = {name: pick(Z3, test, then[name], otherwise[name]) if name in otherwise else then[name]
                       for name in then}
            elif not isinstance(st, End):
                raise _Unfollowed(f"statement {st!r}")
        return env

    def write(self, st: Set, env: dict[str, Any], facts: list[Any], me: Any) -> dict[str, Any]:
        target = st.target
        record, name = target.args[0].args[0], target.args[1]
        if record == "S" and name in SHARED:
            self.keeps_others(st.value, name, env, facts, me)
            return env
        if record == "S" and name in COUNTERS:
            self.spends(st, env, facts)
            return env
        if record == "S":
            raise _Unfollowed(f"a write of S.{name}")
        if _derived(st.value):
            self.mine_only(st.value, f"set {record}.{name}", env, facts, me)
        fields = list(env[record])
        rtype = Execution if record == "e" else Segment
        fields[rtype._fields.index(name)] = self.L._fit(rtype, name, self.L.expr(st.value, env))
        return {**env, record: tuple(fields)}

    def spends(self, st: Set, env: dict[str, Any], facts: list[Any]) -> None:
        """A shared counter is set to a function of itself alone that never falls and keeps its order (so a
        session's share, updated by the same function, stays within the count)."""
        reads = [n for n in _walk(st.value) if _counter(n)]
        if any(n.args[1] != st.target.args[1] for n in reads):
            self.find("budget", st.value, False, "a shared counter set from another")
            return
        lo, hi = z3.BitVec(f"fewer{next(self.names)}", BITS), z3.BitVec(f"more{next(self.names)}", BITS)
        for n in reads:
            self.L.given[id(n)] = lo
        at_lo = self.L.expr(st.value, env)
        for n in reads:
            self.L.given[id(n)] = hi
        at_hi = self.L.expr(st.value, env)
        for n in reads:
            del self.L.given[id(n)]
        now = env["S"][State._fields.index(st.target.args[1])]
        bound = getattr(self.bounds, st.target.args[1])
        # monotone, and a share it leaves as it was is a count it leaves as it was (so `P = S` carries)
        ok, why = self.holds(facts + [0 <= lo, lo <= hi, hi <= bound],
                             z3.And(at_lo <= at_hi, z3.Implies(at_lo == lo, at_hi == hi)))
        if ok:  # and it never falls, nor passes its bound (where the step is taken)
            after = self.L.expr(st.value, env)
            ok, why = self.holds(facts, z3.And(now <= after, after <= bound))
        self.find("budget", st.value, ok, why)

    def keeps_others(self, value: Expr, name: str, env: dict[str, Any], facts: list[Any], me: Any) -> None:
        """A write of a shared list keeps every other session's items as they were, in order (a crash: keeps
        them the other sessions'), and adds only the acting session's."""
        x = value
        if self.once:  # every session's step: another session's items stay the other session's
            item = self.foreign(x, env, facts, me) if _derived(x) else None
            if item is not None:
                value_, known = item
                ok, why = self.holds(facts + known, self.owner(value_, _ITEM[name]) != me)
                self.find("transparent", x, ok, why)
            return
        while isinstance(x, Expr) and _shared(x) != name:
            if x.op in ("append", "insert"):
                self.own(x.args[1], _ITEM[name], env, facts, me)
            elif x.op == "concat" and _derived(x.args[0]) == name:
                self.own(x.args[1], SeqOf(_ITEM[name]), env, facts, me)
            elif x.op == "filter" and name in ("executions", "artifacts"):
                self.find("fresh", value, False, f"an item of S.{name} dropped: its ids (refs) stop naming their "
                          "positions")
                return
            elif x.op in ("map", "filter", "update_where", "update_last"):
                inner = self.foreign(x.args[0], env, facts, me)
                if inner is not None:
                    v, known = inner
                    scope = {**env, x.args[1].args[0]: v}
                    if x.op == "map":
                        goal = same(Z3, self.L.expr(x.args[2], scope), v)
                    elif x.op == "filter":
                        goal = self.L.expr(x.args[2], scope)
                    else:
                        goal = z3.Or(z3.Not(self.L.expr(x.args[2], scope)),
                                     same(Z3, self.L.expr(x.args[3], scope), v))
                    ok, why = self.holds(facts + known, goal, v, _ITEM.get(_derived(x.args[0]) or "", None))
                    self.find("transparent", x, ok, "" if ok else f"it changes {why}")
            else:
                self.find("followed", value, False, f"S.{name} set to a {x.op} of it")
                return
            x = x.args[0]
        if not isinstance(x, Expr):
            self.find("followed", value, False, f"S.{name} set to a value not built from it")

    def own(self, x: Expr, t: Any, env: dict[str, Any], facts: list[Any], me: Any) -> None:
        """What `x` adds to a shared list is the acting session's (a fresh execution id counted as its own)."""
        value = self.L.expr(x, env)
        fresh_ids = []
        for n in _walk(x):
            if n.op == "exec_id":  # the new execution: the acting session's, and an execution id
                new = self.L.expr(n, env)
                fresh_ids += [self.session_of(new) == me, z3.BitVecVal(EXEC, BITS) < new,
                              new < z3.BitVecVal(RACE, BITS)]
        if isinstance(t, SeqOf):
            goal = z3.And([z3.Implies(z3.BitVecVal(k, BITS) < value.length, self.owner(item, t.item) == me)
                           for k, item in enumerate(value.items)] + [z3.BoolVal(True)])
        else:
            goal = self.owner(value, t if t is not int else "session")
            goal = goal == me
        ok, why = self.holds(facts + fresh_ids, goal)
        self.find("own item", x, ok, why)

    def visit(self, x: Any, env: dict[str, Any], facts: list[Any], me: Any, part: Expr | None = None) -> None:
        if not isinstance(x, Expr) or x.op in ("const", "var"):
            return
        if x.op == "exec_id":
            arg = x.args[0]
            ok = arg.op == "+" and arg.args[0].op == "len" and _shared(arg.args[0].args[0]) == "executions" \
                and arg.args[1].op == "const" and arg.args[1].args[0] == 1
            self.find("fresh", x, ok, "" if ok else "an execution id other than |S.executions| + 1")
            if ok:
                return
        if x.op == "span" and _mentions_size(x.args[0], "artifacts"):
            start, stop = x.args
            first = start.op == "+" and start.args[0].op == "len" and _shared(start.args[0].args[0]) == "artifacts" \
                and start.args[1].op == "const" and start.args[1].args[0] == 1
            ok = first and (expr_text(stop) == expr_text(start) or stop.op == "+" and stop.args[1].op == "const"
                            and expr_text(stop.args[0]) == expr_text(start))
            self.find("fresh", x, ok, "" if ok else "new refs other than |S.artifacts| + 1 ...")
            if ok:
                return
        if _new_items(x):
            return  # the items the step added (`_new_items`): read as the others are
        if x.op == "span" and _derived(x) == "refs":
            return  # every artifact ref, 1 to |S.artifacts|: a list of every session's refs, read as the others are
        if x.op == "len" and _shared(x.args[0]) or _counter(x):
            self.aggregate(x, env, facts, me, part)
            return
        if x.op == "len" and _derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            if self.foreigners(x.args[0], env, facts, me):
                self.aggregate(x, env, facts, me, part)
            return
        if x.op in _BODIES and _derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            self.read(x, env, facts, me, part)
            return
        if x.op in ("at", "last", "contains") and _derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            if x.op == "at" and _shared(x.args[0]) == "artifacts":
                index = x.args[1]
                looked_up = index.op == "-" and index.args[1].op == "const" and index.args[1].args[0] == 1
                self.visit(index.args[0] if looked_up else index, env, facts, me, part)
                return  # an artifact by its ref: execution_of(ref), whoever's ref it is
            if x.op == "contains":
                inner = self.foreign(x.args[0], env, facts, me)
                if inner is not None:
                    v, known = inner
                    ok, why = self.holds(facts + known, z3.Not(same(Z3, v, self.L.expr(x.args[1], env))))
                    self.find("transparent", x, ok, why)
                return
            inner = self.foreign(x.args[0], env, facts, me)
            self.find("transparent", x, inner is None, "" if inner is None else "the last item may be another "
                      "session's")
            return
        if x.op in _BODIES:  # over a list of the step's own records: the body sees items of the same session
            self.visit(x.args[0], env, facts, me, part)
            self.local(x, env, facts, me)
            return
        if x.op in ("+", "-", "min", "sum") and any(_ref_like(a) for a in x.args):
            self.find("renamed", x, False, "a ref counted with")
        if x.op not in _BUILDERS:
            for a in x.args:
                if isinstance(a, Expr) and a.op != "var" and _derived(a):
                    self.mine_only(a, x.op, env, facts, me)
        for a in x.args:
            if isinstance(a, (Expr, tuple)):
                for y in (a if isinstance(a, tuple) else (a,)):
                    self.visit(y, env, facts, me, part)

    def mine_only(self, x: Expr, use: str, env: dict[str, Any], facts: list[Any], me: Any) -> None:
        """A list drawn from the shared lists used as a whole (kept in a record, compared, bound to a name) holds
        only the session's own items."""
        found = self.foreigners(x, env, facts, me)
        self.find("transparent", x, not found, "" if not found else f"used whole ({use}) while it may hold another "
                  "session's items")

    def local(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> None:
        """The body of an operation over a list of a record's own: its item bound arbitrary (its refs `me`'s)."""
        t = x.args[0].t.item
        if x.op == "sum" and _ref_like(x.args[2]):
            self.find("renamed", x, False, "refs summed")
        if x.op == "fold":
            acc, v = x.args[2].args[0], x.args[3].args[0]
            self.visit(x.args[1], env, facts, me)
            item = self.any_value(t)
            self.visit(x.args[4], {**env, acc: self.any_value(x.args[1].t), v: item}, facts + self._refs(item, t, me),
                       me)
            return
        item = self.any_value(t)
        scope = {**env, x.args[1].args[0]: item}
        for body in x.args[2:]:
            self.visit(body, scope, facts + self._refs(item, t, me), me)

    def _refs(self, item: Any, t: Any, me: Any) -> list[Any]:
        if t is int or (isinstance(t, SeqOf) and t.item is int):
            return self.owned(item, t, me)
        return []

    def read(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any, part: Expr | None) -> None:
        """An operation with a body over a shared list: transparent to another session's item, and its body,
        for an item of any session, transparent to the items of every session but that item's."""
        op = x.op
        # the body, for an item of any session (its nested reads relative to that item's session)
        who = z3.BitVec(f"whose{next(self.names)}", BITS)
        value, known = self.element(x.args[0], env, who)
        if op == "fold":
            acc_name, v = x.args[2].args[0], x.args[3].args[0]
            self.visit(x.args[1], env, facts, me, part)
            self.visit(x.args[4], {**env, acc_name: self.any_value(x.args[1].t), v: value}, facts + known, who)
        else:
            for body in x.args[2:]:
                self.visit(body, {**env, x.args[1].args[0]: value}, facts + known, who)
        if op in ("filter", "map"):
            return  # a filter or map passes another session's items on, to the read that takes them
        found = self.foreigners(x.args[0], env, facts, me)
        if not found:
            self.find("transparent", x, True, "")  # it reads only the session's own items
            return
        for v, known in found:
            if op == "fold" and _added(x) is not None:  # acc ++ what the item adds: only another session's refs
                scope = {**env, x.args[3].args[0]: v}
                goal = z3.And([self._foreign_items(self.L.expr(part, scope), me) for part in _added(x)])
            elif op == "fold":
                acc_name, var = x.args[2].args[0], x.args[3].args[0]
                acc = self.any_value(x.args[1].t)
                if isinstance(acc, Seq):
                    known = known + [well_formed(Z3, acc, x.args[1].t)]
                after = self.L.expr(x.args[4], {**env, acc_name: acc, var: v})
                goal = same(Z3, after, acc) if not isinstance(acc, Seq) else self._extends(acc, after, me)
            else:
                body = self.L.expr(x.args[2], {**env, x.args[1].args[0]: v})
                goal = {"count": z3.Not(body) if op == "count" else None, "any": z3.Not(body) if op == "any" else None,
                        "first": z3.Not(body) if op == "first" else None, "all": body if op == "all" else None,
                        "sum": body == 0 if op == "sum" else None}.get(op)
                if op in ("update_where", "update_last"):
                    goal = z3.Or(z3.Not(body), same(Z3, self.L.expr(x.args[3], {**env, x.args[1].args[0]: v}), v))
            ok, why = self.holds(facts + known, goal, v, _ITEM.get(_derived(x.args[0]) or "", None))
            if not ok and part is not None and op in ("count", "sum"):
                self.budget(x, env, facts, part, known, v)
                return
            if not ok:
                self.find("transparent", x, False, why)
                return
        self.find("transparent", x, True)

    # -- a transition property, at one step
    def implied(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
        """"" where the value of `x` on the whole step follows from its value on each moving session's part (every
        other session's part unchanged), else why not."""
        if x.op == "const":
            return "" if x.args[0] else "false at this step"
        if x.op in ("and", "or"):
            return self.implied(x.args[0], env, facts, me) or self.implied(x.args[1], env, facts, me)
        if x.op == "zip_all" and _shared(x.args[0]) == _shared(x.args[1]) == "executions":
            return self.zipped(x, env, facts, me)
        if x.op == "all" and _new_items(x.args[0]):
            who = z3.BitVec(f"whose{next(self.names)}", BITS)
            value, known = self.element(x.args[0], env, who)
            return self.exact(x.args[2], {**env, x.args[1].args[0]: value}, facts + known, who)
        sides = x.args[:2] if x.op in ("==", "<=") else ()
        if len(sides) == 2 and all(isinstance(y, Expr) and y.op == "len" and _shared(y.args[0]) for y in sides) \
                and _shared(sides[0].args[0]) == _shared(sides[1].args[0]):
            return ""  # |S.L| and |P.L|: every other session adds nothing to either
        if x.op == "==" and all(_shared(y) for y in sides) and _shared(sides[0]) == _shared(sides[1]) or \
                x.op == "==" and {y.op == "var" and y.args[0] for y in sides} == {"S", "P"}:
            return ""  # S.L = P.L, or P = S: every other session's part is as it was (and the counters, `spends`)
        if self.actor is None:
            return f"{expr_text(x)[:100]}: a crash moves every session, and this form is not read of each"
        return self.exact(x, env, facts, me)

    def exact(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
        """"" where every read of `x` sees only session `me`'s items (so its value is its value on `me`'s part)."""
        saved = self.findings, self.seen
        self.findings, self.seen = [], set()
        try:
            self.visit(x, env, facts, me)
            bad = [f for f in self.findings if not f.holds]
        except _Unfollowed as error:
            bad = [Finding("", expr_text(x), "followed", False, str(error))]
        finally:
            self.findings, self.seen = saved
        return "; ".join(f"{f.what[:100]}: {f.why or LEMMAS[f.lemma]}" for f in bad)

    def zipped(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> str:
        """`S.executions.zip_all(P.executions, body)`: each pair of a moving session is its part's pair (executions
        are never removed), whose body sees only that session's items; every other session's pair is an
        execution and itself, for which the body must hold."""
        u, v, body = x.args[2].args[0], x.args[3].args[0], x.args[4]
        who = z3.BitVec(f"whose{next(self.names)}", BITS)
        before, known = self.item("executions", who)
        after, known_after = self.item("executions", who)
        moving = [before[0] == after[0]] + ([who == self.actor] if self.actor is not None else [])
        why = self.exact(body, {**env, u: before, v: after}, facts + known + known_after + moving, who)
        if why:
            return why
        other = z3.BitVec(f"other{next(self.names)}", BITS)
        same_item, known = self.item("executions", other)
        stutters = [other != me] if self.actor is not None else []
        ok, why = self.holds(facts + known + stutters, self.L.expr(body, {**env, u: same_item, v: same_item}))
        return "" if ok else f"{expr_text(x)[:100]}: fails for another session's unchanged execution ({why})"

    def summed(self, x: Expr, env: dict[str, Any], facts: list[Any]) -> None:
        """The list `x` is gathered from shared lists item by item, each item adding what only it and its
        session's items give (so its length is the sum of each session's part's)."""
        if _shared(x) is not None:
            return
        if x.op == "concat":
            for side in x.args[:2]:
                self.summed(side, env, facts)
            return
        if x.op in ("map", "fold") and _shared(x.args[0]):
            who = z3.BitVec(f"whose{next(self.names)}", BITS)
            value, known = self.item(_shared(x.args[0]), who)
            if x.op == "map":
                self.visit(x.args[2], {**env, x.args[1].args[0]: value}, facts + known, who)
                return
            acc, step = x.args[2].args[0], x.args[4]
            gathered = x.args[1].op == "const" and x.args[1].args[0] == () and step.op == "concat" \
                and step.args[0].op == "concat" and step.args[0].args[0].op == "var" \
                and step.args[0].args[0].args[0] == acc and acc not in {n.args[0] for n in _walk(step.args[1])
                                                                          if n.op == "var"} \
                or step.op == "concat" and step.args[0].op == "var" and step.args[0].args[0] == acc
            self.find("transparent", x, gathered, "" if gathered else "not gathered item by item")
            self.visit(step, {**env, acc: self.any_value(x.args[1].t), x.args[3].args[0]: value}, facts + known, who)
            return
        raise _Unfollowed(f"|{x.op}| of a shared list, not a sum of each session's")

    def element(self, x: Expr, env: dict[str, Any], who: Any) -> tuple[Any, list[Any]]:
        """An item of the list `x` (derived from a shared list) that is session `who`'s, with what is known of it
        (what a step adds to a shared list is an item of it too: the own-item lemma)."""
        name = _shared(x)
        if name is not None:
            return self.item(name, who)
        if _new_items(x):
            value, known = self.item(_shared(x.args[0]), who)
            return value, known + ([who == self.actor] if self.actor is not None else [])
        if x.t.item is int and (x.op in ("span", "fold", "concat") or _derived(x) == "crashed"):  # refs
            value = z3.BitVec(f"item{next(self.names)}", BITS)
            return value, [self.owner(value, "ref") == who]
        if x.op == "concat" and _derived(x.args[1]) and not _derived(x.args[0]):
            return self.element(x.args[1], env, who)
        value, known = self.element(x.args[0], env, who)
        if x.op == "map":
            return self.L.expr(x.args[2], {**env, x.args[1].args[0]: value}), known
        return value, known

    def _foreign_items(self, value: Any, me: Any) -> Any:
        """Every item of the list of refs `value` is another session's than `me`'s."""
        if not isinstance(value, Seq):
            return z3.BoolVal(False)
        return z3.And([z3.Implies(z3.BitVecVal(k, BITS) < value.length, self.owner(item, "ref") != me)
                       for k, item in enumerate(value.items)] + [z3.BoolVal(True)])

    def _extends(self, acc: Seq, after: Any, me: Any) -> Any:
        """`after` is `acc` with only another session's items after it (a crash's lost refs, say)."""
        if not isinstance(after, Seq):
            return z3.BoolVal(False)
        keep = [z3.Implies(z3.BitVecVal(k, BITS) < acc.length, same(Z3, after.items[k], acc.items[k]))
                for k in range(min(acc.cap, after.cap))]
        added = [z3.Implies(z3.And(acc.length <= z3.BitVecVal(k, BITS), z3.BitVecVal(k, BITS) < after.length),
                            self.owner(item, "ref") != me) for k, item in enumerate(after.items)]
        return z3.And([acc.length <= after.length] + keep + added)

    def aggregate(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any, part: Expr | None) -> None:
        """How many items all sessions have, or a shared counter: only in a guard, as a budget, or a crash's
        `|S.segments| > 0`."""
        if part is None:
            self.find("followed", x, False, "counts every session's items outside a guard")
            return
        if self.once and x.op == "len" and _shared(x.args[0]) == "segments":
            self.find("crash", x, True)
            return
        self.budget(x, env, facts, part, [], None)

    def budget(self, x: Expr, env: dict[str, Any], facts: list[Any], part: Expr, known: list[Any],
               item: Any) -> None:
        """The guard part holds with the count `x` smaller wherever it holds with it larger (a count of the
        others' items, for a sum: each item adds at least 0)."""
        more, fewer = z3.BitVec(f"more{next(self.names)}", BITS), z3.BitVec(f"fewer{next(self.names)}", BITS)
        given = self.L.given
        given[id(x)] = more
        at_more = self.L.expr(part, env)
        given[id(x)] = fewer
        at_fewer = self.L.expr(part, env)
        del given[id(x)]
        nonnegative = [] if item is None or x.op != "sum" else [self.L.expr(x.args[2], {**env, x.args[1].args[0]: item})
                                                                >= 0]
        ok, why = self.holds(facts + [0 <= fewer, fewer <= more], z3.Implies(at_more, at_fewer))
        if ok and nonnegative:
            ok, why = self.holds(facts + known, nonnegative[0])
        self.find("budget", x, ok, why)


def carries(bounds: Bounds, reading: Reading, formula: Expr) -> Finding:
    """Does a state property hold of a state of any number of sessions wherever it holds of each session's part?
    Each conjunct must be a property of each item of a shared list whose reads see only its session's items, or
    a comparison of two counts each the sum of every session's (`|X| <= |S.artifacts|`)."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    findings: list[Finding] = []
    walk = _Walk(caps, bounds, None, findings)
    env: dict[str, Any] = {"S": fresh(caps, "S")}
    facts = _scalars(env["S"], bounds)
    for part in _conjuncts(specialize(formula, bounds, reading)):
        try:
            if part.op == "all" and _derived(part.args[0]):
                who = z3.BitVec(f"whose{next(walk.names)}", BITS)
                value, known = walk.element(part.args[0], env, who)
                walk.visit(part.args[2], {**env, part.args[1].args[0]: value}, facts + known, who)
            elif part.op == "<=" and all(_additive(side) for side in part.args):
                for side in part.args:
                    walk.summed(side.args[0], env, facts)
            else:
                walk.find("followed", part, False, "a form no lemma reads: neither a property of each item nor a "
                          "comparison of two sums")
        except _Unfollowed as error:
            walk.find("followed", part, False, str(error))
    bad = [f for f in findings if not f.holds]
    return Finding("", "", "carries", not bad, "; ".join(f"{f.what[:80]}: {f.why or LEMMAS[f.lemma]}" for f in bad))


def carries_step(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...], formula: Expr,
                 on: tuple[type, ...] = ()) -> Finding:
    """Does a transition property hold of a step of any number of sessions wherever it holds of each moving
    session's part of it (the others' parts unchanged)? Asked step kind by step kind (those of `on`, if any: the
    kinds the property speaks of)."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    table = plan(bounds, reading.switches, rules)
    growing = _growing(table)
    problems: list[str] = []
    for rule, _instances in table:
        if on and rule.action not in on:
            continue
        x = specialize(formula, bounds, reading, step_values(rule.action))
        if x.op == "const" and x.args[0]:
            continue
        shrinks = [n for n in ("executions", "warnings") if n not in growing and _reads_new_or_pairs(x, n)]
        if shrinks:
            problems.append(f"{rule.action.__name__}: {', '.join(shrinks)} may lose items, so its new items and "
                            "pairs are not its parts'")
            continue
        walk = _Walk(caps, bounds, rule, [])
        me = z3.BitVec("me", BITS)
        env: dict[str, Any] = {"S": fresh(caps, "S"), "P": fresh(caps, "P")}
        facts = _scalars(env["S"], bounds) + _scalars(env["P"], bounds)
        for n in _walk(x):
            if n.op == "var" and n.args[0].startswith("act.") and n.args[0] not in env:
                env[n.args[0]] = z3.Bool(n.args[0]) if n.t is bool else z3.BitVec(n.args[0], BITS)
        if "act.execution" in env:  # the step's execution (or segment key) is the acting session's
            base = walk.base(env["act.execution"])
            facts += [walk.session_of(base) == me, z3.BitVecVal(EXEC, BITS) < base, base < z3.BitVecVal(RACE, BITS)]
        if "act.session" in env:
            facts.append(env["act.session"] == me)
        walk.actor = None if rule.over is ONCE else me
        try:
            why = walk.implied(x, env, facts, me)
        except _Unfollowed as error:
            why = str(error)
        if why:
            problems.append(f"{rule.action.__name__}: {why}")
    return Finding("", "", "carries", not problems, "; ".join(problems))


def _growing(table: list[Any]) -> set[str]:
    """The shared lists every rule only appends to or edits in place (never drops nor reorders an item)."""
    shrinking = set()
    for _rule, instances in table:
        for _given, _guard, _fields, effect in instances:
            for st in _statements(effect):
                if isinstance(st, Set) and _shared(st.target):
                    y = st.value
                    while isinstance(y, Expr) and y.op in ("append", "concat", "map", "update_where", "update_last"):
                        y = y.args[0]
                    if _shared(y) != _shared(st.target):
                        shrinking.add(_shared(st.target))
    return set(SHARED) - shrinking


def _statements(stmts: tuple[Any, ...]) -> Iterator[Any]:
    for st in stmts:
        yield st
        if isinstance(st, When):
            yield from _statements(st.then)
            yield from _statements(st.otherwise)


def _reads_new_or_pairs(x: Expr, name: str) -> bool:
    return any(_new_items(n) and _shared(n.args[0]) == name or n.op == "zip_all" and _shared(n.args[0]) == name
               for n in _walk(x))


def _scalars(state: Any, bounds: Bounds) -> list[Any]:
    """What is known of a state's own numbers: each shared counter from 0 to its bound (`spends`). Its lists are
    read only through the operations the lemmas judge, each of their values left arbitrary (`_Havoc`)."""
    return [z3.And(0 <= state[State._fields.index(c)], state[State._fields.index(c)] <= getattr(bounds, c))
            for c in COUNTERS]


def _conjuncts(x: Expr) -> list[Expr]:
    return _conjuncts(x.args[0]) + _conjuncts(x.args[1]) if x.op == "and" else [x]


def _ref_like(x: Any) -> bool:
    """An int that may be a ref: an item of a list of ints, a warning's ref."""
    return isinstance(x, Expr) and x.t is int and (x.op == "var" and x.args[0].startswith("_x")
                                                   or x.op == "field" and x.args[1] == "ref" or x.op in ("at", "last"))


def _added(fold: Expr) -> list[Expr] | None:
    """The parts a fold adds to its list at each item, where its step is `acc ++ a ++ b ...` (the accumulator only
    extended, never read otherwise); else None."""
    acc, step, parts = fold.args[2].args[0], fold.args[4], []
    if not isinstance(fold.t, SeqOf) or fold.t.item is not int:
        return None
    while step.op == "concat":
        parts.insert(0, step.args[1])
        step = step.args[0]
    if not (step.op == "var" and step.args[0] == acc) or any(
            n.op == "var" and n.args[0] == acc for part in parts for n in _walk(part)):
        return None
    return parts


def _new_items(x: Expr) -> bool:
    """`P.L.suffix(|S.L|)`: the items a step added to a shared list (a transition property's)."""
    return x.op == "suffix" and _shared(x.args[0]) is not None and x.args[0].args[0].args[0] == "P" \
        and x.args[1].op == "len" and _shared(x.args[1].args[0]) == _shared(x.args[0]) \
        and x.args[1].args[0].args[0].args[0] == "S"


def _additive(x: Expr) -> bool:
    """|X| for a list X gathered from the shared lists item by item (so the sum of each session's)."""
    return x.op == "len" and (_shared(x.args[0]) is not None or _derived(x.args[0]) is not None)


def footprint(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...]) -> list[Finding]:
    """Every use of a shared list or counter by every rule of `rules` (specialised to `bounds` and `reading`), with
    the lemma it needs and whether z3 shows it."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    findings: list[Finding] = []
    for rule, instances in plan(bounds, reading.switches, rules):
        for _given, guard, fields, effect in instances:
            walk = _Walk(caps, bounds, rule, findings)
            try:
                walk.instance(guard, fields, effect)
            except _Unfollowed as e:
                findings.append(Finding(rule.action.__name__, str(e), "followed", False, str(e)))
    return findings

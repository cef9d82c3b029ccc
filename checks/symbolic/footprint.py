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
  only ever the next names, which a session alone gives in the same order (the projection renames them), and
  no execution or artifact is dropped (their ids and refs name positions);
- *renamed*: refs are only compared and looked up, never counted with (a syntactic check);
- *crash*: a crash is enabled while any session has a segment in flight; for a session with none it must
  change nothing, which `checks/symbolic/anysessions.py` checks on the one-session states.

Every other item's content is arbitrary but for what each session's projection being a one-session state
gives (the induction hypothesis): its ids and refs are its own (`session_of(id)`, `execution_of(ref)`, two
uninterpreted functions), never the acting session's. Whatever a rule reads of the state besides the item
and its own records (another shared list, a let) is left arbitrary, so a finding that holds holds of every
state; one that fails comes with the item z3 found, which may be unreachable (then `anysessions` looks for a
run that shows it). `carrying.py` reads the properties' formulas with the same walk (`Walk`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.exprtext import expr_text
from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import RECORDS, End, Expr, Let, Rule, SeqOf, Set, When, walk
from pausecheck.model.reading import Reading
from pausecheck.model.rules import EXECUTIONS, ONCE, SEGMENTS, SESSIONS
from pausecheck.model.state import Artifact, Execution, Segment, State, Warning

from .relation import Caps, Lower, _decode, fresh, fresh_value, plan, well_formed
from .values import BITS, EXEC, RACE, Z3, OptV, Seq, base_key, pick, reader, same

__all__ = ["Finding", "LEMMAS", "SHARED", "Walk", "Unfollowed", "footprint", "shared_list", "derived", "new_items",
           "added", "scalars"]

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


def shared_list(x: Any) -> str | None:
    """The shared list `x` is (S.executions, ...; P.executions, ... in a transition property), if it is one."""
    if isinstance(x, Expr) and x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] in ("S", "P") \
            and x.args[1] in SHARED:
        return x.args[1]
    return None


def _counter(x: Any) -> bool:
    return isinstance(x, Expr) and x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == "S" \
        and x.args[1] in COUNTERS


def _mentions_size(x: Any, name: str) -> bool:
    return isinstance(x, Expr) and any(n.op == "len" and shared_list(n.args[0]) == name for n in walk(x))


def _free_items(x: Expr) -> set[str]:
    """The items of lists `x` reads that it does not itself range over (a body's `_x<n>` from outside)."""
    used, bound = set(), set()
    for n in walk(x):
        if n.op == "var" and n.args[0].startswith("_x"):
            used.add(n.args[0])
        if n.op in _BODIES or n.op == "zip_all":
            bound.update(a.args[0] for a in n.args[1:] if isinstance(a, Expr) and a.op == "var")
    return used - bound


# The names a rule's expressions read that are the same throughout a step but for what it sets (a read after a
# `Set` is keyed anew: `Walk.writes`).
_FIXED = frozenset({"S", "P", "session", "e", "g", "run"})


def _reads_names(x: Expr) -> set[str]:
    return {n.args[0] for n in walk(x) if n.op == "var" and not n.args[0].startswith(("_x", "act.", "kind:"))}


def derived(x: Any) -> str | None:
    """The shared list whose items (some of them) `x` holds: the list itself, a filter, map or edit of one, or
    the range of every artifact ref (`range(1, |S.artifacts| + 1)`)."""
    name = shared_list(x)
    if name is not None:
        return name
    if not isinstance(x, Expr):
        return None
    if x.op in ("filter", "map", "update_where", "update_last", "append", "insert", "set_last", "prefix", "suffix"):
        return derived(x.args[0])
    if x.op == "concat":
        return derived(x.args[0]) or derived(x.args[1])
    if x.op == "fold" and isinstance(x.t, SeqOf) and derived(x.args[0]):
        return "refs"
    if x.op == "span" and _mentions_size(x.args[1], "artifacts") and not _mentions_size(x.args[0], "artifacts"):
        return "refs"
    return None


class Unfollowed(Exception):
    """A use of a shared list none of the lemmas speaks of."""


class _Havoc(Lower):
    """The lowering with every read of a shared list left arbitrary (a fresh value of its type), and an artifact
    read by its ref (`S.artifacts.at(r - 1)`) giving that ref's execution, `execution_of(r)`."""

    def __init__(self, walk: Walk) -> None:
        super().__init__(Z3, walk.caps)
        self.w = walk
        self.given: dict[int, Any] = {}  # node id -> the value to use for it (a budget's two counts)
        self.same: dict[tuple[str, int], Any] = {}

    def expr(self, x: Expr, env: dict[str, Any]) -> Any:  # type: ignore[override]
        if id(x) in self.given:
            return self.given[id(x)]
        if x.op == "at" and shared_list(x.args[0]) == "artifacts":
            ref = self.A.add(super().expr(x.args[1], env), self.n(1))
            return (self.w.execution_of(ref), z3.BitVec(f"call{next(self.w.names)}", BITS))
        if x.op in ("any", "all", "count") and shared_list(x.args[0]) and self.w.context is not None:
            decided = self.decided(x, env)
            if decided is not None:
                return decided
        if (x.op != "field" and x.args and derived(x.args[0])) or x.op == "span" and derived(x):
            if _free_items(x) or _reads_names(x) - _FIXED:
                return self.w.any_value(x.t)  # over an item of a list, or a let: arbitrary each time
            key = (expr_text(x), self.w.writes)  # the same read of the same state: the same arbitrary value
            if key not in self.same:
                self.same[key] = self.w.any_value(x.t)
            return self.same[key]
        return super().expr(x, env)

    def decided(self, x: Expr, env: dict[str, Any]) -> Any:
        """A read of a shared list whose test is the same for an item of any session (what is known where it is
        read, `Walk.context`, decides it): its value; else None."""
        who = self.w.someone()
        item, known = self.w.item(shared_list(x.args[0]), who)
        test = self.expr(x.args[2], {**env, x.args[1].args[0]: item})
        facts = self.w.context + known
        if x.op == "all":
            return self.A.boolean(True) if self.w.holds(facts, test)[0] else None
        if self.w.holds(facts, z3.Not(test))[0]:  # no item passes
            return self.A.boolean(False) if x.op == "any" else self.n(0)
        return None


class Walk:
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

    def someone(self, kind: str = "whose") -> Any:
        """A session, any one (named after what it is for)."""
        return z3.BitVec(f"{kind}{next(self.names)}", BITS)

    def execution_id(self, value: Any, who: Any = None) -> list[Any]:
        """`value` is an execution's id (e1, e2, ...), session `who`'s if given."""
        return [z3.BitVecVal(EXEC, BITS) < value, value < z3.BitVecVal(RACE, BITS)] + (
            [] if who is None else [self.session_of(value) == who])

    def owner(self, value: Any, t: Any) -> Any:
        """The session an item of type `t` belongs to."""
        if t is Execution:
            return value[1]
        if t is Segment:
            return self.session_of(base_key(Z3, value[0]))
        if t in (Warning, Artifact):
            return self.session_of(value[0])
        if t == "session":
            return value
        return self.session_of(self.execution_of(value))  # a ref

    def owned(self, value: Any, t: Any, who: Any) -> list[Any]:
        """What the induction hypothesis says of an item of type `t` that is session `who`'s: its shape, its own
        ids and its own refs."""
        facts = [well_formed(Z3, value, t)] if t in RECORDS or isinstance(t, SeqOf) else []
        if isinstance(t, SeqOf):
            for k, item in enumerate(value.items):
                facts += [z3.Implies(z3.BitVecVal(k, BITS) < value.length, f) for f in self.owned(item, t.item, who)]
            return facts
        if t is Execution:  # its id is an execution's (e1, e2, ...), and names it
            facts += self.execution_id(value[0], value[1])
        if t in (Segment, Warning, Artifact):  # its execution is an execution's id (a segment's, by its key)
            facts += self.execution_id(base_key(Z3, value[0]) if t is Segment else value[0])
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

    def stranger(self, list_name: str, me: Any) -> tuple[Any, list[Any]]:
        """A fresh item of a shared list (or a ref) that is another session's than `me`'s, with what is known of it."""
        other = self.someone("other")
        value, known = self.item(list_name, other)
        return value, known + [other != me]

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
        name = getattr(t, '__name__', 'ref')
        try:
            value = _decode(t, item, reader(model)) if t is not int else reader(model)(item)
        except (IndexError, ValueError, KeyError):  # a field z3 left free holds a code no word has
            return False, f"another session's {name}, one with a field no state holds"
        return False, f"another session's {name} {value}"

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
            raise Unfollowed(f"another session's items from {len(found)} places, read as one")
        return found[0] if found else None

    def foreigners(self, x: Expr, env: dict[str, Any], facts: list[Any], me: Any) -> list[tuple[Any, list[Any]]]:
        """Each kind of item of the list `x` that is another session's than `me`'s (one per place it comes from)."""
        name = shared_list(x)
        if name is not None:
            return [self.stranger(name, me)]
        if x.op == "span":  # every artifact ref
            return [self.stranger("refs", me)]
        if x.op == "concat":
            return [f for side in x.args[:2] if derived(side) for f in self.foreigners(side, env, facts, me)]
        if new_items(x):  # what the step added: the acting session's (a crash's: any session's)
            who = self.actor if self.actor is not None else self.someone("other")
            value, known = self.item(shared_list(x.args[0]), who)
            return [(value, known + [who != me])]
        if x.op in ("append", "insert", "set_last", "update_where", "update_last", "prefix", "suffix"):
            return self.foreigners(x.args[0], env, facts, me)
        if x.op == "fold" and isinstance(x.t, SeqOf) and x.t.item is int:
            # a list of refs gathered item by item: another session's item adds only its own refs (`read` asks
            # this of the fold), so the list's other refs are other sessions'
            return [self.stranger("refs", me)]
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
        raise Unfollowed(f"{x.op} of a shared list")

    # -- walking
    def instance(self, guard: list[Expr], fields: tuple[Expr, ...], effect: tuple[Any, ...]) -> None:
        me = z3.BitVec("me", BITS)
        env: dict[str, Any] = {"S": fresh(self.caps, "S")}
        facts: list[Any] = scalars(env["S"], self.bounds)
        if self.rule.over is SESSIONS:
            env["session"] = me
        if self.rule.over in (EXECUTIONS, SEGMENTS):
            env["e"] = self.any_value(Execution)
            facts += self.owned(env["e"], Execution, me)
        if self.rule.over is SEGMENTS:
            env["g"] = self.any_value(Segment)
            env["run"] = OptV(z3.Bool("run.present"), self.any_value(FIELD_TYPES[Execution]["attempts"].item))
            facts += self.owned(env["g"], Segment, me) + [base_key(Z3, env["g"][0]) == env["e"][0]]
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
                if derived(st.value):
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
                raise Unfollowed(f"statement {st!r}")
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
            raise Unfollowed(f"a write of S.{name}")
        if derived(st.value):
            self.mine_only(st.value, f"set {record}.{name}", env, facts, me)
        fields = list(env[record])
        rtype = Execution if record == "e" else Segment
        fields[rtype._fields.index(name)] = self.L._fit(rtype, name, self.L.expr(st.value, env))
        return {**env, record: tuple(fields)}

    def spends(self, st: Set, env: dict[str, Any], facts: list[Any]) -> None:
        """A shared counter is set to a function of itself alone that never falls and keeps its order (so a
        session's share, updated by the same function, stays within the count)."""
        reads = [n for n in walk(st.value) if _counter(n)]
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
            item = self.foreign(x, env, facts, me) if derived(x) else None
            if item is not None:
                value_, known = item
                ok, why = self.holds(facts + known, self.owner(value_, _ITEM[name]) != me)
                self.find("transparent", x, ok, why)
            return
        while isinstance(x, Expr) and shared_list(x) != name:
            if x.op in ("append", "insert"):
                self.own(x.args[1], _ITEM[name], env, facts, me)
            elif x.op == "concat" and derived(x.args[0]) == name:
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
                    ok, why = self.holds(facts + known, goal, v, _ITEM.get(derived(x.args[0]) or "", None))
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
        for n in walk(x):
            if n.op == "exec_id":  # the new execution: the acting session's, and an execution id
                fresh_ids += self.execution_id(self.L.expr(n, env), me)
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
            ok = arg.op == "+" and arg.args[0].op == "len" and shared_list(arg.args[0].args[0]) == "executions" \
                and arg.args[1].op == "const" and arg.args[1].args[0] == 1
            self.find("fresh", x, ok, "" if ok else "an execution id other than |S.executions| + 1")
            if ok:
                return
        if x.op == "span" and _mentions_size(x.args[0], "artifacts"):
            start, stop = x.args
            first = start.op == "+" and start.args[0].op == "len" \
                and shared_list(start.args[0].args[0]) == "artifacts" and start.args[1].op == "const" \
                and start.args[1].args[0] == 1
            ok = first and (expr_text(stop) == expr_text(start) or stop.op == "+" and stop.args[1].op == "const"
                            and expr_text(stop.args[0]) == expr_text(start))
            self.find("fresh", x, ok, "" if ok else "new refs other than |S.artifacts| + 1 ...")
            if ok:
                return
        if new_items(x):
            return  # the items the step added (`new_items`): read as the others are
        if x.op == "span" and derived(x) == "refs":
            return  # every artifact ref, 1 to |S.artifacts|: a list of every session's refs, read as the others are
        if x.op == "len" and shared_list(x.args[0]) or _counter(x):
            self.aggregate(x, env, facts, me, part)
            return
        if x.op == "len" and derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            if self.foreigners(x.args[0], env, facts, me):
                self.aggregate(x, env, facts, me, part)
            return
        if x.op in _BODIES and derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            self.read(x, env, facts, me, part)
            return
        if x.op in ("at", "last", "contains") and derived(x.args[0]):
            self.visit(x.args[0], env, facts, me, part)
            if x.op == "at" and shared_list(x.args[0]) == "artifacts":
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
                if isinstance(a, Expr) and a.op != "var" and derived(a):
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
        who = self.someone()
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
            if op == "fold" and added(x) is not None:  # acc ++ what the item adds: only another session's refs
                scope = {**env, x.args[3].args[0]: v}
                goal = z3.And([self._foreign_items(self.L.expr(part, scope), me) for part in added(x)])
            elif op == "fold":
                acc_name, var = x.args[2].args[0], x.args[3].args[0]
                acc = self.any_value(x.args[1].t)
                if isinstance(acc, Seq):
                    known = known + [well_formed(Z3, acc, x.args[1].t)]
                after = self.L.expr(x.args[4], {**env, acc_name: acc, var: v})
                goal = same(Z3, after, acc) if not isinstance(acc, Seq) else self._extends(acc, after, me)
            else:
                scope = {**env, x.args[1].args[0]: v}
                body = self.L.expr(x.args[2], scope)
                goal = body if op == "all" else body == 0 if op == "sum" else z3.Not(body)  # count, any, first
                if op in ("update_where", "update_last"):  # not picked, or left as it was
                    goal = z3.Or(goal, same(Z3, self.L.expr(x.args[3], scope), v))
            ok, why = self.holds(facts + known, goal, v, _ITEM.get(derived(x.args[0]) or "", None))
            if not ok and part is not None and op in ("count", "sum"):
                self.budget(x, env, facts, part, known, v)
                return
            if not ok:
                self.find("transparent", x, False, why)
                return
        self.find("transparent", x, True)

    def element(self, x: Expr, env: dict[str, Any], who: Any) -> tuple[Any, list[Any]]:
        """An item of the list `x` (derived from a shared list) that is session `who`'s, with what is known of it
        (what a step adds to a shared list is an item of it too: the own-item lemma)."""
        name = shared_list(x)
        if name is not None:
            return self.item(name, who)
        if new_items(x):
            value, known = self.item(shared_list(x.args[0]), who)
            return value, known + ([who == self.actor] if self.actor is not None else [])
        if x.t.item is int and (x.op in ("span", "fold", "concat") or derived(x) == "crashed"):  # refs
            return self.item("refs", who)
        if x.op == "concat" and derived(x.args[1]) and not derived(x.args[0]):
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
        if self.once and x.op == "len" and shared_list(x.args[0]) == "segments":
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
        ok, why = self.holds(facts + [0 <= fewer, fewer <= more], z3.Implies(at_more, at_fewer))
        if ok and item is not None and x.op == "sum":  # each item adds at least 0
            ok, why = self.holds(facts + known, self.L.expr(x.args[2], {**env, x.args[1].args[0]: item}) >= 0)
        self.find("budget", x, ok, why)


def scalars(state: Any, bounds: Bounds) -> list[Any]:
    """What is known of a state's own numbers: each shared counter from 0 to its bound (`spends`). Its lists are
    read only through the operations the lemmas judge, each of their values left arbitrary (`_Havoc`)."""
    return [z3.And(0 <= state[State._fields.index(c)], state[State._fields.index(c)] <= getattr(bounds, c))
            for c in COUNTERS]


def _ref_like(x: Any) -> bool:
    """An int that may be a ref: an item of a list of ints, a warning's ref."""
    return isinstance(x, Expr) and x.t is int and (x.op == "var" and x.args[0].startswith("_x")
                                                   or x.op == "field" and x.args[1] == "ref" or x.op in ("at", "last"))


def added(fold: Expr) -> list[Expr] | None:
    """The parts a fold adds to its list at each item, where its step is `acc ++ a ++ b ...` (the accumulator only
    extended, never read otherwise); else None."""
    acc, step, parts = fold.args[2].args[0], fold.args[4], []
    if not isinstance(fold.t, SeqOf) or fold.t.item is not int:
        return None
    while step.op == "concat":
        parts.insert(0, step.args[1])
        step = step.args[0]
    if not (step.op == "var" and step.args[0] == acc) or any(
            n.op == "var" and n.args[0] == acc for part in parts for n in walk(part)):
        return None
    return parts


def new_items(x: Expr) -> bool:
    """`P.L.suffix(|S.L|)`: the items a step added to a shared list (a transition property's)."""
    return x.op == "suffix" and shared_list(x.args[0]) is not None and x.args[0].args[0].args[0] == "P" \
        and x.args[1].op == "len" and shared_list(x.args[1].args[0]) == shared_list(x.args[0]) \
        and x.args[1].args[0].args[0].args[0] == "S"


def footprint(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...]) -> list[Finding]:
    """Every use of a shared list or counter by every rule of `rules` (specialised to `bounds` and `reading`), with
    the lemma it needs and whether z3 shows it."""
    caps = Caps.of(bounds.replace(sessions=1), reading)
    findings: list[Finding] = []
    for rule, instances in plan(bounds, reading.switches, rules):
        for _given, guard, fields, effect in instances:
            walker = Walk(caps, bounds, rule, findings)
            try:
                walker.instance(guard, fields, effect)
            except Unfollowed as e:
                findings.append(Finding(rule.action.__name__, str(e), "followed", False, str(e)))
    return findings

"""The kill matrix: which property catches which mutant, and what each property adds.

Every mutant is explored exhaustively (`checks.search.explore.explore` on `mutate(Machine(bounds), m)`), where
several share bounds against the default's vetted graph, which re-checks only the steps the mutant
changes (`search/reference.py`: same verdicts, counts and traces).
A mutant is *killed by* each `always` or `transition` property its search violates, and by the
pseudo-property "deadlock" if some unfinished run can never move. Witnesses (`sometimes`) never
kill: a vanished witness says the model went vacuous, not that a rule was broken. A mutant nothing
kills has *survived*, unless it is marked `equivalent` (with a reason).

Per property P, with K(P) the set of mutants P kills:
- its *sole killers* are the mutants whose killed-by set is exactly {P}: the evidence that P
  catches something no other property does;
- if it has none, it is *redundant with* every other property Q (deadlock included) such that
  K(P) is non-empty and K(P) <= K(Q): on these mutants Q alone would have caught everything P did.
  A property that kills nothing is redundant with nothing (it is untested). One whose mutants are
  each caught elsewhere but by no single Q is *jointly redundant* with a smallest-first greedy cover:
  properties whose kill sets together contain K(P), named in registry order (`jointly` is set).
A mutant marked equivalent is also searched at small bounds (its own, where it has them) with each fault
on in turn (a crash, an expiry, a race, a new turn): a claim of equivalence must hold under every fault.
A mutant marked equivalent yet killed, at its bounds or under a fault, is a false claim: the matrix
fails, naming the property and the fault (`refuted`).
Redundancy is relative to the mutant set: it says the mutants do not yet separate P from Q, not
that P is implied by Q.
Mutants deviate from a base table: the rules, or a spec author's draft (`draft`). A mutant whose edits
no longer fit the base (an anchor that names nothing there) is not searched: its row says why
(`problem`), and the matrix is incomplete.
The base is searched first, at every bounds a mutant runs at (`BaseRun`): a property the base itself breaks
there (a draft that lists new artifacts first breaks merge_order) kills no mutant, since its violation says
nothing of the mutant; such a kill is kept apart (`MutantKill.base_kills`), a mutant whose only killers
are these is not killed, and the matrix fails, saying first what the base breaks (`base_broken`).
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine
from pausecheck.model.properties import ALWAYS, TRANSITION

from ..drafts import Draft, base_of
from ..search.budget import note, raise_stop
from ..search.explore import Discovery, Progress, explore
from ..search.liveness import LivenessVerdict, check_liveness
from ..search.parallel import run_all, workers
from ..search.reference import Reference, Vetted, reference
from . import DEADLOCK, WITNESS_LOST, Mutant, bounds_of, mutant_named, mutate

__all__ = ["MutantKill", "PropertyKills", "KillMatrix", "kill_matrix", "killer_names"]

FAULTS = ("crashes", "expiries", "races", "new_turns")  # each turned on in turn for an equivalent mutant
FAULT_BOUNDS = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)

# Where at least this many mutants share bounds, each is searched against the default's vetted graph at
# those bounds (`search/reference.py`): building it costs about one and a half default searches, and a mutant
# search saves from nothing (it leaves the default's states at once) to nearly all of one.
VET_FROM = 4


@dataclass(frozen=True, slots=True)
class MutantKill:
    """One mutant's row: the properties that catch it and their shortest counterexamples."""

    name: str
    clauses: tuple[str, ...]
    bounds: Bounds
    killed_by: tuple[str, ...]  # in property-registry order, deadlock last
    shortest: tuple[tuple[str, int], ...]  # (property, steps), same order as killed_by
    equivalent: bool
    reason: str
    states: int
    complete: bool
    seconds: float
    evidence: Discovery | LivenessVerdict | None = None  # the target's shortest counterexample (a lasso's verdict)
    vetted: bool = False  # searched against the default's vetted graph at its bounds (`search/reference.py`)
    # an equivalent mutant's kills with a fault on: (the flag, the property, its shortest counterexample's steps)
    under_faults: tuple[tuple[str, str, int], ...] = ()
    problem: str | None = None  # why its edits no longer apply to the base table (then it was not searched)
    base_kills: tuple[str, ...] = ()  # properties its search broke that the base breaks too: not kills

    @property
    def refuted(self) -> str | None:
        """How a claim of equivalence fails (killed at its bounds or under a fault), or None."""
        if not self.equivalent:
            return None
        found = [f"{p} ({n} steps)" for p, n in self.shortest] + [
            f"{p} with {flag} ({n} steps)" for flag, p, n in self.under_faults]
        return f"{self.name}: {', '.join(found)}" if found else None

    @property
    def survived(self) -> bool:
        """Searched, nothing catches it and it is not known to be equivalent."""
        return not self.killed_by and not self.equivalent and self.problem is None

    def steps(self, prop: str) -> int | None:
        """The length of `prop`'s shortest counterexample on this mutant, if it kills it."""
        return dict(self.shortest).get(prop)


@dataclass(frozen=True, slots=True)
class PropertyKills:
    """One property's column: the mutants it kills, its sole killers, or what it is redundant with."""

    name: str
    killers: tuple[str, ...]
    sole_killers: tuple[str, ...]
    redundant_with: tuple[str, ...]  # empty when it has sole killers
    jointly: bool = False  # redundant_with covers its kills only together, not one by one


@dataclass(frozen=True, slots=True)
class BaseRun:
    """The base table's own search at one bounds: what it breaks (each with its shortest counterexample's
    steps, deadlock included) and the witnesses it reaches (the same, by name)."""

    bounds: Bounds
    broken: tuple[tuple[str, int], ...]  # in property-registry order, deadlock last
    witnesses: tuple[tuple[str, int], ...]
    complete: bool
    states: int

    @property
    def broken_names(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.broken)


@dataclass(frozen=True, slots=True)
class KillMatrix:
    """The whole matrix, immutable: rows per mutant, columns per killing property; `base`, the base table's
    own searches (one per bounds a mutant ran at), and `base_name`, what the base is ("the rules", or the
    draft's path)."""

    mutants: tuple[MutantKill, ...]
    properties: tuple[PropertyKills, ...]
    seconds: float
    base: tuple[BaseRun, ...] = ()
    base_name: str = "the rules"

    @property
    def base_broken(self) -> tuple[str, ...]:
        """What the base itself breaks at some bounds a mutant ran at, in registry order, each once."""
        return tuple(dict.fromkeys(name for run in self.base for name, _ in run.broken))

    def base_failure(self) -> str | None:
        """One sentence saying what the base breaks, where, and what that means for the kills; None if nothing."""
        broken = [run for run in self.base if run.broken]
        if not broken:
            return None
        where = "; ".join(", ".join(f"{name} ({n} steps)" for name, n in run.broken) + f" at {_flags(run.bounds)}"
                          for run in broken)
        return (f"{self.base_name} already break{'s' if self.base_name != 'the rules' else ''} {where}: "
                "a mutant counts as killed only by a property the base keeps at its bounds")

    @property
    def survivors(self) -> tuple[str, ...]:
        """Mutants no property kills that are not marked equivalent."""
        return tuple(m.name for m in self.mutants if m.survived)

    @property
    def refuted(self) -> tuple[str, ...]:
        """Claims of equivalence a search refuted, each with what killed the mutant."""
        return tuple(m.refuted for m in self.mutants if m.refuted)

    @property
    def not_applying(self) -> tuple[MutantKill, ...]:
        """The mutants whose edits no longer fit the base table: not searched."""
        return tuple(m for m in self.mutants if m.problem is not None)

    def verdict(self) -> str:
        """`[ok] ...`, `[fail]` with what the base breaks, the survivors and the refuted claims of equivalence,
        or `[incomplete]` naming the mutants that no longer apply."""
        broken = self.base_broken
        failures = ([f"{self.base_name} break{'s' if self.base_name != 'the rules' else ''} "
                     f"{', '.join(broken)}"] if broken else []) + (
            [f"survived: {', '.join(self.survivors)}"] if self.survivors else []) + (
            [f"equivalence refuted: {'; '.join(self.refuted)}"] if self.refuted else [])
        if failures:
            return "[fail] " + "; ".join(failures)
        if self.not_applying:
            return (f"[incomplete] {len(self.not_applying)} mutant(s) no longer apply to the rules given, not "
                    "searched: " + ", ".join(m.name for m in self.not_applying))
        return "[ok] every mutant is killed or marked equivalent"

    def row(self, name: str) -> MutantKill:
        """The row of the mutant with this name (KeyError if none)."""
        for m in self.mutants:
            if m.name == name:
                return m
        raise KeyError(name)

    def column(self, name: str) -> PropertyKills:
        """The column of the property with this name (KeyError if none)."""
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """Plain data (lists, dicts, str, int, bool), deterministic; no timings."""
        return {
            "base": {"name": self.base_name, "searches": [
                {"bounds": run.bounds.as_dict(), "broken": dict(run.broken), "complete": run.complete,
                 "states": run.states} for run in self.base]},
            "mutants": [
                {
                    "name": m.name,
                    "clauses": list(m.clauses),
                    "killed_by": list(m.killed_by),
                    "also_broken_by_the_base": list(m.base_kills),
                    "shortest": dict(m.shortest),
                    "equivalent": m.equivalent,
                    "reason": m.reason,
                    "killed_under_faults": [{"flag": flag, "property": p, "steps": n}
                                            for flag, p, n in m.under_faults],
                    **({"no_longer_applies": m.problem} if m.problem is not None else {}),
                }
                for m in self.mutants
            ],
            "properties": [
                {"name": p.name, "sole_killers": list(p.sole_killers), "redundant_with": list(p.redundant_with),
                 "jointly": p.jointly}
                for p in self.properties
            ],
        }


# this process's vetted graphs of the base (the rules, or a draft), by bounds and draft
_REFERENCES: dict[tuple[Bounds, Draft | None], Reference | None] = {}


def _reference(bounds: Bounds, draft: Draft | None = None) -> Reference | None:
    """The base machine's vetted graph at these bounds (`search/reference.py`; one per bounds, remembered)."""
    if (bounds, draft) not in _REFERENCES:
        _REFERENCES[bounds, draft] = reference(Machine(bounds, rules=base_of(draft)))
    return _REFERENCES[bounds, draft]


@functools.cache
def _base_run(bounds: Bounds, draft: Draft | None = None) -> BaseRun:
    """The base's own search at these bounds (one per bounds and process, remembered; over the vetted graph
    where this process has one, which then checks only the witnesses again): what it breaks, what it
    witnesses."""
    ref = _REFERENCES.get((bounds, draft))
    base = Machine(bounds, rules=base_of(draft))
    result = explore(base if ref is None else Vetted(base, ref))
    raise_stop(result.stopped)  # never remember a search cut short
    order = killer_names(base)
    lengths = _kill_lengths(result) | {v.name: _lasso_steps(v) for v in _liveness_broken(base)}
    return BaseRun(bounds, tuple((name, lengths[name]) for name in order if name in lengths),
                   tuple((name, len(found.actions)) for name, found in result.witnesses.items()),
                   result.complete, result.states)


def killer_names(machine: Machine) -> tuple[str, ...]:
    """The properties that can kill a mutant of this machine: always and transition, then deadlock, then the
    liveness properties (judged where the graph can have cycles: `--write-failures any`)."""
    return (tuple(p.name for p in machine.properties if p.kind in (ALWAYS, TRANSITION)) + (DEADLOCK,)
            + tuple(p.name for p in machine.liveness))


def _liveness_broken(machine: Machine) -> tuple[LivenessVerdict, ...]:
    """The liveness properties a machine breaks, where its graph can have cycles (endless writes): elsewhere
    every behaviour is finite, and a liveness violation is an end state the safety properties or deadlock
    already catch (docs/limitations.md), so it is not judged again."""
    if not machine.bounds.endless_writes:
        return ()
    return tuple(v for v in check_liveness(machine).verdicts if not v.holds)


def _lasso_steps(verdict: LivenessVerdict) -> int:
    """The steps a lasso shows: its path and its loop, the closing step aside."""
    assert verdict.lasso is not None, verdict.name  # a broken liveness verdict has its lasso
    return len(verdict.lasso.states) - 1


def _row(mutant: Mutant, bounds: Bounds, order: tuple[str, ...], searching: Progress | None,
         baseline: Callable[[Bounds, Draft | None], BaseRun], vet: bool = False,
         draft: Draft | None = None) -> MutantKill:
    machine = mutate(Machine(bounds, rules=base_of(draft), symmetry=mutant.symmetric), mutant)
    ref = _reference(bounds, draft) if vet and mutant.show is None else None  # a deviant wire view: other verdicts
    result = explore(machine if ref is None else Vetted(machine, ref), progress=searching)
    raise_stop(result.stopped)  # Ctrl-C or the limit stops the whole matrix, not just this mutant's search
    evidence: Any = result.deadlock if mutant.target == DEADLOCK else result.violations.get(mutant.target or "")
    lengths = _kill_lengths(result)
    for verdict in _liveness_broken(machine):
        lengths[verdict.name] = _lasso_steps(verdict)
        evidence = verdict if verdict.name == mutant.target else evidence
    base = baseline(bounds, draft)
    killed = tuple(name for name in order if name in lengths and name not in base.broken_names)
    also = tuple(name for name in order if name in lengths and name in base.broken_names)
    if not killed:  # only behaviour removed? then a witness the base reaches is lost
        lost = {WITNESS_LOST + name: n for name, n in base.witnesses if name not in result.witnesses}
        lengths.update(lost)
        killed = tuple(lost)
    return MutantKill(
        name=mutant.name, clauses=mutant.clauses, bounds=bounds, killed_by=killed,
        shortest=tuple((name, lengths[name]) for name in killed), equivalent=mutant.equivalent,
        reason=mutant.claim, states=result.states, complete=result.complete, seconds=result.seconds,
        evidence=evidence if mutant.target in killed else None, vetted=ref is not None,
        under_faults=_under_faults(mutant, order, searching, draft) if mutant.equivalent else (),
        base_kills=also,
    )


def _kill_lengths(result: Any) -> dict[str, int]:
    """The steps of each violated property's shortest counterexample, and of the shortest deadlock."""
    lengths = {name: len(d.actions) for name, d in result.violations.items()}
    if result.deadlock is not None:
        lengths[DEADLOCK] = len(result.deadlock.actions)
    return lengths


def _under_faults(mutant: Mutant, order: tuple[str, ...], searching: Progress | None,
                  draft: Draft | None = None) -> tuple[tuple[str, str, int], ...]:
    """An equivalent mutant searched at small bounds (its own where it has them) with each fault on in turn:
    every kill found, as (the flag, the property, its shortest counterexample's steps)."""
    base = mutant.bounds or FAULT_BOUNDS
    found = []
    for fault in FAULTS:
        at = base.replace(**{fault: max(1, getattr(base, fault))})
        result = explore(mutate(Machine(at, rules=base_of(draft), symmetry=mutant.symmetric), mutant),
                         progress=searching)
        raise_stop(result.stopped)
        flag = f"--{fault.replace('_', '-')} {getattr(at, fault)}"
        lengths = _kill_lengths(result)
        found += [(flag, name, lengths[name]) for name in order if name in lengths]
    return tuple(found)


def _columns(rows: tuple[MutantKill, ...], order: tuple[str, ...]) -> tuple[PropertyKills, ...]:
    kills = {p: frozenset(r.name for r in rows if p in r.killed_by) for p in order}
    columns = []
    for p in order:
        sole = tuple(r.name for r in rows if r.killed_by == (p,))
        redundant: tuple[str, ...] = ()
        jointly = False
        if not sole and kills[p]:
            redundant = tuple(q for q in order if q != p and kills[p] <= kills[q])
            if not redundant:
                redundant, jointly = _cover(kills[p], {q: kills[q] for q in order if q != p}, order), True
        killers = tuple(r.name for r in rows if r.name in kills[p])
        columns.append(PropertyKills(p, killers, sole, redundant, jointly))
    return tuple(columns)


def _cover(target: frozenset[str], kills: dict[str, frozenset[str]], order: tuple[str, ...]) -> tuple[str, ...]:
    """A small set of properties whose kills together contain `target` (greedy: most new kills first)."""
    chosen: list[str] = []
    left = set(target)
    while left:
        best = max(kills, key=lambda q: len(left & kills[q]))
        chosen.append(best)
        left -= kills[best]
    return tuple(q for q in order if q in chosen)


def kill_matrix(
    mutants: Iterable[Mutant],
    bounds: Bounds | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    searching: Progress | None = None,
    *,
    jobs: int | None = None,
    done: Callable[[int, int, str], None] | None = None,
    on_ray: bool = False,
    draft: Draft | None = None,
) -> KillMatrix:
    """Explore every mutant and tabulate what kills it.

    Each mutant runs at its own `bounds` if it has them, else at `bounds` (default: the default
    bounds). Names must be unique. One exhaustive search per mutant, `jobs` at once (default: every
    core; mutants not in the registry run here, one at a time). With one job, `progress(started,
    total, name)` is called before each search and `searching` during it; `done(finished, total,
    name)` is called as each ends, in any case. The rows are in the order given. `on_ray`: the
    searches run as tasks on a Ray cluster (`cluster.py`; registry mutants only). `draft`: the base table
    the mutants deviate from (default the rules); a mutant whose edits no longer fit it is not searched.
    """
    given = tuple(mutants)
    base = base_of(draft)
    problems = {m.name: m.problem(base) for m in given}
    mutants = tuple(m for m in given if problems[m.name] is None)
    names = [m.name for m in mutants]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"mutant names must be unique; repeated: {', '.join(duplicates)}")
    order = killer_names(Machine())
    started = time.perf_counter()
    registered = all(_registered(m) for m in mutants)
    finished: list[MutantKill] = []

    def ended(name: str, row: MutantKill) -> None:
        finished.append(row)
        note("mutants: searched", _so_far(finished, len(mutants)))  # what a limit's stop reports
        if done is not None:
            done(len(finished), len(mutants), name)

    at = [bounds_of(m, bounds or DEFAULT_BOUNDS) for m in mutants]
    shared = Counter(at)  # bounds many mutants share: their searches reuse the default's vetted graph
    jobs_at = tuple((m.name, b, shared[b] >= VET_FROM) for m, b in zip(mutants, at, strict=True))
    # The base first, here (worker processes forked after this inherit it): its vetted graph where many share
    # bounds (None where the base breaks something there), then its own search at every bounds.
    for b in shared:
        if shared[b] >= VET_FROM:
            _reference(b, draft)
    base_runs = tuple(_base_run(b, draft) for b in shared)
    if on_ray:
        from ..search.cluster import ray_run_all  # the optional extra: imported only when asked for

        if not registered:
            raise ValueError("only registry mutants run on Ray (they travel by name)")
        rows = tuple(ray_run_all(_named_row, jobs_at, args=(order, draft),
                                 done=lambda item, row: ended(item[0], row)))
    elif registered and (jobs or workers()) > 1:
        rows = tuple(run_all(_named_row, jobs_at, jobs=jobs, args=(order, draft), key=_costliest_first,
                             done=lambda item, row: ended(item[0], row), fresh=False))  # workers keep _base_run
    else:
        serial = []
        for i, (m, (_, at_bounds, vet)) in enumerate(zip(mutants, jobs_at, strict=True), 1):
            if progress is not None:
                progress(i, len(mutants), m.name)
            serial.append(_row(m, at_bounds, order, searching, _base_run, vet, draft))
            ended(m.name, serial[-1])
        rows = tuple(serial)
    searched = {r.name: r for r in rows}
    rows = tuple(searched.get(m.name) or _not_applying(m, bounds_of(m, bounds or DEFAULT_BOUNDS), problems[m.name])
                 for m in given)
    return KillMatrix(rows, _columns(rows, order), time.perf_counter() - started, base_runs,
                      "the rules" if draft is None else f"the draft {draft.path}")


def _so_far(rows: list[MutantKill], total: int) -> str:
    """What the mutants searched so far established, in one line: "12 of 57 mutants searched: 11 killed,
    1 equivalent, none survived" (the survivors named)."""
    killed = sum(bool(r.killed_by) for r in rows)
    equivalent = sum(r.equivalent and not r.killed_by for r in rows)
    survivors = [r.name for r in rows if r.survived]
    return (f"{len(rows)} of {total} mutants searched: {killed} killed, {equivalent} equivalent, "
            + (f"{len(survivors)} survived ({', '.join(survivors)})" if survivors else "none survived"))


def _flags(bounds: Bounds) -> str:
    """Bounds as the flags that set them, only those that differ from the defaults ("the default bounds" if none)."""
    return bounds.flags() or "the default bounds"


def _not_applying(mutant: Mutant, bounds: Bounds, problem: str | None) -> MutantKill:
    """The row of a mutant whose edits no longer fit the base: not searched, and why."""
    return MutantKill(name=mutant.name, clauses=mutant.clauses, bounds=bounds, killed_by=(), shortest=(),
                      equivalent=mutant.equivalent, reason=mutant.claim, states=0, complete=False, seconds=0.0,
                      problem=problem)


def _registered(mutant: Mutant) -> bool:
    try:
        return mutant_named(mutant.name) is mutant
    except KeyError:
        return False


def _named_row(job: tuple[str, Bounds, bool], order: tuple[str, ...], draft: Draft | None = None) -> MutantKill:
    """One registry mutant's row, in a worker process (the mutant travels by name and the draft by its file:
    their tables hold closures, which do not pickle)."""
    name, bounds, vet = job
    return _row(mutant_named(name), bounds, order, None, _base_run, vet, draft)


def _costliest_first(job: tuple[str, Bounds, bool]) -> tuple[bool, bool, int, int]:
    """Start the likely longest searches first, so that none is left alone at the end: mutants marked
    large, then those not vetted (every state checked), then those at bounds with more sessions or turns
    (the state count multiplies), then at larger bounds."""
    name, bounds, vet = job
    return not mutant_named(name).large, vet, -bounds.sessions * bounds.turns, -sum(bounds.as_dict().values())

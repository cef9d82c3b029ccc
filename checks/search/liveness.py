"""Liveness over the reachable state graph, with networkx: does every fair behaviour end well?

Semantics. A behaviour is an infinite sequence of states from an initial state, each the successor of
the one before. Which behaviours count is said by the machine's fairness assumptions
(`model/liveness.py`, `FAIRNESS`, each switchable): by default weak fairness of every state-changing
step (one enabled continuously is eventually taken) and strong fairness of a write that succeeds (one
enabled again and again is eventually taken). A self-loop (a step whose post-state equals its
pre-state, such as a poll) makes no progress and is never required. An infinite behaviour ends either

(a) circling a set of states of the graph of state-changing steps: it counts when the set is *fair*,
    decided exactly by the standard refinement of strongly connected components (Emerson-Lei, as for
    Streett automata): a component in which a weakly fair action is enabled everywhere and never taken
    inside has no fair loop; the states where a strongly fair action is enabled but never taken inside
    are removed, and what is left is split into components again, until a component owes nothing; or
(b) stuttering in one state forever: it counts when that is fair (with weak fairness of every step: an
    *end state*, one whose only enabled steps are self-loops, or none).

Only `--write-failures any` gives the graph cycles (a retried write-back returns to a state it left);
the bounded model's graph is acyclic, and there (a) never applies.

A final state (`machine.is_final`) is normally an end state. The checks:

- `no_stuck_execution` (G6.5, G5.2): from every reachable state some final state is reachable
  (the ancestors of the final states, on the graph, are every state).
- `eventual_delivery` (T7.1, T7.12): every artifact held by an execution is eventually no longer
  held (delivered, or dropped with a warning). Broken by a fair end state in which some execution's
  held list is non-empty, or by a fair loop in every state of which one artifact ref is held.
- `declined_run_completes` (G5.2): on every fair behaviour in which a question of an execution is
  declined, that execution ends finished (`status in FINISHED`). Broken by a fair end state, or by a
  fair loop, in every state of which one execution has a declined question and is not finished.

Each property is also *witnessed*: its trigger (a live execution, a held artifact, a declined
question) occurs in some reachable state, and the witness is the shortest path to the nearest such
state followed by the shortest path on to a final state, where the trigger is resolved. A property
whose trigger never occurs holds vacuously; `needs` names the bound that would make it occur, if the
bounds exclude it (the model's witness of the same situation says which).

A counterexample is a `Lasso`: the shortest breadth-first path to the nearest offending end state
or fair loop, then the loop: a stutter, or a walk from the loop's first-reached state through every
state of its fair component and an edge of each action the assumptions owe there, back to its start. For
`no_stuck_execution` that is the nearest stuck end state or cycle (the stuck states are closed under
successors, so one exists), and the message names the first step from which no final state is reachable.

The properties and their pending facts are the model's (`model/liveness.py`, `machine.liveness`);
the code relies only on the Machine interface (`init_states`, `successors`, `is_final`, `bounds`,
`liveness`), never on action classes.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx
from pausecheck.model import Eventually, missing_bound, property_named
from pausecheck.model.liveness import FAIR, STRONG, WEAK, Fairness, fairness_named, owed, persisting, unfair

__all__ = ["GraphFacts", "Lasso", "LivenessVerdict", "LivenessResult", "LivenessGraphTooLarge", "check_liveness"]

class LivenessGraphTooLarge(Exception):
    """More than `limit` states are reachable; the liveness checks need the whole graph."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reachable graph has more than {limit:,} states; lower the bounds or raise max_states")
        self.limit = limit


@dataclass(frozen=True, slots=True)
class GraphFacts:
    """The shape of the reachable graph: steps counted one per (state, action), as the explorer does."""

    states: int
    transitions: int  # every step, self-loops included, with multiplicity
    edges: int  # distinct (pre, post) pairs with pre != post: the edges of the analysed DiGraph
    self_loops: int  # steps whose post-state is their pre-state (with multiplicity)
    nontrivial_sccs: int  # strongly connected components of more than one state: cycles
    end_states: int  # states with no state-changing step (final or not)
    final_states: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Lasso:
    """A fair behaviour: `states[0]` initial; `actions[i]` leads from states[i] to states[i + 1].

    The loop is states[loop_start:] and back to states[loop_start]. If len(actions) == len(states),
    the last action is that closing step (a cycle's back edge, or the self-loop a stutter repeats);
    if len(actions) == len(states) - 1, the last state stutters with no step enabled.
    """

    states: tuple[Any, ...]
    actions: tuple[Any, ...]
    loop_start: int


@dataclass(frozen=True, slots=True)
class LivenessVerdict:
    """One liveness property: whether it holds and, if not, a lasso that breaks it."""

    name: str
    clauses: tuple[str, ...]
    doc: str
    holds: bool
    lasso: Lasso | None
    message: str | None = None
    witness: Lasso | None = None  # a path through the trigger to a final state (stuttering there)
    needs: str | None = None  # the bound that would let the trigger occur, if the bounds exclude it

    @property
    def witnessed(self) -> bool:
        """The trigger occurs in some reachable state: the verdict is not vacuous."""
        return self.witness is not None


@dataclass(frozen=True, slots=True)
class LivenessResult:
    """The graph's facts and one verdict per liveness property."""

    facts: GraphFacts
    verdicts: tuple[LivenessVerdict, ...]

    def verdict(self, name: str) -> LivenessVerdict:
        """The verdict of the property called `name` (KeyError if none)."""
        for v in self.verdicts:
            if v.name == name:
                return v
        raise KeyError(name)


@dataclass(slots=True)
class _Graph:
    """The reachable graph: states by BFS index, BFS parents, the DiGraph of state-changing steps."""

    machine: Any
    states: list[Any]
    parent: array
    digraph: networkx.DiGraph
    finals: list[int]
    transitions: int
    self_loops: int
    index: dict[Hashable, int]
    _moves: dict[int, list[tuple[Any, int]]] = field(default_factory=dict)

    def moves(self, node: int) -> list[tuple[Any, int]]:
        """The state-changing steps from `node`: (action, target), in canonical order (each node's once: only the
        states on cycles, or every state where a stutter may be fair, ever ask)."""
        if node not in self._moves:
            state = self.states[node]
            self._moves[node] = [(action, self.index[post]) for action, post in self.machine.successors(state)
                                 if post != state]
        return self._moves[node]


def _build(machine: Any, max_states: int) -> _Graph:
    """Breadth-first search collecting a compact adjacency (CSR arrays), then the DiGraph over indices."""
    index: dict[Hashable, int] = {}
    states: list[Any] = []
    parent, offsets, targets = array("q"), array("q", [0]), array("q")
    transitions = self_loops = 0

    def add(state: Any, via: int) -> None:
        if len(states) >= max_states:
            raise LivenessGraphTooLarge(max_states)
        index[state] = len(states)
        states.append(state)
        parent.append(via)

    for state in machine.init_states():
        if state not in index:
            add(state, -1)
    for i, state in enumerate(states):  # `states` grows while we walk it
        for _action, post in machine.successors(state):
            transitions += 1
            if post == state:
                self_loops += 1
                continue
            if post not in index:
                add(post, i)
            targets.append(index[post])
        offsets.append(len(targets))
    digraph = networkx.DiGraph()
    digraph.add_nodes_from(range(len(states)))
    digraph.add_edges_from((i, targets[k]) for i in range(len(states)) for k in range(offsets[i], offsets[i + 1]))
    finals = [i for i, s in enumerate(states) if machine.is_final(s)]
    return _Graph(machine, states, parent, digraph, finals, transitions, self_loops, index)


def _step_between(machine: Any, pre: Any, post: Any) -> Any:
    """The first action, in canonical order, that leads from `pre` to `post` (None if none)."""
    return next((action for action, target in machine.successors(pre) if target == post), None)


def _path(g: _Graph, node: int) -> list[int]:
    """The breadth-first (shortest) path of state indices from an initial state to `node`."""
    path = [node]
    while g.parent[path[-1]] >= 0:
        path.append(g.parent[path[-1]])
    return path[::-1]


def _lasso(g: _Graph, node: int, scc: frozenset[int] | None) -> Lasso:
    """The BFS path to `node`, then a stutter there (scc None) or a shortest cycle through it in `scc`."""
    path = _path(g, node)
    loop_start = len(path) - 1
    if scc is not None:
        sub = g.digraph.subgraph(scc)
        back = min((networkx.shortest_path(sub, node, p) for p in sub.predecessors(node)), key=len)
        path += back[1:]
    states = tuple(g.states[i] for i in path)
    actions = [_step_between(g.machine, a, b) for a, b in zip(states, states[1:], strict=False)]
    closing = _step_between(g.machine, states[-1], states[loop_start])
    return Lasso(states, tuple(actions) + (() if closing is None else (closing,)), loop_start)


def _nearest(ends: Iterable[int], sccs: Iterable[frozenset[int]]) -> tuple[int, frozenset[int] | None] | None:
    """The offending end state, or SCC with its first-reached state, that breadth-first search reaches first.

    BFS indices grow with depth, so the least index is the nearest; an SCC is entered at its least index.
    """
    options: list[tuple[int, frozenset[int] | None]] = [(n, None) for n in ends] + [(min(c), c) for c in sccs]
    return min(options, key=lambda option: option[0], default=None)


Facts = Callable[[Any], frozenset[str]]  # what a state shows that must not persist forever


def _components(g: _Graph, nodes: Iterable[int]) -> list[frozenset[int]]:
    """The strongly connected components of more than one state of the subgraph on `nodes` (each holds a cycle)."""
    return [frozenset(c) for c in networkx.strongly_connected_components(g.digraph.subgraph(nodes)) if len(c) > 1]


def _owed(g: _Graph, component: frozenset[int], fairness: tuple[Fairness, ...]) -> set[tuple[int, Any, int]] | None:
    """Whether a fair loop can stay in `component` and visit all of it: the edges inside it of each action the
    assumptions owe there (one edge per action), or None if a weakly fair action is enabled in every state of it
    and never taken inside (then no loop within it is fair). Strongly fair actions are not judged here."""
    inside = {(i, a, j) for i in component for a, j in g.moves(i) if j in component}
    taken = {a for _, a, _ in inside}
    enabled = [{a for a, _ in g.moves(i)} for i in component]
    due: set[Any] = set()
    for f in fairness:
        wanted = owed(f, enabled)
        if f.strength == WEAK and wanted - taken:
            return None
        due |= wanted & taken
    return {min((e for e in inside if e[1] == a), key=lambda e: (e[0], e[2])) for a in due}


def _fair_components(g: _Graph, nodes: Iterable[int], fairness: tuple[Fairness, ...]) -> list[frozenset[int]]:
    """The components of the subgraph on `nodes` that hold a fair loop through all their states: each component
    refined until it owes nothing, by removing the states where a strongly fair action is enabled and never
    taken inside, and splitting what is left (the Emerson-Lei refinement)."""
    fair, work = [], _components(g, nodes)
    strong = [f for f in fairness if f.strength == STRONG]
    while work:
        component = work.pop()
        if _owed(g, component, fairness) is None:
            continue
        inside = {a for i in component for a, j in g.moves(i) if j in component}
        bad = {i for i in component for a, _ in g.moves(i) if a not in inside and any(f.covers(a) for f in strong)}
        if bad:
            work += _components(g, component - bad)
        else:
            fair.append(component)
    return sorted(fair, key=min)


def _fair_lasso(g: _Graph, component: frozenset[int], fairness: tuple[Fairness, ...]) -> Lasso:
    """The breadth-first path to the component's first-reached state, then a loop from it through every state of
    the component and each edge the assumptions owe there, back to its start: a fair loop, as replay judges it."""
    sub = g.digraph.subgraph(component)
    start = min(component)
    path = _path(g, start)
    states, actions = [g.states[i] for i in path], [
        _step_between(g.machine, g.states[a], g.states[b]) for a, b in zip(path, path[1:], strict=False)]
    loop_start, here = len(path) - 1, start

    def walk(to: int) -> None:
        nonlocal here
        hops = networkx.shortest_path(sub, here, to)
        for a, b in zip(hops, hops[1:], strict=False):
            actions.append(_step_between(g.machine, g.states[a], g.states[b]))
            states.append(g.states[b])
        here = to

    for node in sorted(component):
        walk(node)
    for pre, action, post in sorted(_owed(g, component, fairness) or (), key=lambda e: (e[0], e[2], repr(e[1]))):
        walk(pre)
        actions.append(action)
        states.append(g.states[post])
        here = post
    walk(start)
    states.pop()  # back at the start: the last step is the closing one
    return Lasso(tuple(states), tuple(actions), loop_start)


def _fair_ends(g: _Graph, fairness: tuple[Fairness, ...]) -> list[int]:
    """The states a behaviour may stutter in forever: with weak fairness of every step, those with no
    state-changing step (the end states); with less, each state whose stutter owes no action."""
    if any(f.strength == WEAK and f.covers(None) for f in fairness):  # every step weakly fair: covers any action
        return [n for n, degree in g.digraph.out_degree() if degree == 0]
    return [n for n in range(len(g.states)) if unfair(fairness, [{a for a, _ in g.moves(n)}], ()) is None]


def _state_check(g: _Graph, ends: list[int], sccs: list[frozenset[int]],
                 prop: Eventually, fairness: tuple[Fairness, ...]) -> tuple[Lasso | None, str | None]:
    """A lasso to a fair end state or a fair loop where a pending fact of `prop` persists, and a message naming
    it. A loop is sought for each fact pending somewhere on a cycle, among the states where it is pending."""
    bounds = g.machine.bounds
    cyclic = sorted({i for c in sccs for i in c})
    facts = sorted({f for i in cyclic for f in prop.pending(g.states[i], bounds)})
    loops = [c for f in facts for c in _fair_components(
        g, [i for i in cyclic if f in prop.pending(g.states[i], bounds)], fairness)]
    choice = _nearest([n for n in ends if prop.pending(g.states[n], bounds)], loops)
    if choice is None:
        return None, None
    node, loop = choice
    if loop is None:
        lasso = _lasso(g, node, None)
        persists = ", ".join(sorted(prop.pending(g.states[node], bounds)))
        how = "it stutters, no fairness assumption asking for a step" if g.moves(node) \
            else "no state-changing step is enabled"
        return lasso, f"{prop.what} {persists} forever: from step {lasso.loop_start} {how}"
    lasso = _fair_lasso(g, loop, fairness)
    persists = ", ".join(sorted(persisting(prop, [g.states[i] for i in loop], bounds)))
    under = ", ".join(f.name for f in fairness) or "no fairness"
    return lasso, (f"{prop.what} {persists} in every state of a fair loop through {len(loop)} states from step "
                   f"{lasso.loop_start} (fair under: {under})")


def _alive(g: _Graph) -> set[int]:
    """The final states and their ancestors: the states from which a final state is reachable."""
    if not g.finals:
        return set()
    sink = -1  # a virtual successor of every final state: one ancestors() query instead of one per final
    g.digraph.add_edges_from((f, sink) for f in g.finals)
    try:
        return networkx.ancestors(g.digraph, sink) | set(g.finals)
    finally:
        g.digraph.remove_node(sink)


def _stuck_check(g: _Graph, ends: list[int], sccs: list[frozenset[int]]) -> tuple[Lasso | None, str | None]:
    """A lasso into the states from which no final state is reachable (closed under successors)."""
    alive = _alive(g)
    if len(alive) == len(g.states):
        return None, None
    node, scc = _nearest([n for n in ends if n not in alive], [c for c in sccs if min(c) not in alive])
    first = next(k for k, i in enumerate(_path(g, node)) if i not in alive)
    return _lasso(g, node, scc), f"no final state is reachable from step {first} on: the run is stuck"


def _witness(g: _Graph, facts: Facts) -> Lasso | None:
    """The nearest state where `facts` shows something, then the nearest final state after it."""
    node = next((i for i, s in enumerate(g.states) if facts(s)), None)
    if node is None:
        return None
    finals, parent, frontier = set(g.finals), {node: node}, [node]
    reached = node if node in finals else None
    while frontier and reached is None:  # breadth-first, on the state-changing steps
        level = []
        for f in frontier:
            for t in g.digraph.successors(f):
                if t not in parent:
                    parent[t] = f
                    level.append(t)
        frontier, reached = level, min(finals.intersection(level), default=None)
    if reached is None:
        return None  # no final state after the trigger: no_stuck_execution is broken there
    tail = [reached]
    while tail[-1] != node:
        tail.append(parent[tail[-1]])
    path = _path(g, node) + tail[-2::-1]
    states = tuple(g.states[i] for i in path)
    actions = tuple(_step_between(g.machine, a, b) for a, b in zip(states, states[1:], strict=False))
    return Lasso(states, actions, len(states) - 1)


def check_liveness(machine: Any, *, max_states: int = 2_000_000) -> LivenessResult:
    """Build the reachable graph of `machine` and judge each liveness property (see the module doc)."""
    started = time.perf_counter()
    g = _build(machine, max_states)
    fairness = fairness_named(getattr(machine, "fairness", FAIR))  # a machine of another model: the defaults
    sccs = [frozenset(c) for c in networkx.strongly_connected_components(g.digraph) if len(c) > 1]
    ends = [n for n, degree in g.digraph.out_degree() if degree == 0]
    fair_ends = _fair_ends(g, fairness)
    verdicts = []
    for prop in machine.liveness:
        lasso, message = (_stuck_check(g, ends, sccs) if prop.name == "no_stuck_execution"
                          else _state_check(g, fair_ends, sccs, prop, fairness))
        needs = missing_bound(property_named(prop.situation), machine.bounds) if prop.situation else None
        verdicts.append(LivenessVerdict(prop.name, prop.clauses, prop.doc, lasso is None, lasso, message,
                                        _witness(g, lambda state, p=prop: p.pending(state, machine.bounds)), needs))
    facts = GraphFacts(len(g.states), g.transitions, g.digraph.number_of_edges(), g.self_loops, len(sccs),
                       len(ends), len(g.finals), time.perf_counter() - started)
    return LivenessResult(facts, tuple(verdicts))

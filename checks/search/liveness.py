"""Liveness over the reachable state graph, with networkx: does every fair behaviour end well?

Semantics. A behaviour is an infinite sequence of states from an initial state, each the successor of
the one before. We assume weak fairness on every action that changes the state: an action enabled
continuously is eventually taken. A self-loop (a step whose post-state equals its pre-state, such as
a poll) makes no progress and is never required. The only infinite fair behaviours are therefore:

(a) those that end circling a non-trivial strongly connected component (more than one state) of the
    graph of state-changing steps; and
(b) those that end in an *end state*, one whose only enabled steps are self-loops (or none),
    stuttering there forever: a lasso whose loop is that single state.

A final state (`machine.is_final`) is normally an end state. The checks:

- `no_stuck_execution` (G6.5, G5.2): from every reachable state some final state is reachable
  (the ancestors of the final states, on the graph, are every state).
- `eventual_delivery` (T7.1, T7.12): every artifact held by an execution is eventually no longer
  held (delivered, or dropped with a warning). Broken by an end state in which some execution's held
  list is non-empty, or by a non-trivial SCC in every state of which one artifact ref is held. The
  latter approximates weak fairness over a cycle: every such SCC is reported as a possible
  violation without asking whether a fair behaviour can stay in it.
- `declined_run_completes` (G5.2): on every fair behaviour in which a question of an execution is
  declined, that execution ends finished (`status in FINISHED`). Broken by an end state, or by a
  non-trivial SCC (same approximation), in every state of which one execution has a declined
  question and is not finished.

Each property is also *witnessed*: its trigger (a live execution, a held artifact, a declined
question) occurs in some reachable state, and the witness is the shortest path to the nearest such
state followed by the shortest path on to a final state, where the trigger is resolved. A property
whose trigger never occurs holds vacuously; `needs` names the bound that would make it occur, if the
bounds exclude it (the model's witness of the same situation says which).

A counterexample is a `Lasso`: the shortest breadth-first path to the nearest offending end state
or SCC, then the loop (a stutter, or a shortest cycle through the SCC's first-reached state). For
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
from dataclasses import dataclass
from typing import Any

import networkx
from pausecheck.model import Eventually, missing_bound, property_named
from pausecheck.model.liveness import persisting

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
    return _Graph(machine, states, parent, digraph, finals, transitions, self_loops)


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


def _state_check(g: _Graph, ends: list[int], sccs: list[frozenset[int]],
                 prop: Eventually) -> tuple[Lasso | None, str | None]:
    """A lasso to an end state or an SCC where a pending fact of `prop` persists, and a message naming it."""
    bounds = g.machine.bounds

    def common(scc: frozenset[int]) -> frozenset[str]:  # the model's own judgement of a loop
        return persisting(prop, [g.states[i] for i in scc], bounds)

    choice = _nearest([n for n in ends if prop.pending(g.states[n], bounds)], [c for c in sccs if common(c)])
    if choice is None:
        return None, None
    node, scc = choice
    lasso = _lasso(g, node, scc)
    persists = ", ".join(sorted(prop.pending(g.states[node], bounds) if scc is None else common(scc)))
    if scc is None:
        return lasso, f"{prop.what} {persists} forever: from step {lasso.loop_start} no state-changing step is enabled"
    return lasso, (f"{prop.what} {persists} in every state of a {len(scc)}-state cycle entered at step "
                   f"{lasso.loop_start} (a possible violation: fairness over the cycle is not checked)")


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
    sccs = [frozenset(c) for c in networkx.strongly_connected_components(g.digraph) if len(c) > 1]
    ends = [n for n, degree in g.digraph.out_degree() if degree == 0]
    verdicts = []
    for prop in machine.liveness:
        lasso, message = (_stuck_check(g, ends, sccs) if prop.name == "no_stuck_execution"
                          else _state_check(g, ends, sccs, prop))
        needs = missing_bound(property_named(prop.situation), machine.bounds) if prop.situation else None
        verdicts.append(LivenessVerdict(prop.name, prop.clauses, prop.doc, lasso is None, lasso, message,
                                        _witness(g, lambda state, p=prop: p.pending(state, machine.bounds)), needs))
    facts = GraphFacts(len(g.states), g.transitions, g.digraph.number_of_edges(), g.self_loops, len(sccs),
                       len(ends), len(g.finals), time.perf_counter() - started)
    return LivenessResult(facts, tuple(verdicts))

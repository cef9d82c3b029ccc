"""The state graph through networkx, for analysis and export (DOT, GraphML, node-link JSON).

The explorer (`explore.py`) stays the search structure; this module rebuilds the reachable graph on
its own small breadth-first search, so that networkx can answer questions about it (strongly
connected components, dead ends) and other tools can draw it.

The graph is a `networkx.DiGraph`, not a MultiDiGraph: at the default and small bounds no two
actions lead from one state to the same state, but a patched machine (a mutant) might make them do
so, and then the one edge carries every such action, their `action`, `kind` and `clauses` joined in
successor order with " | ". No step is lost; `transitions(graph)` counts actions, not edges.
Self-loops (a poll, which changes nothing) are kept as self-loop edges.

Every attribute is a str, int or bool, as GraphML requires. Node ids are "n0", "n1", ... in
discovery order ("t0"... for trace states in `around`), so the same machine gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx
from pausecheck.model import Action, Machine, State, action_to_json
from pausecheck.model.rules import RULES, clauses_of
from pausecheck.model.state import ref_name

from .explore import Progress

__all__ = ["FORMATS", "GraphTooLarge", "summary", "state_graph", "around", "transitions", "write_graph",
           "dot_escape", "to_dot"]

FORMATS = ("dot", "graphml", "json")
JOIN = " | "  # between the actions (kinds, clauses) that share one edge


class GraphTooLarge(Exception):
    """The graph would need more states than allowed; `limit` is that allowance."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reachable graph has more than {limit} states; lower the bounds, raise --max-states, "
                         "or export only --around a trace")
        self.limit = limit


def _refs(refs: tuple[int, ...]) -> str:
    return " ".join(ref_name(r) for r in refs)


def summary(state: State) -> str:
    """A one-line account of a state: each execution, each segment in flight, the warnings, the
    artifacts produced and the faults so far. Distinct states get distinct lines (tests/test_graph.py),
    so that no two boxes of a picture look alike."""
    parts = [_execution(e) for e in state.executions] + [_segment(s) for s in state.segments]
    if state.warnings:
        parts.append("warn " + " ".join(f"{w.execution}:{ref_name(w.ref)}" for w in state.warnings))
    if state.artifacts:
        parts.append("made " + " ".join(f"{ref_name(i)}@{a.execution}" + (f"/{a.call}" if a.call else "")
                                         for i, a in enumerate(state.artifacts, 1)))
    faults = [f"{n} {name}" for name, n in (("write failures", state.write_failures), ("crashes", state.crashes),
                                            ("races", state.races)) if n]
    faults += [f"lost in crash[{_refs(state.crashed)}]"] if state.crashed else []
    faults += ["new turns in " + " ".join(f"s{n}" for n in state.new_turns)] if state.new_turns else []
    if faults:
        parts.append(", ".join(faults))
    return "; ".join(parts) or "no executions"


def _execution(e: Any) -> str:
    name = e.id if e.session == 1 else f"{e.id}@s{e.session}"
    words = [name, e.status] + [f"{a.call}:{a.status}" for a in e.attempts]
    words += [f"q{q.id} {q.status}" + (f" x{q.observations + 1}" if q.observations else "") for q in e.questions]
    words += [f"held[{_refs(e.held)}]"] if e.held else []
    words += [f"msgs[{' '.join(f'[{_refs(m)}]' for m in e.messages)}]"] if e.messages else []
    words += [f"unhandled {e.unhandled}"] if e.unhandled else []
    words += [f"wb-failed {e.write_failures}"] if e.write_failures else []
    words += [f"calls {e.calls}"] if e.calls != len({a.call for a in e.attempts}) else []
    if e.node_failures:
        words.append("nodes " + " ".join("routed" if routed else "unrouted" for routed in e.node_failures))
    return " ".join(words)


def _segment(s: Any) -> str:
    words = [f"seg {s.execution} [{_refs(s.collected)}]", f"{s.calls} fresh"]
    words += [] if s.phase == "working" else [s.phase]
    words += [f"taken[{_refs(s.taken)}]"] if s.taken else []
    words += ["final"] if s.final else []
    words += [f"closing {s.closing}"] if s.closing else []
    words += ["write-failed"] if s.write_failed else []
    return " ".join(words)


def _add_node(graph: networkx.DiGraph, node: str, machine: Machine, state: State, depth: int) -> None:
    graph.add_node(node, label=summary(state), initial=state in machine.init_states(),
                   final=machine.is_final(state), depth=depth)


def _step(machine: Machine, pre: State, action: Action, post: State) -> dict[str, Any]:
    """A step's edge attributes; a mutant's step cites the clauses of the rule it deviates from."""
    rules_post = post if machine.rules is RULES else Machine(machine.bounds, machine.reading).step(pre, action)
    clauses = " ".join(clauses_of(pre, action, rules_post if rules_post is not None else post, machine.rules))
    return {"action": str(action), "kind": action_to_json(action)["kind"], "clauses": clauses,
            "deviates": rules_post != post}


def _add_edge(graph: networkx.DiGraph, u: str, v: str, step: dict[str, Any]) -> None:
    """Add one step; a second action between the same two states joins the first's edge."""
    if graph.has_edge(u, v):
        old = graph.edges[u, v]
        step = {key: old[key] + JOIN + value for key, value in step.items() if isinstance(value, str)} | {
            "deviates": old["deviates"] or step["deviates"]}
    graph.add_edge(u, v, **step)


def state_graph(machine: Machine, *, max_states: int = 20000, progress: Progress | None = None) -> networkx.DiGraph:
    """Every state `machine` reaches, breadth-first, with every step between them.

    Nodes carry `label`, `initial`, `final` and `depth`; edges `action`, `kind`, `clauses` and
    `deviates` (a mutant's step differs from the rule's).
    Raises GraphTooLarge if more than `max_states` states are reachable. `progress(states, edges,
    depth)` is called every 1,024 states expanded, if given.
    """
    graph = networkx.DiGraph()
    ids: dict[State, str] = {}
    order: list[State] = []
    for state in machine.init_states():
        if state not in ids:
            ids[state] = f"n{len(ids)}"
            order.append(state)
            _add_node(graph, ids[state], machine, state, 0)
    for expanded, state in enumerate(order, 1):  # `order` grows while we walk it: a queue without pops
        depth = graph.nodes[ids[state]]["depth"]
        if progress is not None and expanded & 1023 == 0:
            progress(len(ids), graph.number_of_edges(), depth)
        for action, post in machine.successors(state):
            if post not in ids:
                if len(ids) >= max_states:
                    raise GraphTooLarge(max_states)
                ids[post] = f"n{len(ids)}"
                order.append(post)
                _add_node(graph, ids[post], machine, post, depth + 1)
            _add_edge(graph, ids[state], ids[post], _step(machine, state, action, post))
    return graph


def _first_indices(states: Sequence[State]) -> dict[State, int]:
    """Each distinct state of a trace with the first index where it occurs, in trace order."""
    first: dict[State, int] = {}
    for i, state in enumerate(states):
        first.setdefault(state, i)
    return first


def _neighbourhood(machine: Machine, first: dict[State, int], radius: int, max_states: int) -> dict[State, int]:
    """The trace states and those within `radius` steps forward, each with its depth along the trace."""
    depth = dict(first)
    frontier = list(depth)
    for _level in range(radius):
        layer: dict[State, int] = {}
        for state in frontier:
            for _, post in machine.successors(state):
                if post not in depth:
                    layer[post] = min(layer.get(post, depth[state] + 1), depth[state] + 1)
        if len(depth) + len(layer) > max_states:
            raise GraphTooLarge(max_states)
        depth.update(layer)
        frontier = list(layer)
    return depth


def around(machine: Machine, states: Sequence[State], *, radius: int = 1, max_states: int = 20000) -> networkx.DiGraph:
    """The part of the graph a trace passes through: its states and all within `radius` steps forward.

    Trace states are nodes "t<i>" (i the first index where the state occurs) with `on_trace=True` and
    `trace_index=i`; the others are "n0", "n1", ... in breadth-first order. `depth` is the fewest
    steps from the initial state along the trace and then forward. Every step between two included
    states is an edge; the trace's own steps have `on_trace=True`.
    """
    first = _first_indices(states)
    depth = _neighbourhood(machine, first, radius, max_states)
    ids = {state: f"t{first[state]}" for state in first}
    for state in depth:
        ids.setdefault(state, f"n{len(ids) - len(first)}")
    graph = networkx.DiGraph()
    for state, node in ids.items():
        _add_node(graph, node, machine, state, depth[state])
        graph.nodes[node].update(on_trace=state in first, trace_index=first.get(state, -1))
    for pre in ids:
        for action, post in machine.successors(pre):
            if post in ids:
                _add_edge(graph, ids[pre], ids[post], _step(machine, pre, action, post))
    networkx.set_edge_attributes(graph, False, "on_trace")
    for i, (pre, post) in enumerate(zip(states, states[1:], strict=False)):
        if not graph.has_edge(ids[pre], ids[post]):
            raise ValueError(f"step {i + 1} of the trace is not a step of this machine; replay the trace to see why")
        graph.edges[ids[pre], ids[post]]["on_trace"] = True
    return graph


def transitions(graph: networkx.DiGraph) -> int:
    """The number of steps (actions) in a graph: an edge shared by several actions counts each."""
    return sum(action.count(JOIN) + 1 for _, _, action in graph.edges(data="action"))


def dot_escape(text: str) -> str:
    """`text` as a double-quoted DOT string: backslashes and quotes escaped, newlines as \\n."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_id(node: Any) -> str:
    return str(node) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(node)) else dot_escape(str(node))


def _dot_style(data: dict[str, Any], node: bool) -> str:
    style = ["style=bold"] if node and data.get("initial") else []
    style += ["peripheries=2"] if node and data.get("final") else []
    style += ["color=red", "penwidth=2"] if data.get("on_trace") else []
    return "".join(f" {s}" for s in style)


def to_dot(graph: networkx.DiGraph) -> str:
    """The graph in Graphviz DOT: boxes labelled by state, edges by action and clauses."""
    lines = ["digraph pausecheck {", "  node [shape=box fontsize=10];", "  edge [fontsize=9];"]
    for node, data in graph.nodes(data=True):
        lines.append(f"  {_dot_id(node)} [label={dot_escape(str(data.get('label', node)))}{_dot_style(data, True)}];")
    for u, v, data in graph.edges(data=True):
        label = dot_escape("\n".join(filter(None, (data.get("action", ""), data.get("clauses", "")))))
        lines.append(f"  {_dot_id(u)} -> {_dot_id(v)} [label={label}{_dot_style(data, False)}];")
    return "\n".join(lines + ["}"]) + "\n"


def _node_link(graph: networkx.DiGraph) -> dict[str, Any]:
    """node_link_data with its edges under "edges", whichever keyword this networkx spells that with."""
    try:
        return networkx.node_link_data(graph, edges="edges")  # networkx >= 3.4
    except TypeError:
        return networkx.node_link_data(graph, link="edges")  # older: `link`, default "links"


def write_graph(graph: networkx.DiGraph, fmt: str, path: Path) -> None:
    """Write `graph` to `path` as "dot", "graphml" or "json" (node-link, sorted keys); same graph, same bytes."""
    if fmt == "dot":
        Path(path).write_text(to_dot(graph), encoding="utf-8")
    elif fmt == "graphml":
        networkx.write_graphml(graph, str(path))
    elif fmt == "json":
        Path(path).write_text(json.dumps(_node_link(graph), sort_keys=True, indent=2) + "\n", encoding="utf-8")
    else:
        raise ValueError(f"unknown graph format {fmt!r} (known: {', '.join(FORMATS)})")

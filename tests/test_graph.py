"""The graph export: the same states and steps as the explorer, trace neighbourhoods, three formats."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx
import pytest
from pausecheck.checks.search.explore import Result
from pausecheck.checks.search.graph import (
    FORMATS,
    GraphTooLarge,
    around,
    dot_escape,
    state_graph,
    summary,
    to_dot,
    transitions,
    write_graph,
)
from pausecheck.model import Bounds, Machine, StartTurn, reading_named
from pausecheck.model.deviate import Effect, deviate, on
from pausecheck.model.rules import RULES

from pausecheck import explore

from .strategies import reachable

SMALL = Machine(Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1))


@pytest.fixture(scope="module")
def graph() -> networkx.DiGraph:
    return state_graph(SMALL)


@pytest.fixture(scope="module")
def result() -> Result:
    return explore(SMALL)


def test_full_graph_has_the_explorers_states_and_steps(graph: networkx.DiGraph, result: Result) -> None:
    assert (graph.number_of_nodes(), transitions(graph)) == (62, 138) == (result.states, result.transitions)
    assert graph.number_of_edges() == 105  # a poll and a late answer share the self-loop of a state
    assert max(depth for _, depth in graph.nodes(data="depth")) == result.depth
    assert list(graph.nodes) == [f"n{i}" for i in range(62)]
    assert Counter(label for _, label in graph.nodes(data="label")) == Counter(map(summary, reachable(SMALL)))
    assert [n for n, initial in graph.nodes(data="initial") if initial] == ["n0"]
    finals = {summary(s) for s in reachable(SMALL) if SMALL.is_final(s)}
    assert {graph.nodes[n]["label"] for n, final in graph.nodes(data="final") if final} == finals
    assert any(u == v and kind == "poll" for u, v, kind in graph.edges(data="kind"))
    assert not any(deviates for _, _, deviates in graph.edges(data="deviates"))


def test_every_witness_is_a_path_of_the_graph(graph: networkx.DiGraph, result: Result) -> None:
    for discovery in result.witnesses.values():
        node = "n0"
        for action, post in zip(discovery.actions, discovery.states[1:], strict=True):
            node = next(v for _, v, text in graph.out_edges(node, data="action") if str(action) in text.split(" | "))
            assert graph.nodes[node]["label"] == summary(post)


def test_attributes_are_graphml_scalars(graph: networkx.DiGraph) -> None:
    values = [v for _, data in graph.nodes(data=True) for v in data.values()]
    values += [v for _, _, data in graph.edges(data=True) for v in data.values()]
    assert all(type(v) in (str, int, bool) for v in values)


# Small spaces that between them hold every field of a state: two sessions, crashes, races and expiries,
# node failures and interim writes, the producing call (A-T12), a write-back read before it is taken (A-T6).
DISTINCT = [
    (Bounds(sessions=2, calls=1, artifacts=1, pauses=1, observations=0, write_failures=0), "conformant"),
    (Bounds(calls=1, artifacts=1, pauses=1, crashes=1, observations=0), "conformant+A-T6=write-first"),
    (Bounds(calls=1, artifacts=1, pauses=1, races=1, expiries=1, observations=0), "conformant"),
    (Bounds(calls=1, artifacts=1, pauses=1, node_failures=1, interim_writes=1, observations=0, write_failures=0),
     "conformant"),
    (Bounds(calls=2, artifacts=2, pauses=1, observations=0, write_failures=0), "conformant+A-T12=with-artifacts"),
]


@pytest.mark.parametrize("bounds, reading", DISTINCT)
def test_distinct_states_have_distinct_labels(bounds: Bounds, reading: str) -> None:
    """A picture in which two boxes read the same misleads: every state's one-line summary is its own."""
    states = reachable(Machine(bounds, reading_named(reading)))
    labels = Counter(summary(state) for state in states)
    assert len(states) > 200 and labels.most_common(1)[0][1] == 1, labels.most_common(2)


def test_actions_sharing_a_pair_of_states_share_one_edge() -> None:
    # every action but StartTurn leads back to its state
    stall = deviate(*(on(rule.action, Effect()) for rule in RULES if rule.action is not StartTurn))
    machine = Machine(SMALL.bounds, rules=stall)
    graph = state_graph(machine)
    assert transitions(graph) == explore(machine).transitions > graph.number_of_edges()
    started = reachable(machine)[1]  # n1: a turn has started; everything else stalls there
    kinds = [action.KIND for action, post in machine.successors(started) if post == started]
    assert len(kinds) > 1 and graph.edges["n1", "n1"]["kind"] == " | ".join(kinds)
    assert graph.edges["n1", "n1"]["deviates"] and not graph.edges["n0", "n1"]["deviates"]


def test_too_large_names_the_limit() -> None:
    with pytest.raises(GraphTooLarge, match="more than 61 states") as caught:
        state_graph(SMALL, max_states=61)
    assert caught.value.limit == 61 and "--around" in str(caught.value)
    assert state_graph(SMALL, max_states=62).number_of_nodes() == 62


def test_around_a_witness(result: Result) -> None:
    trace = result.witnesses["approve"]
    part = around(SMALL, trace.states)
    for i, state in enumerate(trace.states):
        node = part.nodes[f"t{i}"]
        assert (node["on_trace"], node["trace_index"], node["label"]) == (True, i, summary(state))
        labels = {part.nodes[v]["label"] for v in part.successors(f"t{i}")}
        assert labels == {summary(post) for _, post in SMALL.successors(state)}
    on_trace = [(u, v) for u, v, flag in part.edges(data="on_trace") if flag]
    assert on_trace == [(f"t{i}", f"t{i + 1}") for i in range(len(trace.actions))]
    assert all(not flag for node, flag in part.nodes(data="on_trace") if node.startswith("n"))
    assert around(SMALL, trace.states, radius=2).number_of_nodes() > part.number_of_nodes()
    with pytest.raises(GraphTooLarge):
        around(SMALL, trace.states, max_states=len(trace.states))


def test_dot_escape() -> None:
    assert dot_escape('say "hi" \\ there\nnext') == '"say \\"hi\\" \\\\ there\\nnext"'


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_parses_back_and_is_deterministic(fmt: str, tmp_path: Path, result: Result) -> None:
    graph = around(SMALL, result.witnesses["approve"].states, radius=2)
    first, second = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
    write_graph(graph, fmt, first)
    write_graph(around(SMALL, result.witnesses["approve"].states, radius=2), fmt, second)
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text(encoding="utf-8")
    if fmt == "graphml":
        back = networkx.read_graphml(first)
        assert (back.number_of_nodes(), back.number_of_edges()) == (graph.number_of_nodes(), graph.number_of_edges())
        assert back.nodes["t0"]["initial"] is True
    elif fmt == "json":
        data = json.loads(text)
        assert (len(data["nodes"]), len(data["edges"])) == (graph.number_of_nodes(), graph.number_of_edges())
        assert text.endswith("}\n")
    else:
        assert text.startswith("digraph pausecheck {\n") and text.endswith("}\n") and text == to_dot(graph)
        assert text.count("{") == text.count("}") == 1  # labels hold no braces
        node_lines = [line.split()[0] for line in text.splitlines() if "->" not in line and "[label=" in line]
        assert node_lines == list(graph.nodes)
        assert "style=bold" in text and "peripheries=2" in text and "color=red" in text
        for _, label in graph.nodes(data="label"):
            assert f"[label={dot_escape(label)}" in text


def test_unknown_format(tmp_path: Path, graph: networkx.DiGraph) -> None:
    with pytest.raises(ValueError, match="known: dot, graphml, json"):
        write_graph(graph, "svg", tmp_path / "g.svg")

"""Issue 55: retries without end under stated fairness. `--write-failures any` lets a write fail without limit
(the counts stop at the bound), so the graph has cycles; the liveness search decides fair loops exactly (the
Emerson-Lei refinement of strongly connected components), and a violation is a lasso that replay confirms,
fairness included."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import networkx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.mutants.golden import golden_document
from pausecheck.checks.mutants.killmatrix import kill_matrix
from pausecheck.checks.report.sequence import sequence_svg, sequence_text
from pausecheck.checks.search.liveness import _build, _fair_components, check_liveness
from pausecheck.model import LIVENESS, Bounds, Machine
from pausecheck.model.liveness import STRONG, WEAK, Fairness, unfair
from pausecheck.traces.render import render
from pausecheck.traces.replay import replay

ENDLESS = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, observations=0, held_bound=1, write_failures=1,
                 endless_writes=1)
FLAGS = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
         "--held-bound", "1", "--write-failures", "any"]


def test_endless_writes_close_cycles_and_eventual_delivery_needs_the_write_to_be_fair() -> None:
    fair = check_liveness(Machine(ENDLESS))
    assert fair.facts.nontrivial_sccs > 0  # a retried write-back returns to a state it left
    assert fair.verdict("eventual_delivery").holds and fair.verdict("eventual_delivery").witnessed
    unfair_write = check_liveness(Machine(ENDLESS, fairness=("steps",)))
    broken = unfair_write.verdict("eventual_delivery")
    assert not broken.holds and broken.lasso is not None
    assert "a fair loop" in (broken.message or "") and "fair under: steps" in (broken.message or "")
    loop = broken.lasso.states[broken.lasso.loop_start:]
    assert len(loop) > 1 and all(s.executions[0].held or any(g.taken for g in s.segments) for s in loop)
    # Bounded, the same small bounds have no cycle at all: fairness changes nothing there.
    bounded = check_liveness(Machine(ENDLESS.replace(endless_writes=0), fairness=("steps",)))
    assert bounded.facts.nontrivial_sccs == 0 and bounded.verdict("eventual_delivery").holds


def test_the_lasso_replays_is_drawn_as_a_loop_and_is_refused_under_fairness_it_breaks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", *FLAGS, "--fairness", "steps"]) == 1
    assert "--write-failures any --observations 0 --held-bound 1 --fairness steps" in capsys.readouterr().out
    assert main(["check", *FLAGS, "--fairness", "steps", "--out", "out"]) == 1
    out = capsys.readouterr().out
    assert "[violation] eventual_delivery" in out and "fairness=('steps',))" in out
    trace = tmp_path / "out" / "violation-eventual_delivery.itf.json"
    document = json.loads(trace.read_text())
    assert document["#meta"]["fairness"] == ["steps"] and document["loop"] == document["#meta"]["loop"]
    assert main(["replay", str(trace)]) == 1  # a violation that replays: exit 1
    said = capsys.readouterr().out
    assert "[replayed]" in said and "the trace breaks eventual_delivery" in said
    assert f"returns to state {document['loop']}" in render(document)
    assert "loop repeats forever" in sequence_text(document) and "repeats forever" in sequence_svg(document)
    # Under strong fairness of the write, the same loop is not a behaviour: replay says so (exit 1).
    document["#meta"]["fairness"] = ["steps", "write"]
    trace.write_text(json.dumps(document))
    assert main(["replay", str(trace)]) == 1
    said = capsys.readouterr().out
    assert "no longer shows eventual_delivery" in said and "not a fair behaviour" in said


def test_default_fairness_holds_and_bad_values_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *FLAGS, "--accept-unexercised", "--no-companion"]) == 0
    out = capsys.readouterr().out
    assert "liveness under fairness: steps (weak); write (strong)" in out and "cycle(s)" in out
    assert main(["conform", *FLAGS, "--", "python", "runtime.py"]) == 2  # a runtime counts every failure
    assert "--write-failures any is for the model's own checks" in capsys.readouterr().err
    for bad in (["--write-failures", "many"], ["--fairness", "sometimes"]):
        with pytest.raises(SystemExit) as stop:
            main(["check", *bad])
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) <= 3 and "Traceback" not in "".join(err)


# ---------------------------------------------------------------------------------------------------------------
# The refinement against brute force, on small labelled graphs: a fair loop exists within a set of states exactly
# when some strongly connected set of its states, taking every edge inside it, owes no action.


class _Graph:
    """A machine over states 0..n-1 whose steps are labelled edges; state 0 initial; nothing final."""

    def __init__(self, edges: list[tuple[int, str, int]], size: int) -> None:
        self.edges, self.size = edges, size

    def init_states(self) -> tuple[int, ...]:
        return (0,)

    def successors(self, state: int) -> list[tuple[str, int]]:
        return [(a, t) for s, a, t in self.edges if s == state]

    def is_final(self, state: int) -> bool:
        return False


FAIRNESS = (Fairness("w", WEAK, "", lambda a: a.startswith("w")),
            Fairness("s", STRONG, "", lambda a: a.startswith("s")))


def _brute(graph: _Graph, nodes: list[int]) -> bool:
    """Some set of `nodes`, strongly connected by its inner edges, whose loop through all of it is fair."""
    for size in range(2, len(nodes) + 1):
        for chosen in itertools.combinations(nodes, size):
            inner = [(s, a, t) for s, a, t in graph.edges if s in chosen and t in chosen and s != t]
            digraph = networkx.DiGraph([(s, t) for s, _, t in inner])
            digraph.add_nodes_from(chosen)
            if not networkx.is_strongly_connected(digraph):
                continue
            enabled = [{a for a, t in graph.successors(s) if t != s} for s in chosen]
            if unfair(FAIRNESS, enabled, {a for _, a, _ in inner}) is None:
                return True
    return False


@st.composite
def _graphs(draw: Any) -> _Graph:
    size = draw(st.integers(2, 6))
    edges = draw(st.lists(st.tuples(st.integers(0, size - 1), st.sampled_from(["w1", "w2", "s1", "s2", "x"]),
                                    st.integers(0, size - 1)), max_size=14, unique=True))
    return _Graph([(s, f"{a}@{s}" if a == "x" else a, t) for s, a, t in edges], size)


@settings(max_examples=300, deadline=None)
@given(_graphs())
def test_the_refinement_finds_a_fair_loop_exactly_when_one_exists(graph: _Graph) -> None:
    g = _build(graph, 100)
    nodes = list(range(len(g.states)))
    found = _fair_components(g, nodes, FAIRNESS)
    assert bool(found) == _brute(graph, [g.states[i] for i in nodes])
    for component in found:  # each one found owes nothing, and holds a cycle
        states = [g.states[i] for i in component]
        inner = {a for s in states for a, t in graph.successors(s) if t in states and t != s}
        enabled = [{a for a, t in graph.successors(s) if t != s} for s in states]
        assert len(component) > 1 and unfair(FAIRNESS, enabled, inner) is None


def test_two_mutants_break_no_safety_property_and_only_liveness_kills_them() -> None:
    """Issue 55, item 4: with writes that may fail without limit, a retry that always fails and a store that refuses
    held artifacts show nothing unsafe: no always or transition property, no deadlock; a liveness property under
    the default fairness kills each, with a lasso that replays on the mutant."""
    mutants = (mutant_named("retry_always_fails"), mutant_named("held_write_refused"))
    matrix = kill_matrix(mutants)
    for mutant in mutants:
        row = matrix.row(mutant.name)
        assert row.killed_by and set(row.killed_by) <= {p.name for p in LIVENESS}, row.killed_by
        assert row.steps(mutant.target or "") == mutant.shortest
        document = golden_document(mutant, matrix)
        assert document is not None and document["loop"] is not None
        machine = Machine(mutant.bounds or Bounds(), fairness=tuple(document["#meta"]["fairness"]))
        assert replay(document, mutate(machine, mutant)).reproduced
        assert not replay(document, machine).reproduced  # the rules' own machine delivers after a retry

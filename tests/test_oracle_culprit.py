"""A divergence names what broke: the property (or the observation field) and its clauses first, the
step's second; a restart of the runtime before the divergence is in its message, its trace and the
printed text. The test double is a runtime whose take copies the held list instead of removing it,
and which keeps its held lists to itself, as an independent implementation would."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.oracle import InProcess, conform, divergence_document
from pausecheck.checks.oracle.culprit import FIELDS, field_of
from pausecheck.checks.oracle.standing import render_standing, standing
from pausecheck.checks.oracle.uncovered import raised, to_cover
from pausecheck.model import Bounds, Machine
from pausecheck.model.properties import PROPERTIES
from pausecheck.traces.render import render
from pausecheck.traces.replay import replay

from .copying_adapter import CopyingAdapter
from .test_oracle import BUGGY, EXAMPLE, RUNTIME, SMALL

# One held artifact, a failing write-back and its retry: the least a copying take needs to show twice.
COPYING = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1)


class CopyingRuntime:
    """A runtime whose write-back reads the held list without clearing it, and which does not expose
    its held lists (`"held": false`): only the wire shows the mistake, once an artifact comes twice."""

    def __init__(self, path: Path) -> None:
        self.runtime = EXAMPLE.Runtime(str(path), "copy-not-take")

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        response = self.runtime.handle(request)
        if request.get("type") == "hello":
            return {**response, "name": "copying take, held lists hidden", "held": False}
        return response


def test_a_take_that_copies_is_named_under_t7_7_first(tmp_path: Path) -> None:
    machine = Machine(COPYING)
    result = conform(InProcess(CopyingRuntime(tmp_path / "c.sqlite").handle, name="copying"), machine)
    d = result.divergence
    assert d is not None and d.kind == "observation"
    assert d.clauses[:2] == ("T7.7", "T7.8") and d.property == "no_double_delivery", d
    assert d.field is not None and field_of(d.field) == "messages"
    assert "O11.4" in d.clauses[2:]  # the step's own clauses come second: a write-back that completes
    assert "no_double_delivery breaks (artifact a1 is delivered 2 times" in d.message
    document = divergence_document(machine, result, "pausecheck conform -- copying")
    assert document["#meta"]["property"] == "no_double_delivery" and document["#meta"]["clauses"][0] == "T7.7"
    assert replay(json.loads(json.dumps(document)), machine).reproduced


def test_a_take_that_copies_with_its_held_lists_shown_is_named_under_t7_7_first(tmp_path: Path) -> None:
    result = conform(InProcess(EXAMPLE.Runtime(str(tmp_path / "r.sqlite"), "copy-not-take").handle), Machine(COPYING))
    d = result.divergence
    assert d is not None and d.field == "held.e1 (length)" and d.clauses[0] == "T7.7", d


@pytest.mark.parametrize("bounds", [Bounds(), Bounds(calls=1)], ids=["defaults", "calls-1"])
def test_a_take_that_copies_seen_only_after_the_write_is_named_under_t7_7_first(bounds: Bounds) -> None:
    """The held list differs after a write-back step and still holds what the model delivered: the take was not
    destructive (T7.7), though what shows it first is the black-box held_hidden (T7.3), named after it."""
    d = conform(InProcess(CopyingAdapter().handle, name="in-flight hidden"), Machine(bounds)).divergence
    assert d is not None and d.kind == "observation" and d.field == "held.e1 (length)", d
    assert type(d.steps[-1][1]).__name__ == "WriteMessage"  # seen after the write, not at the take
    assert (d.property, d.also, d.clauses[:3]) == ("no_double_delivery", ("held_hidden",), ("T7.7", "T7.8", "T7.3"))
    assert "O11.4" in d.clauses[3:]  # the step's own clauses come last: a write-back that completes
    assert d.message.endswith("the model has 0: no_double_delivery breaks (e1's held list keeps a1, which the "
                              "write-back delivered: T7.7, taking is destructive); held_hidden breaks too (artifact "
                              "a1 is held by e1 and shown on the wire)"), d.message


def test_the_copying_take_is_printed_under_t7_7_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "d.itf.json"
    assert main(["conform", "--calls", "1", "--out", str(trace), "--", sys.executable,
                 str(Path(__file__).parent / "copying_adapter.py")]) == 1
    out = capsys.readouterr().out
    assert re.search(r"clauses: T7\.7 T7\.8 T7\.3 T7\.5 T7\.6 O11\.4 \(first those of no_double_delivery, which it "
                     r"breaks, then held_hidden's, which it breaks too; then the step's\)", out), out
    assert json.loads(trace.read_text(encoding="utf-8"))["#meta"]["clauses"][0] == "T7.7"


# bug -> the property its shortest divergence at BUGGY breaks (the first clause is that property's)
NAMED = {
    "forget-on-failure": ("failed_write_back_restores", "T7.10"),
    "interrupt-as-failure": ("interrupt_not_failed", "G6.1"),
    "held-in-memory": ("no_loss", "T7.1"),
    "drop-oldest": ("drops_newest_with_warning", "T7.14"),
}


@pytest.mark.parametrize("bug", sorted(NAMED))
def test_each_bug_names_the_property_it_breaks(bug: str, tmp_path: Path) -> None:
    d = conform(InProcess(EXAMPLE.Runtime(str(tmp_path / "r.sqlite"), bug).handle), Machine(BUGGY)).divergence
    assert d is not None and (d.property, d.clauses[0]) == NAMED[bug], d


def test_every_field_names_properties_of_the_model() -> None:
    known = {p.name for p in PROPERTIES}
    assert {name for names in FIELDS.values() for name in names} <= known


@pytest.mark.parametrize(("path", "field"), [
    ("observation.turns.e1.messages[0] (length)", "messages"), ("observation.turns.e2.attempts.c1[1]", "attempts"),
    ("observation.warnings[0].artifact", "warnings"), ("held.e1 (length)", "held"), ("observation.turns", "turns"),
    ("observation.turns.e1.status", "status")])
def test_a_path_names_its_field(path: str, field: str) -> None:
    assert field_of(path) == field


def test_a_restart_before_the_divergence_is_in_the_message_the_trace_and_the_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    machine = Machine(BUGGY)
    result = conform(InProcess(EXAMPLE.Runtime(str(tmp_path / "r.sqlite"), "held-in-memory").handle), machine)
    d = result.divergence
    assert d is not None and d.restarts and d.restarts[-1] == d.step, d
    assert f"after step {d.step} and a restart," in d.message
    document = divergence_document(machine, result, "pausecheck conform -- ...")
    assert document["#meta"]["runtime"]["restarts"] == list(d.restarts)
    assert [i for i, s in enumerate(document["states"]) if s["#meta"].get("restart")] == list(d.restarts)
    text = render(document)
    assert text.count("then the runtime under test restarts") == len(d.restarts)
    assert replay(json.loads(json.dumps(document)), machine).reproduced
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in BUGGY.as_dict().items()]
    trace = tmp_path / "d.itf.json"
    assert main(["conform", *flags, "--out", str(trace), "--", sys.executable, str(RUNTIME),
                 "--bug", "held-in-memory"]) == 1
    out = capsys.readouterr().out
    assert "then the runtime under test restarts" in out and "and a restart," in out
    assert "the runtime was restarted after " + ", ".join(f"step {s}" for s in d.restarts) in out


def test_a_standing_counts_the_clauses_covered_and_the_flags_that_cover_the_rest(tmp_path: Path) -> None:
    machine = Machine(SMALL)
    result = conform(InProcess(EXAMPLE.Runtime(str(tmp_path / "a.sqlite"), None).handle), machine)
    page = standing(result, machine, "ref", None)
    rows = {r["id"]: r for r in page["clauses"]}
    missing = sorted(i for i, r in rows.items() if r["status"] == "not covered")
    assert missing and page["covered"] == len(rows) - len(missing) and page["clauses_total"] == len(rows)
    assert all(r["cover"] is None for r in rows.values() if r["status"] != "not covered")
    text = render_standing(page, "md")
    assert f"conforms (strict) on the {page['covered']} of {len(rows)} clauses covered" in text
    flagged = {i: rows[i]["cover"] for i in missing if rows[i]["cover"].startswith("--")}
    assert flagged and all(f"not covered: {i}" in text or f", {i}" in text for i in flagged)
    # Each named flag set covers its clauses when the runtime is run again with them: on an in-memory database
    # (a file's commits made --pauses 2 --calls 2 over a minute of conformance; none of these flags restarts it).
    for flags in sorted(set(flagged.values())):
        again = conform(InProcess(EXAMPLE.Runtime(":memory:", None).handle), Machine(raised(SMALL, flags)))
        covered = {c for c, count in again.clause_edges if count}
        assert {i for i, f in flagged.items() if f == flags} <= covered, flags


def test_a_clause_no_step_enacts_is_said_so() -> None:
    assert "does a step of the model enact it" in to_cover(["G6.5"], Machine(SMALL))["G6.5"].text
    every = Bounds(calls=2, pauses=1, observations=0, interim_writes=1, node_failures=1)  # no flag is missing
    assert "yet no step of the model enacts it" in to_cover(["G6.5"], Machine(every))["G6.5"].text

"""The command line: exit codes, the report, --json, --out, replay and shrink, and input errors."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from pausecheck.checks.cli import commands, main

SMALL = ["--calls", "1", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--write-failures", "0",
         "--observations", "0"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def default_out(tmp_path_factory, shared_check) -> Path:
    """Where `pausecheck check --json --out DIR` at the embedded defaults wrote its traces (the search
    shared with the other tests at the defaults); its JSON report is DIR/report.json."""
    out = tmp_path_factory.mktemp("default")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(commands, "check", shared_check)
        code = main(["check", "--json", "--out", str(out)])
    assert code == 0, printed.getvalue()[-2000:]
    (out / "report.json").write_text(printed.getvalue(), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def default_json(default_out: Path) -> dict:
    return json.loads((default_out / "report.json").read_text(encoding="utf-8"))


def test_default_check_holds_and_is_complete(default_json):
    assert default_json["complete"] is True and default_json["exit"] == 0
    assert default_json["states"] == 73409 and default_json["transitions"] == 197925
    live = default_json["liveness"]  # judged on the same graph: acyclic, every end state final
    assert (live["states"], live["edges"], live["cycles"], live["end_states"], live["final_states"]) == (
        73409, 79321, 0, 13956, 13956)
    keys = {"states", "transitions", "depth", "seconds", "bounds", "reading", "properties", "clauses"}
    assert keys <= set(default_json)
    for p in default_json["properties"]:
        assert {"name", "kind", "clauses", "holds", "witnessed", "trace"} <= set(p)
        assert p["holds"] and p["witnessed"] and p["status"] in ("holds", "witnessed"), p
    from pausecheck.model import CLAUSES, LIVENESS, PROPERTIES

    assert {c["id"]: c["text"] for c in default_json["clauses"]} == {c.id: c.text for c in CLAUSES}
    meanings = {p.name: p.doc for p in PROPERTIES + LIVENESS}
    assert {p["name"]: p["meaning"] for p in default_json["properties"]} == meanings
    for c in default_json["clauses"]:
        assert {"id", "properties", "excused"} <= set(c)
        assert c["properties"] or c["excused"], c


def test_default_check_is_brief(capsys, shared_check, monkeypatch):
    """At the defaults `pausecheck check` prints the verdict and counts within 40 lines (the search shared)."""
    monkeypatch.setattr(commands, "check", shared_check)
    code, out, _ = run(capsys, "check")
    lines = out.splitlines()
    assert code == 0 and len(lines) <= 40 and lines[-1].startswith("[ok] every property holds"), out
    assert "needs attention" not in out and "exercised when" not in out


def test_isolation_is_judged_by_the_companion_search(default_json):
    companions = {c["name"]: c for c in default_json["companions"]}
    assert list(companions) == ["two sessions", "interim messages", "node failures"]
    two = companions["two sessions"]
    assert two["complete"] and two["bounds"]["sessions"] == 2
    assert two["properties"] == ["isolation", "artifact_beside_another_execution"]
    assert "handled_run_completes" in companions["node failures"]["properties"]
    isolation = next(p for p in default_json["properties"] if p["name"] == "isolation")
    assert isolation["companion"] == "two sessions" and isolation["holds"] and isolation["witnessed"]
    t72 = next(c for c in default_json["clauses"] if c["id"] == "T7.2")
    assert t72["status"] == "holds"


def test_every_default_trace_replays_at_its_own_bounds(default_out, default_json, capsys):
    written = {p["name"]: p["trace"] for p in default_json["properties"] if p["trace"]}
    sometimes = {p["name"] for p in default_json["properties"] if p["kind"] in ("sometimes", "eventually")}
    assert set(written) == sometimes and len(list(default_out.glob("*.itf.json"))) == len(written)
    for name, path in written.items():
        code, out, _ = run(capsys, "replay", "--quiet", path)
        assert code == 0 and re.search(f"witnesses {name}( |$)", out, re.M), out
    companion = json.loads(open(written["artifact_beside_another_execution"], encoding="utf-8").read())
    assert companion["#meta"]["bounds"]["sessions"] == 2


@pytest.mark.slow  # a second search at the default bounds; the small-bounds report covers the mechanism fast
def test_no_companion_leaves_isolation_unexercised(capsys):
    code, out, _ = run(capsys, "check", "--no-companion", "--verbose")
    assert code == 3 and "not exercised at these bounds: isolation needs --sessions 2 (or --turns 2)" in out
    assert re.search(r"\nT7\.2 .* not exercised ", out) and re.search(r"\nT7\.4 .* holds in part ", out)
    unexercised = re.findall(r"^not exercised at these bounds: (\w+) needs ", out, re.M)
    assert len(unexercised) >= 7 and "isolation" in unexercised
    verdict = f"[incomplete] not exercised at these bounds: {len(unexercised)} properties (listed above; " \
        "--accept-unexercised"
    assert verdict in out


def test_every_target_clause_is_in_the_table(default_json):
    ids = {c["id"] for c in default_json["clauses"]}
    assert {f"T7.{i}" for i in range(1, 16)} | {f"G6.{i}" for i in range(1, 10)} <= ids


def test_text_report_small_bounds(capsys):
    code, out, _ = run(capsys, "check", *SMALL)
    assert "clause" in out and "T7.10" in out and "searched" in out
    # these bounds cannot reach a failing write-back: not exercised, with the flag that would reach it
    assert code == 3  # nothing violated, not everything established
    # folded: one line per flag set that would exercise them, with every property it would
    need = re.search(r"\n  --write-failures 1 --calls 2: (.*)\n", out)
    assert need and "write_back_fails_with_held" in need.group(1).split(", "), out
    assert "failed_write_back_restores" in out and "\nfailed_write_back_restores " not in out
    assert "[incomplete] not exercised at these bounds: " in out and "VACUOUS" not in out and "MISSING" not in out
    assert "[fail]" not in out and "VIOLATED" not in out
    assert "\napprove " not in out  # brief: a property that holds or is witnessed is only counted
    code, out, _ = run(capsys, "check", *SMALL, "--verbose")
    assert code == 3 and re.search(r"\napprove +sometimes +witnessed ", out)
    assert "not exercised at these bounds: write_back_fails_with_held needs --write-failures 1 --calls 2" in out


def test_brief_check_leads_with_the_violations_alone(capsys):
    """A reading that breaks two properties at bounds that leave most unexercised: the two violations come
    first, alone, each with the clauses its counterexample breaks; what is not exercised is one line per flag set."""
    code, out, _ = run(capsys, "check", "--reading", "conformant+A-G1=leave", "--calls", "1", "--pauses", "1",
                       "--observations", "0", "--no-liveness")
    assert code == 1
    attention = out[:out.index("[violation]")]
    first = attention.split("\n\n")[2]  # after the header and the counts
    rows = first.splitlines()
    assert rows[0] == "VIOLATED (2 properties; each counterexample below):"
    assert re.match(r"no_phantom_pause +always +G6\.5 +O11\.2 ", rows[2]) and rows[3].startswith("resume_supersedes ")
    assert len(rows) == 4, first
    folded = re.findall(r"^  (--[^:]*): ", attention, re.M)
    assert "--calls 2" in folded and len(folded) == len(set(folded)) <= 10
    assert "not exercised  " not in attention  # no row per unexercised property
    assert re.search(r"\nG6\.3 +involved +resume_supersedes\n", attention)


def test_brief_check_counts_and_points_at_verbose(capsys):
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised")
    assert code == 0 and len(out.splitlines()) <= 40 + out.count("not exercised  ")
    assert re.search(r"\nclauses: 35: .*\d+ hold\b", out) and "\nproperties: 54: " in out
    assert "the clause and property tables: --verbose" in out
    assert "exercised when" not in out  # the property table's heading: only with --verbose
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised", "--verbose")
    assert code == 0 and "exercised when" in out and "--verbose" not in out


def test_reproduce_line_keeps_the_limits(capsys):
    code, out, _ = run(capsys, "check", *SMALL, "--max-states", "20", "--no-liveness")
    assert code == 3
    assert out.rstrip().splitlines()[-1].startswith("reproduce with: pausecheck check --calls 1 ")
    assert out.rstrip().endswith("--max-states 20 --no-liveness --out out/")
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised")
    assert code == 0 and "[ok] every property exercised at these bounds holds and every witness was found; " in out
    assert "not exercised, accepted (listed above)" in out


def test_out_writes_traces_that_replay(tmp_path, capsys):
    code, out, _ = run(capsys, "check", *SMALL, "--write-failures", "1", "--out", str(tmp_path))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert "witness-approve.itf.json" in files
    code, out, _ = run(capsys, "replay", str(tmp_path / "witness-approve.itf.json"))
    assert code == 0 and "[replayed]" in out and "witnesses approve" in out


def test_incomplete_search_is_not_success(capsys):
    code, out, _ = run(capsys, "check", "--max-states", "50")
    assert code == 3 and "INCOMPLETE (cut short by --max-states" in out


@pytest.mark.parametrize("argv, words", [
    (["check", "--calls", "0"], "bound calls=0: must be a whole number from 1 to 1,000"),
    (["check", "--held-bound", "-1"], "bound held-bound=-1"),
    (["check", "--calls", "two"], "invalid int value"),
    (["check", "--bogus"], "unrecognized arguments: --bogus"),
    (["check", "--reading", "lenient"], "a switch is set as AMBIGUITY=VALUE"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_errors_exit_2_with_one_line(capsys, argv, words):
    try:
        code = main(argv)  # input checked by pausecheck itself
    except SystemExit as caught:  # usage checked by argparse
        code = caught.code
    _, err = capsys.readouterr()
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_bound_error_exits_2(capsys):
    code, _, err = run(capsys, "check", "--calls", "0")
    assert code == 2 and err.startswith("pausecheck: bound calls=0")


@pytest.mark.parametrize("content, words", [
    (None, "no such file"),
    ("{not json", "not JSON"),
    ('{"#meta": {"model": "pausecheck-model/0"}}', "$[\"#meta\"].model"),
    ('{"#meta": {"model": "pausecheck-model/4"}, "vars": []}', "$.vars"),
])
def test_replay_input_errors(tmp_path, capsys, content, words):
    f = tmp_path / "t.itf.json"
    if content is not None:
        f.write_text(content)
    code, out, err = run(capsys, "replay", str(f))
    assert code == 2 and words in err and str(f) in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_replay_bad_bound_and_action_are_named(tmp_path, capsys):
    code, _, _ = run(capsys, "check", *SMALL, "--write-failures", "1", "--out", str(tmp_path))
    path = tmp_path / "witness-approve.itf.json"
    doc = json.loads(path.read_text())
    doc["#meta"]["bounds"]["calls"] = 0
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and '$["#meta"].bounds.calls' in err
    doc["#meta"]["bounds"]["calls"] = 1
    doc["states"][2]["#meta"]["action"]["kind"] = "teleport"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and '$.states[2]["#meta"].action.kind' in err and "unknown action kind" in err


def test_shrink_hand_written_trace(tmp_path, capsys):
    bounds = {"sessions": 1, "turns": 1, "calls": 2, "per_call": 1, "artifacts": 3, "pauses": 2,
              "write_failures": 1, "observations": 1, "interim_writes": 0, "node_failures": 0, "held_bound": 2}
    steps = [{"kind": "start-turn", "session": 1}, {"kind": "call-tool", "execution": "e1"},
             {"kind": "poll", "execution": "e1"},
             {"kind": "tool-returns", "execution": "e1", "call": "c1", "artifacts": 0},
             {"kind": "call-tool", "execution": "e1"}, {"kind": "tool-fails", "execution": "e1", "call": "c2"},
             {"kind": "poll", "execution": "e1"}, {"kind": "start-write-back", "execution": "e1", "final": True},
             {"kind": "write-message", "execution": "e1", "ok": True}]
    doc = {"#meta": {"model": "pausecheck-model/4", "property": "tool_failures_handled", "bounds": bounds,
                     "reading": "conformant", "mutant": "tool_failure_unhandled"},
           "states": [{}] + [{"#meta": {"action": s}} for s in steps]}
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "shrink", str(f))
    assert code == 0 and "[shrunk] 9 steps -> 5 steps" in out
    code, out, _ = run(capsys, "replay", str(tmp_path / "hand.shrunk.itf.json"), "--quiet")
    assert code == 1 and "breaks tool_failures_handled" in out


def test_shrink_refuses_a_witness_property(tmp_path, capsys):
    doc = {"#meta": {"model": "pausecheck-model/4", "property": "approve", "reading": "conformant",
                     "bounds": {}}, "states": [{}]}
    f = tmp_path / "w.json"
    f.write_text(json.dumps(doc))
    code, _, err = run(capsys, "shrink", str(f))
    assert code == 2 and "not a property that can be broken" in err


# ---------------------------------------------------------------------------------------------
# What each command prints


GOLDEN = "traces/golden/no_put_back.itf.json"


def test_replay_states_the_verdict_once_with_the_mutant_s_description(capsys):
    code, out, _ = run(capsys, "replay", GOLDEN)
    document = json.loads(open(GOLDEN, encoding="utf-8").read())
    meta = document["#meta"]
    assert code == 1 and out.count("[replayed]") == 1 and "[violation]" not in out
    assert out.count(meta["explanation"]) == 1
    assert f"under mutant no_put_back: {meta['mutant_description']}" in out
    assert "here the mutant deviates from the rules" in out


def test_every_change_of_a_golden_trace_is_rendered():
    from pathlib import Path

    from pausecheck.traces.render import changes, flat_view

    for path in sorted(Path("traces/golden").glob("*.itf.json")):
        states = json.loads(path.read_text(encoding="utf-8"))["states"]
        for i, (pre, post) in enumerate(zip(states, states[1:], strict=False), 1):
            plain = [{k: v for k, v in s.items() if k != "#meta"} for s in (pre, post)]
            if plain[0] != plain[1]:
                assert changes(flat_view(pre), flat_view(post)), f"{path.name} step {i}: a change goes unseen"


def test_mutants_list_names_and_describes_every_mutant(capsys):
    from pausecheck.checks.mutants import MUTANTS

    code, out, _ = run(capsys, "mutants", "--list")
    assert code == 0
    for m in MUTANTS:
        assert f"\n{m.name}  (" in "\n" + out and m.doc in out


def test_mutants_only_reports_only_what_it_ran(capsys):
    code, out, _ = run(capsys, "mutants", "--only", "routed_failure_counted")  # its own small bounds: fast
    assert code == 0 and "KILLS NOTHING" not in out and "1 mutant: 1 killed" in out and "1 mutants" not in out
    assert "routed_failure_counted: killed by " in out and "redundant" not in out
    assert "routed_failure_counted" in out and "take_keeps_held" not in out
    assert "no_double_delivery" not in out  # a property that killed nothing here is not a column
    code, out, _ = run(capsys, "mutants", "--only", "routed_failure_counted", "--verbose")
    assert code == 0 and "P1 " in out and "redundancy is not judged from one mutant" in out and "redundant " not in out


def test_unknown_mutant_points_at_the_list(capsys):
    code, _, err = run(capsys, "mutants", "--only", "nosuch")
    assert code == 2 and "pausecheck mutants --list" in err


def test_check_out_ends_with_where_it_wrote(tmp_path, capsys):
    code, out, _ = run(capsys, "check", *SMALL, "--write-failures", "1", "--out", str(tmp_path / "o"))
    files = list((tmp_path / "o").iterdir())
    assert out.rstrip().splitlines()[-1] == f"traces written to {tmp_path / 'o'}/ ({len(files)} files)"


def test_output_path_that_cannot_be_written_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(capsys, "check", *SMALL, "--out", str(blocker))
    assert code == 2 and str(blocker) in err and len(err.strip().splitlines()) == 1


def test_report_writes_one_self_contained_page(tmp_path, capsys):
    page = tmp_path / "r.html"
    code, out, _ = run(capsys, "report", *SMALL, "--write-failures", "1", "--out", str(page))
    text = page.read_text(encoding="utf-8")
    assert out.rstrip().endswith(f"written to {page}") and "<svg" in text and "<script" not in text
    code, out, _ = run(capsys, "report", *SMALL, "--format", "md", "--out", str(tmp_path / "r.md"))
    assert "```mermaid" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_graph_export_and_its_guard(tmp_path, capsys):
    code, out, _ = run(capsys, "graph", *SMALL, "--format", "graphml", "--out", str(tmp_path / "g.graphml"))
    assert code == 0 and out.startswith("wrote 62 states and 138 transitions (graphml)")
    code, _, err = run(capsys, "graph", *SMALL, "--max-states", "10", "--out", str(tmp_path / "g.dot"))
    assert code == 2 and "more than 10 states" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "graph", "--around", GOLDEN, "--out", str(tmp_path / "near.dot"))
    assert code == 0 and "t7" in (tmp_path / "near.dot").read_text(encoding="utf-8")


def test_check_judges_liveness_unless_told_not_to(capsys):
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised", "--json")
    report = json.loads(out)
    live = report["liveness"]
    assert code == 0 and live["judged"] and live["states"] == report["states"] and live["cycles"] == 0
    eventually = [(p["name"], p["status"], p["needs"]) for p in report["properties"] if p["kind"] == "eventually"]
    assert eventually == [("no_stuck_execution", "holds", None), ("eventual_delivery", "not exercised", "--calls 2"),
                          ("declined_run_completes", "holds", None)]
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised")
    need = re.search(r"\n  --calls 2: (.*)\n", out)  # folded: the properties --calls 2 would exercise
    assert code == 0 and need and "eventual_delivery" in need.group(1).split(", "), out
    assert "liveness under fairness: steps (weak); write (strong)" in out
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised", "--no-liveness")
    assert code == 0 and "liveness: not judged (--no-liveness)" in out and "eventual_delivery" not in out
    assert out.rstrip().endswith("liveness not judged (--no-liveness)")
    code, out, _ = run(capsys, "check", *SMALL, "--accept-unexercised", "--max-states", "20")
    assert code == 3 and "liveness: not judged: the search was incomplete" in out


def test_the_ways_to_keep_states_give_one_report_and_do_not_combine(capsys):
    """--compact (exact, packed) and --fingerprint (hashes) change how visited states are kept, not what
    is found: the same JSON report as keeping objects, the clock aside; asking for both is refused."""
    reports = []
    for flags in ([], ["--compact"], ["--fingerprint"]):
        code, out, err = run(capsys, "check", "--pauses", "1", "--json", "--accept-unexercised", "--no-companion",
                             *flags)
        assert code == 0, err
        report = json.loads(out)
        for key in ("seconds", "states_per_second", "liveness"):
            report.pop(key, None)
        reports.append(report)
    assert reports[0] == reports[1] == reports[2] and reports[0]["states"] == 2885
    code, _, err = run(capsys, "check", *SMALL, "--compact", "--fingerprint")
    assert code == 2 and "--compact and --fingerprint: choose one" in err


def test_report_no_pairs_needs_readings(capsys, tmp_path):
    code, _, err = run(capsys, "report", *SMALL, "--no-pairs", "--out", str(tmp_path / "r.html"))
    assert code == 2 and "--no-pairs applies to the readings section: add --readings" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "r.html").exists()

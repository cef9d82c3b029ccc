"""Drafts: a spec author's rule table, from a file, on every command; an edit never breaks a command.

Mirrors `checks/drafts.py`, `checks/cli/draft.py` and the lazy mutant catalogue (`checks/mutants/catalogue.py`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.drafts import DraftError, draft_of, load_draft
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.model import Bounds, Machine
from pausecheck.model.lang import When
from pausecheck.model.rules import RULES

from .sampling import FULL

ROOT = Path(__file__).resolve().parent.parent
DRAFTS = ROOT / "examples" / "drafts"
TAKE_COPIES = DRAFTS / "take_copies.py"
TINY = ["--calls", "1", "--pauses", "1", "--artifacts", "1", "--write-failures", "0", "--observations", "0",
        "--held-bound", "1"]
# small bounds with a failing write: the copying take delivers twice once the put-back lands on an uncleared list
SMALL = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--write-failures", "1",
         "--observations", "0", "--held-bound", "1"]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# ---------------------------------------------------------------------------------------------
# Loading


def test_a_draft_is_loaded_once_per_text_and_names_its_table(tmp_path: Path) -> None:
    draft = load_draft(TAKE_COPIES)
    assert load_draft(TAKE_COPIES) is draft and draft_of(draft.rules) is draft and draft_of(RULES) is None
    assert draft.meta() == {"path": str(TAKE_COPIES), "sha256": draft.sha256} and len(draft.sha256) == 64
    copy = tmp_path / "copy.py"
    copy.write_text(TAKE_COPIES.read_text() + "\n# edited\n")
    assert load_draft(copy).sha256 != draft.sha256
    with pytest.raises(DraftError, match="has changed since"):
        load_draft(copy, draft.sha256)


def test_a_mutant_of_a_draft_deviates_from_the_draft() -> None:
    draft = load_draft(DRAFTS / "new_first.py")
    mutant = mutant_named("no_put_back")
    machine = mutate(Machine(Bounds(), rules=draft.rules), mutant)
    assert machine.rules is mutant.table(draft.rules) and draft_of(machine.rules) is draft
    assert machine.rules is not mutant.rules  # the same edits of the rules themselves: another table
    # an edit the draft already made is reported, not raised
    assert "names no statement" in mutant_named("held_merged_after").problem(draft.rules)


BAD = {
    "missing": (None, "cannot read the draft"),
    "syntax": ("RULES = (\n", ":1: not Python"),
    "raises": ("x = 1\nRULES = 1 / 0\n", ":2: ZeroDivisionError"),
    "exits": ("import sys\nsys.exit(3)\n", ":2: SystemExit"),
    "no rules": ("X = 1\n", "defines no RULES"),
    "not a table": ("RULES = 3\n", "RULES is not a rule table"),
    "not rules": ("from pausecheck.model.rules import RULES as R\nRULES = R[:3] + ('x',)\n", "RULES[3] is not a Rule"),
    "no statement": ("from pausecheck.model.actions import Poll\nfrom pausecheck.model.deviate import Drop, deviate, "
                     "on\nfrom pausecheck.model.rules import e\nRULES = deviate(on(Poll, Drop(e.held)))\n",
                     ":4: DeviationError: Drop in Poll: Set of e.held names no statement of the rule"),
    # The language's checker (model/tablecheck.py): the draft's line, the rule and the statement, before any engine.
    "unbound": ("from pausecheck.model.actions import Poll\nfrom pausecheck.model.deviate import Effect, "
                "deviate, on\nfrom pausecheck.model.lang import Set, var, SeqOf\nfrom pausecheck.model.rules "
                "import e\nRULES = deviate(on(Poll, Effect(Set(e.held, var('nowhere', SeqOf(int))))))\n",
                ".py:5: rule Poll, the statement `e.held := nowhere`: reads nowhere, which nothing binds"),
    "type error": ("from pausecheck.model.actions import PutBack\nfrom pausecheck.model.deviate import Also, deviate, "
                   "on\nfrom pausecheck.model.lang import Set\nfrom pausecheck.model.rules import e\n"
                   "RULES = deviate(on(PutBack, Also(Set(e.held, e.status))))\n",
                   ".py:5: rule PutBack, the statement `e.held := e.status`: a str where a list of int is needed"),
    "ambiguous": ("from pausecheck.model.actions import PutBack\nfrom pausecheck.model.deviate import Replace, "
                  "deviate, on\nfrom pausecheck.model.rules import e, g\n"
                  "RULES = deviate(on(PutBack, Replace('held', e.held + g.taken)))\n",
                  "Replace in PutBack: Let 'held' names 2 statements (rules.py:"),
    "g after End": ("from pausecheck.model.actions import ToolInterrupts\nfrom pausecheck.model.deviate import Effect, "
                    "deviate, on\nfrom pausecheck.model.lang import Set\nfrom pausecheck.model.rules import RULE_OF, "
                    "e, g\nRULES = deviate(on(ToolInterrupts, Effect(*RULE_OF[ToolInterrupts].effect, "
                    "Set(e.held, g.collected))))\n",
                    ".py:5: rule ToolInterrupts, the statement `e.held := g.collected`: reads g after g ended"),
}


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("command", [["check", "--no-liveness"], ["mutants", "--list"], ["diff"]])
def test_a_draft_that_cannot_be_used_is_one_line_and_exit_2(kind: str, command: list[str], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    text, said = BAD[kind]
    path = tmp_path / f"{kind.replace(' ', '_')}.py"
    if text is not None:
        path.write_text(text)
    assert main([*command, "--draft", str(path), *(TINY if command[0] != "mutants" else [])]) == 2
    err = capsys.readouterr().err
    assert len(_lines(err)) == 1 and err.startswith(f"pausecheck: {path}") and said in err, err


# ---------------------------------------------------------------------------------------------
# Every command runs a draft


def test_check_on_the_copying_take_names_no_double_delivery(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--draft", str(TAKE_COPIES), "--no-liveness", "--json", "--out", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    broken = {p["name"] for p in report["properties"] if p["status"] == "VIOLATED"}
    assert "no_double_delivery" in broken
    trace = tmp_path / "violation-no_double_delivery.itf.json"
    meta = json.loads(trace.read_text())["#meta"]
    assert meta["draft"] == load_draft(TAKE_COPIES).meta() and f"--draft {TAKE_COPIES}" in meta["command"]
    # the trace replays on its draft, and shrinks on it
    assert main(["replay", "--quiet", str(trace)]) == 1
    assert "breaks no_double_delivery" in capsys.readouterr().out
    assert main(["shrink", str(trace), "--out", str(tmp_path / "s.itf.json")]) == 0
    assert json.loads((tmp_path / "s.itf.json").read_text())["#meta"]["draft"]["sha256"] == meta["draft"]["sha256"]


def test_a_trace_of_a_changed_draft_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = tmp_path / "take.py"
    shutil.copy(TAKE_COPIES, draft)
    assert main(["check", "--draft", str(draft), *SMALL, "--no-liveness", "--out", str(tmp_path / "o")]) == 1
    trace = next((tmp_path / "o").glob("violation-*.itf.json"))
    capsys.readouterr()
    draft.write_text(draft.read_text() + "# a later edit\n")
    for command in (["replay", str(trace)], ["shrink", str(trace)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert len(_lines(err)) == 1 and "the draft has changed since the trace was written" in err


@pytest.mark.parametrize("command", [
    ["prove", "--bmc", "8"], ["export", "--format", "promela"], ["graph"], ["readings", "--no-pairs", "--jobs", "1"],
    ["vectors", "export"], ["check", "--engines", "bfs,bmc", "--only", "default", "--jobs", "1"],
], ids=lambda c: c[0] + ("-engines" if "--engines" in c else ""))
def test_every_command_that_builds_a_model_takes_a_draft(command: list[str], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The same command on the draft and on the rules: the draft's edit shows (or the command says it ran on it)."""
    out = tmp_path / "out"
    where = {"export": ["--out", str(out)], "graph": ["--out", str(out), "--format", "json"],
             "readings": ["--out", str(out)], "prove": ["--out", str(out)]}.get(command[0], [])
    if command[0] == "vectors":
        command = [*command, str(out)]
    args = [*command, *TINY, *where, "--json"] if command[0] in ("prove", "readings") else [*command, *TINY, *where]
    code = main([*args, "--draft", str(DRAFTS / "put_back_drops.py")])
    captured = capsys.readouterr()
    assert code in (0, 1, 3), captured.err
    assert "Traceback" not in captured.err


@pytest.mark.slow
def test_prove_and_spin_catch_the_copying_take(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Small bounds with a failing write: the put-back lands what was taken on a list the take never cleared."""
    bounds = SMALL
    assert main(["prove", "--induction", "--draft", str(TAKE_COPIES), *bounds, "--json"]) == 1
    proof = json.loads(capsys.readouterr().out)
    assert not next(p for p in proof["properties"] if p["name"] == "no_double_delivery")["proved"]
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        pytest.skip("Spin or gcc is not installed (apt-get install spin gcc): the Spin half is not run")
    assert main(["check", "--engine", "spin", "--draft", str(TAKE_COPIES), *bounds, "--json"]) == 1
    spin = json.loads(capsys.readouterr().out)
    assert any(v["name"] == "no_double_delivery" and v["verdict"] == "VIOLATED" for v in spin["properties"])


# ---------------------------------------------------------------------------------------------
# diff


def test_diff_of_the_copying_take_names_what_it_breaks_and_a_behaviour_only_it_allows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--draft", str(TAKE_COPIES), *SMALL, "--json", "--out", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    assert code == 1 and found["exit"] == 1
    changed = {v["name"]: (v["rules"], v["draft"]) for v in found["verdicts"] if v["changed"]}
    assert changed["no_double_delivery"] == ("holds", "VIOLATED")
    assert found["only_in_draft"] is not None and found["mutants"]["is_mutant"] == ["take_keeps_held"]
    assert "take_keeps_held" in found["mutants"]["no_longer_apply"] and found["changed_rules"] == ["StartWriteBack"]
    # the behaviour replays on the draft; the same steps do not give what the rules show
    trace = found["only_in_draft"]["trace"]
    assert main(["replay", trace]) == 0 and "only in the draft" in capsys.readouterr().out


def test_diff_of_a_draft_that_changes_nothing_visible_is_exit_0(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--draft", str(DRAFTS / "put_back_appends.py"), *SMALL, "--json", "--out", str(tmp_path),
                 "--ladder-seconds", "0", "--z3-seconds", "0"])  # z3's proof: tests/test_diff_relation.py
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["same_behaviours"] and not any(v["changed"] for v in found["verdicts"])
    assert found["only_in_draft"] is None and found["only_in_rules"] is None
    assert found["decided_by"].startswith("the same state graph")
    assert found["mutants"]["no_longer_apply"] == {"put_back_by_assignment": "Reads in PutBack: the rule never "
                                                                             "reads A-T5"}


def test_diff_against_another_draft(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--draft", str(TAKE_COPIES), "--against", str(TAKE_COPIES), *TINY, "--json",
                 "--out", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["changed_rules"] == [] and found["same_behaviours"]


@pytest.mark.slow
def test_diff_at_the_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's figures: the copying take differs (exit 1), the appending put-back does not (exit 0)."""
    assert main(["diff", "--draft", str(TAKE_COPIES), "--json", "--out", str(tmp_path)]) == 1
    found = json.loads(capsys.readouterr().out)
    assert any(v["name"] == "no_double_delivery" and v["changed"] for v in found["verdicts"])
    assert found["only_in_draft"] is not None
    assert main(["diff", "--draft", str(DRAFTS / "put_back_appends.py"), "--json", "--out", str(tmp_path),
                 "--ladder-seconds", "0", "--z3-seconds", "0"]) == 0


# ---------------------------------------------------------------------------------------------
# An edit of the rules never breaks a command


def _statements(stmts: tuple, path: str) -> list[tuple[str, object]]:
    """Every statement of an effect with the Python that names it from the rule (`effect[2].then[0]`)."""
    out = []
    for i, st in enumerate(stmts):
        here = f"{path}[{i}]"
        out.append((here, st))
        if isinstance(st, When):
            out += _statements(st.then, f"{here}.then") + _statements(st.otherwise, f"{here}.otherwise")
    return out


EDITS = [(k, where) for k, rule in enumerate(RULES) for where, _ in _statements(rule.effect, "effect")]


def test_dropping_any_statement_of_any_rule_never_breaks_a_command(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Each statement of each rule dropped in turn (115 drafts): check and mutants --list end in a verdict, or
    in one line and exit 2 where the language refuses the table; never a traceback."""
    assert len(EDITS) >= 100
    refused = 0
    for k, where in EDITS:
        draft = tmp_path / f"drop_{k}_{where.replace('[', '_').replace(']', '').replace('.', '_')}.py"
        draft.write_text("from pausecheck.model.deviate import Drop, deviate, on\n"
                         "from pausecheck.model.rules import RULES as R\n"
                         f"RULES = deviate(on(R[{k}].action, Drop(R[{k}].{where})))\n")
        # a state limit: a dropped counter (`Set(e.calls, ...)`, say) can make the space unbounded: exit 3
        for command in (["check", *TINY, "--no-liveness", "--accept-unexercised", "--max-states", "3000"],
                        ["mutants", "--list"]):
            code = main([*command, "--draft", str(draft)])
            err = capsys.readouterr().err
            assert code in (0, 1, 3) or (code == 2 and len(_lines(err)) == 1), (draft.read_text(), err)
            refused += code == 2
    assert refused < len(EDITS)  # most edits give a table the engines run


NATURAL_EDITS = {
    "take copies": ("Set(g.phase, TAKEN), Set(g.taken, e.held), Set(e.held, ()),",
                    "Set(g.phase, TAKEN), Set(g.taken, e.held),", "no_double_delivery"),
    "put-back drops": ('        Set(e.held, var("held", g.taken.t)),\n', "", "no_loss"),
    "new first": ('message = Let("message", g.taken + g.collected)', 'message = Let("message", g.collected + g.taken)',
                  "merge_order"),
    "reissue gone": ("reissue = When(", "_reissue = When(", None),  # a name the deviations import, removed
}


# In the suite, an edit of an effect and the removal of a name the mutants import (each edit runs every command,
# some 30 s: all four took 117 s of the suite); PAUSECHECK_FULL=1 runs the other two too.
@pytest.mark.slow
@pytest.mark.parametrize("edit", list(NATURAL_EDITS) if FULL else ["take copies", "reissue gone"])
def test_an_edit_of_rules_py_in_a_copy_of_the_package_leaves_every_command_working(edit: str, tmp_path: Path) -> None:
    """The issue's three natural edits of `model/rules.py`, each in a copy of the package (imported ahead of the
    installed one): check names what broke (exit 1), mutants --list and mutants report the mutants that no
    longer apply, and no command ends in a traceback."""
    old, new, broken = NATURAL_EDITS[edit]
    copy = tmp_path / "pausecheck"
    shutil.copytree(ROOT / "pausecheck", copy)
    for layer in ("model", "checks", "traces"):
        shutil.copytree(ROOT / layer, copy / layer, ignore=shutil.ignore_patterns("__pycache__"))
    rules = copy / "model" / "rules.py"
    text = rules.read_text()
    assert old in text
    rules.write_text(text.replace(old, new, 1))
    if edit == "reissue gone":
        rules.write_text(rules.read_text().replace("        reissue,\n", "        _reissue,\n"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", "import sys; from pausecheck.checks.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", *argv], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=600)

    assert "Traceback" not in run("--version").stderr
    checked = run("check", "--no-liveness")
    assert "Traceback" not in checked.stderr
    if broken is not None:
        assert checked.returncode == 1 and f"{broken} VIOLATED" in checked.stdout, checked.stdout[-2000:]
    listed = run("mutants", "--list")
    assert "Traceback" not in listed.stderr and listed.returncode in (0, 3)
    if broken is None:
        assert "the mutant catalogue cannot be built" in listed.stdout
    elif edit != "new first":  # that edit rewrites the statement held_merged_after names: it still applies
        assert "no longer applies" in listed.stdout
    engines = run("check", "--engines", "bfs,bmc", "--only", "default", *TINY)
    assert "Traceback" not in engines.stderr and engines.returncode in (0, 3)
    others = [("prove", "--bmc", "6", *TINY), ("export", "--format", "promela", "--out", "m.pml", *TINY),
              ("graph", "--out", "g.dot", *TINY), ("readings", "--list"), ("vectors", "export", "v", *TINY),
              ("report", "--out", "r.html", *TINY, "--no-liveness"), ("fuzz", "--examples", "5", "--steps", "10")]
    for argv in others:
        done = run(*argv)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1, 3), (argv, done.stderr[-500:])


# ---------------------------------------------------------------------------------------------
# An effect that edits another execution beside its own (model/lowering.py)


def test_a_draft_may_edit_another_execution_beside_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """The write-back lands its message on the session's first turn while it still sets its own execution's
    status: before the lowering this table did not compile ("an effect edits both ..."); now the explicit
    successors and the z3 relation, each derived from the table, agree on every state it reaches, and the
    check names what it breaks (isolation: one turn's message on another's)."""
    from pausecheck.checks.symbolic.crosscheck import lowered_successors
    from pausecheck.checks.symbolic.relation import Caps
    from pausecheck.model.lowering import lowered
    from pausecheck.model.pygen import successor_function

    from tests.strategies import first_reachable

    draft = load_draft(DRAFTS / "first_turn_message.py")
    rule = next(r for r in draft.rules if r.action.__name__ == "WriteMessage")
    assert lowered(rule) is not rule and lowered(RULES[0]) is RULES[0]  # only a rule that edits both is lowered
    bounds = Bounds(turns=2, calls=1, pauses=1, write_failures=0, observations=0, artifacts=1)
    machine = Machine(bounds, rules=draft.rules)
    states = list(first_reachable(machine, 400))
    explicit = successor_function(bounds, machine.reading, draft.rules)
    caps = Caps.of(bounds).covering(states + [post for s in states for _, post in explicit(s)])
    for state in states:
        assert lowered_successors(bounds, machine.reading, state, draft.rules, caps) == explicit(state)
    landed = [s for s in states if len(s.executions) == 2 and s.executions[0].messages
              and s.executions[1].status == "completed" and not s.executions[1].messages]
    assert landed, "no state shows the second turn's message landed on the first"
    assert main(["check", "--draft", str(DRAFTS / "first_turn_message.py"), "--turns", "2", "--calls", "1",
                 "--pauses", "1", "--write-failures", "0", "--observations", "0", "--no-liveness"]) == 1
    assert "isolation VIOLATED" in capsys.readouterr().out


def test_a_report_on_a_draft_says_what_it_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`report --draft`: the page of the draft's check opens with what it changes against the rules, its
    behaviours as sequence diagrams (HTML) or Mermaid (Markdown)."""
    for fmt in ("html", "md"):
        out = tmp_path / f"r.{fmt}"
        assert main(["report", "--draft", str(TAKE_COPIES), *SMALL, "--no-liveness", "--format", fmt,
                     "--out", str(out)]) == 1
        page = out.read_text()
        assert "What the draft changes" in page and "take_keeps_held" in page and "no_double_delivery" in page
        assert ('id="only_in_draft"' in page and "<svg" in page) if fmt == "html" else "```mermaid" in page
    capsys.readouterr()

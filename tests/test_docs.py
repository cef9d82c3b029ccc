"""The docs stay true to the code: clause catalogue, readings, trace fields, API, links.

The tables of docs/clauses.md and the choice table of docs/readings.md are generated from the code by
the functions below; `python tests/test_docs.py` prints them, ready to paste.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.util
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pausecheck.model import ACTION_TYPES, CLAUSES, CONFORMANT, LIVENESS, PROPERTIES, SOMETIMES, SWITCHES
from pausecheck.model.ambiguities import AMBIGUITIES
from pausecheck.model.config import BOUND_HELP, DEFAULT_BOUNDS
from pausecheck.traces.itf import encode_state

import pausecheck

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
SPEED = DOCS / "speed.md"  # the one page that quotes times
# Issue 57, docs in short pages: no page over PAGE_LINES lines but the rules' own text and the reference pages
# that hold schemas (the oracle's JSON Schemas, the trace format field by field).
PAGE_LINES = 400
LONG_PAGES = ("rules.md", "oracle-schemas.md", "itf-schema.md")
OPENING_LINES = 5  # the most lines of a page's opening: what it answers and for whom
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# Small bounds under which every kind of record occurs in some witness (explored in well under 1 s).
JUDGED = PROPERTIES + LIVENESS  # every property a check judges: always, transition, sometimes, eventually
RECORD_BOUNDS = pausecheck.Bounds(calls=2, per_call=2, artifacts=2, pauses=1, write_failures=1, observations=1,
                                  held_bound=1)


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) or "-"


def clause_table() -> str:
    """The clause catalogue of docs/clauses.md, from CLAUSES and the properties (liveness included)."""
    lines = ["| Clause | Rule | Text (pausecheck's fragment) | Formalised by | Witnessed by | Strength | Note |",
             "|---|---|---|---|---|---|---|"]
    for c in CLAUSES:
        checks = [p.name for p in JUDGED if c.id in p.clauses and p.kind != SOMETIMES]
        witnesses = [p.name for p in JUDGED if c.id in p.clauses and p.kind == SOMETIMES]
        lines.append(f'| {c.id} | {c.rule} | "{c.text}" | {_names(checks)} | {_names(witnesses)} | {c.strength} | '
                     f"{c.note or '-'} |")
    return "\n".join(lines)


def property_table() -> str:
    """The property list of docs/clauses.md, from the properties (liveness included)."""
    lines = ["| Property | Kind | Clauses | Situation | Meaning |", "|---|---|---|---|---|"]
    for p in JUDGED:
        situation = f"`{p.situation}`" if p.situation else "-"
        lines.append(f"| `{p.name}` | {p.kind} | {', '.join(p.clauses) or '-'} | {situation} | {p.doc} |")
    return "\n".join(lines)


def choice_table() -> str:
    """The conformant reading's choices, for docs/readings.md."""
    lines = ["| Ambiguity | Choice | Reason | Moot |", "|---|---|---|---|"]
    for c in CONFORMANT.choices:
        moot = "yes" if c.choice.startswith("moot") else "no"
        lines.append(f"| {c.ambiguity} | {c.choice} | {c.reason} | {moot} |")
    return "\n".join(lines)


def switch_table() -> str:
    """The switches: values (default first) and the faults each needs, for docs/readings.md."""
    lines = ["| Switch | Values (default first) | Needs |", "|---|---|---|"]
    for sw in SWITCHES:
        values = sorted(sw.values.items(), key=lambda item: item[0] != sw.default)
        cells = "; ".join(f"`{v}`: {meaning}" for v, meaning in values)
        lines.append(f"| {sw.ambiguity} | {cells} | {', '.join('--' + n.replace('_', '-') for n in sw.needs) or '-'} |")
    return "\n".join(lines)


def bound_table() -> str:
    """The bound flags with their defaults, for docs/reference.md."""
    lines = ["| Flag | Default | What it bounds |", "|---|---|---|"]
    for name, (_, meaning) in BOUND_HELP.items():
        lines.append(f"| `--{name.replace('_', '-')}` | {getattr(DEFAULT_BOUNDS, name)} | {meaning} |")
    return "\n".join(lines)


def ambiguity_list() -> str:
    """All 33 ambiguities: modelled (with the sentence the rule would need) or why not."""
    lines = []
    for a in AMBIGUITIES:
        status = f"(modelled) {a.question} Fix: {a.fix}" if a.modelled else \
            f"(not modelled) {a.question} Why: {a.reason}"
        lines.append(f"- **{a.id}** {status} [{', '.join(a.clauses)}]")
    return "\n".join(lines)


def _read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _rows(text: str) -> dict[str, list[str]]:
    """Markdown table rows keyed by their first cell (cells stripped)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows[cells[0]] = cells
    return rows


def _backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def _listed(cell: str) -> set[str]:
    return set() if cell == "-" else {name.strip().strip("`") for name in cell.split(",")}


def test_clause_table_matches_the_catalogue() -> None:
    rows = _rows(_read("clauses.md"))
    ids = {c.id for c in CLAUSES}
    for c in CLAUSES:
        assert c.id in rows, f"docs/clauses.md has no row for {c.id}"
        _, rule, text, checks, witnesses, strength, note = rows[c.id]
        assert rule == c.rule
        assert text == f'"{c.text}"', f"{c.id}: text drifted"
        citing = {p.name for p in JUDGED if c.id in p.clauses}
        assert _listed(checks) | _listed(witnesses) == citing, f"{c.id}: properties drifted"
        assert _listed(checks) == {p.name for p in JUDGED if c.id in p.clauses and p.kind != SOMETIMES}
        assert (strength, note) == (c.strength, c.note or "-"), f"{c.id}: strength or note drifted"
    stale = {key for key in rows if re.fullmatch(r"[A-Z]\d+\.\d+", key)} - ids
    assert not stale, f"docs/clauses.md has rows for clauses the catalogue lacks: {sorted(stale)}"


def test_property_table_matches_the_registry() -> None:
    rows = _rows(_read("clauses.md"))
    for p in JUDGED:
        assert f"`{p.name}`" in rows, f"docs/clauses.md has no row for property {p.name}"
        _, kind, clauses, situation, doc = rows[f"`{p.name}`"]
        assert (kind, clauses, doc) == (p.kind, ", ".join(p.clauses) or "-", p.doc)
        assert situation == (f"`{p.situation}`" if p.situation else "-")


def test_readings_name_every_choice() -> None:
    text = _read("readings.md")
    rows = _rows(text)
    for c in CONFORMANT.choices:
        assert c.ambiguity in text
        assert c.ambiguity in rows and rows[c.ambiguity][1] == c.choice, f"{c.ambiguity}: choice drifted"
    listed = set(re.findall(r"^- \*\*(A-[TGX]\d+)\*\*", text, re.MULTILINE))
    every = {f"A-T{i}" for i in range(1, 17)} | {f"A-G{i}" for i in range(1, 13)} | {f"A-X{i}" for i in range(1, 6)}
    assert listed == every, f"the list of section 5 ambiguities differs: {sorted(every ^ listed)}"


def test_readings_mark_what_the_model_meets() -> None:
    text = _read("readings.md")
    modelled = set(re.findall(r"^- \*\*(A-[TGX]\d+)\*\* \(modelled", text, re.MULTILINE))
    assert modelled == {s.ambiguity for s in SWITCHES}
    assert switch_table() in text and ambiguity_list() in text, "regenerate with: python tests/test_docs.py"


def _keys(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            out.add(key)
            _keys(inner, out)
    elif isinstance(value, list):
        for inner in value:
            _keys(inner, out)
    return out


def test_itf_documents_every_field_and_action() -> None:
    documented = _backticked(_read("itf-schema.md"))  # the reference page: every field and action, one by one
    machine = pausecheck.Machine(RECORD_BOUNDS)
    result = pausecheck.explore(machine)
    keys: set[str] = set()
    for discovery in result.witnesses.values():
        _keys(encode_state(discovery.states[-1]), keys)
    assert {"artifacts", "held", "messages", "questions", "collected", "warnings", "write_failed"} <= keys
    assert keys - documented == set(), "state fields missing from docs/itf-schema.md"
    name, discovery = min(result.witnesses.items(), key=lambda item: len(item[1].actions))
    document = pausecheck.trace_of(machine, discovery, name=name)
    golden = pausecheck.load_trace(ROOT / "traces" / "golden" / "no_put_back.itf.json")
    meta = set(document["#meta"]) | set(golden["#meta"]) | set(document) | {"deviates"}
    for state in document["states"] + golden["states"]:
        meta |= set(state["#meta"])
    assert meta - documented == set(), "#meta fields missing from docs/itf-schema.md"
    for cls in ACTION_TYPES:
        assert cls.KIND in documented, f"action kind {cls.KIND} missing from docs/itf-schema.md"
        for field in (f.name for f in dataclasses.fields(cls)):
            assert field in documented, f"field {field} of {cls.KIND} missing from docs/itf-schema.md"


def test_itf_example_replays(tmp_path: Path) -> None:
    examples = [body for lang, body in FENCE.findall(_read("itf.md")) if lang == "json" and '"#meta"' in body
                and '"states"' in body]
    assert examples, "docs/itf.md has no complete example trace"
    path = tmp_path / "example.itf.json"
    path.write_text(examples[0], encoding="utf-8")
    outcome = pausecheck.replay_file(path)
    assert outcome.diverged_at is None, outcome.divergence
    assert outcome.reproduced
    assert json.loads(examples[0])["#meta"]["steps"] == outcome.steps


def test_tutorial_shrink_example(tmp_path: Path) -> None:
    from pausecheck.checks.mutants.evidence import machine_for
    from pausecheck.checks.shrink import shrink
    from pausecheck.traces.replay import decode_actions

    examples = [body for lang, body in FENCE.findall(_read("tutorial.md")) if lang == "json"]
    assert examples, "docs/tutorial.md has no trace to shrink"
    path = tmp_path / "long.itf.json"
    path.write_text(examples[0], encoding="utf-8")
    document = pausecheck.load_trace(path, complete=False)
    actions = decode_actions(document, str(path))
    found = shrink(machine_for(document["#meta"], str(path)), actions, document["#meta"]["property"])
    assert found is not None and (len(actions), len(found.actions)) == (13, 10)


def test_api_names_and_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _read("api.md")
    documented = set(re.findall(r"`(?:pausecheck\.)?(\w+)", text))
    for name in pausecheck.__all__:
        assert name in documented, f"{name} missing from docs/api.md"
    blocks = [body for lang, body in FENCE.findall(text) if lang == "python"]
    assert blocks, "docs/api.md has no python example"
    monkeypatch.chdir(tmp_path)
    for body in blocks:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(body, "docs/api.md", "exec"), {"__name__": "docs_example"})
        lines = printed.getvalue().splitlines()
        for said in re.findall(r"^\s*print\(.*\)\s+# (.+)$", body, re.M):  # what a comment says a print prints
            assert said in lines, f"docs/api.md says a print prints {said!r}; it printed {lines}"


def test_api_states_what_its_example_prints() -> None:
    """docs/api.md gives every exit code of `Report.exit_code`, and the one its own example prints."""
    text = _read("api.md")
    bounds = re.search(r"bounds = pausecheck\.Bounds\(([^)]*)\)", text)
    assert bounds is not None, "docs/api.md's example no longer sets its bounds as expected"
    report = pausecheck.check(eval(f"pausecheck.Bounds({bounds.group(1)})"))
    assert f"the example above prints {report.exit_code}" in text
    assert all(f"{code} " in text.split("`.exit_code`", 1)[1][:400] for code in (0, 1, 3))
    assert "today only" not in text and "conformant+A-T6=take-first" in text  # READINGS: the base, not all


# A time stated in words or figures: "about 8 s", "~10 min", "takes 5 seconds", "a few seconds", "about an hour".
STATED_TIME = re.compile(r"(?:about|~|takes|in) ?\d+(?:\.\d+)? ?(?:s|seconds|min|minutes)\b"
                         r"|\ba few seconds\b|\b(?:about|under|in) (?:a|an|half an) (?:minute|hour)\b")


def test_times_are_stated_in_one_place() -> None:
    """A time measured here is stated in one place, docs/speed.md (written by `bench.py --readme`): the
    README and every other page link there instead of giving figures of their own that drift apart."""
    for doc in [README, *sorted(DOCS.glob("*.md"))]:
        if doc == SPEED:
            continue
        prose = FENCE.sub("", doc.read_text(encoding="utf-8"))
        found = STATED_TIME.findall(prose)
        assert not found, f"{doc.name} states a time of its own: {found} (link to docs/speed.md instead)"
    for said in ("It takes about 8 s here.", "a few seconds", "about a minute", "in 40 min"):
        assert STATED_TIME.search(said), said  # the pattern sees what it forbids
    assert STATED_TIME.search(SPEED.read_text(encoding="utf-8"))  # and the times are there


def test_the_readme_is_short_and_points_the_way() -> None:
    """Issue 41: at most 150 lines, no table cell over 160 characters, the first command block within the
    first 30 lines, a picture from the repository, and at least four docs pages linked."""
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines"
    long = [(i, len(cell)) for i, line in enumerate(lines, 1) if line.startswith("|")
            for cell in (c.strip() for c in line.strip().strip("|").split(" | ")) if len(cell) > 160]
    assert not long, f"README.md table cells over 160 characters (line, length): {long}"
    first = next(i for i, line in enumerate(lines, 1) if line.startswith("```sh"))
    assert first <= 30, f"README.md's first command block starts on line {first}"
    pictures = re.findall(r"!\[[^\]]+\]\(([^)\s]+)\)", FENCE.sub("", text))
    assert [ROOT / p for p in pictures] == [_picture_script().PICTURE], pictures
    pages = {target.split("#")[0] for target in LINK.findall(FENCE.sub("", text)) if target.startswith("docs/")}
    assert len(pages - {"docs/README.md"}) >= 4 and "docs/README.md" in pages, sorted(pages)


def _picture_script() -> Any:
    spec = importlib.util.spec_from_file_location("docs_picture", DOCS / "picture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_picture_is_what_the_script_draws() -> None:
    """docs/counterexample.svg is what `python docs/picture.py` draws now from the golden trace, byte for byte."""
    script = _picture_script()
    drawn = script.picture()
    assert script.PICTURE.read_text(encoding="utf-8") == drawn, "the picture is stale: python docs/picture.py"
    assert drawn == script.picture()  # deterministic
    assert drawn.startswith("<svg") and "no_put_back" in drawn and "failed_write_back_restores" in drawn


def test_reference_lists_every_bound() -> None:
    assert bound_table() in _read("reference.md"), "regenerate with: python tests/test_docs.py"


def _clause_ids(cell: str) -> set[str]:
    """The clause ids of a table cell, ranges such as `G6.6-G6.8` spelled out."""
    ids: set[str] = set()
    for first, last in re.findall(r"\b([A-Z]\d+\.\d+)(?:-([A-Z]\d+\.\d+))?", cell):
        if not last:
            ids.add(first)
            continue
        prefix, low = first.rsplit(".", 1)
        ids |= {f"{prefix}.{n}" for n in range(int(low), int(last.rsplit(".", 1)[1]) + 1)}
    return ids


def test_the_protocol_page_says_every_step_and_the_clauses_it_enacts() -> None:
    """Issue 56: the protocol page names every action kind of the model; each row of its step table cites at
    least the clauses the rule of that kind enacts (`model/rules.py`), and every id it cites is a clause."""
    from pausecheck.model.rules import RULES
    text = (DOCS / "oracle-adapter.md").read_text(encoding="utf-8")
    section = text.split("## Every step, and what the runtime shows after it", 1)[1].split("\n## ", 1)[0]
    assert not {f"`{cls.KIND}`" for cls in ACTION_TYPES} - set(re.findall(r"`[a-z-]+`", section)), \
        "the protocol page leaves out an action kind"
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and (kind := re.match(r"`([a-z-]+)`", cells[0])):
            rows[kind[1]] = rows.get(kind[1], set()) | _clause_ids(cells[2])
    for rule in RULES:
        if (kind := rule.action.KIND) in rows:
            assert set(rule.clauses) <= rows[kind], (kind, set(rule.clauses) - rows[kind])
    assert len(rows) >= 13, sorted(rows)
    known = {c.id for c in CLAUSES}
    cited = _clause_ids(text)
    assert cited and cited <= known, sorted(cited - known)
    strict = text.split("## What strict mode expects", 1)[1].split("\n## ", 1)[0]
    for said in ("empty message", "decline cancels", "already settled changes nothing", "same `final`",
                 "keeping the oldest", "only at a final write-back", "interim write-back"):
        assert said in strict, f"the strict-mode list no longer says {said!r}"


def test_rules_doc_is_the_rule_table() -> None:
    """docs/rules.md ends with the rule table as `model/render.py` renders it from `model/rules.py`."""
    from pausecheck.model.render import rules_markdown

    text = _read("rules.md")
    assert text.endswith(rules_markdown()), \
        "docs/rules.md's transition rules drifted from model/rules.py: replace its last section with " \
        "`python -m pausecheck.model.render`"


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown text (punctuation dropped, spaces to hyphens,
    a repeated heading numbered)."""
    found, counts = set(), {}
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", text), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug if slug not in counts else f"{slug}-{counts[slug]}")
        counts[slug] = counts.get(slug, 0) + 1
    return found


def test_links_resolve() -> None:
    """Every relative link of the README and of docs/ names a file of the repository, and its #anchor a
    heading of that file."""
    files = sorted(DOCS.glob("*.md"))
    assert {"README.md", "rules.md", "clauses.md", "readings.md", "itf.md", "tutorial.md", "api.md", "commands.md",
            "reference.md", "speed.md", "engines.md", "limitations.md", "report.md", "development.md", "itf-schema.md",
            "oracle.md", "oracle-adapter.md", "oracle-conform.md", "oracle-logs.md", "oracle-vectors.md",
            "oracle-schemas.md"} <= {f.name for f in files}
    assert _anchors("# A b\n## `pausecheck check --engines bfs,bmc`\n## A b\n") == {
        "a-b", "pausecheck-check---engines-bfsbmc", "a-b-1"}
    for doc in [README, *files]:
        prose = FENCE.sub("", doc.read_text(encoding="utf-8"))
        for target in LINK.findall(prose):
            if re.match(r"[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            path = (doc.parent / name).resolve() if name else doc
            assert path.exists(), f"{doc.name} links to {target}, which does not exist"
            assert ROOT in path.parents or path == ROOT, f"{doc.name} links outside the repository: {target}"
            if anchor and path.suffix == ".md":
                assert anchor in _anchors(path.read_text(encoding="utf-8")), \
                    f"{doc.name} links to {target}: {path.name} has no heading with that anchor"


def test_every_page_is_short() -> None:
    """Issue 57: no page of docs/ has more than 400 lines, but the rules' own text and the schema reference
    pages, each named in LONG_PAGES; a longer page is split by task, its reference material on a page of its own."""
    pages = {path.name: path for path in DOCS.glob("*.md")}
    assert set(LONG_PAGES) <= set(pages), f"LONG_PAGES names pages that are gone: {set(LONG_PAGES) - set(pages)}"
    long = {name: n for name, path in sorted(pages.items()) if name not in LONG_PAGES
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > PAGE_LINES}
    assert not long, f"docs pages over {PAGE_LINES} lines (split them by task): {long}"


def _opening(text: str) -> list[str]:
    """The opening of a page: the lines of the paragraph that follows its first `# ` heading and a blank line,
    up to the next blank line or heading; none when the heading is not followed so, or by no prose (a code
    block, a table, a list or a quote)."""
    lines = text.splitlines()
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if title is None or lines[title + 1:title + 2] != [""]:
        return []
    opening = []
    for line in lines[title + 2:]:
        if not line.strip() or line.startswith("#"):
            break
        opening.append(line)
    return [] if any(line.startswith(("```", "|", "- ", "* ", ">", "<")) for line in opening) else opening


def test_every_page_opens_with_what_it_answers() -> None:
    """Issue 57: the README and every page of docs/ open, right after the title and a blank line, with a
    paragraph of one to five lines saying what the page answers and for whom."""
    assert _opening("# T\n\nWhat it answers.\nFor whom.\n\nMore.\n") == ["What it answers.", "For whom."]
    assert _opening("# T\n\nAn opening.\n## A section\n") == ["An opening."]
    assert _opening("# T\n## A section\n") == [] and _opening("# T\nNo blank line.\n") == []
    assert _opening("# T\n\n```sh\npausecheck check\n```\n") == [] and _opening("# T\n\n| a | b |\n") == []
    for doc in [README, *sorted(DOCS.glob("*.md"))]:
        opening = _opening(doc.read_text(encoding="utf-8"))
        assert opening, f"{doc.name} does not open with a paragraph after its title (what it answers, for whom)"
        assert len(opening) <= OPENING_LINES, \
            f"{doc.name}'s opening has {len(opening)} lines, more than {OPENING_LINES}: {opening}"


def test_module_docstrings_name_modules_that_exist() -> None:
    """A `name.py` in a module's docstring is a module beside it, or under the root or a top package: not a
    name the code once had (model/lang.py named `rulebook.py`, the rules' file before `rules.py`)."""
    packages = [ROOT / name for name in ("model", "checks", "traces")]
    missing = []
    for module in sorted(p for package in packages for p in package.rglob("*.py")):
        docstring = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8"))) or ""
        for name in re.findall(r"`([\w/.]+\.py)`", docstring):
            if not any((base / name).exists() for base in (module.parent, ROOT, *packages)):
                missing.append(f"{module.relative_to(ROOT)} names {name}")
    assert not missing, missing


if __name__ == "__main__":
    print(clause_table(), property_table(), choice_table(), switch_table(), ambiguity_list(), bound_table(),
          sep="\n\n")

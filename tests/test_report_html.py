"""The HTML and Markdown reports and their sequence diagrams: self-contained, complete, deterministic."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pausecheck.checks.mutants import mutant_named
from pausecheck.checks.mutants.evidence import Evidence, evidence_of
from pausecheck.checks.mutants.killmatrix import KillMatrix, kill_matrix
from pausecheck.checks.report import Report
from pausecheck.checks.report.html import anchor, html_report
from pausecheck.checks.report.markdown import markdown_report
from pausecheck.checks.report.sequence import arrows_of, sequence_svg, sequence_text

import pausecheck

GOLDEN = Path(__file__).resolve().parent.parent / "traces" / "golden"
SMALL = pausecheck.Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_VOID = {"line", "polygon", "rect", "path", "circle"}  # self-closed inside the inline SVG


class Page(HTMLParser):
    """Collects tags, ids, attributes and text, and checks that every opened tag is closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: dict[str, list[str]] = {}  # id -> tags opened inside that element
        self.text: list[str] = []
        self._open_ids: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags.append((tag, values))
        for _, ident in self._open_ids:
            self.ids[ident].append(tag)
        if values.get("id"):
            self.ids[values["id"]] = []
        if tag not in VOID:
            self.stack.append(tag)
            if values.get("id"):
                self._open_ids.append((len(self.stack), values["id"]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        for _, ident in self._open_ids:
            self.ids[ident].append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        if self._open_ids and self._open_ids[-1][0] == len(self.stack):
            self._open_ids.pop()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def report() -> Report:
    return pausecheck.check(SMALL)


@pytest.fixture(scope="module")
def evidence(report: Report) -> list[Evidence]:
    """The report's witnesses, plus one counterexample of a mutant (a golden trace)."""
    golden = json.loads((GOLDEN / "no_put_back.itf.json").read_text(encoding="utf-8"))
    return [*evidence_of(report), Evidence("no_put_back", golden, golden["#meta"]["command"], True)]


@pytest.fixture(scope="module")
def small_matrix() -> KillMatrix:
    return kill_matrix([mutant_named("no_put_back"), mutant_named("take_keeps_held")], SMALL)


@pytest.fixture(scope="module")
def html(report: Report, evidence: list[Evidence]) -> str:
    return html_report(report, evidence)


def test_the_page_is_well_formed_and_self_contained(html: str) -> None:
    page = parse(html)
    assert page.errors == [] and page.stack == []
    assert html.startswith("<!DOCTYPE html>")
    for tag, attrs in page.tags:
        assert not (tag == "script" and "src" in attrs)
        for name in ("src", "href"):
            assert not re.match(r"(?i)\s*(https?:)?//", attrs.get(name) or ""), (tag, attrs)
    assert not any(tag in ("link", "iframe", "img") for tag, _ in page.tags)


def test_every_clause_and_property_is_on_the_page(html: str, report: Report) -> None:
    text = "".join(parse(html).text)
    for clause in report.clauses:
        assert clause.id in text and clause.text in text
    for prop in report.properties:
        assert prop.name in text and prop.doc in text


def test_each_piece_of_evidence_has_a_section_with_a_diagram(html: str, evidence: list[Evidence]) -> None:
    page = parse(html)
    for item in evidence:
        assert "svg" in page.ids[anchor(item.name)], item.name
    positions = [html.index(f'id="{anchor(e.name)}"') for e in evidence]
    assert positions[-1] == min(positions)  # the counterexample comes first


def test_the_diagram_of_a_golden_trace() -> None:
    document = json.loads((GOLDEN / "no_put_back.itf.json").read_text(encoding="utf-8"))
    svg = sequence_svg(document)
    root = ET.fromstring(svg)
    labels = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "arrow"]
    steps = len(document["states"]) - 1
    assert sorted({int(t.get("data-step")) for t in labels}) == list(range(1, steps + 1))
    assert all("".join(t.itertext()).startswith(t.get("data-step") + " ") for t in labels)
    for state in document["states"][1:]:
        assert all(clause in svg for clause in state["#meta"]["clauses"])
    deviating = [s["#meta"]["index"] for s in document["states"] if s["#meta"].get("deviates")]
    assert deviating == [9] and "mutant deviates here" in svg
    red = {int(t.get("data-step")) for t in labels if t.get("fill") == "#c62828"}
    assert red == {9}
    assert [(a.source, a.target) for a in arrows_of(document) if a.step == 9][0] == ("runtime", "store")


def test_the_mermaid_body_has_the_same_arrows() -> None:
    document = json.loads((GOLDEN / "no_put_back.itf.json").read_text(encoding="utf-8"))
    body = sequence_text(document)
    assert body.startswith("sequenceDiagram\n")
    for lane in ("caller", "runtime", "tool", "store"):
        assert f"participant {lane}" in body
    assert len([line for line in body.splitlines() if "->>" in line]) == len(arrows_of(document))
    assert "Note over runtime,store: mutant deviates here" in body


def test_same_inputs_give_the_same_bytes(report: Report, evidence: list[Evidence], html: str) -> None:
    assert html_report(report, evidence) == html
    assert markdown_report(report, evidence) == markdown_report(report, evidence)
    assert sequence_svg(evidence[0].document) == sequence_svg(json.loads(json.dumps(evidence[0].document)))


def test_markdown_names_every_clause_and_trace(report: Report, evidence: list[Evidence]) -> None:
    text = markdown_report(report, evidence)
    for clause in report.clauses:
        assert f"**{clause.id}**" in text
    for item in evidence:
        assert f"### Trace: {item.name}" in text
    assert text.count("```mermaid\nsequenceDiagram") == len(evidence)


def test_the_kill_matrix_is_a_table(report: Report, evidence: list[Evidence], small_matrix: KillMatrix) -> None:
    html = html_report(report, evidence, small_matrix)
    page = parse(html)
    assert page.errors == [] and "table" in page.ids["matrix"]
    text = "".join(page.text)
    for row in small_matrix.mutants:
        assert row.name in text
    assert "`no_put_back`" in markdown_report(report, evidence, small_matrix)


def test_the_two_session_companion_cites_the_compositional_proof(report: Report, evidence: list[Evidence]) -> None:
    """Beside a two-session companion, the command that proves two sessions at the main bounds (not run)."""
    import dataclasses

    from pausecheck.checks.report import Companion
    from pausecheck.checks.report.html import composition_note
    assert composition_note(report) is None  # no companion of two sessions: nothing to cite
    two = Companion("isolation", pausecheck.Machine(SMALL.replace(sessions=2)), report.result)
    with_two = dataclasses.replace(report, companions=(two,))
    note = composition_note(with_two)
    assert note is not None and "`pausecheck prove --compositional --artifacts 2 --pauses 1" in note
    assert "--sessions" not in note and "not run by the report" in note
    assert "prove --compositional" in html_report(with_two, evidence)
    assert "prove --compositional" in markdown_report(with_two, evidence)


def test_a_readings_report_leads_with_the_readings(report: Report, evidence: list[Evidence]) -> None:
    """Made with --readings, the page opens with the readings (a summary in the header, the section first),
    and the check of one reading comes after them; the same in Markdown."""
    from pausecheck.checks.mutants.flips import Matrix

    matrix = Matrix(SMALL, (), ())  # no row: every ambiguity still has its section
    page = html_report(report, evidence, readings=matrix)
    assert page.index('id="readings"') < page.index('id="clauses"') < page.index('id="properties"')
    header = page[page.index("<header>"):page.index("</header>")]
    assert header.index("Readings:") < header.index("The check of the reading")
    md = markdown_report(report, evidence, readings=matrix)
    assert md.index("## Readings") < md.index("## The check of the reading") < md.index("## Clauses")


def test_a_violated_property_s_clauses_say_which_it_breaks() -> None:
    from pausecheck.checks.drafts import load_draft

    draft = load_draft(Path(__file__).resolve().parent.parent / "examples" / "drafts" / "new_first.py")
    broken = pausecheck.check(SMALL, rules=draft.rules, liveness=False, companion=False)
    page = html_report(broken, evidence_of(broken))
    row = re.search(r'id="prop-write_back_delivers".*?</tr>', page, re.S).group(0)
    assert "breaks <strong>T7.5 T7.6</strong>; involved T7.4 T7.7" in row
    assert re.search(r'id="clause-T7\.4".*?involved', page, re.S)
    assert '<span class="name">write_<wbr>back_<wbr>delivers</span>' in page  # a name wraps only after an "_"


def test_a_diagram_is_titled_by_what_its_trace_is() -> None:
    """A property's trace by its property; a diff's behaviour, which has none, by its verdict (was: "None")."""
    from pausecheck.checks.report.sequence import sequence_svg

    golden = json.loads((Path(__file__).resolve().parent.parent / "traces" / "golden" / "no_put_back.itf.json")
                        .read_text(encoding="utf-8"))
    assert "<title>sequence diagram of the trace of failed_write_back_restores</title>" in sequence_svg(golden)
    behaviour = {**golden, "#meta": {**golden["#meta"], "property": None, "kind": "diff",
                                     "verdict": "only in the draft"}}
    svg = sequence_svg(behaviour)
    assert "<title>sequence diagram of a behaviour only in the draft</title>" in svg and "None" not in svg

"""The check report as one self-contained HTML5 page: verdict, clause and property tables, every
counterexample and witness with its sequence diagram and steps, the kill matrix, statistics.

No scripts, no external fonts or style sheets, nothing fetched: the page can be mailed or archived.
The same inputs give the same bytes.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from pausecheck.traces.render import render, verdict_line

from ..drafts import under
from ..mutants import mutant_named
from ..mutants.evidence import command_line
from ..verdict.verdicts import Report
from .drafted import draft_html
from .readings import readings_html, readings_summary
from .sequence import sequence_svg

__all__ = ["html_report", "verdict_summary", "verdict_word", "unexercised_by_bound", "status_class", "anchor",
           "ordered", "stats_rows", "mutant_target"]

_CLASSES = {"holds": "ok", "witnessed": "ok", "VIOLATED": "bad", "MISSING": "bad", "VACUOUS": "warn",
            "involved": "warn", "not exercised": "muted", "excused": "muted", "by construction": "muted"}
# a clause's strength -> CSS class
_STRENGTHS = {"full": "ok", "partial": "warn", "by-construction": "muted", "excused": "muted"}

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #263238;
       max-width: 1320px; margin: 0 auto; padding: 1em 1.5em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-bottom: 2px solid #cfd8dc; padding-bottom: .2em;
     margin-top: 2em; } h3 { margin-bottom: .3em; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f5f7f8; border: 1px solid #e0e6e8; padding: .7em; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: .6em 0; font-size: 14px; }
th, td { border: 1px solid #d5dde0; padding: .3em .5em; text-align: left; vertical-align: top; }
th { background: #eceff1; } tr:nth-child(even) td { background: #fafbfb; }
.num { display: block; text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 600; white-space: nowrap; padding: 0 .3em; border-radius: 3px; }
.ok { color: #1b5e20; background: #e8f5e9; } .bad { color: #b71c1c; background: #ffebee; }
.warn { color: #8a4b00; background: #fff3e0; } .muted { color: #546e7a; background: #eceff1; }
.verdict { font-size: 1.15em; padding: .6em .8em; border-left: 6px solid; margin: .8em 0; }
.verdict.ok { border-color: #2e7d32; } .verdict.bad { border-color: #c62828; }
.verdict ul { margin: .3em 0 0 0; }
q { font-style: italic; color: #37474f; } .small { font-size: 13px; color: #546e7a; }
nav { display: flex; flex-wrap: wrap; gap: .2em 1em; } a { color: #0d47a1; } .nowrap { white-space: nowrap; }
section.trace { border: 1px solid #d5dde0; border-radius: 6px; padding: .4em 1em 1em; margin: 1.2em 0; }
section.trace.counterexample { border-left: 6px solid #c62828; }
section.trace.witness { border-left: 6px solid #2e7d32; }
.diagram { overflow-x: auto; } .diagram svg { max-width: 100%; height: auto; }
details summary { cursor: pointer; color: #0d47a1; }
table.matrix { width: auto; font-size: 12px; } table.matrix th, table.matrix td { padding: .15em .2em; }
table.matrix td:nth-child(2) { min-width: 10ch; } table.matrix td:last-child { max-width: 16em; }
table.matrix abbr { text-decoration: none; cursor: help; } table.matrix code { font-size: 12px; }
table.matrix .num { white-space: nowrap; } table.matrix td:first-child code { overflow-wrap: normal; }
ol.legend { columns: 4 14em; font-size: 13px; padding-left: 0; list-style: none; }
/* Tables read at a glance: each column at least ten characters of its font, a quote at least a short line,
   words wrapping at spaces and identifiers only after "_" (<wbr>); a table too wide scrolls in its own box. */
div.table { overflow-x: auto; }
td { min-width: 10ch; overflow-wrap: normal; } td:has(> q) { min-width: 28ch; }
table.matrix td:nth-child(n+3) { min-width: 0; }
li, p { overflow-wrap: anywhere; } p code, li code, pre { overflow-wrap: anywhere; }
.name { overflow-wrap: normal; }
@media print {
  nav { display: none; } body { max-width: none; font-size: 12px; }
  section.trace { break-inside: avoid-page; } details > summary { display: none; }
  a { color: inherit; text-decoration: none; }
}
"""


def status_class(status: str) -> str:
    """The CSS class (ok, bad, warn, muted) of a verdict word."""
    return _CLASSES.get(status, "muted")


def anchor(name: str) -> str:
    """The HTML id of the section of the trace called `name`."""
    return "trace-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def ordered(evidence: list[Any]) -> list[Any]:
    """Counterexamples first, then witnesses, each group in the given order."""
    return [e for e in evidence if e.counterexample] + [e for e in evidence if not e.counterexample]


def verdict_word(exit_code: int) -> str:
    """The verdict a report's exit code stands for: [ok] (0), [fail] (1: something is violated), else
    [incomplete] (3: nothing violated, not everything established)."""
    return {0: "[ok]", 1: "[fail]"}.get(exit_code, "[incomplete]")


def unexercised_by_bound(report: Report) -> list[tuple[str, list[str]]]:
    """The properties these bounds cannot exercise, grouped by the flags that would, in first-seen order."""
    by_need: dict[str, list[str]] = {}
    for p in report.unexercised:
        by_need.setdefault(p.needs or "(no bound known)", []).append(p.name)
    return list(by_need.items())


def verdict_summary(report: Report) -> tuple[bool, list[str]]:
    """Whether the check passed, and why, as sentences (one per problem, or one saying all is well)."""
    if report.exit_code == 0:
        accepted = len(report.unexercised)
        return True, ["every property holds, every witness was found, and the search was complete"] + (
            [f"{accepted} properties cannot be exercised at these bounds and were accepted (--accept-unexercised); "
             "the property table names the bound each needs"] if accepted else [])
    why = [f"{p.name} is VIOLATED: {p.message or p.doc}" + (f" (breaks {', '.join(p.blamed)})" if p.blamed else "")
           for p in report.properties if p.status == "VIOLATED"]  # first, and alone
    for p in report.properties:
        if p.status == "VIOLATED":
            continue
        if p.status == "VACUOUS":
            why.append(f"{p.name} is VACUOUS: it holds, but its situation {p.situation} was never reached")
        elif p.status == "MISSING":
            why.append(f"{p.name} is MISSING: the bounds allow it, yet no run reaches it (a vacuous model)")
        elif p.failed:
            why.append(f"{p.name}: {p.status}")
    if not report.accept_unexercised:
        why += [f"not exercised at these bounds, {need} would: {', '.join(names)}"
                for need, names in unexercised_by_bound(report)]
    why += [f"clause {c.id} is MISSING: no property formalises it" for c in report.clauses if c.status == "MISSING"]
    searches = [("search", report.result)] + [(f"companion search ({c.name})", c.result) for c in report.companions]
    for label, result in searches:
        if result is not None and result.deadlocks:
            why.append(f"the {label} found {result.deadlocks:,} deadlocked states (unfinished, nothing enabled)")
        if result is not None and not result.complete:
            why.append(f"the {label} was cut short: nothing is established")
    return False, why or ["the check failed"]


def _status(status: str) -> str:
    return f'<span class="status {status_class(status)}">{escape(status)}</span>'


def _table(head: list[str], rows: list[list[str]], *, css: str = "", raw_head: bool = False) -> str:
    """A table; `head` is plain text (HTML already with `raw_head`), the cells are HTML already."""
    opening = f'<div class="table"><table class="{css}">' if css else '<div class="table"><table>'
    cells = "".join(f"<th>{h if raw_head else escape(h)}</th>" for h in head)
    out = [opening, f"<thead><tr>{cells}</tr></thead>", "<tbody>"]
    out += ["<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows]
    return "\n".join(out + ["</tbody>", "</table></div>"])


def breakable(identifier: str) -> str:
    """An identifier as HTML that a line may break only after one of its underscores."""
    return escape(identifier).replace("_", "_<wbr>")


def _link(name: str, traced: set[str]) -> str:
    """A property's name, whole (never cut mid-identifier), linked to its trace if it has one."""
    shown = f'<span class="name">{breakable(name)}</span>'
    return f'<a href="#{anchor(name)}">{shown}</a>' if name in traced else shown


def _bounds(bounds: dict[str, int]) -> str:
    return " ".join(f"<code>{escape(k.replace('_', '-'))}={v}</code>" for k, v in bounds.items())


def _header(report: Report, title: str, readings: Any = None) -> str:
    ok, why = verdict_summary(report)
    items = "".join(f"<li>{escape(w)}</li>" for w in why)
    word = verdict_word(report.exit_code)
    lead = [] if readings is None else [  # a readings report: the readings first, the check of one reading after
        f'<p><strong>Readings:</strong> {escape(readings_summary(readings))} (<a href="#readings">below</a>).</p>',
        f"<p>The check of the reading <code>{escape(report.reading)}</code> at these bounds:</p>"]
    return "\n".join([
        f"<header><h1>{escape(title)}</h1>", *lead,
        f'<p class="small">pausecheck check of RT-TOOL-7 and RT-GATE-6 · reading <code>{escape(report.reading)}'
        f"</code>{escape(under(report.machine.rules))} · exit code {report.exit_code}</p>",
        f'<div class="verdict {"ok" if ok else "bad"}"><strong>{word}</strong><ul>{items}</ul></div>',
        f"<p>bounds: {_bounds(report.bounds)}</p>",
        *[f"<p>companion bounds ({escape(c.name)}): {_bounds(c.machine.bounds.as_dict())}</p>"
          for c in report.companions],
        "</header>",
    ])


def _strength(c: Any) -> str:
    """The strength cell: the word, and under it the note of a clause that is not at full strength."""
    word = f'<span class="status {_STRENGTHS.get(c.strength, "muted")}">{escape(c.strength)}</span>'
    return word + (f'<br><span class="small">{escape(c.note)}</span>' if c.note else "")


def _clauses(report: Report, traced: set[str]) -> str:
    rows = []
    for c in report.clauses:
        about = ", ".join(_link(p, traced) for p in c.properties) or "-"
        witnesses = ", ".join(_link(w, traced) for w in c.witnesses) or "-"
        rule = f'<span class="nowrap">{escape(c.rule)}</span>'
        rows.append([f'<strong id="clause-{escape(c.id)}">{escape(c.id)}</strong>', rule,
                     f"<q>{escape(c.text)}</q>", _status(c.status), _strength(c), about, witnesses])
    return _section("clauses", "Clauses", _table(["clause", "rule", "text", "verdict", "strength", "properties",
                                                  "witnesses"], rows))


def _property_notes(p: Any) -> str:
    notes = []
    if p.message:
        notes.append(escape(p.message))
    if p.companion:
        notes.append(f'<span class="small">judged by the companion search ({escape(p.companion)})</span>')
    if p.status == "not exercised" and p.needs:
        notes.append(f'needs <span class="nowrap">{escape(p.needs)}</span>')
    return "<br>".join(notes) or "-"


def _property_clauses(p: Any) -> str:
    """A property's clauses; for a violated one, those its counterexample breaks first, then those involved."""
    if p.status != "VIOLATED" or not p.blamed or p.blamed == p.clauses:
        return escape(" ".join(p.clauses)) or "-"
    rest = " ".join(c for c in p.clauses if c not in p.blamed)
    return f"breaks <strong>{escape(' '.join(p.blamed))}</strong>" + (f"; involved {escape(rest)}" if rest else "")


def _properties(report: Report, traced: set[str]) -> str:
    rows = [[f'<strong id="prop-{escape(p.name)}">{_link(p.name, traced)}</strong>', escape(p.kind),
             _status(p.status), _property_clauses(p), escape(p.doc),
             _link(p.situation, traced) if p.situation else "-", _property_notes(p)]
            for p in report.properties]
    head = ["property", "kind", "verdict", "clauses", "meaning", "situation", "notes"]
    return _section("properties", "Properties", _table(head, rows))


def _evidence(item: Any) -> str:
    meta = item.document.get("#meta", {})
    kind = "counterexample" if item.counterexample else "witness"
    does = f": {escape(meta['mutant_description'])}" if meta.get("mutant_description") else ""
    mutant = f"<p>under mutant <code>{escape(meta['mutant'])}</code>{does}</p>" if meta.get("mutant") else ""
    return "\n".join([
        f'<section class="trace {kind}" id="{anchor(item.name)}">',
        f"<h3>{escape(kind)}: {escape(item.name)}</h3>",
        f"<p><strong>{escape(verdict_line(meta))}</strong></p>{mutant}",
        f"<p>reproduce with: <code>{escape(item.command)}</code></p>",
        f'<div class="diagram">{sequence_svg(item.document)}</div>',
        "<details><summary>steps and changed fields</summary>",
        f"<pre>{escape(render(item.document, headline=False))}</pre></details>",
        "</section>",
    ])


def _traces(evidence: list[Any]) -> str:
    if not evidence:
        return _section("traces", "Counterexamples and witnesses", "<p>No trace: nothing was found.</p>")
    counted = sum(1 for e in evidence if e.counterexample)
    intro = f"<p>{counted} counterexample(s), {len(evidence) - counted} witness(es).</p>"
    return _section("traces", "Counterexamples and witnesses", intro + "\n".join(_evidence(e) for e in evidence))


def mutant_target(name: str) -> str | None:
    """The property a mutant is meant to be caught by, if it is a known mutant."""
    try:
        return mutant_named(name).target
    except KeyError:
        return None


def _matrix(matrix: Any) -> str:
    """The kill matrix, narrow enough for a 1400 px window: the property columns numbered P1, P2, ...
    (the full name on hover and in the legend above), each equivalence reason folded under its verdict."""
    columns = [p.name for p in matrix.properties if p.killers]
    head = [f'<abbr title="{escape(name)}">P{i}</abbr>' for i, name in enumerate(columns, 1)]
    rows = []
    for m in matrix.mutants:
        target = mutant_target(m.name)
        cells = ["." if m.steps(c) is None else f"{m.steps(c)}{'*' if c == target else ''}" for c in columns]
        titles = [f"{m.name} x {c}" for c in columns]
        rows.append([f"<code>{escape(m.name)}</code>", escape(" ".join(m.clauses))]
                    + [f'<span class="num" title="{escape(t)}">{c}</span>' for c, t in zip(cells, titles, strict=True)]
                    + [_mutant_verdict(m)])
    legend = "".join(f"<li><b>P{i}</b> {escape(name)}</li>" for i, name in enumerate(columns, 1))
    verdict = matrix.verdict()
    count = f"{len(matrix.mutants)} mutant" + ("" if len(matrix.mutants) == 1 else "s")
    base = matrix.base_failure()
    body = ([f'<p class="verdict bad"><strong>The base fails:</strong> {escape(base)}</p>'] if base else []) + [
        '<p class="small">shortest counterexample (steps) per mutant and killing property; '
        "'.' = not killed; * = the property meant to catch it. Properties that kill nothing are left out. "
        "The columns are numbered; hover a number for its property, or read the legend.</p>",
        f'<ol class="legend">{legend}</ol>',
        _table(["mutant", "clauses", *head, "verdict"], rows, css="matrix", raw_head=True),
        f"<p><strong>{escape(verdict)}</strong> · {count} in {matrix.seconds:.1f} s</p>",
        f"<details><summary>what each property adds</summary><ul>{''.join(_adds(matrix))}</ul></details>",
    ]
    return _section("matrix", "Kill matrix", "\n".join(body))


def _mutant_verdict(m: Any) -> str:
    """A mutant's verdict cell: killed or SURVIVED, or equivalent with its reason folded (it can be long)."""
    if m.equivalent and not m.killed_by:
        return (f'<details><summary><span class="status muted">equivalent</span></summary>'
                f'<span class="small">{escape(m.reason)}</span></details>')
    cls, word = ("bad", "SURVIVED") if m.survived else ("ok", "killed")
    also = (f'<br><span class="small">also broke {escape(", ".join(m.base_kills))}, which the base breaks too'
            "</span>") if m.base_kills else ""
    return f'<span class="status {cls}">{word}</span>{also}'


def _adds(matrix: Any) -> list[str]:
    """What each property adds: the mutants only it kills, the properties it is redundant with."""
    adds = []
    for p in matrix.properties:
        if p.sole_killers:
            adds.append(f"<li>{escape(p.name)}: sole killer of {escape(', '.join(p.sole_killers))}</li>")
        elif p.redundant_with and len(matrix.mutants) > 1:
            jointly = " jointly" if p.jointly else ""
            adds.append(f"<li>{escape(p.name)}: redundant{jointly} with {escape(', '.join(p.redundant_with))}</li>")
        elif p.name in matrix.base_broken:
            adds.append(f"<li>{escape(p.name)}: not judged as a killer (the base breaks it)</li>")
        elif not p.killers:
            adds.append(f"<li>{escape(p.name)}: kills nothing</li>")
    return adds


def stats_rows(report: Report) -> list[list[str]]:
    """Plain-text rows (search, states, transitions, depth, seconds, states/s, complete, deadlocks)."""
    rows = []
    for label, r in [("main", report.result)] + [(f"companion: {c.name}", c.result) for c in report.companions]:
        if r is None:
            continue
        rate = r.states_per_second
        rows.append([label, f"{r.states:,}", f"{r.transitions:,}", str(r.depth), f"{r.seconds:.2f}",
                     "-" if rate == float("inf") else f"{rate:,.0f}", "complete" if r.complete else "INCOMPLETE",
                     f"{r.deadlocks:,}"])
    return rows


def composition_note(report: Report) -> str | None:
    """Where a companion searched two sessions: what stands for two sessions at the main bounds, and the command
    that proves it (not run by the report: it takes z3 minutes)."""
    if report.machine.bounds.sessions != 1 or not any(c.machine.bounds.sessions > 1 for c in report.companions):
        return None
    command = command_line(report.machine.bounds, report.reading, command="pausecheck prove --compositional",
                           rules=report.machine.rules)
    return (f"two sessions at the main bounds are not searched here: `{command}` proves with z3 that each session of "
            "two behaves as one session alone (projection and isolation) and which properties carry; each that "
            "carries holds for two sessions wherever this search establishes it (not run by the report: about an "
            "hour at the default bounds)")


def _stats(report: Report) -> str:
    head = ["search", "states", "transitions", "depth", "seconds", "states/s", "complete", "deadlocks"]
    rows = [[escape(c) if i in (0, 6) else f'<span class="num">{escape(c)}</span>' for i, c in enumerate(row)]
            for row in stats_rows(report)]
    note = "".join(f"<p>the companion search ({escape(c.name)}) judged: "
                   f"{escape(', '.join(p.name for p in report.properties if p.companion == c.name))}</p>"
                   for c in report.companions)
    composed = composition_note(report)
    note += "" if composed is None else f"<p>{escape(composed)}</p>"
    return _section("stats", "Statistics", _table(head, rows) + note)


def _section(ident: str, heading: str, body: str) -> str:
    return f'<section id="{ident}">\n<h2>{escape(heading)}</h2>\n{body}\n</section>'


def html_report(report: Report, evidence: list[Any], matrix: Any = None, *, title: str = "pausecheck report",
                readings: Any = None, drafted: Any = None) -> str:
    """One self-contained HTML5 document of a check report, its evidence and optionally a kill matrix."""
    evidence = ordered(list(evidence))
    traced = {e.name for e in evidence}
    links = [("readings", "Readings")] if readings is not None else []  # asked for: first
    links += [("draft", "The draft")] if drafted is not None else []
    links += [("clauses", "Clauses"), ("properties", "Properties"), ("traces", "Traces")]
    links += [("matrix", "Kill matrix")] if matrix is not None else []
    nav = "<nav>" + "".join(f'<a href="#{i}">{t}</a>' for i, t in links + [("stats", "Statistics")]) + "</nav>"
    parts = [_header(report, title, readings), nav, "<main>"]
    if readings is not None:
        parts.append(_section("readings", "Readings", readings_html(readings)))
    parts += [draft_html(drafted)] if drafted is not None else []
    parts += [_clauses(report, traced), _properties(report, traced), _traces(evidence)]
    if matrix is not None:
        parts.append(_matrix(matrix))
    parts += [_stats(report), "</main>"]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        *parts, '<footer class="small"><p>generated by pausecheck</p></footer>', "</body>", "</html>",
    ]) + "\n"

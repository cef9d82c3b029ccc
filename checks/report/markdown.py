"""The check report in GitHub Markdown: the same content as the HTML report, with Mermaid sequence
diagrams (GitHub renders them) and each trace's rendered steps in a code block."""

from __future__ import annotations

from typing import Any

from pausecheck.traces.render import render, verdict_line

from ..drafts import under
from ..verdict.verdicts import Report
from .drafted import draft_markdown
from .html import composition_note, mutant_target, ordered, stats_rows, verdict_summary, verdict_word
from .readings import readings_markdown, readings_summary
from .sequence import sequence_text

__all__ = ["markdown_report"]

_MARKS = {"holds": "✅", "witnessed": "✅", "VIOLATED": "❌", "MISSING": "❌", "VACUOUS": "⚠️",
          "not exercised": "➖", "excused": "➖", "by construction": "➖"}


def _cell(text: str) -> str:
    """Text safe inside a table cell: no pipes or line breaks."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _status(status: str) -> str:
    return f"{_MARKS.get(status, '')} **{status}**".strip()


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A GitHub table; cells are Markdown already (escape them with `_cell`)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows] + [""]


def _slug(name: str) -> str:
    """GitHub's anchor for a heading `Trace: name` (lower case, spaces to dashes, punctuation dropped)."""
    return "trace-" + "".join(c for c in name.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")


def _link(name: str, traced: set[str]) -> str:
    return f"[{_cell(name)}](#{_slug(name)})" if name in traced else _cell(name)


def _bounds(bounds: dict[str, int]) -> str:
    return " ".join(f"`{k.replace('_', '-')}={v}`" for k, v in bounds.items())


def _header(report: Report) -> list[str]:
    ok, why = verdict_summary(report)
    lines = ["# pausecheck report", "",
             f"pausecheck check of RT-TOOL-7 and RT-GATE-6 · reading `{report.reading}`{under(report.machine.rules)} · "
             f"exit code {report.exit_code}",
             "", f"**{verdict_word(report.exit_code)}**", ""]
    lines += [f"- {w}" for w in why] + ["", f"bounds: {_bounds(report.bounds)}", ""]
    for c in report.companions:
        lines += [f"companion bounds ({c.name}): {_bounds(c.machine.bounds.as_dict())}", ""]
    return lines


def _strength(c: Any) -> str:
    """The strength cell: the word, then the note of a clause that is not at full strength."""
    return f"{_cell(c.strength)}<br>{_cell(c.note)}" if c.note else _cell(c.strength)


def _clauses(report: Report, traced: set[str]) -> list[str]:
    rows = []
    for c in report.clauses:
        about = ", ".join(_link(p, traced) for p in c.properties) or "-"
        witnesses = ", ".join(_link(w, traced) for w in c.witnesses) or "-"
        rows.append([f"**{c.id}**", _cell(c.rule), f"“{_cell(c.text)}”", _status(c.status), _strength(c), about,
                     witnesses])
    return ["## Clauses", ""] + _table(["clause", "rule", "text", "verdict", "strength", "properties", "witnesses"],
                                       rows)


def _notes(p: Any) -> str:
    notes = [_cell(p.message)] if p.message else []
    if p.companion:
        notes.append(f"judged by the companion search ({p.companion})")
    if p.status == "not exercised" and p.needs:
        notes.append(f"needs {_cell(p.needs)}")
    return "; ".join(notes) or "-"


def _properties(report: Report, traced: set[str]) -> list[str]:
    rows = [[_link(p.name, traced), p.kind, _status(p.status), " ".join(p.clauses) or "-", _cell(p.doc),
             _link(p.situation, traced) if p.situation else "-", _notes(p)] for p in report.properties]
    head = ["property", "kind", "verdict", "clauses", "meaning", "situation", "notes"]
    return ["## Properties", ""] + _table(head, rows)


def _evidence(item: Any) -> list[str]:
    meta = item.document.get("#meta", {})
    kind = "counterexample" if item.counterexample else "witness"
    lines = [f"### Trace: {item.name}", "", f"*{kind}* · **{_cell(verdict_line(meta))}**", ""]
    if meta.get("mutant"):
        does = f": {_cell(meta['mutant_description'])}" if meta.get("mutant_description") else ""
        lines += [f"under mutant `{meta['mutant']}`{does}", ""]
    steps = render(item.document, headline=False).rstrip("\n").replace("```", "`\u200b``")
    lines += [f"reproduce with: `{item.command}`", "", "```mermaid", sequence_text(item.document).rstrip("\n"),
              "```", "", "<details><summary>steps and changed fields</summary>", "", "```", steps, "```", "",
              "</details>", ""]
    return lines


def _matrix(matrix: Any) -> list[str]:
    columns = [p.name for p in matrix.properties if p.killers]
    rows = []
    for m in matrix.mutants:
        target = mutant_target(m.name)
        cells = ["." if m.steps(c) is None else f"{m.steps(c)}" + ("\\*" if c == target else "") for c in columns]
        state = "equivalent: " + _cell(m.reason) if m.equivalent else "**SURVIVED**" if m.survived else "killed"
        state += f" (also broke {', '.join(m.base_kills)}, which the base breaks too)" if m.base_kills else ""
        rows.append([f"`{m.name}`", " ".join(m.clauses), *cells, state])
    base = matrix.base_failure()
    lines = ["## Kill matrix", ""] + ([f"**The base fails:** {base}", ""] if base else []) + [
        "Shortest counterexample (steps) per mutant and killing property; "
        "`.` = not killed; \\* = the property meant to catch it.", ""]
    lines += _table(["mutant", "clauses", *columns, "verdict"], rows)
    for p in matrix.properties:
        if p.sole_killers:
            lines.append(f"- {p.name}: sole killer of {', '.join(p.sole_killers)}")
        elif p.redundant_with:
            lines.append(f"- {p.name}: redundant{' jointly' if p.jointly else ''} with {', '.join(p.redundant_with)}")
        elif p.name in matrix.base_broken:
            lines.append(f"- {p.name}: not judged as a killer (the base breaks it)")
        else:
            lines.append(f"- {p.name}: kills nothing")
    verdict = matrix.verdict()
    return lines + ["", f"**{verdict}** · {len(matrix.mutants)} mutants in {matrix.seconds:.1f} s", ""]


def _stats(report: Report) -> list[str]:
    head = ["search", "states", "transitions", "depth", "seconds", "states/s", "complete", "deadlocks"]
    lines = ["## Statistics", ""] + _table(head, stats_rows(report))
    for c in report.companions:
        judged = ", ".join(p.name for p in report.properties if p.companion == c.name)
        lines += [f"the companion search ({c.name}) judged: {judged}", ""]
    composed = composition_note(report)
    return lines + ([] if composed is None else [composed, ""])


def markdown_report(report: Report, evidence: list[Any], matrix: Any = None, readings: Any = None,
                    drafted: Any = None) -> str:
    """The check report as GitHub Markdown, with a Mermaid diagram per counterexample and witness."""
    evidence = ordered(list(evidence))
    traced = {e.name for e in evidence}
    if readings is None:
        lines = _header(report)
    else:  # asked for: the readings first, then the check of one reading
        lines = ["# pausecheck report", "", f"**Readings:** {readings_summary(readings)}.", ""]
        lines += readings_markdown(readings) + [f"## The check of the reading `{report.reading}`", ""]
        lines += _header(report)[2:]
    lines += draft_markdown(drafted) if drafted is not None else []
    lines += _clauses(report, traced) + _properties(report, traced)
    counted = sum(1 for e in evidence if e.counterexample)
    lines += ["## Counterexamples and witnesses", "",
              f"{counted} counterexample(s), {len(evidence) - counted} witness(es).", ""]
    for item in evidence:
        lines += _evidence(item)
    if matrix is not None:
        lines += _matrix(matrix)
    lines += _stats(report)
    return "\n".join(lines).rstrip("\n") + "\n"

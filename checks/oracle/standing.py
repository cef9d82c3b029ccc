"""A runtime's standing against RT-TOOL-7 and RT-GATE-6, to publish in its own docs.

The specification carries no implementation status: each implementation publishes its own. For every
clause of both rules the standing says `passed` (some step the runtime took enacts it, and it did not
diverge there), `failed` (the divergence's step enacts it; the trace is named) or `not covered` (no
step the runtime took enacts it: the bounds do not reach it, or the run stopped first), with the
pausecheck and model versions, the bounds, the reading and the coverage figure. A clause the model
holds only in part (docs/clauses.md) says what no run can test, so `passed` is never read as more. The
verdict counts the clauses covered, and each clause not covered says what would cover it: the fewest
bound flags that make a step of the model enact it (`uncovered.py`: derived from the witnesses'
`requires`, then checked on the model), or why none does. Written as JSON, Markdown or a self-contained HTML
page, chosen by the file's extension.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from pausecheck.model import CLAUSES, MODEL_VERSION, Machine
from pausecheck.model.clauses import FULL

from pausecheck import __version__

from .conform import ConformResult
from .exercised import RULES
from .macros import unchecked
from .protocol import PROTOCOL
from .uncovered import COMPLETE, to_cover

__all__ = ["RULES", "FORMATS", "standing", "render_standing", "format_of"]

FORMATS = {".json": "json", ".md": "md", ".html": "html"}
PASSED, FAILED, UNCOVERED = "passed", "failed", "not covered"


def standing(result: ConformResult, machine: Machine, command: str, trace: str | None) -> dict[str, Any]:
    """The standing of one conformance run, as plain data."""
    edges = dict(result.clause_edges)
    failed = set(result.divergence.clauses) if result.divergence else set()
    coarse = {clause: f"not checked at the runtime's grain ({', '.join(result.macros)} as one step): {why}"
              for clause, why in unchecked(result.macros)}
    rows = []
    for c in CLAUSES:
        if c.rule not in RULES:
            continue
        status = FAILED if c.id in failed else PASSED if edges.get(c.id) else UNCOVERED
        rows.append({"id": c.id, "rule": c.rule, "text": c.text, "status": status, "edges": edges.get(c.id, 0),
                     "trace": trace if status == FAILED else None,
                     "limit": "; ".join(filter(None, (None if c.strength == FULL else f"{c.strength}: {c.note}",
                                                       coarse.get(c.id)))) or None,
                     "cover": None})
    cover = to_cover([r["id"] for r in rows if r["status"] == UNCOVERED], machine,
                     None if result.complete else COMPLETE)
    for r in rows:
        r["cover"] = cover[r["id"]].text if r["id"] in cover else None
    return {
        "pausecheck": __version__, "model": MODEL_VERSION, "protocol": PROTOCOL, "runtime": command,
        "mode": result.mode, "macros": list(result.macros), "bounds": machine.bounds.as_dict(),
        "reading": machine.reading.name,
        "coverage": result.coverage, "edges": result.edges, "sequences": result.sequences,
        "verdict": "conforms" if result.ok else "diverges" if result.divergence else "incomplete",
        "divergence": None if result.divergence is None else result.divergence.message,
        "covered": sum(r["status"] != UNCOVERED for r in rows), "clauses_total": len(rows),
        "clauses": rows,
    }


def _verdict(s: dict[str, Any]) -> str:
    """`conforms (strict) on the 16 of 24 clauses covered`, or the verdict alone when every clause is."""
    head = f"{s['verdict']} ({s['mode']})"
    if s["covered"] == s["clauses_total"]:
        return f"{head}, every one of the {s['clauses_total']} clauses covered"
    return f"{head} on the {s['covered']} of {s['clauses_total']} clauses covered; " \
           f"{s['clauses_total'] - s['covered']} not covered"


def _uncovered(s: dict[str, Any]) -> list[str]:
    """One line per way to cover the clauses not covered: `T7.13, T7.14, T7.15: --calls 2`."""
    by_need: dict[str, list[str]] = {}
    for r in s["clauses"]:
        if r["status"] == UNCOVERED:
            by_need.setdefault(r["cover"], []).append(r["id"])
    return [f"not covered: {', '.join(ids)}; to cover: {need}" for need, ids in by_need.items()]


def _summary(s: dict[str, Any]) -> list[str]:
    coverage = "unknown (not every sequence ran)" if s["coverage"] is None else f"{s['coverage']:.1%}"
    bounds = " ".join(f"{k.replace('_', '-')}={v}" for k, v in s["bounds"].items())
    return [f"runtime: {s['runtime']}", f"verdict: {_verdict(s)}",
            f"checked by pausecheck {s['pausecheck']} (model {s['model']}, protocol {s['protocol']})",
            f"bounds: {bounds}; reading: {s['reading']}",
            f"coverage: {coverage} of the reachable graph's edges ({s['edges']:,} judged)"] + (
        [f"divergence: {s['divergence']}"] if s["divergence"] else []) + _uncovered(s)


def render_standing(s: dict[str, Any], fmt: str) -> str:
    """The standing as `json`, `md` or `html` text."""
    if fmt == "json":
        return json.dumps(s, indent=2) + "\n"
    title = "Standing against RT-TOOL-7 and RT-GATE-6"
    if fmt == "md":
        lines = [f"# {title}", ""] + [f"- {line}" for line in _summary(s)] + [
            "", "| Clause | Rule | Text | Standing | Steps enacting it | What the model cannot test |",
            "|---|---|---|---|---|---|"]
        for r in s["clauses"]:
            text = r["text"].replace("|", "\\|")
            status = f"{r['status']} ([trace]({r['trace']}))" if r["trace"] else r["status"]
            lines.append(f"| {r['id']} | {r['rule']} | {text} | {status} | {r['edges']:,} | {r['limit'] or '-'} |")
        return "\n".join(lines) + "\n"
    rows = "".join(
        f"<tr class=\"{r['status'].replace(' ', '-')}\"><td>{escape(r['id'])}</td><td>{escape(r['rule'])}</td>"
        f"<td>{escape(r['text'])}</td><td>{escape(r['status'])}"
        + (f" (<a href=\"{escape(r['trace'])}\">trace</a>)" if r["trace"] else "")
        + f"</td><td>{r['edges']:,}</td><td>{escape(r['limit'] or '-')}</td></tr>" for r in s["clauses"])
    summary = "".join(f"<li>{escape(line)}</li>" for line in _summary(s))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title><style>"
            "body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.passed{background:#e8f5e9}"
            ".failed{background:#ffebee}.not-covered{background:#fff8e1}</style></head><body>"
            f"<h1>{title}</h1><ul>{summary}</ul><table><tr><th>Clause</th><th>Rule</th><th>Text</th>"
            f"<th>Standing</th><th>Steps enacting it</th><th>What the model cannot test</th></tr>{rows}</table>"
            "</body></html>\n")


def format_of(path: Path) -> str | None:
    """The standing format a file name asks for, or None."""
    return FORMATS.get(path.suffix.lower())

"""Sequence diagrams of one ITF trace: an inline SVG (for HTML) and a Mermaid body (for Markdown).

Four lanes: the caller, the runtime, the tool plane and the store. Each step of the trace gives one
arrow for its action and one more per visible consequence, derived by comparing the step's state
with the one before it: held list, messages, questions, warnings, attempt and run statuses. Like
`traces.render`, this reads the ITF document alone, never the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from pausecheck.traces.render import lasso_loop

__all__ = ["LANES", "Arrow", "arrows_of", "sequence_svg", "sequence_text"]

LANES = ("caller", "runtime", "tool", "store")
WIDTH, TOP, ROW, NOTE = 760, 56, 30, 26
_X = {lane: 95 + 190 * i for i, lane in enumerate(LANES)}
_INK, _SOFT, _RED = "#263238", "#546e7a", "#c62828"
_HALO = ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'  # legible over lifelines
# the attempt status each tool outcome sets by the rules: not worth a second arrow
_EXPECTED = {"tool-returns": "completed", "tool-fails": "failed", "tool-interrupts": "interrupted"}


@dataclass(frozen=True, slots=True)
class Arrow:
    """One arrow of a diagram: step number, lanes, label, the step's clauses (on its first arrow)."""

    step: int
    source: str
    target: str
    text: str
    clauses: tuple[str, ...] = ()
    reply: bool = False  # a consequence or an answer, drawn dashed
    deviates: bool = False  # the mutant deviates from the rules on this step


def _refs(values: list[Any]) -> str:
    return "[" + ", ".join(_refs(v) if isinstance(v, list) else str(v) for v in values) + "]"


def _executions(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in state.get("executions", [])}


def _trails(execution: dict[str, Any]) -> dict[str, list[str]]:
    trails: dict[str, list[str]] = {}
    for attempt in execution.get("attempts", []):
        trails.setdefault(attempt["call"], []).append(attempt["status"])
    return trails


def _wire(execution: dict[str, Any], state: dict[str, Any]) -> str:
    """What a poll shows of one turn: status, messages, pending questions, warnings."""
    parts = [execution["status"], "messages " + _refs(execution["messages"])]
    parts += [f"{q['id']} pending" for q in execution["questions"] if q["status"] == "pending"]
    if execution.get("unhandled"):
        parts.append(f"unhandled {execution['unhandled']}")
    warned = [w["artifact"] for w in state.get("warnings", []) if w["execution"] == execution["id"]]
    if warned:
        parts.append("warnings " + _refs(warned))
    return "wire: " + " · ".join(parts)


def _primary(action: dict[str, Any], pre: dict[str, Any], post: dict[str, Any]) -> tuple[str, str, str]:
    """(source, target, text) of the arrow for the action itself."""
    kind, ex = action.get("kind", "?"), action.get("execution", "")
    before, after = _executions(pre).get(ex, {}), _executions(post).get(ex, {})
    if kind == "start-turn":
        new = [e for e in _executions(post) if e not in _executions(pre)]
        return "caller", "runtime", f"start turn s{action.get('session')}" + (f" → {new[0]}" if new else "")
    if kind == "call-tool":
        calls = [a["call"] for a in after.get("attempts", [])[len(before.get("attempts", [])):]]
        return "runtime", "tool", "call " + (calls[-1] if calls else "a tool")
    if kind == "tool-returns":
        made = [a["ref"] for a in post.get("artifacts", [])[len(pre.get("artifacts", [])):]]
        return "tool", "runtime", f"{action.get('call')} returns " + (", ".join(made) or "no artifacts")
    if kind == "tool-fails":
        return "tool", "runtime", f"{action.get('call')} fails"
    if kind == "tool-interrupts":
        return "tool", "runtime", f"{action.get('call')} interrupts (gate)"
    if kind == "observe-again":
        return "tool", "runtime", "same interrupt observed again"
    if kind == "poll":
        return "caller", "runtime", f"poll {ex}"
    if kind == "answer":
        verb = "approve" if action.get("approve") else "decline"
        return "caller", "runtime", f"{verb} q{action.get('question')}"
    if kind == "node-fails":
        return "runtime", "store", "node fails " + ("(routed)" if action.get("routed") else "(unrouted)")
    if kind == "start-write-back":
        return "runtime", "store", "take held list (" + ("final" if action.get("final") else "interim") + " write-back)"
    if kind == "write-message":
        return "runtime", "store", "write message" if action.get("ok") else "write message FAILS"
    if kind == "put-back":
        return "runtime", "store", "put back what was taken"
    if kind == "report-failure":
        return "runtime", "caller", "report the failed write-back"
    if kind == "clear-held":
        return "runtime", "store", "clear what was read from the held list"
    if kind == "close-superseded":
        return "runtime", "store", "close the superseded attempt"
    if kind == "crash":
        return "runtime", "store", "CRASH and restart: segments in flight lost, records kept"
    if kind == "expire":
        return "runtime", "store", f"{ex}: question expires, run cancelled"
    if kind == "lose-race":
        return "runtime", "tool", "a second path reaches the gated call (consent race)"
    if kind == "resume-again":
        return "caller", "runtime", f"a second tab approves q{action.get('question')} too"
    return "caller", "runtime", str(kind)


def _consequences(action: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(source, target, text) for each visible change of one execution on one step."""
    out = []
    if before.get("status") and before["status"] != after["status"]:
        out.append(("runtime", "store", f"run: {before['status']} → {after['status']}"))
    if before.get("unhandled", 0) != after["unhandled"]:
        out.append(("runtime", "store", f"unhandled: {before.get('unhandled', 0)} → {after['unhandled']}"))
    old_trails = _trails(before)
    for call, trail in _trails(after).items():
        old = old_trails.get(call, [])
        for was, now in zip(old, trail, strict=False):
            if was != now and not (call == action.get("call") and _EXPECTED.get(action["kind"]) == now):
                out.append(("runtime", "store", f"{call}: {was} → {now}"))
        if len(trail) > len(old) and action["kind"] != "call-tool":
            out.append(("runtime", "store", f"{call}: new attempt {trail[-1]}"))
    if before.get("held", []) != after["held"]:
        out.append(("runtime", "store", "held: " + _refs(after["held"])))
    old_questions = {q["id"]: q for q in before.get("questions", [])}
    for q in after["questions"]:
        was = old_questions.get(q["id"])
        if was is None:
            out.append(("runtime", "caller", f"question {q['id']} ({q['call']})"))
        elif was["status"] != q["status"]:
            out.append(("runtime", "store", f"{q['id']}: {was['status']} → {q['status']}"))
    messages, old = after["messages"], before.get("messages", [])
    if messages[:len(old)] == old:
        out += [("store", "caller", "message " + _refs(m)) for m in messages[len(old):]]
    else:
        out.append(("store", "caller", "messages now " + _refs(messages)))
    return out


def arrows_of(document: dict[str, Any]) -> list[Arrow]:
    """Every arrow of a trace's diagram, step by step, top to bottom."""
    states = document.get("states", [])
    several = any(len(s.get("executions", [])) > 1 for s in states)
    arrows = []
    for i, (pre, post) in enumerate(zip(states, states[1:], strict=False), 1):
        meta = post.get("#meta", {})
        action = meta.get("action") if isinstance(meta.get("action"), dict) else {"kind": str(meta.get("action"))}
        deviates = bool(meta.get("deviates"))
        clauses = tuple(meta.get("clauses", []))
        ex = action.get("execution", "")
        source, target, text = _primary(action, pre, post)
        prefix = f"{ex}: " if several and ex else ""
        arrows.append(Arrow(i, source, target, prefix + text, clauses, False, deviates))
        if action.get("kind") == "poll" and ex in _executions(post):
            arrows.append(Arrow(i, "runtime", "caller", _wire(_executions(post)[ex], post), (), True, deviates))
        old = _executions(pre)
        for eid, after in _executions(post).items():
            prefix = f"{eid} " if several else ""
            for src, dst, text in _consequences(action, old.get(eid, {}), after):
                arrows.append(Arrow(i, src, dst, prefix + text, (), True, deviates))
        known = {(w["execution"], w["artifact"]) for w in pre.get("warnings", [])}
        for w in post.get("warnings", []):
            if (w["execution"], w["artifact"]) not in known:
                arrows.append(Arrow(i, "runtime", "caller", f"warning: {w['artifact']} dropped", (), True, deviates))
    return arrows


def _arrow_svg(arrow: Arrow, y: int) -> list[str]:
    x1, x2 = _X[arrow.source], _X[arrow.target]
    colour = _RED if arrow.deviates else (_SOFT if arrow.reply else _INK)
    dash = ' stroke-dasharray="5,3"' if arrow.reply else ""
    tip = x2 - 9 if x2 > x1 else x2 + 9
    label = escape(f"{arrow.step}  {arrow.text}")
    clauses = ""
    if arrow.clauses:
        clauses = f'<tspan font-size="9.5" fill="{_SOFT}"> [{escape(" ".join(arrow.clauses))}]</tspan>'
    return [
        f'<line x1="{x1}" y1="{y}" x2="{tip}" y2="{y}" stroke="{colour}" stroke-width="1.4"{dash}/>',
        f'<polygon points="{x2},{y} {tip},{y - 4} {tip},{y + 4}" fill="{colour}"/>',
        f'<text class="arrow" data-step="{arrow.step}" x="{min(x1, x2) + 6}" y="{y - 5}" fill="{colour}"{_HALO}>'
        f"{label}{clauses}</text>",
    ]


def _layout(arrows: list[Arrow]) -> tuple[list[tuple[int, Arrow]], list[tuple[int, int, int, bool]], int]:
    """Arrow rows (y, arrow), step bands (step, top, bottom, deviates) and the total height."""
    rows, bands, y = [], [], TOP
    for step in dict.fromkeys(a.step for a in arrows):
        mine = [a for a in arrows if a.step == step]
        top = y
        for a in mine:
            y += ROW
            rows.append((y, a))
        y += 8 + (NOTE if mine[0].deviates else 0)
        bands.append((step, top, y, mine[0].deviates))
    return rows, bands, y + 12


def sequence_svg(document: dict[str, Any]) -> str:
    """An inline SVG sequence diagram of one ITF trace (deterministic; no ids, fonts or scripts)."""
    arrows = arrows_of(document)
    rows, bands, height = _layout(arrows)
    meta = document.get("#meta") or {}
    name = escape(f"the trace of {meta['property']}" if meta.get("property") else  # a diff's behaviour has none
                  f"a behaviour {meta['verdict']}" if meta.get("verdict") else "a trace")
    who = _deviant(document)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" role="img" font-family="sans-serif" font-size="11">',
           f"<title>sequence diagram of {name}</title>"]
    for step, top, bottom, deviates in bands:
        fill = "#fdecea" if deviates else ("#f5f7f8" if step % 2 else "#ffffff")
        out.append(f'<rect x="0" y="{top + 4}" width="{WIDTH}" height="{bottom - top - 2}" fill="{fill}"/>')
        if deviates:
            out.append(f'<text class="deviates" x="{_X["runtime"] + 6}" y="{bottom - 10}" fill="{_RED}" '
                       f'font-weight="bold">▲ {who} here</text>')
    for lane, x in _X.items():
        out.append(f'<line x1="{x}" y1="40" x2="{x}" y2="{height - 6}" stroke="#b0bec5" stroke-dasharray="2,3"/>')
        out.append(f'<rect x="{x - 60}" y="10" width="120" height="28" rx="4" fill="#eceff1" stroke="{_SOFT}"/>')
        out.append(f'<text x="{x}" y="28" text-anchor="middle" font-weight="bold" fill="{_INK}">{lane}</text>')
    for y, arrow in rows:
        out += _arrow_svg(arrow, y)
    start = _loop_start(meta, max((band[0] for band in bands), default=0))
    looped = [(top, bottom) for step, top, bottom, _ in bands if step > start]
    if looped:  # a lasso: the steps that repeat forever, bracketed on the left
        top, bottom = looped[0][0] + 6, looped[-1][1]
        out += [f'<path class="loop" d="M 14 {top} H 8 V {bottom} H 14" fill="none" stroke="{_RED}" stroke-width="2"/>',
                f'<text class="loop" x="18" y="{top + 10}" fill="{_RED}" font-weight="bold">⟲ repeats forever</text>']
    out.append("</svg>")
    return "\n".join(out)


def _loop_start(meta: dict[str, Any], last: int) -> int:
    """The step after which a lasso's loop repeats; past the end for a finite trace or a stutter."""
    loop = lasso_loop(meta, last)
    return loop if loop is not None and loop < last else last + 1


def _deviant(document: dict[str, Any]) -> str:
    """What a marked step says: a mutant deviates from its table, a draft departs from the rules."""
    meta = document.get("#meta", {})
    return "the draft departs from the rules" if meta.get("draft") and not meta.get("mutant") else "mutant deviates"


def _mermaid_text(text: str) -> str:
    """A label Mermaid accepts: no statement separators, comments or entity markers."""
    return text.replace(";", ",").replace("#", "no. ").replace("%%", "%")


def sequence_text(document: dict[str, Any]) -> str:
    """The body of a Mermaid `sequenceDiagram` block with the same arrows as `sequence_svg`."""
    lines = ["sequenceDiagram"] + [f"    participant {lane}" for lane in LANES]
    arrows = arrows_of(document)
    steps = list(dict.fromkeys(a.step for a in arrows))
    start = _loop_start(document.get("#meta") or {}, max(steps, default=0))
    for step in steps:
        mine = [a for a in arrows if a.step == step]
        if step == start + 1:
            lines.append("    loop repeats forever")
        indent = "    "
        if mine[0].deviates:
            lines.append("    rect rgb(253, 236, 234)")
            indent = "        "
        for a in mine:
            clauses = f" [{' '.join(a.clauses)}]" if a.clauses else ""
            link = "-->>" if a.reply else "->>"
            lines.append(f"{indent}{a.source}{link}{a.target}: {_mermaid_text(f'{a.step} {a.text}{clauses}')}")
        if mine[0].deviates:
            lines += [f"        Note over runtime,store: {_deviant(document)} here", "    end"]
    if start < max(steps, default=0):
        lines.append("    end")
    return "\n".join(lines) + "\n"

"""The human rendering of a trace: numbered steps written as actions, only the fields that changed,
one verdict line and one reproduce line. It reads the ITF document alone, never the model."""

from __future__ import annotations

from typing import Any

from .input_file import printable

__all__ = ["render", "flat_view", "changes", "verdict_line"]


def _list(values: list[Any]) -> str:
    return "[" + ", ".join(_list(v) if isinstance(v, list) else str(v) for v in values) + "]"


def flat_view(state: dict[str, Any]) -> dict[str, str]:
    """One ITF state as `path: value` lines a reader can diff: every variable of the state, keyed by
    execution, so that no change between two states goes unseen."""
    out: dict[str, str] = {}
    for a in state["artifacts"]:
        out[f"{a['ref']}.produced_by"] = f"{a['execution']} {a['call']}"
    for e in state["executions"]:
        p = e["id"]
        out[f"{p}.session"] = e["session"]
        out[f"{p}.status"] = e["status"]
        out[f"{p}.calls"] = str(e["calls"])
        trails: dict[str, list[str]] = {}
        for a in e["attempts"]:
            trails.setdefault(a["call"], []).append(a["status"])
        for call, trail in trails.items():
            out[f"{p}.attempts.{call}"] = _list(trail)
        out[f"{p}.questions"] = _list(
            [f"{q['id']} {q['call']} {q['status']}"
             + (f" (seen again x{q['observations']})" if q["observations"] else "")
             for q in e["questions"]]
        )
        out[f"{p}.held"] = _list(e["held"])
        out[f"{p}.messages"] = _list(e["messages"])
        out[f"{p}.unhandled"] = str(e["unhandled"])
        out[f"{p}.write_failures"] = str(e["write_failures"])
        out[f"{p}.node_failures"] = _list(e.get("node_failures", []))
    for s in state["segments"]:
        key = f"{s['execution']}.segment"
        retry = "; a write-back failed, it only retries" if s["write_failed"] else ""
        out[key] = f"running, {s['calls']} fresh call(s){retry}"
        out[f"{key}.collected"] = _list(s["collected"])
        kind = "final" if s["final"] else "interim"
        out[f"{key}.write_back"] = "none in progress" if s["phase"] == "working" else f"{kind}, {s['phase']}"
        out[f"{key}.taken"] = _list(s["taken"])
    out["warnings"] = _list([f"{w['artifact']} dropped by {w['execution']}" for w in state["warnings"]])
    out["write_failures"] = str(state["write_failures"])
    return out


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The lines that tell `before` from `after`: new, changed and removed fields."""
    lines = []
    for key, value in after.items():
        was = before.get(key)
        if was is None and value in ("[]", "0"):
            continue  # a field that appears empty says nothing yet
        if was != value:
            lines.append(f"{key}: {value}" if was is None else f"{key}: {was} -> {value}")
    lines += [f"{key}: {was} -> (gone)" for key, was in before.items() if key not in after]
    return lines


def verdict_line(meta: dict[str, Any]) -> str:
    """`[violation] name (clauses): message`, or the witness or deadlock equivalent."""
    clauses = ", ".join(meta.get("clauses", []))
    head = f"[{meta.get('verdict', 'trace')}] {meta.get('property', '?')}"
    if clauses:
        head += f" ({clauses})"
    text = meta.get("explanation") or meta.get("message") or meta.get("description")
    return printable(f"{head}: {text}" if text else head)


def lasso_loop(meta: dict[str, Any], last: int) -> int | None:
    """The state a violation's lasso returns to (`#meta.loop`, at most `last`, the last state's index: a stutter
    there), or None for a finite trace."""
    loop = meta.get("loop") if meta.get("verdict") == "violation" else None
    return loop if type(loop) is int and 0 <= loop <= last else None


def loop_lines(meta: dict[str, Any], last: int) -> list[str]:
    """How a lasso goes on forever: back to the state after its loop's first step and round again, or a stutter
    in its last state. Nothing for a finite trace."""
    loop = lasso_loop(meta, last)
    if loop is None:
        return []
    if loop == last:
        return [f"[loop] from state {last} on it stutters forever: nothing it must do is ever done"]
    closing = meta.get("loop_action")
    if closing:
        return [f"[loop] step {last + 1} ({closing}) returns to state {loop}: steps {loop + 1} to {last + 1} repeat "
                "forever"]
    return [f"[loop] then back to state {loop}: steps {loop + 1} to {last} and the step back repeat forever"]


def render(document: dict[str, Any], reproduce: str | None = None, *, headline: bool = True) -> str:
    """The trace as numbered steps with the fields each step changed; the verdict line first (unless
    `headline` is False, for a caller that states the verdict itself), the reproduce line last."""
    meta = document["#meta"]
    lines = [verdict_line(meta)] if headline else []
    if meta.get("mutant"):
        doc = meta.get("mutant_description")
        lines.append(f"  under mutant {meta['mutant']}" + (f": {doc}" if doc else ""))
    previous: dict[str, str] = {}
    for i, state in enumerate(document["states"]):
        step = state.get("#meta", {})
        if i == 0:
            lines.append("[State 0] initial: no turn has started")
        else:
            clauses = " ".join(step.get("clauses", [])) or (
                "a step the draft declares" if step.get("declared") else "environment")
            lines.append(f"[Step {i}] {step.get('text', step.get('action'))}   ({clauses})")
            if step.get("deviates") and meta.get("mutant"):
                lines.append(f"    ** here the mutant deviates from the rules: {meta.get('mutant')}")
            elif step.get("deviates"):  # a draft's trace: the first step its table takes otherwise than the rules
                lines.append(f"    ** here the draft departs from the rules: {(meta.get('draft') or {}).get('path')}")
        view = flat_view(state)
        lines += [f"    {line}" for line in changes(previous, view)]
        if step.get("restart"):  # a conformance run restarted the runtime under test here (`#meta.restart`)
            lines.append("    ** then the runtime under test restarts (crash and recovery): it must show the same")
        previous = view
    lines += loop_lines(meta, len(document["states"]) - 1)
    if reproduce:
        lines.append(f"reproduce with: {reproduce}")
    return "\n".join(printable(line) for line in lines) + "\n"  # text from the file never adds a line

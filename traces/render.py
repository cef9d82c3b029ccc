"""The human rendering of a trace: numbered steps written as actions, only the fields that changed,
one verdict line and one reproduce line. It reads the ITF document alone, never the model."""

from __future__ import annotations

from typing import Any

__all__ = ["render", "flat_view", "verdict_line"]


def _list(values: list[Any]) -> str:
    return "[" + ", ".join(_list(v) if isinstance(v, list) else str(v) for v in values) + "]"


def flat_view(state: dict[str, Any]) -> dict[str, str]:
    """One ITF state as `path: value` lines a reader can diff, keyed by execution."""
    out: dict[str, str] = {}
    for e in state["executions"]:
        p = e["id"]
        out[f"{p}.status"] = e["status"]
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
    for s in state["segments"]:
        out[f"{s['execution']}.segment.collected"] = _list(s["collected"])
        if s["write_failed"]:
            out[f"{s['execution']}.segment"] = "write-back failed; retrying"
    out["warnings"] = _list([f"{w['artifact']} dropped by {w['execution']}" for w in state["warnings"]])
    return out


def verdict_line(meta: dict[str, Any]) -> str:
    """`[violation] name (clauses): message`, or the witness or deadlock equivalent."""
    clauses = ", ".join(meta.get("clauses", []))
    head = f"[{meta.get('verdict', 'trace')}] {meta.get('property', '?')}"
    if clauses:
        head += f" ({clauses})"
    message = meta.get("explanation") or meta.get("message") or meta.get("description")
    return f"{head}: {message}" if message else head


def render(document: dict[str, Any], reproduce: str | None = None) -> str:
    """The trace as numbered steps with the fields each step changed."""
    meta = document["#meta"]
    lines = [verdict_line(meta)]
    if meta.get("mutant"):
        lines.append(f"  under mutant {meta['mutant']}")
    previous: dict[str, str] = {}
    for i, state in enumerate(document["states"]):
        step = state.get("#meta", {})
        if i == 0:
            lines.append("[State 0] initial: no turn has started")
        else:
            clauses = " ".join(step.get("clauses", [])) or "environment"
            lines.append(f"[Step {i}] {step.get('text', step.get('action'))}   ({clauses})")
            if step.get("deviates"):
                lines.append(f"    ** here the mutant deviates from the rules: {meta.get('mutant')}")
        view = flat_view(state)
        for key, value in view.items():
            before = previous.get(key)
            if before is None and value in ("[]", "0"):
                continue  # a field that appears empty says nothing yet
            if before != value:
                lines.append(f"    {key}: {value}" if before is None else f"    {key}: {before} -> {value}")
        previous = view
    lines.append(verdict_line(meta))
    if reproduce:
        lines.append(f"reproduce with: {reproduce}")
    return "\n".join(lines) + "\n"

"""The readings section of a report: for each of the 33 ambiguities, the spec sentences involved, each
reading in one line with what it breaks, the shortest behaviour that tells it from the conformant
reading (a sequence diagram), and the sentence the rule would need to rule the bad readings out."""

from __future__ import annotations

from html import escape
from typing import Any

from pausecheck.model import CLAUSES, SWITCH_OF
from pausecheck.model.ambiguities import AMBIGUITIES, Ambiguity

from ..mutants.flipbounds import shown_at
from .sequence import sequence_svg, sequence_text

__all__ = ["readings_markdown", "readings_html", "readings_summary", "rows_of", "shortest", "meaning", "fault_note"]

_TEXT = {c.id: c.text for c in CLAUSES}


def rows_of(matrix: Any, ambiguity: str) -> list[Any]:
    """The matrix rows that change this ambiguity alone."""
    return [r for r in matrix.rows if len(r.switches) == 1 and r.switches[0][0] == ambiguity]


def shortest(row: Any) -> tuple[Any, dict[str, Any]] | None:
    """The row's flip with the shortest counterexample, and its trace; None if nothing breaks."""
    traced = [f for f in row.flips if f.steps is not None and f.property in row.outcome.documents]
    if not traced:
        return None
    flip = min(traced, key=lambda f: (f.steps, f.property))
    return flip, row.outcome.documents[flip.property]


def readings_summary(matrix: Any) -> str:
    """One sentence a readings report opens with: how many single changes of reading flip a verdict here."""
    singles = [r for r in matrix.rows if len(r.switches) == 1]
    flipping = [r for r in singles if r.flips]
    breaking = [r for r in flipping if any(f.steps is not None for f in r.flips)]
    return (f"{len(flipping)} of the {len(singles)} single changes of reading flip a verdict at these bounds "
            f"({len(breaking)} break a property, each with its shortest behaviour below); "
            f"{len(singles) - len(flipping)} change nothing here, each naming the bounds known to show it")


def _broken(row: Any) -> str:
    """What a reading changes, in words: each property it breaks (with the length of its shortest
    counterexample), then each other verdict it changes, before and now."""
    broken = [f"{f.property} (in {f.steps} steps)" for f in row.flips if f.steps is not None]
    changed = [f"{f.property} ({f.was} before, {f.now} now)" for f in row.flips if f.steps is None]
    parts = (["breaks " + ", ".join(broken)] if broken else []) + (["changes " + ", ".join(changed)] if changed else [])
    if parts:
        return "; ".join(parts)
    name = row.reading.removeprefix("conformant+")
    return "breaks nothing at these bounds; " + (shown_at(name) if len(row.switches) == 1 else
                                                   "pairs are not searched for larger bounds")


def _sentence(text: str | None) -> str:
    """A message as a sentence: with a full stop at its end."""
    text = (text or "").rstrip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def meaning(switch: Any, value: str) -> str:
    """What a value of a switch means, without the "(the conformant reading)" its label already gives."""
    return switch.values[value].replace(" (the conformant reading)", "")


# fault -> the action kinds that enact it in a trace, and the word for it
FAULT_ACTIONS = {"crashes": (("crash",), "crash"), "expiries": (("expire",), "expiry"),
                 "races": (("lose-race", "resume-again"), "second resume"), "new_turns": (("start-turn",), "new turn")}


def fault_note(row: Any, document: dict[str, Any]) -> str:
    """A sentence for a distinguishing behaviour that has none of the faults its reading's description
    speaks of (the reading breaks something before any fault): so that the text and the diagram agree."""
    kinds = {(state.get("#meta") or {}).get("action", {}).get("kind") for state in document.get("states", [])}
    missing = []
    for ambiguity, value in row.switches:
        text = meaning(SWITCH_OF[ambiguity], value)
        for fault in SWITCH_OF[ambiguity].needs:
            actions, word = FAULT_ACTIONS.get(fault, ((), fault))
            if word.split()[-1] in text and not kinds & set(actions) and word not in missing:
                missing.append(word)
    if not missing:
        return ""
    return (f"This shortest behaviour has no {' or '.join(missing)}: the reading breaks the property already "
            f"in the state between the two steps it splits, before any {' or '.join(missing)}.")


def _faults(row: Any) -> str:
    bounds = row.outcome.variant.bounds
    on = [f"--{name.replace('_', '-')} {getattr(bounds, name)}"
          for name in ("crashes", "expiries", "races", "new_turns") if getattr(bounds, name)]
    return f" (with {', '.join(on)})" if on else ""


def _clauses_md(a: Ambiguity) -> list[str]:
    return [f"- {c}: \"{_TEXT[c]}\"" if c in _TEXT else f"- {c}" for c in a.clauses]


def readings_markdown(matrix: Any) -> list[str]:
    """The readings section as Markdown lines (Mermaid diagrams for the distinguishing traces)."""
    lines = ["## Readings", "", f"Each ambiguity of the spec notes (section 5), checked by `pausecheck readings` in "
             f"{matrix.seconds:.0f} s: what each reading breaks against the conformant one, at the same bounds.", ""]
    for a in AMBIGUITIES:
        lines += [f"### {a.id}: {a.question}", "", "Spec sentences involved:", ""] + _clauses_md(a) + [""]
        if not a.modelled:
            lines += [f"Not modelled: {a.reason}.", ""]
            continue
        switch = a.switch
        lines.append(f"- `{switch.default}` (the conformant reading): {meaning(switch, switch.default)}; "
                     "breaks nothing")
        rows = rows_of(matrix, a.id)
        for row in rows:
            value = row.switches[0][1]
            lines.append(f"- `{value}`{_faults(row)}: {meaning(switch, value)}; {_broken(row)}")
        lines.append("")
        for row in rows:
            found = shortest(row)
            if found:
                flip, document = found
                note = fault_note(row, document)
                lines += [f"Shortest behaviour telling `{row.switches[0][1]}` apart ({flip.property}, "
                          f"{flip.steps} steps): {_sentence(flip.message)}" + (f" {note}" if note else ""), "",
                          "```mermaid", sequence_text(document), "```", ""]
        lines += [f"What the rule would need: {a.fix}", ""]
    return lines


def readings_html(matrix: Any) -> str:
    """The readings section as HTML (inline SVG sequence diagrams: caller, runtime, tool, store)."""
    parts = [f"<p>Each ambiguity of the spec notes (section 5), checked by <code>pausecheck readings</code> in "
             f"{matrix.seconds:.0f} s: what each reading breaks against the conformant one, at the same bounds.</p>"]
    for a in AMBIGUITIES:
        parts.append(f'<section class="ambiguity" id="{escape(a.id)}"><h3>{escape(a.id)}: {escape(a.question)}</h3>')
        quoted = "".join(f"<li><code>{escape(c)}</code> {escape(_TEXT.get(c, ''))}</li>" for c in a.clauses)
        parts.append(f"<p>Spec sentences involved:</p><ul>{quoted}</ul>")
        if not a.modelled:
            parts.append(f"<p>Not modelled: {escape(a.reason)}.</p></section>")
            continue
        switch = a.switch
        items = [f"<li><code>{escape(switch.default)}</code> (the conformant reading): "
                 f"{escape(meaning(switch, switch.default))}; breaks nothing</li>"]
        rows = rows_of(matrix, a.id)
        for row in rows:
            value = row.switches[0][1]
            items.append(f"<li><code>{escape(value)}</code>{escape(_faults(row))}: {escape(meaning(switch, value))}; "
                         f"{escape(_broken(row))}</li>")
        parts.append(f"<ul>{''.join(items)}</ul>")
        for row in rows:
            found = shortest(row)
            if found:
                flip, document = found
                parts.append(f'<div class="trace" data-reading="{escape(row.reading)}"><p>Shortest behaviour telling '
                             f"<code>{escape(row.switches[0][1])}</code> apart ({escape(flip.property)}, {flip.steps} "
                             f"steps): {escape(_sentence(flip.message))} {escape(fault_note(row, document))}</p>"
                             f'<div class="diagram">{sequence_svg(document)}</div></div>')
        parts.append(f"<p><strong>What the rule would need:</strong> {escape(a.fix)}</p></section>")
    return "\n".join(parts)

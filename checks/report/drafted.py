"""The section of a report on a draft: what it changes against the rules, for people (`report --draft FILE`).

The same findings as `pausecheck diff` (`checks/diff.py`): the verdicts that change, the shortest behaviour
only each table allows as a sequence diagram with the clauses per step, and what the draft is made of.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..drafts import rule_changes
from .sequence import sequence_svg, sequence_text

__all__ = ["draft_html", "draft_markdown", "DraftSection"]


class DraftSection:
    """What the report shows of a draft: the diff, its behaviours as ITF documents, how it was decided."""

    def __init__(self, found: Any, documents: dict[str, dict[str, Any]], path: str, decided: str) -> None:
        self.found, self.documents, self.path, self.decided = found, documents, path, decided

    def changed(self) -> list[dict[str, Any]]:
        return [v for v in self.found.verdicts() + self.found.clauses() if v["changed"]]

    def lines(self) -> list[str]:
        """The make-up in sentences."""
        made = self.found.make_up
        out = [rule_changes(made).capitalize() + "."]
        if made["is_mutant"]:
            out.append(f"The draft is the catalogued mutant {', '.join(made['is_mutant'])}.")
        if made["no_longer_apply"]:
            out.append(f"Mutants that no longer apply to it: {', '.join(made['no_longer_apply'])}.")
        if made["readings_touched"]:
            out.append(f"Ambiguities read by a rule it changes (their flips may change): "
                       f"{', '.join(made['readings_touched'])}.")
        out.append(f"Behaviours: {self.decided}.")
        return out


_LABELS = {"only_in_draft": "Only in the draft", "only_in_rules": "Only in the rules"}


def draft_html(section: DraftSection) -> str:
    changed = section.changed()
    rows = "".join(f"<tr><td>{escape(v['name'])}</td><td>{escape(v['rules'])}</td><td>{escape(v['draft'])}</td></tr>"
                   for v in changed)
    table = ("<table><thead><tr><th>property or clause</th><th>rules</th><th>draft</th></tr></thead>"
             f"<tbody>{rows}</tbody></table>") if changed else "<p>No verdict changes.</p>"
    parts = [f"<p>The draft <code>{escape(section.path)}</code> against the rules, at the same bounds and reading.</p>",
             "".join(f"<p>{escape(line)}</p>" for line in section.lines()), table]
    for side, document in section.documents.items():
        meta = document["#meta"]
        parts += [f'<section class="trace counterexample" id="{side}">',
                  f"<h3>{_LABELS[side]}: {meta['steps']} steps</h3>", f"<p>{escape(meta['message'] or '')}</p>",
                  f'<div class="diagram">{sequence_svg(document)}</div>', "</section>"]
    body = "\n".join(parts)
    return f'<section id="draft">\n<h2>What the draft changes</h2>\n{body}\n</section>'


def draft_markdown(section: DraftSection) -> list[str]:
    out = ["## What the draft changes", "", f"The draft `{section.path}` against the rules.", ""]
    out += [line for line in section.lines()] + [""]
    changed = section.changed()
    if changed:
        out += ["| property or clause | rules | draft |", "|---|---|---|"]
        out += [f"| {v['name']} | {v['rules']} | {v['draft']} |" for v in changed] + [""]
    for side, document in section.documents.items():
        out += [f"### {_LABELS[side]} ({document['#meta']['steps']} steps)", "", document["#meta"]["message"] or "",
                "", "```mermaid", sequence_text(document), "```", ""]
    return out

"""The rule table as a reader reads it: every rule of `rules.RULES` rendered as plain pseudo-code.

`rules_markdown()` is the "transition rules" section of docs/rules.md (a test fails when they drift;
`python -m pausecheck.model.render` prints it afresh). Readings appear as the choices they are
(`by A-T5: prepend -> ..., append -> ...`), bounds as `bounds.x`, and nothing is specialised: this is
the one source every engine derives its own form from.
"""

from __future__ import annotations

from .exprtext import expr_text, statement_text, statements_text
from .lang import Rule
from .rules import RULES

__all__ = ["expr_text", "statement_text", "rule_text", "rules_markdown", "properties_markdown"]

_BINDER = {"sessions": "each session `session`", "executions": "each execution `e`",
           "segments": "each segment in flight `g`, with its execution `e` and `run`, the first running attempt "
                       "of `e` (if any)",
           "once": "the state, once"}


def rule_text(rule: Rule) -> str:
    """One rule: what it ranges over, its parameters, its guard, its action and its effect."""
    lines = [f"for {_BINDER[rule.over.name]}"]
    for choice in rule.choose:
        lines.append(f"and each {choice.name} ({'false, then true' if choice.t is bool else 'in order'})")
    lines.append("enabled when:")
    lines += [f"    {expr_text(part)}" for part in rule.guard]
    lines.append(f"action: {rule.action.KIND}(" + ", ".join(expr_text(f) for f in rule.fields) + ")")
    lines.append("effect:")
    lines += statements_text(rule.effect, 1) or ["    nothing changes"]
    return "\n".join(lines)


def rules_markdown() -> str:
    """The generated section of docs/rules.md: every rule in table order."""
    out = ["## The transition rules, as the model has them", "",
           "Generated from `model/rules.py` (the one rule table every engine derives its form from: the explicit "
           "successors, the z3 relation); `python -m pausecheck.model.render` prints it and `tests/test_docs.py` "
           "fails when it drifts. `S` is the state, `e` an execution, `g` a segment in flight; effects run in "
           "order, as written, each on the state the ones before it left (`model/lang.py` states the semantics). "
           "Readings are the choices written "
           "`by A-...` and `reading A-... = value`; the default of each is the conformant reading "
           "([readings.md](readings.md)). The last four rules are faults, enabled only by their bounds.", ""]
    for rule in RULES:
        cites = ", ".join(rule.clauses) or "no clause of its own"
        out += [f"### {rule.action.KIND}", "", f"{rule.doc} ({cites}).", "", "```rules", rule_text(rule), "```", ""]
    return "\n".join(out) + "\n" + properties_markdown()


def properties_markdown() -> str:
    """The generated section of docs/rules.md after the rules: every property's formula, in registry order."""
    from .formulas import FORMULAS
    from .properties import PROPERTIES
    out = ["## The properties, as the model has them", "",
           "Generated from `model/formulas.py`: the one formula of each property, which the explicit search "
           "compiles and z3 lowers (the Python functions of `model/properties.py` only say how one fails). "
           "`S` is the state before a step, `P` the state after it, `act.f` a field of the step's action, "
           "`kind:K` whether the step is of kind K; an invariant is checked in every state, a transition "
           "property on every step of the kinds it names, a witness is a step of those kinds that must occur.", ""]
    for p in PROPERTIES:
        kinds = ", ".join(k.KIND for k in p.on) if p.on else "every kind"
        where = "every state" if p.kind == "always" else f"steps of {kinds}"
        cites = ", ".join(p.clauses) or "no clause"
        out += [f"### {p.name}", "", f"{p.kind}, on {where} ({cites}): {p.doc}.", "", "```rules",
                expr_text(FORMULAS[p.name].expr), "```", ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(rules_markdown())

"""The rule table as a reader reads it: every rule of `rules.RULES` rendered as plain pseudo-code.

`rules_markdown()` is the "transition rules" section of docs/rules.md (a test fails when they drift;
`python -m pausecheck.model.render` prints it afresh). Readings appear as the choices they are
(`by A-T5: prepend -> ..., append -> ...`), bounds as `bounds.x`, and nothing is specialised: this is
the one source every engine derives its own form from.
"""

from __future__ import annotations

from typing import Any

from .lang import End, Expr, Let, Rule, Set, When
from .rules import RULES

__all__ = ["expr_text", "statement_text", "rule_text", "rules_markdown", "properties_markdown"]

_INFIX = {"+": "+", "-": "-", "==": "=", "!=": "≠", "<": "<", "<=": "≤", "and": "and", "or": "or"}
_BINDER = {"sessions": "each session `session`", "executions": "each execution `e`",
           "segments": "each segment in flight `g`, with its execution `e` and `run`, the first running attempt "
                       "of `e` (if any)",
           "once": "the state, once"}
_LETTERS = "xyzuvw"


def expr_text(x: Any, names: dict[str, str] | None = None) -> str:  # noqa: C901 - one case per operator
    """An expression as a reader writes it."""
    names = dict(names or {})
    if not isinstance(x, Expr):
        return repr(x)
    op, a = x.op, x.args

    def sub(y: Any) -> str:
        return expr_text(y, names)

    def bind(*variables: Expr) -> list[str]:
        chosen = []
        for v in variables:
            letter = next((c for c in _LETTERS if c not in names.values()), f"v{len(names)}")
            names[v.args[0]] = letter
            chosen.append(letter)
        return chosen

    if op == "const":
        v = a[0]
        if isinstance(v, str):
            return f'"{v}"'
        return "[]" if v == () else str(v).lower() if isinstance(v, bool) else str(v)
    if op == "var":
        return names.get(a[0], a[0])
    if op == "bound":
        return f"bounds.{a[0]}"
    if op == "reads":
        return f"(reading {a[0]} = {a[1]})"
    if op == "pick":
        return f"(by {a[0]}: " + ", ".join(f"{k} → {sub(v)}" for k, v in a[1]) + ")"
    if op == "field":
        return f"{sub(a[0])}.{a[1]}"
    if op in _INFIX:
        return f"({sub(a[0])} {_INFIX[op]} {sub(a[1])})"
    if op == "not":
        return f"not {sub(a[0])}"
    if op == "ite":
        return f"(if {sub(a[0])} then {sub(a[1])} else {sub(a[2])})"
    if op == "min":
        return f"min({sub(a[0])}, {sub(a[1])})"
    if op == "new":
        return f"{a[0].__name__}(" + ", ".join(sub(v) for v in a[1]) + ")"
    if op == "with":
        return f"{sub(a[0])} but " + ", ".join(f"{k} = {sub(v)}" for k, v in a[1])
    if op in ("exec_id", "call_id", "race_key", "base_of", "is_race", "span", "repeat"):
        label = {"exec_id": "execution id", "call_id": "call id", "race_key": "racing key", "base_of": "execution of",
                 "is_race": "is racing", "span": "range", "repeat": "repeat"}[op]
        return f"{label}(" + ", ".join(sub(v) for v in a) + ")"
    if op == "concat":
        return f"({sub(a[0])} ++ {sub(a[1])})"
    if op == "len":
        return f"|{sub(a[0])}|"
    if op == "is_none":
        return f"{sub(a[0])} is none"
    if op == "last":
        return f"last({sub(a[0])})"
    if op in ("at", "append", "prefix", "suffix", "set_last", "contains", "insert"):
        return f"{sub(a[0])}.{op}({sub(a[1])})"
    if op == "fold":
        acc, item = bind(a[2], a[3])
        return f"{sub(a[0])}.fold({sub(a[1])}, ({acc}, {item}) => {sub(a[4])})"
    if op == "zip_all":
        u, v = bind(a[2], a[3])
        return f"{sub(a[0])}.zip_all({sub(a[1])}, ({u}, {v}) => {sub(a[4])})"
    if op in ("update_last", "update_where"):
        (v,) = bind(a[1])
        return f"{sub(a[0])}.{op}({v} => {sub(a[2])}, {v} => {sub(a[3])})"
    (v,) = bind(a[1])
    return f"{sub(a[0])}.{op}({v} => {sub(a[2])})"


def statement_text(st: Any) -> str:
    """One statement on one line (a `When` by its test)."""
    if isinstance(st, When):
        return f"if {expr_text(st.test)}: ..."
    return _stmts((st,), 0)[0]


def _stmts(stmts: tuple[Any, ...], depth: int) -> list[str]:
    pad = "    " * depth
    out: list[str] = []
    for st in stmts:
        if isinstance(st, Let):
            out.append(f"{pad}let {st.name} = {expr_text(st.value)}")
        elif isinstance(st, Set):
            out.append(f"{pad}{expr_text(st.target)} := {expr_text(st.value)}")
        elif isinstance(st, End):
            out.append(f"{pad}the segment g ends")
        elif isinstance(st, When):
            out.append(f"{pad}if {expr_text(st.test)}:")
            out += _stmts(st.then, depth + 1) or [f"{pad}    (nothing)"]
            if st.otherwise:
                out.append(f"{pad}else:")
                out += _stmts(st.otherwise, depth + 1)
    return out


def rule_text(rule: Rule) -> str:
    """One rule: what it ranges over, its parameters, its guard, its action and its effect."""
    lines = [f"for {_BINDER[rule.over.name]}"]
    for choice in rule.choose:
        lines.append(f"and each {choice.name} ({'false, then true' if choice.t is bool else 'in order'})")
    lines.append("enabled when:")
    lines += [f"    {expr_text(part)}" for part in rule.guard]
    lines.append(f"action: {rule.action.KIND}(" + ", ".join(expr_text(f) for f in rule.fields) + ")")
    lines.append("effect:")
    lines += _stmts(rule.effect, 1) or ["    nothing changes"]
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

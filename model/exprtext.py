"""The rule language read aloud: an expression or a statement as a reader writes it (docs/rules.md, errors).

`expr_text` and `statement_text` need only the language (`lang.py`), so that the checker of a table
(`tablecheck.py`) can quote the statement it refuses; `render.py` renders whole rules with them.
"""

from __future__ import annotations

from typing import Any

from .lang import End, Expr, Let, Set, When

__all__ = ["expr_text", "statement_text", "statements_text"]

_INFIX = {"+": "+", "-": "-", "==": "=", "!=": "≠", "<": "<", "<=": "≤", "and": "and", "or": "or"}
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
    return statements_text((st,), 0)[0]


def statements_text(stmts: tuple[Any, ...], depth: int) -> list[str]:
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
            out += statements_text(st.then, depth + 1) or [f"{pad}    (nothing)"]
            if st.otherwise:
                out.append(f"{pad}else:")
                out += statements_text(st.otherwise, depth + 1)
    return out

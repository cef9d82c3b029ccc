"""A state as canonical bytes, the same in every process: what a search spread over processes routes.

A state built of NamedTuples whose fields are annotated (`str`, `int`, `bool`, NamedTuples, `tuple[X, ...]`
of any of these) is first turned into plain tuples by code generated from its annotations, then written by
`marshal` at version 0, which writes a value's bytes from the value alone: no back-references, and no flag
for an interned string (the later versions' two ways of writing equal values differently). Equal states
therefore give equal bytes, in any process, and the bytes are the state's identity: for a model without
a spread key, their CRC-32 says which process owns it. The owner reads them back into the state, which it
keeps as one process would (`partition.py`); only states owned by another process travel. Reading them back
rebuilds each record with `tuple.__new__` (in C) and interns each string of it, as the rules' own constants
are: a state read back shares its strings with the states made here, so that it and every state made from it
compare and hash strings by identity (without, the states descended from one that came as bytes take about
a fifth longer to expand). A state of plain tuples, strings and numbers needs no conversion; anything else is
refused when the codec is built.
"""

from __future__ import annotations

import functools
import marshal
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["Codec", "codec_for", "CodecError"]

PRIMITIVE = (str, int, bool, float, type(None))


class CodecError(ValueError):
    """A state type whose values cannot be written as canonical bytes."""


class Codec:
    """`encode(state) -> bytes` and `decode(bytes) -> state`, inverse to each other on the model's states."""

    def __init__(self, plain: Callable[[Any], Any], rebuild: Callable[[Any], Any]) -> None:
        self._plain, self._rebuild = plain, rebuild

    def encode(self, state: Any) -> bytes:
        return marshal.dumps(self._plain(state), 0)

    def decode(self, blob: bytes) -> Any:
        return self._rebuild(marshal.loads(blob))


def codec_for(sample: Any) -> Codec:
    """The codec of states of `sample`'s type (a NamedTuple with annotated fields, or plain values)."""
    cls = type(sample)
    if not _record(cls):
        _plain_check(sample)
        return Codec(_identity, _identity)
    writer = _Writer()
    plain = writer.function(cls, to_plain=True)
    rebuild = writer.function(cls, to_plain=False)
    namespace: dict[str, Any] = {"_new": tuple.__new__, "_map": map, "_tuple": tuple, "_intern": sys.intern}
    namespace.update(writer.classes)
    exec(compile("\n".join(writer.lines), f"<codec of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    return Codec(namespace[plain], namespace[rebuild])


def _identity(value: Any) -> Any:
    return value


def _record(cls: type) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def _plain_check(value: Any) -> None:
    if isinstance(value, tuple) and type(value) is tuple:
        for item in value:
            _plain_check(item)
    elif type(value) not in PRIMITIVE:
        raise CodecError(f"a state of type {type(value).__name__} cannot be written as canonical bytes "
                         "(states must be NamedTuples with annotated fields, or plain tuples of strings and numbers)")


class _Writer:
    """Writes one function per record type and direction: `p_Name(value)` to plain tuples, `r_Name(plain)` back."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.classes: dict[str, type] = {}
        self.done: set[str] = set()
        self.flat: dict[type, bool] = {}  # record types whose fields are all plain values

    def function(self, cls: type, to_plain: bool) -> str:
        name = ("p_" if to_plain else "r_") + cls.__name__
        if name in self.done:
            return name
        self.done.add(name)
        self.classes[f"C_{cls.__name__}"] = cls
        try:
            hints = typing.get_type_hints(cls)
        except Exception as error:  # a forward reference that does not resolve
            raise CodecError(f"{cls.__name__}: its annotations cannot be read ({error})") from None
        fields = [self.expression(hints.get(f, Any), f"v[{k}]", to_plain) for k, f in enumerate(cls._fields)]
        self.flat[cls] = all(expr == f"v[{k}]" for k, expr in enumerate(fields))
        if self.flat[cls]:
            body = "_tuple(v)" if to_plain else f"_new(C_{cls.__name__}, v)"
        else:
            items = "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
            body = items if to_plain else f"_new(C_{cls.__name__}, {items})"
        self.lines += [f"def {name}(v):", f"    return {body}"]
        return name

    def converter(self, cls: type, to_plain: bool) -> str:
        """The name of a callable converting one record of this type: a builtin (in C) when its fields are plain."""
        name = self.function(cls, to_plain)
        if not self.flat.get(cls, False):
            return name
        if to_plain:
            return "_tuple"
        self.classes[f"N_{cls.__name__}"] = functools.partial(tuple.__new__, cls)
        return f"N_{cls.__name__}"

    def expression(self, hint: Any, value: str, to_plain: bool) -> str:
        """The expression converting `value`, of type `hint`, in this direction."""
        if hint is str and not to_plain:
            return f"_intern({value})"
        if hint in PRIMITIVE:
            return value
        if _record(hint):
            return f"{self.function(hint, to_plain)}({value})"
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            item = self.expression(args[0], "x", to_plain)
            if item == "x":
                return value
            if _record(args[0]):
                return f"_tuple(_map({self.converter(args[0], to_plain)}, {value}))"
            return f"_tuple([{item} for x in {value}])"
        if origin is tuple and args:  # a tuple of fixed length
            items = [self.expression(a, f"{value}[{k}]", to_plain) for k, a in enumerate(args)]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(hint, types.UnionType) or origin is typing.Union:
            if all(a in PRIMITIVE for a in args):
                return value
        raise CodecError(f"a field of type {hint!r} cannot be written as canonical bytes")

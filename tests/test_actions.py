"""Actions: the JSON form round-trips, malformed forms are refused naming the field, str is one line."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pausecheck.model import ACTION_TYPES, ActionError, CallTool, ToolReturns, action_from_json, action_to_json
from pausecheck.model.actions import sort_key

from .strategies import action_of, actions

FIELDS = [(cls, f.name, f.type) for cls in ACTION_TYPES for f in dataclasses.fields(cls)]
# A value of the wrong JSON type for each field type; bool is tried against int (it subclasses int).
WRONG = {"int": ["1", 1.5, True, None], "str": [1, None, ["e1"]], "bool": [1, 0, "true", None]}


def _sample(cls: type) -> dict[str, object]:
    """A well-formed JSON form of one action of this kind."""
    values = {"int": 1, "str": "e1", "bool": True}
    return {"kind": cls.KIND, **{f.name: values[f.type] for f in dataclasses.fields(cls)}}


def test_kinds_are_unique_kebab_case() -> None:
    kinds = [cls.KIND for cls in ACTION_TYPES]
    assert len(set(kinds)) == len(kinds)
    for kind in kinds:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", kind), kind


@pytest.mark.parametrize("cls", ACTION_TYPES, ids=lambda c: c.KIND)
@given(data=st.data())
def test_json_round_trip(cls: type, data: st.DataObject) -> None:
    """Through real JSON text, with keys sorted as we write them; ids may be any text."""
    action = data.draw(action_of(cls, realistic=False))
    form = action_to_json(action)
    assert form["kind"] == cls.KIND
    assert set(form) == {"kind"} | {f.name for f in dataclasses.fields(cls)}
    text = json.dumps(form, sort_keys=True)
    back = action_from_json(json.loads(text))
    assert back == action
    assert type(back) is cls


@pytest.mark.parametrize("form", [None, [], "call-tool", 3, ["kind", "poll"]])
def test_not_an_object(form: object) -> None:
    with pytest.raises(ActionError) as caught:
        action_from_json(form)
    assert caught.value.field == ""


@pytest.mark.parametrize("form", [{}, {"kind": "teleport"}, {"kind": 3}, {"kind": None}, {"kind": "Poll"},
                                  {"kind": "poll ", "execution": "e1"}, {"execution": "e1"}])
def test_unknown_or_missing_kind(form: dict) -> None:
    with pytest.raises(ActionError) as caught:
        action_from_json(form)
    assert caught.value.field == "kind"
    assert "poll" in str(caught.value), "the message lists the known kinds"


@pytest.mark.parametrize("cls, name", [(c, n) for c, n, _ in FIELDS], ids=lambda v: getattr(v, "KIND", v))
def test_missing_field(cls: type, name: str) -> None:
    form = _sample(cls)
    del form[name]
    with pytest.raises(ActionError) as caught:
        action_from_json(form)
    assert caught.value.field == name
    assert repr(name) in str(caught.value)


@pytest.mark.parametrize("cls, name, value",
                         [(c, n, v) for c, n, t in FIELDS for v in WRONG[t]],
                         ids=lambda v: getattr(v, "KIND", repr(v)))
def test_wrong_type(cls: type, name: str, value: object) -> None:
    form = _sample(cls)
    form[name] = value
    with pytest.raises(ActionError) as caught:
        action_from_json(form)
    assert caught.value.field == name
    assert name in str(caught.value)


@pytest.mark.parametrize("cls", ACTION_TYPES, ids=lambda c: c.KIND)
@pytest.mark.parametrize("extra", ["extra", "Kind", "executions", "session_id"])
def test_extra_field(cls: type, extra: str) -> None:
    form = _sample(cls)
    assert action_from_json(form) is not None  # the sample itself is well formed
    form[extra] = 1
    with pytest.raises(ActionError) as caught:
        action_from_json(form)
    assert caught.value.field == extra
    assert repr(extra) in str(caught.value)


def test_action_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        action_from_json({"kind": "nope"})


@pytest.mark.parametrize("cls", ACTION_TYPES, ids=lambda c: c.KIND)
@given(data=st.data())
def test_str_is_one_line(cls: type, data: st.DataObject) -> None:
    """The console prints a trace one action per line, so str() of an action is one plain line."""
    action = data.draw(action_of(cls))
    text = str(action)
    assert text and text == text.strip()
    assert "\n" not in text and "\r" not in text
    assert text != repr(action), "str is the human form, not the dataclass repr"
    for f in dataclasses.fields(cls):
        if f.type == "str":
            assert getattr(action, f.name) in text, f"{f.name} is named in {text!r}"


@given(actions(), actions())
def test_sort_key_is_a_total_order_consistent_with_equality(a: object, b: object) -> None:
    assert (sort_key(a) == sort_key(b)) == (a == b)


def test_sort_key_orders_ids_naturally() -> None:
    assert sort_key(CallTool("e2")) < sort_key(CallTool("e10"))
    assert sort_key(ToolReturns("e1", "c9", 0)) < sort_key(ToolReturns("e1", "c10", 0))
    assert sort_key(ToolReturns("e1", "c1", 0)) < sort_key(ToolReturns("e1", "c1", 1))

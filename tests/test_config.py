"""Bounds: defaults, validation, and the errors that name the offending flag."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pausecheck.model import BOUND_HELP, DEFAULT_BOUNDS, BoundError, Bounds
from pausecheck.model.config import BOUND_MAXIMUM

from .strategies import bounds

# The defaults the pinned state counts of test_explore were measured under.
EXPECTED_DEFAULTS = {"sessions": 1, "turns": 1, "calls": 2, "per_call": 1, "artifacts": 3, "pauses": 2,
                     "write_failures": 1, "observations": 1, "interim_writes": 0, "node_failures": 0, "held_bound": 2,
                     "crashes": 0, "expiries": 0, "races": 0, "new_turns": 0}


def test_defaults() -> None:
    assert Bounds() == DEFAULT_BOUNDS
    assert DEFAULT_BOUNDS.as_dict() == EXPECTED_DEFAULTS
    assert list(DEFAULT_BOUNDS.as_dict()) == list(EXPECTED_DEFAULTS), "field order is the CLI's flag order"


def test_help_covers_every_field_in_order() -> None:
    """The CLI builds one flag per BOUND_HELP entry: it must list exactly the fields, in order."""
    assert [*BOUND_HELP, "endless_writes"] == [f.name for f in dataclasses.fields(Bounds)]  # `--write-failures any`
    for name, (minimum, meaning) in BOUND_HELP.items():
        assert type(minimum) is int and minimum >= 0, name
        assert meaning and "\n" not in meaning, name


def test_defaults_respect_minimums() -> None:
    for name, (minimum, _) in BOUND_HELP.items():
        assert getattr(DEFAULT_BOUNDS, name) >= minimum, name


@pytest.mark.parametrize("name", list(BOUND_HELP))
def test_minimum_is_accepted(name: str) -> None:
    minimum = BOUND_HELP[name][0]
    assert getattr(Bounds(**{name: minimum}), name) == minimum


@pytest.mark.parametrize("name", list(BOUND_HELP))
def test_below_minimum_names_the_flag(name: str) -> None:
    minimum = BOUND_HELP[name][0]
    with pytest.raises(BoundError) as caught:
        Bounds(**{name: minimum - 1})
    error = caught.value
    assert (error.field, error.value, error.minimum) == (name, minimum - 1, minimum)
    flag = name.replace("_", "-")
    assert f"{flag}={minimum - 1}" in str(error), "the message spells the field as its --flag"
    assert f"from {minimum} to 1,000" in str(error), "the message says what would be accepted"
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("name", list(BOUND_HELP))
@pytest.mark.parametrize("value", [1.0, "1", True, False, None])
def test_non_int_rejected(name: str, value: object) -> None:
    """Only a real int passes: not a float, a numeric string, or a bool (bool subclasses int)."""
    with pytest.raises(BoundError) as caught:
        Bounds(**{name: value})
    assert caught.value.field == name
    assert caught.value.value is value


def test_replace_validates_again() -> None:
    assert DEFAULT_BOUNDS.replace(calls=1).calls == 1
    with pytest.raises(BoundError) as caught:
        DEFAULT_BOUNDS.replace(calls=0)
    assert caught.value.field == "calls"


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_BOUNDS.calls = 5  # type: ignore[misc]
    assert DEFAULT_BOUNDS.calls == EXPECTED_DEFAULTS["calls"]


@given(bounds())
def test_as_dict_round_trip(b: Bounds) -> None:
    assert Bounds(**b.as_dict()) == b
    assert hash(Bounds(**b.as_dict())) == hash(b)


@given(st.sampled_from(list(BOUND_HELP)), st.integers(0, 10**6))
def test_any_int_from_minimum_to_maximum_is_accepted_and_no_other(name: str, excess: int) -> None:
    value = BOUND_HELP[name][0] + excess
    if value <= BOUND_MAXIMUM:
        assert getattr(Bounds(**{name: value}), name) == value
    else:  # a bound no search could enumerate: refused, naming the range
        with pytest.raises(BoundError, match=f"from {BOUND_HELP[name][0]} to 1,000"):
            Bounds(**{name: value})


@given(st.sampled_from(list(BOUND_HELP)), st.integers(1, 10**6))
def test_any_int_below_minimum_is_rejected(name: str, shortfall: int) -> None:
    with pytest.raises(BoundError) as caught:
        Bounds(**{name: BOUND_HELP[name][0] - shortfall})
    assert caught.value.field == name

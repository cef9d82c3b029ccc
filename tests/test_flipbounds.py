"""Where a reading shows (`checks/mutants/flipbounds.py`): every single change of reading has an entry, and each
entry's bounds do show a flip (slow: one small check of the reading and one of the conformant reading each)."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants.flipbounds import SHOWN_AT, flags, flipped, from_flags, shown_at
from pausecheck.checks.mutants.flips import singles
from pausecheck.model import DEFAULT_BOUNDS

READINGS = [v.reading.removeprefix("conformant+") for v in singles(DEFAULT_BOUNDS)]


def test_every_single_change_has_an_entry():
    assert sorted(SHOWN_AT) == sorted(READINGS)


def test_the_sentence_names_the_bounds_or_says_none_is_known():
    for reading, found in SHOWN_AT.items():
        said = shown_at(reading)
        assert (found in said) if found else said.startswith("none known"), reading
    assert "not searched" in shown_at("A-NONE=none")


def test_flags_read_back():
    bounds = DEFAULT_BOUNDS.replace(calls=1, races=1, held_bound=1)
    assert from_flags(flags(bounds)) == bounds


@pytest.mark.slow
@pytest.mark.parametrize("reading", [r for r in READINGS if SHOWN_AT.get(r)])
def test_the_reading_flips_at_its_bounds(reading):
    ambiguity, value = reading.split("=")
    assert flipped(((ambiguity, value),), from_flags(SHOWN_AT[reading]))

"""Where a reading shows (`checks/mutants/flipbounds.py`): every single change of reading has an entry, and each
entry's bounds do show a flip (slow: one small check of the reading and one of the conformant reading each)."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants.catalogue import catalogue
from pausecheck.checks.mutants.flipbounds import SHOWN_AT, flags, flipped, from_flags, read_shown, shown_at
from pausecheck.checks.mutants.flips import singles
from pausecheck.model import DEFAULT_BOUNDS

READINGS = [v.reading.removeprefix("conformant+") for v in singles(DEFAULT_BOUNDS)]


def test_every_single_change_has_an_entry():
    assert sorted(SHOWN_AT) == sorted(READINGS)


def test_the_sentence_names_the_bounds_or_says_none_is_known():
    for reading, found in SHOWN_AT.items():
        said = shown_at(reading)
        if found is None:
            assert said.startswith("none known"), reading
            continue
        bounds, beside = read_shown(found)
        assert flags(bounds) in said, reading
        if beside:  # the reading it needs beside it is named, with the flags that set both
            assert said.startswith("alone it flips nothing") and f"--reading conformant+{found.split('+', 1)[1]}+" \
                f"{reading}" in said, reading
    assert "not searched" in shown_at("A-NONE=none")


def test_flags_read_back():
    bounds = DEFAULT_BOUNDS.replace(calls=1, races=1, held_bound=1)
    assert from_flags(flags(bounds)) == bounds


@pytest.mark.slow
@pytest.mark.parametrize("reading", [r for r in READINGS if SHOWN_AT.get(r)])
def test_the_reading_flips_at_its_bounds(reading):
    ambiguity, value = reading.split("=")
    bounds, beside = read_shown(SHOWN_AT[reading])
    assert flipped(((ambiguity, value),), bounds, beside=beside)
    if beside:  # and alone, at those bounds, it flips nothing: the reading beside it is needed
        assert not flipped(((ambiguity, value),), bounds)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [m for m in catalogue() if m.equivalent and m.parts_at], ids=lambda m: m.name)
def test_an_equivalent_mutant_is_killed_only_beside_the_reading_it_names(mutant):
    """The claim's bounds: beside the reading `parts_at` names, a verdict tells the mutant apart from the rules;
    under the reading alone, at the same bounds, none does (the claim of equivalence holds there)."""
    bounds, beside = read_shown(mutant.parts_at)
    assert flipped((), bounds, beside=beside, table=mutant.rules)
    assert not flipped((), bounds, table=mutant.rules)
    assert mutant.parts_at in mutant.claim and mutant.reason in mutant.claim

"""The partial-order measurement (`benchmarks/independence.py`) finds what it claims: a diamond is two steps
taken in either order to one state, none forms one without the faults, and the search that skips the steps a
candidate lets it skip keeps no state the full search does not have, level by level."""

from __future__ import annotations

from pausecheck.model import DEFAULT_BOUNDS, Machine

from .scripts import load


def test_diamonds_are_steps_that_commute_and_the_reduced_levels_are_no_larger():
    ind = load("benchmarks/independence.py", "bench_independence")
    faulty = Machine(DEFAULT_BOUNDS.replace(**ind.FAULTS))
    figures = ind.measure(faulty, 20_000, 10)
    assert figures["states with a candidate"] > 0
    full, reduced = figures["levels"]["full"], figures["levels"]["reduced at most"]
    assert all(r <= f for r, f in zip(reduced, full, strict=True)) and reduced[-1] < full[-1]
    seen, frontier, checked = set(faulty.init_states()), list(faulty.init_states()), 0
    while frontier and checked < 50:
        following = []
        for s in frontier:
            steps, free = ind.diamonds(faulty, s)
            for a in free:  # a candidate taken before or after any other step reaches the same state
                post_a = dict(steps)[a]
                for b, post_b in steps:
                    if b != a:
                        assert faulty.step(faulty.step(s, a), b) == faulty.step(faulty.step(s, b), a) is not None
                        assert post_a != post_b
                        checked += 1
            for _, post in faulty.successors(s):
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        frontier = following
    assert checked >= 50
    assert ind.measure(Machine(DEFAULT_BOUNDS), 5_000, 6)["states with a candidate"] == 0

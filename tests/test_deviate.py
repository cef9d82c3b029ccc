"""Deviations of the rule table (`model/deviate.py`): each edit does what it says, an edit that finds
nothing to edit is refused, and no mutant's table behaves as the rules do (a slip that left a rule as it
was would make a mutant the default, killed by nothing, or by the bounds alone)."""

from __future__ import annotations

import pytest
from pausecheck.checks.mutants import MUTANTS, Mutant, bounds_of, mutant_rules
from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, Machine, State
from pausecheck.model.actions import Answer, Poll, PutBack, ToolInterrupts, WriteMessage
from pausecheck.model.deviate import (
    After,
    Also,
    DeviationError,
    Drop,
    Effect,
    First,
    Only,
    Reads,
    Replace,
    deviate,
    on,
)
from pausecheck.model.lang import Let, Set, When
from pausecheck.model.pygen import successor_function
from pausecheck.model.render import rule_text
from pausecheck.model.rules import RULE_OF, RULES, e, g, reissue

DEVIANT = [m for m in MUTANTS if m.rules is not RULES]


def _rule(rules: tuple, action: type):
    return next(r for r in rules if r.action is action)


def test_an_edit_changes_its_rule_alone_and_keeps_the_others_as_they_are() -> None:
    rules = deviate(on(PutBack, Drop(e.held)))
    assert len(rules) == len(RULES)
    for mine, theirs in zip(rules, RULES, strict=True):
        assert (mine is theirs) == (theirs.action is not PutBack)
    assert "e.held :=" not in rule_text(_rule(rules, PutBack)) and "e.held :=" in rule_text(RULE_OF[PutBack])


def test_each_edit_reads_as_it_says() -> None:
    put_back = _rule(deviate(on(PutBack, Replace(e.held, ()))), PutBack)
    assert "e.held := []" in rule_text(put_back)
    answer = _rule(deviate(on(Answer, Drop(reissue, when=e.calls > 0))), Answer)
    assert "if (0 < e.calls):" in rule_text(answer)
    first = _rule(deviate(on(Poll, First(Set(e.unhandled, 1)), Also(Set(e.unhandled, 2)))), Poll)
    assert [st.value.args[0] for st in first.effect] == [1, 2]
    pause = _rule(deviate(on(ToolInterrupts, After(e.status, Set(e.unhandled, 3)))), ToolInterrupts)
    texts = rule_text(pause).splitlines()
    assert texts.index("    e.unhandled := 3") == texts.index('    e.status := "paused"') + 1
    assert _rule(deviate(on(Poll, Effect())), Poll).effect == ()
    guarded = _rule(deviate(on(WriteMessage, Only(e.calls > 0))), WriteMessage)
    assert len(guarded.guard) == len(RULE_OF[WriteMessage].guard) + 1
    assert "A-T14" not in rule_text(_rule(deviate(on(WriteMessage, Reads("A-T14", "ambiguous"))), WriteMessage))


def test_an_edit_that_finds_nothing_to_edit_is_refused() -> None:
    with pytest.raises(DeviationError, match="names no statement"):
        deviate(on(Poll, Drop(e.held)))
    with pytest.raises(DeviationError, match="names no statement"):
        deviate(on(PutBack, Replace("no such let", 1)))
    with pytest.raises(DeviationError, match="never reads A-T15"):
        deviate(on(PutBack, Reads("A-T15", "new-first")))
    with pytest.raises(DeviationError, match="no value 'sideways'"):
        deviate(on(PutBack, Reads("A-T5", "sideways")))
    with pytest.raises(DeviationError, match="an anchor is a field"):
        deviate(on(PutBack, Drop(g.taken.size)))


def test_a_value_replaces_only_a_set_or_a_let() -> None:
    with pytest.raises(DeviationError, match="not When"):
        deviate(on(Answer, Replace(reissue, e.calls)))
    assert isinstance(_rule(deviate(on(ToolInterrupts, Replace("merged", g.collected))), ToolInterrupts).effect[0], Let)
    assert isinstance(_rule(deviate(on(Answer, Replace(reissue, reissue.then))), Answer).effect[0], When)


def test_a_mutant_s_table_is_one_object_so_the_engines_caches_hit() -> None:
    for m in DEVIANT:
        assert mutant_rules(m.name) is m.rules
    first = successor_function(DEFAULT_BOUNDS, CONFORMANT, mutant_rules("no_put_back"))
    assert successor_function(DEFAULT_BOUNDS, CONFORMANT, mutant_rules("no_put_back")) is first


def _first_difference(mutant: Mutant, limit: int = 50_000) -> State | None:
    """The first state, breadth-first over the mutant's own states at its bounds, from which its
    successors differ from the rules' own, if any within `limit` states."""
    bounds = bounds_of(mutant)
    machine, default = Machine(bounds, rules=mutant.rules), Machine(bounds)
    order, seen = [State()], {State()}
    for state in order:
        mine = list(machine.successors(state))
        if mine != list(default.successors(state)):
            return state
        for _, post in mine:
            if post not in seen:
                seen.add(post)
                order.append(post)
        if len(order) > limit:
            break
    return None


@pytest.mark.parametrize("mutant", [m for m in DEVIANT if not m.equivalent], ids=lambda m: m.name)
def test_no_mutant_s_table_behaves_as_the_rules(mutant: Mutant) -> None:
    """A slip in a deviation (an edit of a statement the rules never run under the conformant reading,
    say) would leave the mutant the default: at its bounds, some state it reaches has other successors."""
    assert _first_difference(mutant) is not None, f"{mutant.name} behaves as the rules at its bounds"


def test_the_one_mutant_without_a_table_of_its_own_deviates_in_the_wire_view() -> None:
    assert [m.name for m in MUTANTS if m.rules is RULES] == ["poll_shows_held"]

"""The queries of an induction proof asked on worker processes (`prove --induction --workers N`): the same
invariants and verdicts as in one process, the same rounds from run to run, and workers that end with a stop."""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from typing import Any

import pytest
from pausecheck.checks.mutants import mutant_named
from pausecheck.checks.symbolic import asking
from pausecheck.checks.symbolic.asking import Asker, Query
from pausecheck.checks.symbolic.inductive import KEY, Step, prove
from pausecheck.model import Bounds
from pausecheck.model.reading import CONFORMANT
from pausecheck.model.rules import RULES

from .conftest import in_fresh_process

SMALL = Bounds(calls=1, pauses=1, artifacts=1, observations=0, write_failures=1, held_bound=1)


def proved(workers: int, mutant: str | None) -> Any:
    """The proof at SMALL with a crash, on `workers` processes (by names, for `in_fresh_process`)."""
    return prove(SMALL.replace(crashes=1), rules=RULES if mutant is None else mutant_named(mutant).table(),
                 workers=workers)


def _said(proof: Any) -> tuple[Any, ...]:
    return ([c.name for c in proof.kept], [(o.name, o.proved) for o in proof.outcomes], proof.incomplete)


def _cti(proof: Any) -> list[Any]:
    return [(o.name, o.cti) for o in proof.outcomes]


@pytest.mark.slow  # three proofs, each in a process of its own: about 15 s
@pytest.mark.parametrize("mutant", [None, "interrupt_recorded_failed"])
def test_two_workers_keep_the_invariants_and_verdicts_of_one_process(mutant: str | None) -> None:
    """Houdini's answer is the largest inductive subset, whoever asks: at two workers the same invariants and
    verdicts (a mutant's target not proved, with a counterexample either way); runs at two and at three workers
    agree on everything, rounds and counterexamples included: each query is answered in a process forked for it
    (each run in a process of its own: z3's choices depend on what its process did before)."""
    alone, spread, again = (in_fresh_process(proved, n, mutant) for n in (1, 2, 3))  # as the command line runs it
    assert _said(spread) == _said(alone) and not spread.incomplete
    assert (spread.rounds, spread.dropped, _cti(spread)) == (again.rounds, again.dropped, _cti(again))
    if mutant is not None:
        target = next(o for o in spread.outcomes if o.name == mutant_named(mutant).target)
        assert not target.proved and target.cti is not None and target.cti.replays
    else:
        assert spread.proved and {o.name for o in spread.outcomes} >= set(KEY)


def test_a_stop_ends_the_workers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupt (Ctrl-C, SIGTERM, a limit's watchdog: each a signal that raises KeyboardInterrupt here) while
    the workers are in long z3 calls ends them, without waiting for the calls."""
    st = Step(SMALL, CONFORMANT, RULES)
    monkeypatch.setattr(asking.Asker, "answer", lambda self, q: time.sleep(60))  # what the forked workers run
    main = threading.main_thread().ident
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever an earlier command line left there
    try:
        threading.Timer(1.0, lambda: signal.pthread_kill(main, signal.SIGINT)).start()  # as Ctrl-C, the watchdog do
        started = time.perf_counter()
        asker = Asker(st, ["no_loss"], None, None, workers=2)
        with pytest.raises(KeyboardInterrupt):
            list(asker.each([Query(k, (0,), ("items", (0,))) for k in range(3)]))
    finally:
        signal.signal(signal.SIGINT, kept)
    assert time.perf_counter() - started < 10
    assert multiprocessing.active_children() == []  # the two provers under way were ended, and reaped


def test_a_move_that_breaks_nothing_when_asked_again_no_longer_starts_a_pass() -> None:
    """Houdini's passes, with z3's answers scripted: the first starts at the first move; after a round, the next
    pass starts with the move that broke something, then goes on from its place; a move found to break nothing
    since its round is asked in its place, not first; done after a pass that breaks nothing."""
    from types import SimpleNamespace

    from pausecheck.checks.symbolic.asking import Answer
    from pausecheck.checks.symbolic.inductive import houdini

    breaks = {(0, 1): 0, (1, 2): 1}  # (pass, move) -> the item that step breaks
    passes: list[list[int]] = []

    class Scripted:
        items, post = ["a", "b", "c"], ["a'", "b'", "c'"]

        def each(self, batch: list[Query]) -> Any:
            passes.append([q.k for q in batch])
            for q in batch:
                item = breaks.get((len(passes) - 1, q.k))
                yield q, Answer(item is not None, () if item is None else (item,))

    st = SimpleNamespace(moves=[SimpleNamespace(kind=int)] * 4, touches=lambda k, term: True)
    kept, rounds = houdini(st, Scripted.items, None, lambda text: None, asker=Scripted())
    assert (kept, rounds) == (["c"], 2)
    assert passes == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1]]  # not [2, 1, 3, 0]: 1 broke nothing in pass 2

"""The argument parser of `pausecheck`: every command, flag and example the help prints."""

from __future__ import annotations

import argparse
import difflib
import functools
import math
import os
import sys
from pathlib import Path
from typing import Any

from pausecheck.model import COMPANIONS, DEFAULT_BOUNDS, SWITCHES, Bounds
from pausecheck.model.config import FUZZ_BOUNDS
from pausecheck.model.liveness import FAIR, fairness_named
from pausecheck.traces.input_file import printable

from pausecheck import __version__

from ..build import build
from ..flags import bound_flags
from ..flags import reading as _reading
from ..search.graph import FORMATS
from ..spin.pan import DEPTH, HASH_BITS, STORES
from ..symbolic.sampling import PREFIX
from .draft import draft_flag

__all__ = ["parser"]

EXIT = ("exit: 0 every property was established at these bounds (or not exercised and accepted); 1 a property "
        "violated or a deadlock (a counterexample exists); 2 usage or input error; 3 nothing violated but not "
        "everything established: a vacuous property, a missing witness, a property the bounds cannot exercise, or "
        "a search stopped early (--max-states, --max-seconds, --max-memory, Ctrl-C or SIGTERM), with the "
        "statistics reached; 4 an internal error of pausecheck (one line; the traceback in a file to report).")

EPILOG_CHECK = f"""\
examples:
  pausecheck check                      every property over every interleaving at the default bounds: the
                                        verdict, the counts and what needs attention (a few seconds)
  pausecheck check --verbose            the same with the clause table and the property table in full
  pausecheck check --pauses 1 --write-failures 0 --observations 0 --accept-unexercised
                                        smaller bounds: what they cannot reach is "not exercised", with
                                        the flag that would reach it; accepted, so the exit is 0
  pausecheck check --out out/           also write each counterexample and witness as ITF JSON under out/
  pausecheck check --json               one JSON object (complete, states, properties, clauses, ...)
  pausecheck check --engine spin --calls 1 --pauses 1 --crashes 1 --expiries 1 --races 1 --accept-unexercised \\
      --no-liveness                     faults at once, searched by Spin (needs spin and gcc); what
                                        these bounds cannot reach is accepted, so the exit is 0;
                                        without --no-liveness Spin decides liveness too

{EXIT}"""

# `consistency` asks z3 of every reading at once: smaller bounds keep it to minutes.
CONSISTENCY_BOUNDS = Bounds(artifacts=2, held_bound=1)
EPILOG_CONSISTENCY = """\
examples:
  pausecheck consistency --only clashes --depth 8
                                              which clauses each reading clashes with within 8 steps (about a
                                              minute of CPU; at the default depth of 12 about 3.5 minutes; all
                                              three parts take about 20 minutes at these bounds)
exit: 0 every trigger the bounds allow occurs in a behaviour that keeps every clause (clashes and dependencies
are findings about the rules, not failures); 1 some trigger occurs in none (a clause is vacuous or the clauses
contradict each other); 2 usage error; 3 stopped by --max-seconds or --max-memory (what was established by then
is printed)."""
EPILOG_EXPLORE = """\
examples:
  pausecheck explore --calls 1 --pauses 1     the model at small bounds, from its initial state
  pausecheck explore --trace traces/golden/no_put_back.itf.json
                                              step through a counterexample (on its mutant)
exit: 0 stopped with Ctrl-C; 2 usage error (a bad trace, a port in use)."""
EPILOG_PROVE = """\
examples:
  pausecheck prove --bmc 12 --calls 1 --pauses 1 --artifacts 1 --observations 0 --held-bound 1
                                        every property on every behaviour of up to 12 steps (~15 s)
  pausecheck prove --induction --calls 1 --pauses 1 --artifacts 1 --observations 0 --held-bound 1
                                        the six key properties for behaviours of any length (~15 s; at
                                        the default bounds ~5 min; add --reading or a fault flag)
  pausecheck prove --compositional --calls 1 --pauses 1 --artifacts 1 --observations 0 --held-bound 1 --write-failures 0
                                        two sessions behave each as one session alone (~80 s)
  pausecheck prove --compositional --sessions any
                                        the same for every number of sessions at once, at the default
                                        bounds (~15 s; docs/symbolic.md gives the argument)
exit: 0 everything asked was established; 1 a property violated (--bmc), not inductive (--induction, with a
counterexample to induction), a premise of --compositional not proved (with its counterexample), or a lemma or
fact of --sessions any failing (with a two-session run where one shows it); 2 usage error; 3 --bmc found no
violation but a witness was not found within K steps, --induction could not show that no step leaves the
symbolic capacities, --compositional proved the theorem but a property does not carry to more sessions,
--sessions any checked its one-session facts on fewer states than the bounds reach (2,000,000 at most), or
--max-seconds or --max-memory stopped it (what was established by then is printed)."""
EPILOG_REPORT = """\
examples:
  pausecheck report --out report.html             the default check as one self-contained HTML page (~10 s)
  pausecheck report --mutants --out report.html   with the kill matrix of every mutant (about two minutes)
  pausecheck report --format md --out report.md   the same in Markdown (Mermaid sequence diagrams)

exit: as for check; the report is written in every case."""

EPILOG_GRAPH = """\
examples:
  pausecheck graph --calls 1 --per-call 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 \\
                   --format dot --out small.dot         62 states; `dot -Tsvg small.dot > small.svg`
  pausecheck graph --around traces/golden/no_put_back.itf.json --format graphml --out near.graphml
                                        a trace and its successors, at the trace's own bounds and mutant
                                        (for Gephi)

exit: 0 written; 2 usage error, or more states than --max-states;
3 stopped by --max-seconds or --max-memory (what was established by then is printed)."""

EPILOG_EXPORT = """\
examples:
  pausecheck export --format promela --out flowdrop.pml
                                        the default bounds, conformant reading (what
                                        benchmarks/flowdrop.pml holds); then, in its folder:
                                          spin -a -o2 flowdrop.pml
                                          gcc -O2 -w -DSAFETY -DNOREDUCE -o pan pan.c
                                          ./pan -m1000000 -w20
                                        pan's count of states stored: 73,409, as `pausecheck check`
  pausecheck export --format promela --calls 1 --artifacts 2 --pauses 2 --observations 0 --held-bound 1 \\
                    --crashes 1 --reading conformant+A-T6=write-first --out crash.pml
                                        a fault and a reading: every rule, reading and fault is exported

exit: 0 the file was written; 2 usage error (bounds the Promela encoding cannot hold, a path that cannot be
written)."""


EPILOG_CONFORM = """\
examples:
  pausecheck conform --calls 1 --pauses 1 --observations 0 -- python examples/sqlite_runtime/runtime.py
                                        the reference runtime at small bounds: every edge agrees; what
                                        they leave unexercised is named, each with its flag (exit 3;
                                        --accept-unexercised accepts it: [ok])
  pausecheck conform --calls 1 --pauses 1 --observations 0 -- python examples/sqlite_runtime/runtime.py \\
                     --bug interrupt-as-failure
                                        a buggy runtime: [diverged], exit 1, the trace in divergence.itf.json
  pausecheck conform --calls 1 -- python examples/sqlite_runtime/runtime.py
                                        one call per segment (seconds); with no bound flag, the default
                                        bounds: all 197,925 edges (about 60 s)

exit: 0 every edge judged, no divergence, and every clause and witness the bounds can reach exercised (or
accepted: --accept-unexercised); 1 a divergence; 2 usage error, or a runtime that cannot be started or checked
at all; 3 no divergence, but not every edge judged (--max-sequences, actions the runtime does not support),
something not exercised, or stopped by --max-seconds or --max-memory (what was established is printed)."""


EPILOG_VECTORS = """\
examples:
  pausecheck vectors export vectors/ --calls 1 --pauses 1 --observations 0
                                        the vectors of small bounds (a few dozen, every edge), with a README
  pausecheck vectors check examples/vectors -- python examples/sqlite_runtime/runtime.py
                                        the committed example vectors against the reference runtime:
                                        all pass; a sample, so what it leaves out is named (exit 3)

exit: 0 written, or every vector passed and exercised every clause and witness the bounds can reach (or
accepted: --accept-unexercised); 1 a divergence; 2 usage error or a folder that cannot be read; 3 something
not exercised, or stopped by --max-seconds or --max-memory (what was established by then is printed)."""


EPILOG_FUZZ = """\
examples:
  pausecheck fuzz                       the model alone, 200 behaviours of up to 60 steps at three sessions
  pausecheck fuzz --examples 50 -- python examples/sqlite_runtime/runtime.py
                                        the reference runtime in lockstep with the model
  pausecheck fuzz -- python examples/sqlite_runtime/runtime.py --bug drop-oldest
                                        a buggy runtime: exit 1, the shrunk behaviour in fuzz.itf.json

exit: 0 no failure in the behaviours run; 1 a property broken or a runtime diverging; 2 usage error;
3 stopped by --max-seconds or --max-memory (what was established by then is printed)."""


EPILOG_DIFF = """\
examples:
  pausecheck diff --draft examples/drafts/take_copies.py --calls 2 --artifacts 1 --pauses 1 --held-bound 1
                                        a draft whose write-back copies the held list: the verdicts it breaks
                                        and the shortest behaviour only it allows (exit 1)
  (docs/drafts.md: a draft that changes nothing a client sees, and how diff climbs the bounds to tell)

exit: 0 nothing a client sees differs at these bounds; 1 a verdict or a visible behaviour differs; 2 usage
error or a draft that cannot be used; 3 a search or the walk was cut short (--max-states, --max-seconds,
--max-memory) before a difference was found."""


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return 8 << 30


DEFAULT_MEMORY = _physical_memory() * 3 // 4
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


MAX_SECONDS = 1_000_000  # about 11 days: longer than any run, and within what z3's timeout (in ms) and time_t take
MAX_JOBS = 1_024  # searches at once: a pool larger than the batch only forks idle processes


def _seconds(text: str) -> float:
    """A positive, finite number of seconds, at most MAX_SECONDS (nan and inf would silently mean no limit, and
    1e300 overflowed z3's timeout and a runtime's read deadline: tracebacks)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive number of seconds, at most "
                                         f"{MAX_SECONDS:,}") from None
    return value


def _junit(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--junit", type=Path, metavar="FILE",
                     help="also write the run as JUnit XML for a CI system: one test case per sequence (or vector) "
                     "driven, the one the runtime diverged on failing with its step, message, clauses and trace, "
                     "and a skipped case per group of witnesses the bounds leave unexercised")


def _seconds_or_none(text: str) -> float:
    """A number of seconds as `_seconds` takes it, or 0 (none: the step is skipped)."""
    try:
        if float(text) == 0:
            return 0.0
    except ValueError:
        pass
    return _seconds(text)


def _fairness(text: str) -> tuple[str, ...]:
    """--fairness: assumption names, comma-separated, or none."""
    names = () if text == "none" else tuple(n.strip() for n in text.split(","))
    try:
        return tuple(f.name for f in fairness_named(names))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _whole(low: int, high: int | None = None) -> Any:
    """The type of a flag taking a whole number from `low` (to `high`): out of range it is a usage error, where
    deep in the command it was a traceback (an --jobs of 10**21 overflowed a C int in the process pool) or a
    silent surprise (--jobs 0 meant every core, --max-vectors 0 wrote no vector)."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text!r}: must be a whole number from {low:,}"
                                             + (f" to {high:,}" if high is not None else " up"))
        return value
    return whole


def _size(text: str) -> int:
    """A memory size: a whole number of bytes, or with a K, M, G or T suffix (powers of 1,024)."""
    number, unit = text.strip().upper().removesuffix("B").removesuffix("I"), ""
    if number and number[-1] in "KMGT":
        number, unit = number[:-1], number[-1]
    if not number.isdigit() or int(number) == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 200M or 2G")
    return int(number) * _UNITS[unit]


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2, takes no abbreviation of a flag (`--pause`
    is not `--pauses`), and says which flag a misspelt one may be, pointing at the command's own --help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        found, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(found, "command", None)
            sub = next((a.choices[command] for a in self._actions if isinstance(a, argparse._SubParsersAction)
                        and command in a.choices), self)
            flags = [s for a in sub._actions for s in a.option_strings]
            hints = [f"{word} -> {close[0]}" for word in extras if word.startswith("-")
                     for close in [difflib.get_close_matches(word.split("=")[0], flags, n=1, cutoff=0.7)] if close]
            said = f" (did you mean: {'; '.join(hints)}?)" if hints else ""
            sub.error(f"unrecognized arguments: {' '.join(extras)}{said}")
        return found

    def _print_message(self, message: str, file: Any = None) -> None:
        """Write and flush, and let a full disk be known (argparse swallows it: --help would exit 0)."""
        if message:
            file = file or sys.stderr
            if file is not None:
                file.write(message)
                file.flush()

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, printable(f"pausecheck: {message} (see {self.prog} --help)") + "\n")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    return common


def budget_flags(parser: argparse.ArgumentParser) -> None:
    """--max-seconds and --max-memory: the limits of a command that can run long (`checks/budget.py`)."""
    parser.add_argument("--max-seconds", type=_seconds, metavar="S",
                        help="stop after S seconds from the start, set-up included, with exit 3 and what was "
                        "established by then")
    parser.add_argument("--max-memory", type=_size, metavar="SIZE", default=DEFAULT_MEMORY,
                        help="stop gracefully, with exit 3, when the resident memory of the command (its worker "
                        "processes included) reaches SIZE (200M, "
                        f"2G, ...; default {DEFAULT_MEMORY >> 20:,}M, three quarters of this machine)")


def _search(parser: argparse.ArgumentParser, *, judged: bool = True, defaults: Bounds = DEFAULT_BOUNDS,
            states: bool = True) -> None:
    """The flags of a search: one per bound, the reading, the limits (the state limit where the command
    honours one), and for a search whose properties are judged, how to judge what the bounds cannot exercise."""
    bound_flags(parser, defaults)
    draft_flag(parser)
    parser.add_argument("--reading", type=_reading, default="conformant", metavar="NAME",
                        help="how each ambiguity of the spec is read: conformant (the default), or conformant with "
                        "switches set, e.g. conformant+A-G1=leave; " + "; ".join(
                            f"{s.ambiguity}={'|'.join(s.values)}" for s in SWITCHES) + " (docs/readings.md)")
    if states:
        parser.add_argument("--max-states", type=int, metavar="N",
                            help="stop after N states (the result is incomplete)")
    budget_flags(parser)
    if not judged:
        return
    parser.add_argument("--accept-unexercised", action="store_true",
                        help="do not fail on properties these bounds cannot exercise (they are still listed, each "
                        "with the bound that would reach it)")
    parser.add_argument("--symmetry", action="store_true",
                        help="with --sessions 2 or more: store one state per class of states equal up to renaming "
                        "sessions (half the states with two); verdicts and shortest traces are those of the full "
                        "search, every trace stays concrete; the state count printed is of the classes")
    parser.add_argument("--fingerprint", action="store_true",
                        help="keep only a 64-bit fingerprint of each visited state, as TLC does, and the states still "
                        "to expand packed (a seventh of the memory); two states sharing one would leave the "
                        "second unexplored: the chance of that is printed; traces are rebuilt by replaying their "
                        "actions")
    parser.add_argument("--compact", action="store_true",
                        help="keep every visited state exactly but packed, each record stored once, in under 100 "
                        "bytes a state (a sixth of the memory, no chance of a collision) at about twice the time")
    parser.add_argument("--no-companion", dest="companion", action="store_false",
                        help=f"at the default bounds, skip the {len(COMPANIONS)} companion searches "
                        f"({', '.join(name for name, _ in COMPANIONS)}) that judge what the default bounds cannot "
                        "exercise (isolation, an interim message, a node failure)")
    parser.add_argument("--no-liveness", dest="liveness", action="store_false",
                        help="skip the liveness properties (judged by default, under the fairness below, on the "
                        "reachable graph: no stuck execution, every held artifact eventually delivered or warned, a "
                        "declined run completes); they take about as long again as the search and hold the graph "
                        "in memory. With --engine spin, Spin decides the two that LTL says, on a model of one "
                        "process per action")
    parser.add_argument("--fairness", type=_fairness, default=FAIR, metavar="NAMES",
                        help="the fairness assumptions liveness is judged under, comma-separated: steps (weak: a "
                        "state-changing step enabled without pause is eventually taken), write (strong: a write "
                        "that can succeed again and again eventually succeeds); none for neither (default "
                        "steps,write). They matter where the graph has cycles: --write-failures any. With --engine "
                        "spin, Spin decides the same (pan -f, and the write's in the formula)")


def _judging(parser: argparse.ArgumentParser, *, trace: str = "divergence.itf.json", when: str = "",
             timeout: bool = True, properties: bool = True, accept: bool = False) -> None:
    """The flags of a command that judges a runtime: black-box mode, response timeout, where the
    divergence trace goes, JSON output, and (`accept`) accepting what the run leaves unexercised. `when`
    prefixes each help ("check: ", "with a runtime: ")."""
    if accept:
        parser.add_argument("--accept-unexercised", action="store_true",
                            help=f"{when}do not fail (exit 3) on the clauses and witnesses no judged step exercised "
                            "(they are still listed, each with the bound flag that would exercise it)")
    if properties:
        parser.add_argument("--properties", action="store_true",
                            help=f"{when}judge only the black-box properties on what the runtime shows (for one "
                            "that takes another legitimate reading)")
    if timeout:
        parser.add_argument("--timeout", type=_seconds, default=10.0, metavar="S",
                            help=f"{when}seconds to wait for each response (default 10)")
    parser.add_argument("--out", type=Path, metavar="FILE", help=f"{when}where to write the trace (default {trace})")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the text")


def _add(commands: argparse._SubParsersAction, name: str, help: str, description: str,
         epilog: str | None = None) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=help, description=description, epilog=epilog, parents=[_common()],
                               formatter_class=argparse.RawDescriptionHelpFormatter)


@functools.lru_cache(maxsize=1)
def parser() -> argparse.ArgumentParser:
    """The whole command line (built once: a parser is not changed by parsing)."""
    top = _Parser(
        prog="pausecheck",
        description="Reference model and model checker for FlowDrop RT-TOOL-7 (held artifacts across a "
        "pause) and RT-GATE-6 (no phantom failure in the tool trail).",
        epilog="start with `pausecheck check`; `pausecheck COMMAND --help` explains each command.",
    )
    top.add_argument("--version", action="version", version=f"pausecheck {__version__} ({build()})")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = _add(commands, "check", "explore every interleaving within the bounds and check every property",
                 "Breadth-first search of every state reachable within the bounds; prints the clauses and properties "
                 "counted by verdict, those that need attention, the shortest counterexample of every violated "
                 "property, the statistics and the verdict (--verbose: the clause and property tables in full).",
                 EPILOG_CHECK)
    _search(check)
    check.add_argument("--out", type=Path, metavar="DIR", help="write counterexamples and witnesses as ITF JSON here")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    check.add_argument("--verbose", action="store_true",
                       help="print the clause table and the property table in full (by default: the counts and only "
                       "what needs attention)")
    check.add_argument("--checkpoint", type=Path, metavar="DIR",
                       help="save the main search's state to DIR now and then (atomically), so that a crash or a kill "
                       "loses little: --resume DIR carries on from it")
    check.add_argument("--checkpoint-every", type=_seconds, default=60.0, metavar="S",
                       help="seconds between checkpoints (default 60)")
    check.add_argument("--engine", choices=("bfs", "spin"), default="bfs",
                       help="bfs (the default): the Python breadth-first search; spin: Spin on the Promela generated "
                       "from the rule table, every safety property an assertion and a stuck state one too, compiled "
                       "with gcc (Debian's spin and gcc must be installed); pan's progress lines on stderr; a "
                       "counterexample is decoded into an ITF trace that replays on the explicit model; liveness, "
                       "the companions and vacuity stay with the Python engine")
    check.add_argument("--store", choices=STORES, default="exact",
                       help="with --engine spin: how pan keeps the visited states: exact (the default), hash-compact "
                       "(-DHC4, 4 bytes a state) or bitstate (-DBITSTATE, a few bits a state); the last two are "
                       "probabilistic: exit 3, with pan's hash factor")
    check.add_argument("--no-reduce", dest="reduce", action="store_false",
                       help="with --engine spin: compile pan with -DNOREDUCE (no partial-order reduction)")
    check.add_argument("--hash-bits", type=int, default=HASH_BITS, metavar="N",
                       help=f"with --engine spin: 2^N hash slots (pan -wN, from 10 to 36; default {HASH_BITS}, 16 "
                       "million slots, 128 MB); one more for each doubling of the states past that")
    check.add_argument("--optimise", type=int, choices=(0, 1, 2), default=0, metavar="LEVEL",
                       help="with --engine spin: gcc's -O level for pan (0, the default, 1 or 2). pan's source is one "
                       "function of every transition; with faults, gcc -O1 takes minutes on it (113 s against 27 s at "
                       "-O0 for the example below), for a search about 1.6x faster: 1 or 2 pays past a few million "
                       "states")
    # pan reads its depth limit as a C int: past 2**31 - 1 it read 0 and reported a search of 0 states complete
    check.add_argument("--spin-depth", type=_whole(1, 2**31 - 1), default=DEPTH, metavar="N",
                       help=f"with --engine spin: pan's depth limit (-mN, default {DEPTH:,}); a hit is exit 3")
    check.add_argument("--engines", metavar="bfs,bmc|bfs,spin",
                       help="compare two engines instead. bfs,spin: the search and Spin on the liveness properties LTL "
                       "says (eventual_delivery, declined_run_completes) under --fairness, on every variant below at "
                       "the bounds given, exit 1 on a disagreement. bfs,bmc: the breadth-first search and z3's "
                       "bounded model checking "
                       "over the relation derived from the rule table, on the default, on every mutant (its own rule "
                       "table) and on every single-switch reading; BMC goes one step past the search's deepest "
                       "discovery (the whole graph when that is as deep), or for a mutant past its target's "
                       "counterexample; one line per variant and property with both verdicts and minimal depths; "
                       "exit 1 on any disagreement (or a drift: a path z3 found that the explicit model does not "
                       "take), 3 when a chosen variant is not compared: poll_shows_held, which deviates only in the "
                       "wire view BMC does not run, or a reading whose switch needs a fault the bounds leave off "
                       "(--crashes, --expiries, --races 1 turn them on)")
    check.add_argument("--jobs", type=_whole(1, MAX_JOBS), metavar="N",
                       help="with --engines: variants compared at once (default: every core)")
    check.add_argument("--only", action="append", metavar="NAME",
                       help="with --engines: compare only this variant, `default`, a mutant or a reading such as "
                       "A-G1=leave (repeatable)")
    check.add_argument("--workers", type=_whole(1, MAX_JOBS), default=1, metavar="N",
                       help="spread the main search over N processes on this machine (default 1: this one), the "
                       "states partitioned by hash and sent between them as bytes, level by level: the same states, "
                       "counts, verdicts and shortest traces as one process (docs/cluster.md); with --ray, the "
                       "number of Ray actors")
    check.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                       help="spread the main search over Ray actors: a local Ray without ADDRESS (or RAY_ADDRESS), "
                       "the cluster at ADDRESS otherwise; one actor per CPU of the cluster unless --workers says "
                       "(needs pip install 'pausecheck[ray]'; docs/cluster.md)")
    check.add_argument("--resume", type=Path, metavar="DIR",
                       help="carry on the search saved in DIR (same bounds and reading, same pausecheck) and keep "
                       "saving there; it ends with the same states, counts and traces as a search never stopped")

    rp = _add(commands, "replay", "re-execute an ITF trace on the model and say what it shows",
              "Re-execute every step of a trace written by pausecheck; name the first step and field where it "
              "diverges from the model, or confirm the property it breaks or witnesses.",
              "exit codes:\n"
              "  0  the trace replays and shows what it claims: a witness, a behaviour of a diff, a lasso under\n"
              "     the fairness it records\n"
              "  1  the trace replays and breaks its property (a violation, a deadlock), or it diverges from the\n"
              "     model (the first step and field are named), or it no longer shows what it claims\n"
              "  2  the file is not a trace pausecheck can read (one line names what is wrong)\n\n"
              "example (the trace of the mutant no_put_back: it breaks failed_write_back_restores, exit 1):\n"
              "  pausecheck replay traces/golden/no_put_back.itf.json")
    rp.add_argument("file", type=Path, help="an ITF trace (.itf.json) written by pausecheck")
    rp.add_argument("--quiet", action="store_true", help="print only the verdict line")

    sh = _add(commands, "shrink", "cut a trace that breaks a property down to its shortest sub-behaviour",
              "Given a trace that breaks a property but is not shortest (written by hand, found at random, or "
              "logged by a runtime), write the shortest subsequence of its steps that still breaks the same "
              "property. Read: each step's #meta.action, and the trace's #meta: model (the model version), "
              "property, bounds, reading, and mutant if any. Recorded state variables may be omitted.")
    sh.add_argument("file", type=Path, help="an ITF trace whose #meta names the property it breaks")
    sh.add_argument("--out", type=Path, metavar="FILE",
                    help="where to write the result (default: FILE.shrunk.itf.json)")
    sh.add_argument("--exact", action="store_true",
                    help="the exact minimum over the whole trace (breadth-first; cubic: minutes for hundreds of "
                    "steps) instead of a greedy pass first (traces over 60 steps)")
    sh.add_argument("--runtime", dest="against_runtime", action="store_true",
                    help="shrink against a runtime named after -- instead of the model: the trace's steps are "
                    "re-run on the runtime, and a shorter sequence is kept while the runtime still diverges from "
                    "the model on it (e.g. a conform, validate or fuzz divergence)")
    sh.add_argument("--properties", action="store_true",
                    help="with --runtime: a divergence is a broken black-box property, not any difference")
    sh.add_argument("--timeout", type=_seconds, default=10.0, metavar="S",
                    help="with --runtime: seconds to wait for each response (default 10)")

    mu = _add(commands, "mutants", "prove every property can fail: run each mutant and print the kill matrix",
              "Each mutant is a named, minimal deviation from the rules that a real runtime could make. Every "
              "mutant is explored exhaustively, one search per core at once (all of them: a minute or two); the "
              "kill matrix shows which "
              "properties catch it and the length of each shortest counterexample, and what each property "
              "catches alone.",
              "exit: 0 every mutant run is killed or marked equivalent (and, when all ran, every property kills "
              "one); 1 otherwise; 2 usage error; 3 stopped by --max-seconds or --max-memory (what was established by "
              "then is printed).")
    mu.add_argument("--list", action="store_true", help="print every mutant's name and description, run nothing")
    mu.add_argument("--only", action="append", metavar="NAME", help="run only this mutant (repeatable)")
    mu.add_argument("--json", action="store_true", help="print one JSON object: {mutants, properties}")
    mu.add_argument("--verbose", action="store_true",
                    help="print the whole kill matrix (by default: one line per mutant when ten or fewer ran, else "
                    "the counts and only what needs attention)")
    mu.add_argument("--jobs", type=_whole(1, MAX_JOBS), metavar="N", help="searches at once (default: every core)")
    mu.add_argument("--ray", action="store_true",
                    help="run the searches as tasks on the Ray cluster at $RAY_ADDRESS, or on a local Ray instance "
                    "(needs pip install 'pausecheck[ray]'; docs/cluster.md)")
    budget_flags(mu)
    draft_flag(mu, "deviate from the rule table a Python file defines as RULES instead of the rules (a spec author's "
               "draft, docs/drafts.md): each mutant's edits applied to it; one whose edits no longer fit is reported")
    mu.add_argument("--golden", type=Path, metavar="DIR",
                    help="also write each mutant's target counterexample as DIR/<mutant>.itf.json")

    rep = _add(commands, "report", "write the check (and optionally the kill matrix) as one HTML or Markdown file",
               "Run the check and write one self-contained file a spec author opens in a browser: the clause "
               "table with texts and verdicts, each property with its meaning and witness, every counterexample "
               "and witness as a sequence diagram (caller, runtime, tool, store; clause ids on the arrows), the "
               "kill matrix with --mutants, and the statistics. No network, no external script.", EPILOG_REPORT)
    _search(rep)
    rep.add_argument("--out", type=Path, metavar="FILE", required=True, help="the file to write")
    rep.add_argument("--format", choices=("html", "md"), default="html", help="html (default) or md (Markdown)")
    rep.add_argument("--mutants", action="store_true", help="also run every mutant and include the kill matrix")
    rep.add_argument("--readings", action="store_true",
                     help="also compute the flip matrix (pausecheck readings; about ten minutes at the defaults) and "
                     "include a readings section: each of the 33 ambiguities with its spec sentences, each reading in "
                     "one line with what it breaks, the shortest behaviour telling it apart, and the sentence the "
                     "rule would need")
    rep.add_argument("--no-pairs", action="store_true",
                     help="with --readings: check single changes only, not pairs (as pausecheck readings --no-pairs)")

    ex = _add(commands, "explore", "walk the state space by hand in a browser (a local page, no network)",
              "Serve a page on 127.0.0.1 that shows one state of the model at a time: its fields, what the last "
              "step changed, the enabled actions with the clauses each enacts (click one to take it), the "
              "properties that hold, break or are witnessed there, the path so far as steps and as a sequence "
              "diagram; back and forward; load an ITF trace and step through it; copy the path as ITF.",
              EPILOG_EXPLORE)
    bound_flags(ex, DEFAULT_BOUNDS)
    ex.add_argument("--reading", type=_reading, default="conformant", metavar="NAME",
                    help="how each ambiguity of the spec is read (as for check)")
    ex.add_argument("--mutant", metavar="NAME", help="walk a mutant's model instead (pausecheck mutants --list)")
    draft_flag(ex)
    ex.add_argument("--trace", type=Path, metavar="FILE",
                    help="start with this ITF trace loaded, on the machine it was made on: step through it")
    ex.add_argument("--port", type=int, default=0, metavar="N", help="the port on 127.0.0.1 (default 0: any free one)")

    gr = _add(commands, "graph", "export the reachable state graph (DOT, GraphML or JSON) through networkx",
              "Write the graph of every reachable state (nodes: a one-line summary of the state; edges: the "
              "action and the clauses its rule enacts), or with --around only a trace's states and their "
              "successors, small enough to look at in Graphviz or Gephi.", EPILOG_GRAPH)
    _search(gr, judged=False)
    gr.add_argument("--format", choices=FORMATS, default="dot", help="dot (default), graphml or json")
    gr.add_argument("--out", type=Path, metavar="FILE", required=True, help="the file to write")
    gr.add_argument("--around", type=Path, metavar="TRACE",
                    help="only this ITF trace's states and what lies within --radius steps of them (the trace's "
                    "own bounds, reading and mutant are used; bound flags are ignored)")
    gr.add_argument("--radius", type=int, default=1, metavar="N", help="steps beyond the trace (default 1)")

    xp = _add(commands, "export", "write the model for another model checker: Promela for Spin",
              "Write the rules (model/rules.py), specialised to the bounds and the reading, as a Promela model "
              "generated from the same table as the explicit search: Spin's pan, compiled with -DNOREDUCE, stores "
              "exactly the states `pausecheck check` stores at the same bounds and reading (no property is "
              "exported: pan checks only that every successor fits its arrays). Use it for spaces too big for "
              "Python, or to compare the engines. The file's header says how to run Spin on it.", EPILOG_EXPORT)
    bound_flags(xp, DEFAULT_BOUNDS)
    xp.add_argument("--reading", type=_reading, default="conformant", metavar="NAME",
                    help="how each ambiguity of the spec is read (as for check; default conformant)")
    draft_flag(xp)
    xp.add_argument("--format", choices=("promela",), required=True,
                    help="promela: a Promela model for Spin (the one format so far)")
    xp.add_argument("--out", type=Path, metavar="FILE", required=True, help="the file to write")
    xp.add_argument("--list-capacity", type=int, metavar="N",
                    help="the length of every array holding a list of artifact refs (held, collected, taken, a "
                    "message); default: the artifacts bound (times 1 + races), twice that under a reading that "
                    "copies refs; where a successor does not fit, pan reports a failed assert: export again with "
                    "a larger N")

    co = _add(commands, "conform", "test a FlowDrop runtime against the model: the golden oracle (... -- CMD ARGS)",
              "Start the runtime under test (any language) as a subprocess that speaks the adapter protocol "
              "(JSON lines; docs/oracle.md), drive it through action sequences that together take every edge of "
              "the model's reachable graph within the bounds (resetting it between sequences), and compare what "
              "it shows after each new step with the model. The first divergence is written as an ITF trace.",
              EPILOG_CONFORM)
    _search(co, judged=False, states=False)
    co.add_argument("--strict", action="store_true",
                    help="every observation must equal the model's under the reading (the default; not with "
                    "--properties)")
    _judging(co, accept=True)
    co.add_argument("--max-sequences", type=_whole(1), metavar="N",
                    help="stop after N sequences (coverage then unknown)")
    co.add_argument("--sequence", type=Path, metavar="TRACE",
                    help="drive only the steps of this ITF trace (a divergence written before), at its own bounds: "
                    "a regression test, which reports the steps of that sequence it judged (never a coverage of the "
                    "graph) and does not search for a shorter divergence unless --shrink asks")
    co.add_argument("--shrink", action="store_true",
                    help="with --sequence: where the runtime diverges, cut the sequence down to a shorter one on "
                    "which it still does (as conform does by itself without --sequence)")
    _junit(co)
    co.add_argument("--standing", type=Path, metavar="FILE",
                    help="also write the runtime's standing for every clause of both rules (passed, failed with the "
                    "trace, or not covered), with versions, bounds, reading and coverage, to publish in its docs; "
                    ".json, .md or .html")

    ve = _add(commands, "vectors", "export conformance vectors a runtime replays in its own tests, or run them "
              "(check DIR -- CMD ARGS)",
              "export DIR: write the covering sequences of the bounds with the observation expected after each new "
              "step, as plain JSON (manifest.json, vectors.jsonl, README.md), for a runtime's own test suite in any "
              "language; together they take every edge of the reachable graph. check DIR -- CMD: run them against a "
              "runtime that speaks the adapter protocol, comparing with the observations recorded in the files.",
              EPILOG_VECTORS)
    ve.add_argument("what", choices=("export", "check"), help="export the vectors, or check a runtime against them")
    ve.add_argument("dir", type=Path, help="the vectors folder")
    _search(ve, judged=False, states=False)
    _junit(ve)
    ve.add_argument("--max-vectors", type=_whole(1), metavar="N",
                    help="export: write only the first N vectors (the manifest states the coverage they reach)")
    _judging(ve, when="check: ", accept=True)

    fz = _add(commands, "fuzz", "long random behaviours with Hypothesis, beyond the exhaustive bounds "
              "(optionally -- CMD ARGS)",
              "Hypothesis stateful testing: random behaviours of the model at bounds no exhaustive search covers "
              "(by default three sessions of two turns, four pauses, interim messages, node failures), judging "
              "every always and transition property after each step; given a runtime after --, the same steps "
              "are applied to it in lockstep and what it shows is compared with the model. The first failure is "
              "shrunk and written as an ITF trace. Deterministic: the same flags give the same behaviours.",
              EPILOG_FUZZ)
    _search(fz, judged=False, defaults=FUZZ_BOUNDS, states=False)
    fz.add_argument("--examples", type=int, default=200, metavar="N",
                    help="behaviours to keep (default 200; Hypothesis starts a few more, which the count includes)")
    fz.add_argument("--steps", type=int, default=60, metavar="N", help="steps per behaviour at most (default 60)")
    _judging(fz, trace="fuzz.itf.json", when="with a runtime: ")

    rd = _add(commands, "readings", "the flip matrix: which verdicts each reading of an ambiguity changes",
              "Check the conformant reading with every fault on (it must break nothing, crashes included), then "
              "each single change from it (each value other than the default of each switch; --list shows them), "
              "and every pair of changes of two ambiguities that break nothing alone, so that interactions show. "
              "A reading that needs a fault (a crash for A-T6, an expiry for A-T8, a consent race for A-G9) is "
              "checked with that fault on, beside the conformant reading at the same bounds. For each property "
              "whose verdict changes, print the length of the shortest behaviour that shows it and write that "
              "behaviour as an ITF trace under --out, replayable under its reading. Searches run in parallel, one "
              "per core. About ten minutes at the default bounds on two cores.",
              "exit: 0 the matrix was computed (flips are findings about the rules, not failures); 2 usage error; "
              "3 stopped by --max-seconds or --max-memory (what was established by then is printed).")
    _search(rd, judged=False, states=False)
    rd.add_argument("--list", action="store_true",
                    help="list the 33 ambiguities (the spec notes' 32 and A-X5): modelled (values, default) or why not")
    rd.add_argument("--out", type=Path, metavar="DIR", default=Path("readings"),
                    help="write each flip's shortest distinguishing behaviour as ITF JSON here (default readings/)")
    rd.add_argument("--jobs", type=_whole(1, MAX_JOBS), metavar="N", help="searches at once (default: every core)")
    rd.add_argument("--no-pairs", action="store_true", help="check single changes only, not pairs")
    rd.add_argument("--json", action="store_true",
                    help="print one JSON object: {ambiguities, default, flips, results: [{reading, property, holds, "
                    "trace, length}]}")

    pv = _add(commands, "prove", "z3: bounded model checking to a depth, or k-induction proofs for any length",
              "--bmc K: every property on every behaviour of up to K steps, with z3, over the transition relation "
              "derived from the rule table (every reading, every fault the bounds allow); each counterexample and "
              "witness at its minimal depth, written as ITF that `pausecheck replay` re-executes on the explicit "
              "model. --induction: the six key properties (no double delivery, no loss, held never on the wire, no "
              "phantom failure, no phantom pause, one question per pause) proved for behaviours of ANY length at "
              "the bounds given, under --reading and the fault flags: 1-induction strengthened by invariants mined "
              "from the reachable states and kept by Houdini (those that are inductive together); a property that "
              "is not inductive comes with its counterexample to induction, replayed on the explicit model and "
              "written as ITF under --out. --compositional: at the bounds given with two sessions, every two-session "
              "behaviour projects onto a one-session behaviour for each session, and no step of one session changes "
              "the other's projection (premises proved by induction with invariants Houdini keeps); then each "
              "property that z3 shows is the conjunction of the sessions' parts carries: the one-session verdicts "
              "of `pausecheck check` at the same bounds stand for two sessions. --compositional --sessions any: the "
              "same for every number of sessions at once, from lemmas on each rule's use of the lists and counters "
              "the sessions share (z3, one item standing for every other session's) and two facts of the "
              "one-session states.", EPILOG_PROVE)
    _search(pv, judged=False, states=False)
    pv.add_argument("--bmc", type=int, metavar="K", help="bounded model checking of every property up to K steps")
    pv.add_argument("--induction", action="store_true", help="prove the key properties for behaviours of any length")
    pv.add_argument("--compositional", action="store_true",
                    help="prove that two sessions behave, each, as one session alone (projection and isolation, by "
                    "induction), and which properties carry from one session to two; with --sessions any, for "
                    "every number of sessions at once")
    pv.add_argument("--k", type=int, default=1, metavar="K", help="with --induction: the induction depth (default 1)")
    pv.add_argument("--all", action="store_true",
                    help="with --induction: try every invariant and transition property, not only the six key ones")
    pv.add_argument("--screen", type=_whole(1, 10 ** 9), default=PREFIX, metavar="N",
                    help=f"with --induction: screen the mined candidates on the first N reachable states, breadth "
                    f"first, before z3 sees them (default {PREFIX:,}; fewer start z3 sooner, leaving more for "
                    "Houdini to drop)")
    pv.add_argument("--workers", type=_whole(1, MAX_JOBS), metavar="N",
                    help="with --induction or --compositional: ask z3's queries (one move each) N at a time, each "
                    "in a process forked for it from this one (default: every core, and at least 2, so that the "
                    "rounds and counterexamples are the same on every machine; 1: all in this process); the same "
                    "invariants and verdicts at any N, and the same rounds and counterexamples at any N of 2 or more")
    pv.add_argument("--out", type=Path, metavar="DIR",
                    help="write as ITF here: counterexamples and witnesses (--bmc), counterexamples to induction")
    pv.add_argument("--json", action="store_true",
                    help="print one JSON object: {properties: [{name, proved, method, k, reason, ...}]}")

    cs = _add(commands, "consistency", "z3: are the clauses consistent, which readings clash with which clauses",
              "The clauses as constraints over bounded behaviours, under the conformant reading or any single-switch"
              " reading (z3 picks one per behaviour), with every fault the flags allow: a clause's constraint is "
              "every property that formalises it, and a clause's trigger each witness citing it. (a) the clauses "
              "together admit behaviours that finish and show every trigger the bounds allow (one behaviour if they "
              "fit in one); (b) for each reading, a behaviour that takes the reading's branch while keeping every "
              "clause, or a minimal unsatisfiable core naming the clauses it clashes with; (c) for each clause, drop"
              " it and see which of the properties citing it still hold under the other clauses, and which fail "
              "(with the first reading, in their order, that breaks them, at the first step it can; the clauses are "
              "shared among every core, with the same answers as on one). Only what fits the depth is covered: a "
              "clash needing a longer behaviour is not seen.", EPILOG_CONSISTENCY)
    bound_flags(cs, CONSISTENCY_BOUNDS)
    draft_flag(cs)
    budget_flags(cs)
    cs.add_argument("--depth", type=int, default=12, metavar="K",
                    help="steps of the behaviours of (b) and (c) (default 12)")
    cs.add_argument("--trigger-depth", type=int, default=20, metavar="K",
                    help="steps of the behaviours of (a) (default 20)")
    cs.add_argument("--only", action="append", choices=("satisfiable", "clashes", "dependencies"),
                    help="ask only this part (repeatable; default all three)")
    cs.add_argument("--json", action="store_true",
                    help="print one JSON object: {satisfiable: {behaviours, apart, impossible}, clashes: {readings: "
                    "[{reading, diverges, clauses, finishing, properties}]}, dependencies: {clauses: [{clause, "
                    "fail, hold}]}, exit}")

    df = _add(commands, "diff", "what a draft of the rules changes: verdicts, behaviours, mutants, readings",
              "Check the draft (--draft FILE) and the rules (or --against FILE2) at the same bounds and reading, one "
              "process each, and compare: every property's and clause's verdict under both (a repair counts as a "
              "change); the shortest behaviour the draft allows and the other does not, and the other way round, "
              "found by walking both tables together by the same actions (a behaviour: the model's steps with what "
              "a client sees after each, never held lists), each written as an ITF trace that `pausecheck replay` "
              "re-runs on its table; which catalogued mutant the draft is, which mutants no longer apply to it, "
              "and which ambiguities a changed rule reads.", EPILOG_DIFF)
    _search(df, judged=False, states=True)
    df.add_argument("--against", type=Path, metavar="FILE2",
                    help="compare with this draft instead of the rules")
    df.add_argument("--out", type=Path, metavar="DIR", default=Path("diff"),
                    help="where to write the behaviours only one table allows (default diff/)")
    df.add_argument("--no-liveness", dest="liveness", action="store_false",
                    help="skip the liveness properties in both checks")
    df.add_argument("--jobs", type=_whole(1, MAX_JOBS), metavar="N",
                    help="checks at once (default: every core, at most two)")
    df.add_argument("--ladder-seconds", type=_seconds_or_none, default=30.0, metavar="S",
                    help="where nothing tells the tables apart at these bounds, climb larger bounds, faults and "
                    "readings for at most S seconds to where something does (default 30; 0: do not climb)")
    df.add_argument("--z3-seconds", type=_seconds_or_none, default=20.0, metavar="S",
                    help="z3 compares the two tables' relations for behaviours of any length at these bounds, for at "
                    "most S seconds: a behaviour both take and the step they part on (written as relation.itf.json, "
                    "which replays), or the same for every length, proved (default 20; 0: skip)")
    df.add_argument("--json", action="store_true",
                    help="print one JSON object: {verdicts: [{name, rules, draft, changed}], clauses, only_in_draft, "
                    "only_in_rules, same_behaviours, decided_by, mutants, behaves_as, readings, changed_rules, "
                    "added_rules, dropped_rules, ladder, relation (z3: verdict, how, steps, actions, trace), states, "
                    "exit}")

    va = _add(commands, "validate", "check a log a runtime wrote itself against the model",
              "Re-execute a runtime's own log (JSON lines in the protocol's shapes: an optional first reset line "
              "with bounds and reading, then apply lines with action and payload, and observe lines with what the "
              "runtime showed; docs/oracle.md) on the model, and report the first step the model does not allow "
              "or the first observation that differs, with the clauses that step enacts.",
              "exit: 0 the log agrees with the model and its steps exercise every clause and witness its bounds can "
              "reach (or --accept-unexercised); 1 a divergence (written as an ITF trace); 2 a malformed log (the "
              "message names the line); 3 a log with no step (empty, or no apply line), or one that leaves clauses or "
              "witnesses unexercised (each named).")
    va.add_argument("log", type=Path, help="the runtime's log (.jsonl)")
    _judging(va, timeout=False, accept=True)
    return top

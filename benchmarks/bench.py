"""The explorer's benchmark: time and memory per state, with and without properties, and the mutants.

    python benchmarks/bench.py                  # default, larger bounds, two sessions (a few minutes)
    python benchmarks/bench.py --quick          # the default bounds only
    python benchmarks/bench.py --json           # the same as one JSON object
    python benchmarks/bench.py --no-compiled    # without the mypyc-compiled search (a minute less)
    python benchmarks/bench.py --quick --at "calls 3"   # Spin and the compiled search paired at --calls 3
    python benchmarks/bench.py --readme         # and time every documented command: docs/speed.md

`--readme` writes this run's headline figures and the times of the documented commands into docs/speed.md,
the one page that quotes times (`benchmarks/speedpage.py` says how; `--commands REGEX`, `--commands-only`).

For each bound set the search runs twice in a fresh process of its own: once with every property
and once with none (the model's successors, hashing and storage only). Each prints states/s,
transitions/s, microseconds per state (all three of CPU time, `time.process_time`: a loaded machine
adds wall time, not CPU time) and the process's peak resident memory (ru_maxrss: the
interpreter and imports included, which is why bytes per state are measured apart). Bytes per stored
state come from traced runs without properties (tracemalloc's peak over the search: every stored
state, the index, parents and the result, divided by the states), once keeping every state as objects,
once keeping every state exactly but packed (`check --compact`, `checks/search/compact.py`) and once keeping only
fingerprints (`check --fingerprint`: 64-bit hashes of visited states, the states still to expand packed,
`checks/search/packed.py`); tracing slows those runs, so their time is not reported: the default bounds run
twice more, timed, with every property, compact and with only fingerprints. Two sessions at
the default bounds run under a time limit (`--two-sessions-seconds`) and are reported as incomplete
where they reach it; they run a third time with session symmetry. Then
`pausecheck mutants` runs once on every core: its wall time and its CPU time (`mutants_cpu_seconds`:
the command and its workers, from the rusage of children).

Spin: the same model in Promela (conformant reading, no properties), generated from the rule table
by `checks/spin/promela.py` at run time (what `pausecheck export --format promela` writes, and
`benchmarks/flowdrop.pml` holds for the default bounds). Where `spin` and a C compiler are on the
PATH, it is checked in a temporary folder (`spin -a -o2`, then pan compiled with `-O2 -DSAFETY
-DNOREDUCE`, timed apart, then `./pan -m1000000 -w20`): an exhaustive search of the default bounds.
Its stored states must equal pausecheck's (73,409): a mismatch is reported loudly, and `ratio_to_spin`
is then null. pan and pausecheck's search of the default bounds with every property run in alternating
rounds (five of each, a fresh process each, in the same minutes), and each side counts its least CPU
time: `spin_us_per_state` is pan's (from the child's rusage, its start-up included) per stored state,
`us_per_state` pausecheck's, and `ratio_to_spin` the one over the other. pan checks the bare model (no
property), so the ratio is the harder one for pausecheck. Where spin is absent (Debian package `spin`),
the column says so and both are null.

Spin at the bounds that matter (issue 28): the bare model generated for two sessions with one pause, and
for every fault at once (`--crashes 1 --expiries 1 --races 1 --new-turns 1`), each compiled with `-O1
-DMEMLIM=16000` and searched by `./pan -m1000000 -w26` under `--spin-seconds` (600 by default):
`spin_two_sessions_seconds` and `spin_all_faults_seconds` are pan's CPU seconds where its search
completes, else null, and `spin_large` says what each run reached. `--quick` and `--no-spin-large` skip them.

Compiled: `benchmarks/compiled.py` builds a copy of pausecheck in a temporary folder (`python -m
pausecheck.checks.build`, `checks/build.py`) with the search's hot modules and the code the model generates
for the bounds timed (the successors and the property screens, `model/prebuilt.py`) compiled by mypyc (a few
minutes; mypy comes with the `bench` extra, `pip install -e '.[bench]'`), and the bounds are searched again,
with and without properties, in processes whose path starts with that copy, five times each alternating with
the interpreted search, the least CPU time of each side counting (a single later run met the machine in
another state: 27.6 us against 18.7 interpreted, where alternating gave 16.3 against 19.1). A row whose
properties or successors were not the compiled ones is reported as FAILED, not as a figure. The compiled
search must store the same states, transitions and violations as the interpreted one, else MISMATCH and no
figure. `compiled_us_per_state` is its microseconds per state with every property, `compiled_ratio_to_spin`
that over Spin's; both are null where the build is skipped (no mypy, no C compiler, `--no-compiled`)
or fails, and the column says why. `--quick` keeps it. `--at SET` times Spin and the compiled search at
another bound set than the defaults (`--at "calls 3"`: 1,194,347 states, issue 40's target), searched
interpreted too; the pairings, and `us_per_state`, `ratio_to_spin` and the compiled figures, are then of it.
Workers: `benchmarks/spread.py` at `--calls 3` (the default bounds with `--quick`; `--no-workers` skips it):
states/s of one process and of the search spread over 1 and 2 worker processes (`check --workers N`), the CPU
of the busiest worker (what the wall time would be on idle cores) and the bytes routed between workers per state.
Nothing here is asserted by the tests: these machines are noisy, so compare figures taken in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import speedpage
from compiled import build
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.checks.spin.pan import parse
from pausecheck.checks.spin.promela import CC_FLAGS, PAN_FLAGS, SPIN_FLAGS, promela
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine, reading_named
from pausecheck.model import properties as property_module
from pausecheck.model.prebuilt import module_name, prebuilt
from pausecheck.model.pygen import source
from spread import spread_figures

HERE = Path(__file__).resolve().parent
PROMELA = HERE / "flowdrop.pml"  # the generated model of the default bounds, for readers; regenerated at run time
SETS: dict[str, Bounds] = {
    "default": DEFAULT_BOUNDS,
    "larger": DEFAULT_BOUNDS.replace(per_call=3, artifacts=5, write_failures=2, observations=2),
    "two sessions": DEFAULT_BOUNDS.replace(sessions=2),
    "calls 3": DEFAULT_BOUNDS.replace(calls=3),  # 1,194,347 states: searched only as `--at` (issue 40's target)
}
CALLS_3 = DEFAULT_BOUNDS.replace(calls=3)  # 1,194,347 states: the spread search's measure
SEARCHED = ("default", "larger", "two sessions")  # the sets every run searches; `--at` adds its own


def changed(bounds: Bounds) -> str:
    """The bounds that differ from the defaults, as CLI flags."""
    flags = [f"--{k.replace('_', '-')} {v}" for k, v in bounds.as_dict().items() if getattr(DEFAULT_BOUNDS, k) != v]
    return " ".join(flags) or "(defaults)"


def one(name: str, kind: str, seconds: float | None) -> dict[str, object]:
    """One timed search (run in a process of its own, so that its peak memory is its own): `kind` is
    "with" or "without" properties, "symmetric" (every property, sessions up to renaming) or
    "fingerprints" (every property, only fingerprints of visited states kept, the rest packed) or "compact"
    (every property, every state kept exactly, packed)."""
    properties = kind != "without"
    machine = Machine(SETS[name], symmetry=kind == "symmetric", properties=Machine().properties if properties else ())
    started, cpu_started = time.perf_counter(), time.process_time()
    result = explore(machine, Limits(max_seconds=seconds), fingerprints=kind == "fingerprints",
                     compact=kind == "compact")
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return {"set": name, "properties": properties, "symmetry": kind == "symmetric",
            "states": result.states, "transitions": result.transitions,
            "depth": result.depth, "complete": result.complete, "seconds": round(wall, 3),
            "cpu_seconds": round(cpu, 3), "us_per_state": round(cpu / result.states * 1e6, 2),
            "states_per_second": round(result.states / cpu),
            "transitions_per_second": round(result.transitions / cpu),
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "violations": sorted(result.violations), "compiled": property_module.__file__.endswith(".so"),
            "generated": module_name(source(machine.bounds, machine.reading)) in prebuilt(),
            "fingerprints": kind == "fingerprints", "compact": kind == "compact"}


def stored_bytes(name: str, bounds: Bounds | None = None) -> dict[str, int]:
    """tracemalloc's peak over a search without properties, per stored state: keeping every state as
    objects, packed (`explore(compact=True)`, `check --compact`), and keeping only fingerprints
    (`explore(fingerprints=True)`, `check --fingerprint`). At the bound set `name`, or at `bounds` where
    given. tracemalloc makes the search some 50 times slower: a minute a store at the defaults."""
    out = {}
    for field, how in (("bytes_per_state", {}), ("bytes_per_state_compact", {"compact": True}),
                       ("bytes_per_state_fingerprints", {"fingerprints": True})):
        tracemalloc.start()
        result = explore(Machine(bounds or SETS[name], properties=()), **how)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[field] = round(peak / result.states)
    return out


ENGINES = HERE.parent / "docs" / "engines.md"


def documented_bytes(text: str) -> dict[str, int] | None:
    """The bytes a state that docs/engines.md quotes for each store at the defaults, or None where its
    sentences no longer say them."""
    said = re.search(r"(\d+) instead of (\d+) bytes a state at the defaults", text)
    fingerprints = re.search(r"packs the states still\s+to expand \((\d+) bytes a state", text)
    if not (said and fingerprints):
        return None
    return {"bytes_per_state_compact": int(said.group(1)), "bytes_per_state": int(said.group(2)),
            "bytes_per_state_fingerprints": int(fingerprints.group(1))}


def stale_bytes(measured: dict[str, int]) -> list[str]:
    """Where docs/engines.md's bytes a state are more than 5% from `measured` (tracemalloc's peak moves a
    little with the Python build), one line each; [] when they agree."""
    quoted = documented_bytes(ENGINES.read_text(encoding="utf-8"))
    if quoted is None:
        return ["docs/engines.md no longer quotes the bytes a state of each store"]
    return [f"docs/engines.md says {quoted[field]} for {field}, measured {measured[field]}"
            for field in quoted if abs(quoted[field] - measured[field]) > 0.05 * measured[field]]


def in_child(*args: str, path: Path | None = None) -> dict[str, object]:
    """Run this script's `--child` mode in a fresh interpreter (`path` first on its sys.path, where
    given) and read its JSON line."""
    env = None if path is None else {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, (str(path), os.environ.get("PYTHONPATH"))))}
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True,
                         env=env)
    return json.loads(out.stdout.splitlines()[-1])


def compiled_runs(interpreted: list[dict[str, object]], quiet: bool,
                  at: str = "default") -> tuple[list[dict[str, object]], str | None]:
    """The bound set `at` searched by a mypyc-compiled copy of pausecheck (its generated code compiled for those
    bounds too), with and without properties, each in a process of its own, ROUNDS times alternating with the
    interpreted search (so that both meet the machine in the same state): the compiled copy's least CPU time of
    each kind, with the interpreted search's least of the same rounds (`interpreted_us_per_state`), and None,
    or why there is no figure."""
    runs: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as folder:
        path, note = build(folder, (SETS[at],))
        if path is None:
            return runs, note if note.startswith("FAILED") else f"skipped: {note}"
        for kind in ("with", "without"):
            compiled, plain = [], []
            for _ in range(ROUNDS):
                try:
                    compiled.append(in_child(kind, at, path=path))
                except subprocess.CalledProcessError as error:
                    return runs, (f"FAILED: the compiled search exited {error.returncode}: "
                                  f"{error.stderr.strip()[-300:]}")
                plain.append(in_child(kind, at))
            runs.append({**min(compiled, key=lambda run: run["cpu_seconds"]),
                         "interpreted_us_per_state": min(run["us_per_state"] for run in plain)})
            if not quiet:
                print(_line(runs[-1]), flush=True)
    for run in runs:
        same = next(r for r in interpreted if r["set"] == at and r["properties"] == run["properties"])
        how = "with" if run["properties"] else "without"
        if not run["compiled"]:
            return runs, "FAILED: the child imported pausecheck's properties from source, not from the compiled copy"
        if not run["generated"]:
            return runs, "FAILED: the child ran the generated code by exec, not from the build's compiled modules"
        if [run[k] for k in ("states", "transitions", "violations")] != [same[k] for k in
                                                                       ("states", "transitions", "violations")]:
            return runs, (f"MISMATCH: {how} properties the compiled search stored {run['states']:,} states "
                          f"({run['transitions']:,} transitions), the interpreted one {same['states']:,} "
                          f"({same['transitions']:,}): no figure")
    return runs, None


def children_cpu() -> float:
    """CPU seconds (user and system) of every child process waited for so far, their own children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def mutants_cpu() -> dict[str, float]:
    """`pausecheck mutants` on every core: its wall time and the CPU time of it and its workers."""
    started, cpu_started = time.perf_counter(), children_cpu()
    subprocess.run([sys.executable, "-m", "pausecheck", "mutants", "--json"], capture_output=True, check=True)
    return {"mutants_seconds": round(time.perf_counter() - started, 1),
            "mutants_cpu_seconds": round(children_cpu() - cpu_started, 1)}


SPIN = ("spin", *SPIN_FLAGS, PROMELA.name)  # -o2: keep even the variables only written in the state vector
CC = (*CC_FLAGS, "-o", "pan", "pan.c")  # safety only; one process: no reduction
PAN = ("./pan", *PAN_FLAGS)  # depth limit far past the search's (~200); 2^20 hash slots
ROUNDS = 5  # alternating rounds of pan and pausecheck in the same minutes: the least CPU time of each side counts


def spin(python: dict[str, object], at: str = "default") -> dict[str, object]:
    """Spin's column beside pausecheck's search of the bound set `at` (`python`: its first run, every
    property), or why it is empty. pan and pausecheck alternate, a fresh process each, ROUNDS times;
    each side's figure is its least CPU time (pan's from the rusage of the child, pausecheck's from
    `time.process_time` in its own), so that the machine's load, which only ever adds time, cancels out."""
    empty: dict[str, object] = {"spin_us_per_state": None, "ratio_to_spin": None, "spin_run": None}
    compiler = next((cc for cc in ("gcc", "cc") if shutil.which(cc)), None)
    if shutil.which("spin") is None:
        return {**empty, "spin": "skipped: spin not on this machine (Debian package spin)"}
    if compiler is None:
        return {**empty, "spin": "skipped: no C compiler (gcc or cc) on this machine"}
    pythons, pans = [python], []
    with tempfile.TemporaryDirectory() as folder:
        model = promela(SETS[at], reading_named("conformant"), "benchmarks/flowdrop.pml")
        (Path(folder) / PROMELA.name).write_text(model, encoding="utf-8")
        started = time.perf_counter()
        for command in (SPIN, (compiler, *CC)):
            subprocess.run(command, cwd=folder, capture_output=True, check=True)
        compile_seconds = round(time.perf_counter() - started, 2)
        for round_ in range(ROUNDS):
            before = children_cpu()
            out = subprocess.run(PAN, cwd=folder, capture_output=True, text=True, check=True).stdout
            pans.append({**pan_figures(out), "cpu_seconds": round(children_cpu() - before, 4)})
            if round_:
                pythons.append(in_child("with", at))
    best = min(pans, key=lambda run: run["cpu_seconds"])
    fastest = min(pythons, key=lambda run: run["cpu_seconds"])
    best.update(compile_seconds=compile_seconds, commands=[" ".join(c) for c in (SPIN, (compiler, *CC), PAN)],
                rounds=ROUNDS, cpu_seconds_each=[run["cpu_seconds"] for run in pans],
                pausecheck_cpu_seconds_each=[run["cpu_seconds"] for run in pythons])
    us = round(best["cpu_seconds"] / best["states"] * 1e6, 3) if best["cpu_seconds"] else None
    column = {**empty, "spin_us_per_state": us, "spin_run": best, "us_per_state": fastest["us_per_state"]}
    if best["errors"] or not best["complete"]:
        column["spin"] = f"FAILED: pan reported {best['errors']} error(s) or stopped at its depth limit"
    elif best["states"] != python["states"]:
        column["spin"] = (f"MISMATCH: Spin stored {best['states']:,} states, pausecheck {python['states']:,}: "
                          f"the Promela model is out of step with the Python one, so no ratio")
    else:
        column["ratio_to_spin"] = round(float(fastest["us_per_state"]) / us, 1) if us else None
        column["spin"] = (f"{best['states']:,} states, as pausecheck, {best['transitions']:,} transitions, "
                          f"{best['cpu_seconds']:.3f} s of CPU (least of {ROUNDS}), {us} us/state, "
                          f"{best['memory_mb']} MB (compiling: {compile_seconds} s); pausecheck, every property "
                          f"on, least of {ROUNDS} alternating: {fastest['cpu_seconds']:.2f} s of CPU, "
                          f"{fastest['us_per_state']} us/state, {column['ratio_to_spin']}x as long per state")
    if column["ratio_to_spin"] is None:
        print(f"spin: {column['spin']}", file=sys.stderr)
    return column


# Spin at the bounds issue 28 names, on the bare model (no property), each under a time limit: two sessions
# with one pause, and every fault at once. pan gets 2^26 hash slots and stops itself at MEMLIM megabytes.
LARGE: dict[str, Bounds] = {
    "two_sessions": DEFAULT_BOUNDS.replace(sessions=2, pauses=1),
    "all_faults": DEFAULT_BOUNDS.replace(crashes=1, expiries=1, races=1, new_turns=1),
}
MEMLIM = 16_000


def spin_large(compiler: str, seconds: float) -> dict[str, object]:
    """`spin_<name>_seconds` for each of LARGE: pan's CPU seconds (rusage) where its search completes, else
    None; and `spin_large`: what each run reached (states, transitions, memory, compile time, complete)."""
    figures: dict[str, object] = {}
    runs: dict[str, object] = {}
    for name, bounds in LARGE.items():
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / PROMELA.name).write_text(promela(bounds, reading_named("conformant")), encoding="utf-8")
            started = time.perf_counter()
            flags = [flag.replace("-O2", "-O1") for flag in CC_FLAGS]  # as the spin engine: gcc -O2 takes far longer
            for command in (SPIN, (compiler, *flags, f"-DMEMLIM={MEMLIM}", "-o", "pan", "pan.c")):
                subprocess.run(command, cwd=folder, capture_output=True, check=True)
            compile_seconds = round(time.perf_counter() - started, 1)
            before = children_cpu()
            pan = subprocess.Popen(("./pan", "-m1000000", "-w26"), cwd=folder, stdout=subprocess.PIPE, text=True)
            try:
                out, _ = pan.communicate(timeout=seconds)
                stopped = None
            except subprocess.TimeoutExpired:
                pan.send_signal(signal.SIGINT)  # pan prints what it reached, then exits
                out, _ = pan.communicate()
                stopped = f"the {seconds:g} s limit"
            run = {**pan_figures(out), "cpu_seconds": round(children_cpu() - before, 1),
                   "compile_seconds": compile_seconds, "bounds": changed(bounds)}
            if "reached -DMEMLIM bound" in out:
                stopped = f"its {MEMLIM:,} MB memory limit"
            run["complete"] = bool(run["complete"]) and stopped is None and not run["errors"]
            run["stopped"] = stopped
        runs[name] = run
        figures[f"spin_{name}_seconds"] = run["cpu_seconds"] if run["complete"] else None
        print(f"spin, {name.replace('_', ' ')} ({run['bounds']}): {run['states']:,} states, "
              f"{run['cpu_seconds']} s of CPU, {run['memory_mb']} MB, "
              + ("complete" if run["complete"] else f"INCOMPLETE ({stopped or 'errors or depth'})"), file=sys.stderr)
    return {**figures, "spin_large": runs}


def pan_figures(out: str) -> dict[str, object]:
    """What pan printed (read by the spin engine's `parse`): states stored, transitions, depth, errors, search
    seconds, memory."""
    found = re.search(r"errors: (\d+)", out)
    if found is None or "states, stored" not in out:
        raise RuntimeError(f"pan printed no statistics:\n{out}")
    run = parse(out)
    return {"states": run.states, "transitions": run.transitions, "depth": run.depth, "errors": int(found.group(1)),
            "complete": not run.depth_hit, "seconds": run.seconds, "memory_mb": run.memory_mb}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the default bounds only, no mutants")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-compiled", action="store_true", help="skip the mypyc-compiled search")
    parser.add_argument("--two-sessions-seconds", type=float, default=120.0, metavar="S",
                        help="time limit of the two-session search (default 120)")
    parser.add_argument("--spin-seconds", type=float, default=600.0, metavar="S",
                        help="time limit of each of Spin's runs at two sessions and with every fault (default 600)")
    parser.add_argument("--no-spin-large", action="store_true", help="skip Spin's runs at two sessions and every fault")
    parser.add_argument("--readme", action="store_true", help="also time the documented commands, and write "
                        "every figure of this run into docs/speed.md")
    parser.add_argument("--commands", metavar="REGEX", help="with --readme: time only the commands it matches")
    parser.add_argument("--commands-only", action="store_true", help="with --readme: time the commands only")
    parser.add_argument("--command-seconds", type=float, default=7200.0, metavar="S",
                        help="with --readme: stop a command (Ctrl-C) after S seconds (default 7200)")
    parser.add_argument("--no-workers", action="store_true", help="skip the search spread over 1 and 2 workers")
    parser.add_argument("--at", choices=list(SETS), default="default", metavar="SET",
                        help="the bound set at which Spin and the compiled search are timed beside the interpreted "
                             f"search (default: default; one of {', '.join(SETS)}; 'calls 3' is issue 40's target)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, name, *rest = args.child
        print(json.dumps(stored_bytes(name) if kind == "bytes" else
                         one(name, kind, float(rest[0]) if rest else None)))
        return 0
    where = speedpage.machine()  # the load before this run adds its own
    summary = None if args.readme and args.commands_only else measure(args)
    if args.readme:
        line = shlex.join(["python", "benchmarks/bench.py", *(argv if argv is not None else sys.argv[1:])])
        speedpage.record(summary, args.commands, args.command_seconds, where, line)
    return 0


def measure(args: argparse.Namespace) -> dict[str, object]:
    """The benchmark proper (every search, Spin, the compiled copy, the mutants): printed, and its summary."""
    names = (["default"] if args.quick else list(SEARCHED)) + ([args.at] if args.at not in SEARCHED else [])
    runs = []
    for name in names:
        limit = [str(args.two_sessions_seconds)] if name == "two sessions" else []
        extra = {"two sessions": ("symmetric",), "default": ("compact", "fingerprints")}.get(name, ())
        for kind in ("with", "without", *extra):
            runs.append(in_child(kind, name, *limit))
            if not args.json:
                print(_line(runs[-1]), flush=True)
    default = next(r for r in runs if r["set"] == args.at and r["properties"] and not r["fingerprints"]
                   and not r["compact"])
    thin = next(r for r in runs if r["set"] == "default" and r["fingerprints"])
    packed = next(r for r in runs if r["set"] == "default" and r["compact"])
    compiled, failure = ([], "skipped: --no-compiled") if args.no_compiled else compiled_runs(runs, args.json, args.at)
    kernel = next((r for r in compiled if r["properties"]), None) if failure is None else None
    memory = in_child("bytes", "default")
    column = spin(default, args.at)
    us_per_state = column.pop("us_per_state", default["us_per_state"])
    ratio = (round(float(kernel["us_per_state"]) / float(column["spin_us_per_state"]), 1)
             if kernel and column["ratio_to_spin"] is not None else None)
    two = next((r for r in runs if r["set"] == "two sessions" and r["symmetry"]), None)
    compiler = next((cc for cc in ("gcc", "cc") if shutil.which(cc)), None)
    large: dict[str, object] = {f"spin_{name}_seconds": None for name in LARGE}
    if not (args.quick or args.no_spin_large) and column["spin_run"] is not None and compiler is not None:
        large.update(spin_large(compiler, args.spin_seconds))
    summary: dict[str, object] = {
        "python": platform.python_version(), "machine": platform.machine(), "cores": os.cpu_count(), "at": args.at,
        "us_per_state": us_per_state, "bytes_per_state": memory["bytes_per_state"],
        "bytes_per_state_compact": memory["bytes_per_state_compact"],
        "compact_us_per_state": packed["us_per_state"],
        "bytes_per_state_fingerprints": memory["bytes_per_state_fingerprints"],
        "fingerprints_us_per_state": thin["us_per_state"],
        **column,
        "compiled": failure or _compiled(kernel, next(r for r in compiled if not r["properties"]), ratio),
        "compiled_us_per_state": kernel["us_per_state"] if kernel else None,
        "compiled_ratio_to_spin": ratio,
        **({"mutants_seconds": None, "mutants_cpu_seconds": None} if args.quick else mutants_cpu()),
        **large,
        "two_sessions_seconds": two["seconds"] if two and two["complete"] else None,
        "two_sessions": None if two is None else {k: two[k] for k in ("states", "depth", "complete", "seconds")},
        "runs": runs + compiled, "bounds": {name: changed(SETS[name]) for name in names},
        # `check --workers N` (benchmarks/spread.py): at --calls 3, or the default bounds with --quick
        "workers": None if args.no_workers else spread_figures(DEFAULT_BOUNDS if args.quick else CALLS_3),
    }
    if failure and not args.no_compiled:
        print(f"compiled: {failure}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary, indent=2))
        return summary
    print(f"bytes per stored state (default, traced): {summary['bytes_per_state']}; compact (exact, packed): "
          f"{summary['bytes_per_state_compact']}; with fingerprints only (the states still to expand packed): "
          f"{summary['bytes_per_state_fingerprints']}")
    for line in stale_bytes(memory) or ["docs/engines.md's bytes a state agree with these (within 5%)"]:
        print(line)
    print(f"spin: {summary['spin']}")
    print(f"compiled: {summary['compiled']}")
    if summary["mutants_seconds"] is not None:
        print(f"pausecheck mutants: {summary['mutants_seconds']} s on {os.cpu_count()} cores, "
              f"{summary['mutants_cpu_seconds']} s of CPU")
    for name, row in (summary["workers"] or {}).items():
        print(f"spread, {name}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    for name in names:
        print(f"{name}: {changed(SETS[name])}")
    return summary


def _compiled(kernel: dict[str, object], without: dict[str, object], ratio: float | None) -> str:
    """The compiled column's line: its figures beside the interpreted search's of the same rounds, and Spin's."""
    speedup = float(kernel["interpreted_us_per_state"]) / float(kernel["us_per_state"])
    return (f"mypyc, {kernel['set']} bounds, least of {ROUNDS} alternating with the interpreted search: "
            f"{kernel['us_per_state']} us/state with every property ({speedup:.2f}x as fast as interpreted, "
            f"{kernel['interpreted_us_per_state']}), {without['us_per_state']} without (interpreted "
            f"{without['interpreted_us_per_state']}); the same {kernel['states']:,} states; "
            + (f"compiled pausecheck takes {ratio}x as long per state as Spin" if ratio else "no ratio to Spin"))


def _line(run: dict[str, object]) -> str:
    done = "complete" if run["complete"] else "INCOMPLETE (time limit)"
    how = ("symmetric" if run["symmetry"] else "fingerpr." if run["fingerprints"] else
           "compact" if run.get("compact") else "with" if run["properties"] else "without")
    name = f"{run['set']} mypyc" if run["compiled"] else run["set"]
    return (f"{name:<13} {how:<9} properties: {run['states']:>10,} states "
            f"{run['transitions']:>11,} transitions  depth {run['depth']:>2}  {run['seconds']:>7.1f} s  "
            f"{run['us_per_state']:>6.1f} us/state  {run['transitions_per_second']:>8,} transitions/s  "
            f"peak RSS {int(run['peak_rss_bytes']) // 2**20} MiB  {done}")


if __name__ == "__main__":
    sys.exit(main())

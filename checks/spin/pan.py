"""Running Spin: `spin -a`, gcc, pan; its progress relayed, its output read into a `PanRun`.

Spin and gcc are optional (Debian's `spin` and `gcc`): `missing_tools()` names what is absent, for a
one-line error. pan runs with `-c0 -e` (go on past every error, a trail for each: the assertions of
`assertions.py` report each property once) and `-n` (no list of unreached code). The store is exact,
hash-compacted (`-DHC4`: 4 bytes a state, a small chance that two states share one) or bitstate
(`-DBITSTATE`: a few bits a state, a larger chance, stated by pan's hash factor). A depth limit hit, a
memory limit hit, an interruption or a store that is not exact makes the search incomplete.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PanRun", "SpinError", "missing_tools", "STORES", "DEPTH", "HASH_BITS", "compile_model", "run_pan", "parse"]

STORES = ("exact", "hash-compact", "bitstate")
STORE_FLAGS = {"exact": (), "hash-compact": ("-DHC4",), "bitstate": ("-DBITSTATE",)}
HASH_BITS = 24  # pan's default hash table (-w): 2^24 slots; pan chains past them, slower
DEPTH = 100_000  # pan's default depth limit (-m): far past the depth of these searches; a hit is reported incomplete


class SpinError(RuntimeError):
    """Spin or gcc failed on a generated model (a defect of the generator: one line with the tool's words)."""


def missing_tools() -> str | None:
    """One line naming the Debian packages to install when `spin` or `gcc` is not on the PATH, else None."""
    missing = [tool for tool in ("spin", "gcc") if shutil.which(tool) is None]
    if not missing:
        return None
    return (f"--engine spin needs {' and '.join(missing)} on the PATH: install the Debian package"
            f"{'s' if len(missing) > 1 else ''} {' and '.join(missing)} (apt-get install -y spin gcc)")


@dataclass
class PanRun:
    """What pan printed, read: the counts, the limits it hit, and the assertions it reported (in order)."""

    output: str
    states: int = 0
    transitions: int = 0
    depth: int = 0
    memory_mb: float = 0.0
    seconds: float = 0.0
    state_vector: int = 0
    reports: list[tuple[str, int]] = field(default_factory=list)  # (flag name, trail number)
    overflows: list[str] = field(default_factory=list)  # other assertions: a successor that does not fit
    depth_hit: bool = False
    memory_hit: bool = False
    interrupted: bool = False
    hash_factor: float | None = None
    store: str = "exact"
    reduced: bool = True

    @property
    def complete(self) -> bool:
        """Every reachable state was stored exactly: no limit hit, no probabilistic store."""
        return not (self.depth_hit or self.memory_hit or self.interrupted) and self.store == "exact"


def _tool(argv: list[str], folder: Path) -> None:
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        words = (done.stderr or done.stdout).strip().splitlines()
        raise SpinError(f"{argv[0]} failed on the generated model: {words[-1] if words else done.returncode}")


def compile_model(text: str, folder: Path, store: str = "exact", reduce: bool = True,
                  memory_mb: int | None = None, optimise: str = "-O0") -> None:
    """Write the model as model.pml in `folder`, generate pan.c with spin and compile it (-O0 by default: gcc's
    time grows past linear with pan's one function of every transition; with every fault at small bounds -O1
    took 113 s against 27 s, for a search about 1.6x faster, which pays only past a few million states)."""
    (folder / "model.pml").write_text(text, encoding="utf-8")
    _tool(["spin", "-a", "-o2", "model.pml"], folder)
    flags = ["-w", "-DSAFETY", *STORE_FLAGS[store]] + ([] if reduce else ["-DNOREDUCE"])
    if memory_mb is not None:
        flags.append(f"-DMEMLIM={max(memory_mb, 64)}")
    _tool(["gcc", optimise, *flags, "-o", "pan", "pan.c"], folder)


def run_pan(folder: Path, store: str = "exact", reduce: bool = True, hash_bits: int = HASH_BITS, depth: int = DEPTH,
            progress: Callable[[str], None] | None = None, max_seconds: float | None = None) -> PanRun:
    """Run the compiled pan in `folder`; relay each progress line it prints; stop it (SIGINT, then its
    statistics) past `max_seconds`."""
    argv = ["./pan", f"-m{depth}", f"-w{hash_bits}", "-c0", "-e", "-n"]
    lines: list[str] = []
    stopped: list[bool] = []

    def stop() -> None:  # pan catches SIGINT and prints the statistics it reached
        stopped.append(True)
        proc.send_signal(signal.SIGINT)

    with subprocess.Popen(argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          bufsize=1) as proc:
        timer = None if max_seconds is None else threading.Timer(max(max_seconds, 0.0), stop)
        if timer is not None:
            timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if progress is not None and line.startswith("Depth="):
                    progress(" ".join(line.split()))
        finally:
            if timer is not None:
                timer.cancel()
            proc.wait()
    interrupted = bool(stopped)
    run = parse("".join(lines))
    run.interrupted = run.interrupted or interrupted
    run.store, run.reduced = store, reduce
    return run


def _number(pattern: str, output: str, kind: type = int) -> float | int:
    found = re.search(pattern, output)
    return kind(found.group(1)) if found else 0


def parse(output: str) -> PanRun:
    """pan's output read: counts, memory, time, limits hit and the assertions reported with their trails."""
    run = PanRun(output)
    # pan prints a count past ten million or so as a double (2.61366e+08): read either form.
    run.states = round(_number(r"([\d.e+]+) states, stored", output, float))
    run.transitions = round(_number(r"([\d.e+]+) transitions \(", output, float))
    run.depth = int(_number(r"depth reached (\d+)", output))
    run.state_vector = int(_number(r"State-vector (\d+) byte", output))
    run.memory_mb = float(_number(r"([\d.]+)\s+total actual memory usage", output, float))
    run.seconds = float(_number(r"pan: elapsed time ([\d.e+-]+) seconds", output, float))
    factor = re.search(r"hash factor: ([\d.e+]+)", output)
    run.hash_factor = float(factor.group(1)) if factor else None
    run.depth_hit = "max search depth too small" in output
    run.memory_hit = "out of memory" in output or "reached -DMEMLIM bound" in output
    run.interrupted = "Interrupted" in output
    pending: str | None = None
    for line in output.splitlines():
        violated = re.match(r"pan:\d+: assertion violated (\w+) \(at depth", line)
        if violated:
            pending = violated.group(1)
            continue
        other = re.match(r"pan:\d+: (.*)", line)
        if other and not other.group(1).startswith("wrote"):
            run.overflows.append(other.group(1))
        wrote = re.match(r"pan: wrote model\.pml(\d+)\.trail", line)
        if wrote and pending is not None:
            run.reports.append((pending, int(wrote.group(1))))
            pending = None
    return run

"""This checkout's search against an earlier revision's, timed in one run: the ratio of CPU time per state.

    python benchmarks/against.py dcc3ef7^          # the default bounds, 5 rounds (about a minute)
    python benchmarks/against.py REV --rounds 9 --json

`REV` is any git revision of this repository; its tree is exported (`git archive`) into a temporary
folder laid out as the installed package (`compiled.LAYOUT`), and each round searches the default
bounds once with each tree, with every property, with the properties both trees have (by name: a set that
grew in between is compared like for like), and without any, each search in a fresh interpreter
whose path starts with its tree. The figure is CPU time (`time.process_time` around the search, so
neither the imports nor the other processes of a loaded machine count), and each tree's best round is
compared: the rounds alternate, so a machine busier in one half of the run hurts both alike. Both
trees must store the same states and transitions, else the ratio is withheld (MISMATCH).
`ratio` above 1 means this checkout is slower per state than `REV`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from compiled import LAYOUT, ROOT

# The child: works on any revision that has Machine(properties=...), PROPERTIES and explore(machine).
# `names` is None (every property), or the names of the properties to keep ([] for none, liveness off too).
CHILD = """
import json, time
from pausecheck.model import PROPERTIES, Machine
from pausecheck.checks.search.explore import explore
import pausecheck.model.machine as where
names = {names!r}
machine = Machine() if names is None else Machine(properties=tuple(p for p in PROPERTIES if p.name in names),
                                                  liveness=() if not names else Machine().liveness)
started = time.process_time()
result = explore(machine)
cpu = time.process_time() - started
print(json.dumps({{"states": result.states, "transitions": result.transitions, "cpu": cpu, "file": where.__file__,
                  "properties": [p.name for p in machine.properties]}}))
"""


def export(revision: str, folder: Path) -> Path:
    """The tree of `revision`, laid out as the package under `folder` (the folder to put on the path)."""
    archive = subprocess.run(["git", "archive", "--format=tar", revision], cwd=ROOT, capture_output=True,
                             check=True).stdout
    source = folder / "tree"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    for top, place in LAYOUT.items():
        (folder / place).parent.mkdir(parents=True, exist_ok=True)
        (source / top).rename(folder / place)
    return folder


def search(path: Path, names: list[str] | None) -> dict[str, object]:
    """One search of the default bounds in a fresh interpreter whose path starts with `path`, with every
    property (`names` None) or those named."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", CHILD.format(names=names)], capture_output=True, text=True,
                         check=True, env=env, cwd=path)
    found = json.loads(out.stdout.splitlines()[-1])
    if not found["file"].startswith(str(path)):
        raise RuntimeError(f"the child imported pausecheck from {found['file']}, not from {path}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare with, such as dcc3ef7^ or a tag")
    parser.add_argument("--rounds", type=int, default=5, help="searches of each tree and kind (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as base, tempfile.TemporaryDirectory() as here:
        try:
            trees = {"REV": export(args.revision, Path(base)), "HEAD": export_worktree(Path(here))}
        except subprocess.CalledProcessError as error:
            print(f"against.py: git could not export {args.revision!r}: {error.stderr.decode().strip()}",
                  file=sys.stderr)
            return 2
        # "shared" is named by the first round's searches with every property, which print their names.
        kinds: dict[str, list[str] | None] = {"with": None, "shared": None, "without": []}
        best: dict[tuple[str, str], dict[str, object]] = {}
        for round_ in range(args.rounds):
            for kind in kinds:
                if kind == "shared" and kinds[kind] is None:
                    both = [set(best[tree, "with"]["properties"]) for tree in trees]
                    kinds[kind] = sorted(both[0] & both[1])
                names = kinds[kind]
                for name, path in trees.items():
                    found = search(path, names)
                    key = (name, kind)
                    if key not in best or found["cpu"] < best[key]["cpu"]:
                        best[key] = found
            if not args.json:
                print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    rows = {}
    for kind in kinds:
        old, new = best["REV", kind], best["HEAD", kind]
        same = (old["states"], old["transitions"]) == (new["states"], new["transitions"])
        rows[kind] = {
            "states": new["states"], "transitions": new["transitions"],
            "properties": len(new["properties"]), "revision_properties": len(old["properties"]),
            "us_per_state": round(new["cpu"] / new["states"] * 1e6, 2),
            "revision_us_per_state": round(old["cpu"] / old["states"] * 1e6, 2),
            "ratio": round(new["cpu"] / old["cpu"], 3) if same else None,
            "note": None if same else (f"MISMATCH: {args.revision} stores {old['states']:,} states and "
                                       f"{old['transitions']:,} transitions, this checkout {new['states']:,} and "
                                       f"{new['transitions']:,}: no ratio")}
    if args.json:
        print(json.dumps({"revision": args.revision, "rounds": args.rounds, "cpu": "process_time, best round",
                          **rows}, indent=2))
        return 0
    for how, row in rows.items():
        figure = row["note"] or f"ratio {row['ratio']} (above 1: this checkout is slower)"
        print(f"{how:<7} properties ({row['properties']} here, {row['revision_properties']} there): "
              f"{row['us_per_state']} us/state CPU here, {row['revision_us_per_state']} at {args.revision} "
              f"({row['states']:,} states); {figure}")
    return 0


def export_worktree(folder: Path) -> Path:
    """This checkout as it is on disk (uncommitted changes included), laid out as the package."""
    (folder / "pausecheck").mkdir()
    for top, place in LAYOUT.items():
        if top == "pausecheck":  # the package's own modules, copied: its folder holds the others' links
            for module in (ROOT / top).glob("*.py"):
                (folder / place / module.name).write_bytes(module.read_bytes())
        else:
            os.symlink(ROOT / top, folder / place)
    return folder


if __name__ == "__main__":
    sys.exit(main())

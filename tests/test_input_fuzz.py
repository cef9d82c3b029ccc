"""A fuzz suite for every input pausecheck reads: golden traces, runtime logs, conformance vectors and their
manifests, checkpoints, `--reading` strings and every bound flag of every command, mutated by Hypothesis
(keys deleted, types swapped, deep nesting, huge numbers, bad encodings, steps reordered or duplicated,
checkpoint seals kept right), run in process; and checkpoints forged as a holder of the key can
(`forgeries.py`), which must be
refused or change nothing. No exception may escape, an error is one line, and the exit code
must be a documented one. A few dozen examples per kind in the edit loop; at least 1,000 per kind under
the `slow` marker (CI), each kept to milliseconds so that the whole suite stays cheap."""

from __future__ import annotations

import copy
import json
import shutil
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pausecheck.checks import budget
from pausecheck.checks.cli import main
from pausecheck.checks.cli.parser import parser
from pausecheck.checks.oracle.vectors import VectorError, load_vectors
from pausecheck.checks.search.checkpoint import MAGIC, Checkpoint, CheckpointError, seal
from pausecheck.checks.search.explore import explore
from pausecheck.model import BOUND_HELP, reading_named

from .forgeries import Parts, figures, forged_case, ladder_saved, uninterrupted
from .sampling import FULL

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "traces" / "golden").glob("*.itf.json"))[:8]
LOG = ROOT / "examples" / "logs" / "reference.jsonl"
CODES = {0, 1, 2, 3}  # ok, violated, usage or input error, not established

ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=True), st.text(max_size=8),
    st.just("\ud800"), st.just([[[[[]]]]]), st.just({"": {}}), st.just(10**5000 if False else "9" * 5000),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (keys and indices), the root included."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:6]):
            out += _paths(item, prefix + (i,))
    return out


def _at(document: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    return parent, path[-1]


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> bytes:
    """The document with one to three mutations, then serialised (perhaps badly)."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(document) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _at(document, path)
        how = draw(st.sampled_from(["delete", "replace", "nest", "duplicate", "reorder"]))
        if how == "delete":
            del parent[key]
        elif how == "replace":
            parent[key] = copy.deepcopy(draw(ODD_VALUES))  # st.just values are shared: a later edit could loop them
        elif how == "nest":
            parent[key] = [parent[key]] if draw(st.booleans()) else {"x": parent[key]}
        elif isinstance(parent, list) and how == "duplicate":
            parent.insert(key, json.loads(json.dumps(parent[key])))
        elif isinstance(parent, list):
            parent.reverse()
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    return damaged(draw, text.encode("utf-8", "surrogatepass"), ["none", "none", "truncate", "bytes", "deep"])


def damaged(draw: st.DrawFn, data: bytes, kinds: list[str]) -> bytes:
    """The bytes as they are, cut short, with a few bytes inserted, or nested 5,000 deep (one of `kinds`)."""
    damage = draw(st.sampled_from(kinds))
    if damage == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if damage == "bytes":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    if damage == "deep":
        return b"[" * 5000 + data + b"]" * 5000
    return data


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    code = main(argv)
    capsys.readouterr()
    return code


FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                database=None)
FEW = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
               database=None)
# 400 in the suite (1,000 took some 45 s of it), 1,000 under PAUSECHECK_FULL=1.
MANY = settings(max_examples=1000 if FULL else 400, deadline=None, suppress_health_check=list(HealthCheck),
                derandomize=True, database=None)


def _trace_case(data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = data.draw(st.sampled_from(GOLDEN))
    raw = data.draw(mutated(json.loads(golden.read_text(encoding="utf-8"))))
    path = tmp_path / "mutated.itf.json"
    path.write_bytes(raw)
    assert _run(["replay", "--quiet", str(path)], capsys) in CODES
    assert _run(["shrink", str(path), "--out", str(tmp_path / "out.itf.json")], capsys) in CODES


def _log_case(data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    raw = data.draw(mutated(lines))
    try:  # back to JSON lines when the mutation left a list of objects; else the damaged text as it is
        entries = json.loads(raw)
        text = "".join(json.dumps(e) + "\n" for e in entries).encode() if isinstance(entries, list) else raw
    except (ValueError, RecursionError):
        text = raw
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(text)
    assert _run(["validate", str(path), "--out", str(tmp_path / "d.itf.json")], capsys) in CODES


@FAST
@given(data=st.data())
def test_mutated_traces_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _trace_case(data, tmp_path_factory.mktemp("t"), capsys)


@FAST
@given(data=st.data())
def test_mutated_logs_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _log_case(data, tmp_path_factory.mktemp("l"), capsys)


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_mutated_traces_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _trace_case(data, tmp_path_factory.mktemp("t"), capsys)


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_mutated_logs_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _log_case(data, tmp_path_factory.mktemp("l"), capsys)


# -- vectors and manifests: read by `vectors check` before any runtime is started -------------------------

VECTORS = ROOT / "examples" / "vectors"


def _vectors_case(data: st.DataObject, folder: Path, what: str) -> None:
    folder.mkdir(exist_ok=True)
    manifest = json.loads((VECTORS / "manifest.json").read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in (VECTORS / "vectors.jsonl").read_text(encoding="utf-8").splitlines()[:1]]
    if what == "manifest":
        (folder / "manifest.json").write_bytes(data.draw(mutated(manifest)))
        (folder / "vectors.jsonl").write_text("".join(json.dumps(v) + "\n" for v in lines), encoding="utf-8")
    else:
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        raw = data.draw(mutated(lines))
        try:
            entries = json.loads(raw)
            text = "".join(json.dumps(e) + "\n" for e in entries).encode() if isinstance(entries, list) else raw
        except (ValueError, RecursionError):
            text = raw
        (folder / "vectors.jsonl").write_bytes(text)
    try:
        load_vectors(folder)
    except VectorError as error:
        assert "\n" not in str(error) and str(error).startswith(str(folder)), str(error)


# -- checkpoints: a small generic model, so that re-running a checkpoint costs a millisecond ------------------


class Counter:
    """A model of 1,500 numbered states, each leading to the next two: enough for a checkpoint to be saved."""

    properties: tuple[Any, ...] = ()

    def init_states(self) -> list[int]:
        return [0]

    def successors(self, state: int) -> list[tuple[str, int]]:
        return [(f"+{k}", state + k) for k in (1, 2) if state + k < 1500]

    def is_final(self, state: int) -> bool:
        return state >= 1498

    def context(self) -> None:
        return None


@pytest.fixture(scope="module")
def saved_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    folder = tmp_path_factory.mktemp("checkpoint")
    saved = Checkpoint(folder, 0.0, ("fuzz",))
    explore(Counter(), checkpoint=saved)
    return saved.path.read_bytes()


def _checkpoint_case(data: st.DataObject, saved: bytes, folder: Path) -> None:
    body = saved[len(MAGIC):].partition(b"\n")[2]
    line, _, numbers = body.partition(b"\n")
    header = json.loads(line)
    how = data.draw(st.sampled_from(["header", "header", "numbers", "bytes"]))
    if how == "header":
        line = data.draw(mutated(header))
    elif how == "numbers":
        picked = array("q")
        picked.frombytes(numbers)
        for _ in range(data.draw(st.integers(1, 3))):
            picked[data.draw(st.integers(0, len(picked) - 1))] = data.draw(st.integers(-(2**63), 2**63 - 1))
        numbers = picked.tobytes()
    signed = line + b"\n" + numbers
    data_out = seal(signed)  # a forger holding the key: what the resume re-derives is what is tested
    if how == "bytes":
        at = data.draw(st.integers(0, len(data_out)))
        data_out = data_out[:at] + data.draw(st.binary(max_size=8)) + data_out[at + data.draw(st.integers(0, 8)):]
    folder.mkdir(exist_ok=True)
    checkpoint = Checkpoint(folder, 3600.0, ("fuzz",))
    checkpoint.path.write_bytes(data_out)
    try:
        result = explore(Counter(), checkpoint=checkpoint, resume=True)
    except CheckpointError as error:
        assert "\n" not in str(error) and "checkpoint" in str(error), str(error)
    else:  # whatever was edited, a checkpoint accepted ends as the search never stopped
        assert figures(result) == uninterrupted(Counter)


@pytest.fixture(scope="module")
def ladder_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Parts:
    return ladder_saved(tmp_path_factory.mktemp("ladder"))


# -- --reading strings ----------------------------------------------------------------------------------------

READING_PARTS = st.sampled_from(["conformant", "+", "=", "A-T5", "A-T6", "A-G1", "append", "take-first", "leave",
                                 "\n", "\x1b[31m", " ", "", "A-", "conformant+A-T5=append"])
READINGS = st.one_of(st.text(max_size=30), st.lists(READING_PARTS, max_size=6).map("".join))


def _reading_case(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        args = parser().parse_args(["check", f"--reading={text}"])
    except SystemExit as stop:
        err = capsys.readouterr().err
        assert stop.code == 2 and err.count("\n") == 1 and "\x1b" not in err, err
        return
    assert reading_named(args.reading).name


# -- every bound flag of every command, with a small time limit -----------------------------------------------

BOUNDED = {  # each command that takes the bound flags, made cheap: a runtime that cannot start, one example
    "check": ["check", "--no-companion", "--no-liveness", "--max-states", "100"],
    "report": ["report", "--out", "{tmp}/r.html", "--no-companion", "--no-liveness", "--max-states", "100"],
    "graph": ["graph", "--out", "{tmp}/g.dot", "--max-states", "200"],
    "conform": ["conform", "--", "/nonexistent/runtime"],
    "vectors": ["vectors", "check", "{tmp}/none", "--", "/nonexistent/runtime"],
    "fuzz": ["fuzz", "--examples", "1", "--steps", "3"],
    "readings": ["readings", "--jobs", "1", "--no-pairs", "--list"],
    "prove": ["prove", "--bmc", "0"],
    "consistency": ["consistency", "--only", "satisfiable", "--trigger-depth", "0"],
}
FLAG_VALUES = st.one_of(st.integers(-2, 3), st.sampled_from(["", "x", "1.5", " 1", "1e3", "10000000000", "-0",
                                                            "\n", "0x10", "1_000"]))


def _bound_flag_case(data: st.DataObject, tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = data.draw(st.sampled_from(sorted(BOUNDED)))
    argv = [a.format(tmp=tmp) for a in BOUNDED[name]]
    flags: list[str] = []
    for flag in data.draw(st.lists(st.sampled_from(sorted(BOUND_HELP)), min_size=1, max_size=3, unique=True)):
        flags += [f"--{flag.replace('_', '-')}={data.draw(FLAG_VALUES)}"]
    flags += ["--max-seconds", data.draw(st.sampled_from(["0.01", "0.05", "0", "-1", "nan", "inf"]))]
    cut = argv.index("--") if "--" in argv else len(argv)
    argv[cut:cut] = flags
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code in CODES, (argv, code, err)
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("pausecheck: ")]
        assert len(errors) == 1 and "Traceback" not in err, (argv, err)


# -- every numeric flag of every command, given a huge value ------------------------------------------------------

HUGE = "999999999999999999999"  # 10**21: past a C int and a C long; as seconds, past time_t and z3's timeout in ms
SMALL = ["--calls", "1", "--per-call", "0", "--artifacts", "0", "--pauses", "0", "--write-failures", "0",
         "--observations", "0"]
RUNTIME = ["--", sys.executable, str(ROOT / "examples" / "sqlite_runtime" / "runtime.py")]
CHEAP = {  # each command with a numeric flag of its own (the bounds aside), made cheap
    "check": ["check", *SMALL, "--no-companion", "--no-liveness"],
    "report": ["report", *SMALL, "--out", "{tmp}/r.html", "--no-companion", "--no-liveness"],
    "graph": ["graph", "--around", str(GOLDEN[0]), "--out", "{tmp}/g.dot"],
    "export": ["export", "--format", "promela", "--out", "{tmp}/m.pml"],
    "explore": ["explore"],
    "mutants": ["mutants", "--only", "take_keeps_held"],
    "readings": ["readings", *SMALL, "--no-pairs", "--list"],
    "conform": ["conform", *SMALL, *RUNTIME],
    "vectors": ["vectors", "export", "{tmp}/v", *SMALL],
    "fuzz": ["fuzz", "--examples", "1", "--steps", "3"],
    "shrink": ["shrink", str(GOLDEN[0]), "--out", "{tmp}/s.itf.json", "--runtime", *RUNTIME],
    "prove": ["prove", "--bmc", "0", *SMALL],
    "consistency": ["consistency", *SMALL, "--only", "satisfiable", "--trigger-depth", "1", "--depth", "1"],
    "diff": ["diff", "--draft", str(ROOT / "examples" / "drafts" / "take_copies.py"), *SMALL, "--z3-seconds", "0",
             "--out", "{tmp}/d"],
}
# Where a huge value means only "a lot" (a limit never reached, a depth the time limit cuts short): the command
# runs as it would just below it. Every other numeric flag refuses it in one line, with exit 2.
A_LOT = {"--max-states", "--max-sequences", "--max-vectors", "--max-memory", "--bmc", "--examples", "--steps",
         "--depth", "--trigger-depth", "--radius", "--k"}  # --k: ignored by --bmc, refused by --induction unless 1


def _numeric_flags() -> list[tuple[str, str]]:
    """(command, flag) for every flag that takes a number, the bounds aside (test_bound_flags_... has them)."""
    commands = parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    bounds = {f"--{name.replace('_', '-')}" for name in BOUND_HELP}
    return [(name, a.option_strings[-1]) for name, sub in commands.items() for a in sub._actions
            if a.option_strings and a.type not in (None, Path) and getattr(a.type, "__name__", "") != "_reading"
            and a.option_strings[-1] not in bounds]


@pytest.mark.parametrize("command, flag", _numeric_flags())
def test_a_huge_number_is_one_line_and_exit_2_or_only_a_lot(command: str, flag: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            quick_limits: None) -> None:
    argv = [a.format(tmp=tmp_path) for a in CHEAP[command]]
    if command == "vectors" and flag == "--timeout":
        argv = ["vectors", "check", str(ROOT / "examples" / "vectors"), *RUNTIME]
    if flag in ("--hash-bits", "--spin-depth") and shutil.which("spin") and shutil.which("gcc"):
        argv += ["--engine", "spin"]  # else refused as a flag of the Spin engine alone: one line, exit 2 too
    cut = argv.index("--") if "--" in argv else len(argv)
    takes_a_limit = flag != "--max-seconds" and any("--max-seconds" in a.option_strings for a in
                                                    parser()._subparsers._group_actions[0].choices[command]._actions)
    argv[cut:cut] = [f"{flag}={HUGE}"] + (["--max-seconds", "0.5"] if takes_a_limit else [])
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own exit
        code = stop.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    if flag in A_LOT:
        assert code in CODES, (argv, code, err)
        return
    errors = [line for line in err.splitlines() if line.startswith("pausecheck: ")]
    assert code == 2 and len(errors) == 1 and flag in errors[0], (argv, code, err)


def test_a_pool_asked_for_more_jobs_than_items_starts_one_per_item() -> None:
    """The API's guard behind --jobs: a pool the size asked would fork idle processes (or overflow a C int)."""
    from pausecheck.checks.search.parallel import run_all

    assert run_all(abs, [-1, -2, -3], jobs=10**21) == [1, 2, 3]


@pytest.fixture
def quick_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit's watchdog acts at once and never ends the test process."""
    monkeypatch.setattr(budget, "GRACE", 0.02)
    monkeypatch.setattr(budget, "TICK", 0.005)
    monkeypatch.setattr(budget, "HARD_STOP", 3600.0)


@FEW
@given(data=st.data())
def test_mutated_vectors_never_escape(data: st.DataObject, tmp_path: Path) -> None:
    _vectors_case(data, tmp_path, "vectors")


@FEW
@given(data=st.data())
def test_mutated_manifests_never_escape(data: st.DataObject, tmp_path: Path) -> None:
    _vectors_case(data, tmp_path, "manifest")


@FEW
@given(data=st.data())
def test_mutated_checkpoints_never_escape(data: st.DataObject, saved_checkpoint: bytes,
                                          tmp_path: Path) -> None:
    _checkpoint_case(data, saved_checkpoint, tmp_path)


@FAST
@given(data=st.data())
def test_forged_checkpoints_are_refused_or_change_nothing(data: st.DataObject, ladder_checkpoint: Parts,
                                                          tmp_path: Path) -> None:
    forged_case(data, ladder_checkpoint, tmp_path)


@FEW
@given(text=READINGS)
def test_reading_strings_never_escape(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    _reading_case(text, capsys)


@FEW
@given(data=st.data())
def test_bound_flags_of_every_command_never_escape(data: st.DataObject, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str], quick_limits: None) -> None:
    _bound_flag_case(data, tmp_path, capsys)


MANY_KINDS = MANY


@pytest.mark.slow
@MANY_KINDS
@given(data=st.data())
def test_many_mutated_vectors_never_escape(data: st.DataObject, tmp_path: Path) -> None:
    _vectors_case(data, tmp_path, "vectors")


@pytest.mark.slow
@MANY_KINDS
@given(data=st.data())
def test_many_mutated_manifests_never_escape(data: st.DataObject, tmp_path: Path) -> None:
    _vectors_case(data, tmp_path, "manifest")


@pytest.mark.slow
@MANY_KINDS
@given(data=st.data())
def test_many_mutated_checkpoints_never_escape(data: st.DataObject, saved_checkpoint: bytes,
                                               tmp_path: Path) -> None:
    _checkpoint_case(data, saved_checkpoint, tmp_path)


@pytest.mark.slow
@MANY_KINDS
@given(data=st.data())
def test_many_forged_checkpoints_are_refused_or_change_nothing(data: st.DataObject, ladder_checkpoint: Parts,
                                                               tmp_path: Path) -> None:
    forged_case(data, ladder_checkpoint, tmp_path)


@pytest.mark.slow
@MANY_KINDS
@given(text=READINGS)
def test_many_reading_strings_never_escape(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    _reading_case(text, capsys)


@pytest.mark.slow
@MANY_KINDS
@given(data=st.data())
def test_many_bound_flags_never_escape(data: st.DataObject, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str], quick_limits: None) -> None:
    _bound_flag_case(data, tmp_path, capsys)


# -- drafts: a spec author's rule table, read by every command that builds a model --------------------------

DRAFTS = sorted((ROOT / "examples" / "drafts").glob("*.py"))
# Words a slip of the pen puts in a draft: other fields, actions, edits, values, and bad Python.
DRAFT_WORDS = ["e.held", "g.taken", "g.collected", "e.status", "S.warnings", "e.messages", "message", "merged",
               "reissue", "PutBack", "Poll", "StartWriteBack", "WriteMessage", "Drop", "Replace", "Reads", "Only",
               "Effect", "()", "1", "'x'", "None", "RULES", "RULES[:3]", "(1,)", "[]", "lambda x: x", "(", ")",
               "'A-T5'", "'append'", "'sideways'", "g.collected + g.taken", "e.held.size > 0", "not", ",", ""]
DRAFT_BOUNDS = ["--sessions", "1", "--calls", "1", "--pauses", "1", "--artifacts", "1", "--write-failures", "0",
                "--observations", "0", "--held-bound", "1", "--no-liveness", "--accept-unexercised",
                "--max-states", "2000"]


@st.composite
def mutated_draft(draw: st.DrawFn) -> bytes:
    """An example draft with one to three slips: a word swapped for another, a line dropped or repeated, the
    text cut short, bytes inserted."""
    lines = draw(st.sampled_from(DRAFTS)).read_text(encoding="utf-8").splitlines()
    code = [i for i, line in enumerate(lines) if line and not line.startswith(('"', "#", "from", "import"))] or [0]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.sampled_from(code + list(range(len(lines)))))
        how = draw(st.sampled_from(["swap", "swap", "drop", "repeat"]))
        if how == "swap":
            words = [w for w in DRAFT_WORDS if w and w in lines[i]] or [lines[i].split("=")[0].strip() or "RULES"]
            lines[i] = lines[i].replace(draw(st.sampled_from(words)), draw(st.sampled_from(DRAFT_WORDS)), 1)
        elif how == "drop":
            lines[i] = ""
        else:
            lines.insert(i, lines[i])
    return damaged(draw, ("\n".join(lines) + "\n").encode(), ["none", "none", "none", "truncate", "bytes"])


def _draft_case(data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "draft.py"
    path.write_bytes(data.draw(mutated_draft()))
    for command in (["check", *DRAFT_BOUNDS], ["mutants", "--list"]):
        code = main([*command, "--draft", str(path)])
        err = capsys.readouterr().err
        assert code in CODES and "Traceback" not in err, err
        if code == 2:
            assert err.count("\n") == 1 and err.startswith(f"pausecheck: {path}"), err


@FAST
@given(data=st.data())
def test_mutated_drafts_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _draft_case(data, tmp_path_factory.mktemp("d"), capsys)


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_mutated_drafts_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _draft_case(data, tmp_path_factory.mktemp("d"), capsys)

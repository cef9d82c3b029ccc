"""Every example command line runs as its text says: those of README.md and of the docs pages that
document commands (`PAGES`: their ```sh blocks, tables and prose) and those of the `--help` epilogs of
every command. Their sample outputs are compared here too; those of the other docs pages in
`tests/test_samples.py`.

Each example runs in-process through `pausecheck.checks.cli.main` in a temporary directory: the
files it writes (`--out`, a shrunk trace) land there, and the repository files it reads
(`traces/golden/...`) are copied there first. The exit code it must give is the one its text states
("exit 1", "the exit is 0"), else 0. Where the text promises more that is cheap to check (a JSON
object, files under `--out`, a number of states), that is checked too.

The examples at the default bounds share one search: `check` is memoised on its arguments, so the
five of them cost one exploration. The examples documented to take minutes (every mutant) are slow.
"""

from __future__ import annotations

import fnmatch
import html
import json
import re
import shlex
import shutil
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import commands, main
from pausecheck.checks.cli import readings as cli_readings
from pausecheck.checks.cli.parser import parser
from pausecheck.checks.mutants import MUTANTS
from pausecheck.checks.mutants.killmatrix import kill_matrix
from pausecheck.checks.symbolic import compositional, consistency
from pausecheck.model import BOUND_HELP

from .samples import mismatch, samples

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# The pages whose every `pausecheck` command line is run here: the README and the pages that took over its
# commands, reference and limits (a page that names commands it does not mean to run stays out).
PAGES = (README, *(ROOT / "docs" / f"{name}.md" for name in
                   ("commands", "reference", "report", "engines", "limitations", "development")))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# What a placeholder of the commands table stands for when the example is run.
PLACEHOLDERS = {"FILE": "traces/golden/no_put_back.itf.json", "LOG.jsonl": "examples/logs/reference.jsonl"}
SKIPPED = ("pip install", "python -m venv", "python3 -m venv", "pytest", ". .venv/bin/activate")


@dataclass(frozen=True)
class Example:
    """One documented command line, where it is documented, and what the text around it says."""

    argv: tuple[str, ...]
    where: str
    says: str

    @property
    def exit(self) -> int:
        """The exit code the text states ("exit 1", "exits 0", "the exit is 0"), else 0."""
        stated = {int(n) for n in re.findall(r"\bexit(?:s| is| code)?:? (\d)\b", self.says)}
        assert len(stated) <= 1, f"{self.where}: the text states several exit codes {sorted(stated)}"
        return stated.pop() if stated else 0

    @property
    def slow(self) -> bool:
        """Documented to take a minute or more: every mutant explored, a runtime driven through every
        edge at the default bounds, the flip matrix, z3's consistency questions or its compositional proof."""
        every_mutant = self.argv[:1] == ("mutants",) and not {"--only", "--list"} & set(self.argv)
        ours = self.argv[:self.argv.index("--")] if "--" in self.argv else self.argv
        default_conform = ours[:1] == ("conform",) and not any(a.startswith("--") and a[2:].replace("-", "_")
                                                                  in BOUND_HELP for a in ours)
        flagged = any(a.startswith("--") and a[2:].replace("-", "_") in BOUND_HELP for a in ours)
        default_readings = ours[:1] == ("readings",) and not flagged  # one check per reading: ~35 s
        consistency = ours[:1] == ("consistency",)  # z3 over every reading: a minute or more
        compositional = ours[:2] == ("prove", "--compositional")  # z3 over two sessions: a minute or more
        return (every_mutant or "--mutants" in self.argv or default_conform or default_readings or consistency
                or compositional)

    @property
    def id(self) -> str:
        return " ".join(self.argv) or "(none)"


def _command(line: str) -> tuple[str, ...] | None:
    """The arguments of a `pausecheck ...` command line (a trailing `# comment` dropped), or None if it is
    not one to run."""
    if line.split()[:1] != ["pausecheck"]:
        return None
    words = shlex.split(line, comments=True)
    if len(words) < 2 or words[0] != "pausecheck":
        return None
    return tuple(PLACEHOLDERS.get(w, w) for w in words[1:])


def readme_examples(text: str | None = None, page: str = "README.md") -> list[Example]:
    """The `pausecheck` command lines of README.md (or of `text`, written on `page`): in ```sh blocks (each
    `&&` part that is one; the install and pytest parts are skipped, and a `# comment` says what the line
    does: its exit code), and in inline code in the prose and in tables."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found = []
    for lang, body in FENCE.findall(text):
        if lang not in ("sh", "bash", "console", "shell"):
            continue
        for line in body.splitlines():
            for part in line.split("&&"):
                part = part.strip().removeprefix("$ ")
                if part.startswith(SKIPPED):
                    continue
                argv = _command(part)
                if argv is not None:
                    found.append(Example(argv, f"{page} ```{lang}``` block", line))
    prose = FENCE.sub("", text)
    for paragraph in re.split(r"\n\s*\n", prose):
        for line in paragraph.splitlines() if paragraph.startswith("|") else [paragraph]:
            for code in re.findall(r"`([^`]+)`", line):
                argv = _command(" ".join(code.split()))
                if argv is not None:
                    where = f"{page} table" if line.startswith("|") else f"{page} prose"
                    found.append(Example(argv, where, _sentence(line, code)))
    return found


def _sentence(text: str, code: str) -> str:
    """The sentence (or table row) of `text` in which the inline `code` stands."""
    if text.startswith("|"):
        return text
    flat = " ".join(text.split())
    for sentence in re.split(r"(?<=[.;])\s+", flat):
        if " ".join(code.split()) in sentence:
            return sentence
    return flat


def page_examples() -> list[Example]:
    """The command lines of every page of PAGES, the README first."""
    return [e for path in PAGES for e in readme_examples(path.read_text(encoding="utf-8"), _name(path))]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def help_examples() -> list[Example]:
    """The `pausecheck` command lines of every command's `--help` epilog ("examples:"): a line that
    starts with `pausecheck` (continued after a trailing backslash) up to two spaces, then what it
    does, which may go on over the more deeply indented lines below it."""
    found = []
    sub = next(a for a in parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        lines = (command.epilog or "").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if not line.startswith("pausecheck "):
                continue
            while line.endswith("\\") and i < len(lines):
                line = line[:-1].rstrip() + " " + lines[i].strip()
                i += 1
            command_line, says = (re.split(r"\s{2,}", line, maxsplit=1) + [""])[:2]
            while i < len(lines) and lines[i].startswith(" " * 10) and lines[i].strip() \
                    and not lines[i].strip().startswith("pausecheck"):
                says += " " + lines[i].strip()
                i += 1
            argv = _command(command_line)
            assert argv is not None, f"`pausecheck {name} --help`: cannot read the example {line!r}"
            found.append(Example(argv, f"pausecheck {name} --help", says.strip()))
    return found


def examples() -> list[Example]:
    """Every documented example once (the first place it is documented; the texts of all of them)."""
    merged: dict[tuple[str, ...], Example] = {}
    for example in page_examples() + help_examples():
        if example.argv in merged:
            first = merged[example.argv]
            example = Example(example.argv, first.where, first.says + " / " + example.says)
        merged[example.argv] = example
    return list(merged.values())


EXAMPLES = examples()
# The sample outputs of PAGES, by the arguments of the command that prints them (one sample per command).
PAGE_SAMPLES = {tuple(PLACEHOLDERS.get(w, w) for w in s.argv): s for path in PAGES for s in samples(path, ROOT)}


def test_the_examples_are_found() -> None:
    readme = {e.argv[0] for e in readme_examples()}
    assert {"check", "report", "mutants", "replay", "shrink", "graph"} <= readme
    documented = {e.where.split()[0] for e in page_examples()}
    assert {"README.md", "docs/commands.md", "docs/reference.md", "docs/report.md"} <= documented, documented
    helped = {e.where for e in help_examples()}
    assert {"pausecheck check --help", "pausecheck report --help", "pausecheck graph --help"} <= helped
    assert ("check",) in {e.argv for e in readme_examples()}  # the end of the install line
    assert not any(a in ("pip", "pytest", "install") for e in EXAMPLES for a in e.argv)
    small = next(e for e in EXAMPLES if "--accept-unexercised" in e.argv and e.argv[0] == "check")
    assert small.where == "pausecheck check --help" and small.exit == 0 and "not exercised" in small.says


def test_example_parsing() -> None:
    text = ("```sh\npython3 -m venv .venv && pip install -e . && pausecheck check --pauses 1\n"
            "pausecheck replay x.itf.json   # exit 1: a violation\n```\n\n"
            "| `pausecheck replay FILE` | confirms it (exit 1 for a violation) |\n\n"
            "Run `pausecheck --version`. Then `pausecheck graph\n--out g.dot` writes it; `pausecheck.model` is not.\n")
    found = readme_examples(text)
    assert [(e.argv, e.exit) for e in found] == [
        (("check", "--pauses", "1"), 0), (("replay", "x.itf.json"), 1), (("replay", PLACEHOLDERS["FILE"]), 1),
        (("--version",), 0), (("graph", "--out", "g.dot"), 0)]


def _prepare(argv: tuple[str, ...], tmp: Path) -> list[str]:
    """The arguments to run in `tmp`: each repository file read is copied there (at the same relative
    path, so that what is written beside it stays there), each absolute `--out` rewritten into it."""
    out = list(argv)
    for i, arg in enumerate(out):
        source = ROOT / arg
        if not Path(arg).is_absolute() and "/" in arg and source.is_file():
            (tmp / arg).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, tmp / arg)
        elif not Path(arg).is_absolute() and "/" in arg.rstrip("/") and source.is_dir() and i and out[0] != "graph":
            shutil.copytree(source, tmp / arg, dirs_exist_ok=True)
        if i and out[i - 1] in ("--out", "--golden") and Path(arg).is_absolute():
            out[i] = str(tmp / Path(arg).name)
    return out


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # --version and --help exit through argparse
        code = stop.code if isinstance(stop.code, int) else 0
    return code, capsys.readouterr().out


# What Python leaks into prose: a tuple or list repr, an empty one, a quoted string in brackets.
REPR = re.compile(r"\(\)|\(\(|\[\]|\['|'\]|,\)")


def _plain_words(example: Example, page: str) -> None:
    """The readings section of a report speaks plain words: no Python repr, no label said twice."""
    start = page.index('<section id="readings"')
    end = page.find('<section id="', start + 1)  # the readings lead the page: the next top-level section ends them
    section = page[start:end if end > 0 else len(page)]
    section = re.sub(r"<svg.*?</svg>", "", section, flags=re.DOTALL)  # the diagrams draw, they do not tell
    prose = html.unescape(re.sub(r"<[^>]+>", "\n", section))
    for line in (line.strip() for line in prose.splitlines()):
        assert not REPR.search(line), f"{example.id}: a Python repr in the readings prose: {line}"
        assert line.count("(the conformant reading)") <= 1, f"{example.id}: said twice: {line}"


def _promises(example: Example, argv: list[str], out: str, tmp: Path) -> None:
    """What the text promises beyond the exit code, where it is cheap to check."""
    if "--json" in argv:
        assert isinstance(json.loads(out), dict)
    if "--out" in argv:
        written = tmp / argv[argv.index("--out") + 1]
        assert written.exists(), f"{example.id}: nothing written to {written}"
        if written.is_dir():
            assert any(written.glob("*.itf.json")), f"{example.id}: no trace under {written}"
        elif argv[0] == "report" and "--format" not in argv:
            assert written.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
            if "--readings" in argv:
                _plain_words(example, written.read_text(encoding="utf-8"))
    for count in re.findall(r"\b(\d[\d,]*) states\b", example.says):
        assert f"wrote {count} states" in out, f"{example.id}: the text promises {count} states"


@pytest.mark.parametrize("example", [pytest.param(e, id=e.id, marks=[pytest.mark.slow] if e.slow else [])
                                     for e in EXAMPLES])
def test_the_example_runs_as_documented(example: Example, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest,
                                        shared_check: Any, shared_clashes: Any, shared_flips: Any,
                                        shared_composition: Any) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(compositional, "prove_compositional", shared_composition)
    monkeypatch.setattr(commands, "check", shared_check)
    monkeypatch.setattr(commands, "flip_matrix", shared_flips)
    monkeypatch.setattr(cli_readings, "flip_matrix", shared_flips)
    monkeypatch.setattr(consistency, "clashes", shared_clashes)

    def shared_kill_matrix(mutants: Any, bounds: Any = None, progress: Any = None, searching: Any = None,
                           **options: Any) -> Any:
        """Every mutant at its own bounds is the session's kill matrix (minutes): computed once, in conftest."""
        mutants = tuple(mutants)
        if bounds is None and mutants == tuple(MUTANTS):
            return request.getfixturevalue("matrix")
        return kill_matrix(mutants, bounds, progress, searching, **options)

    monkeypatch.setattr(commands, "kill_matrix", shared_kill_matrix)

    def ctrl_c(self: Any, *args: Any) -> None:
        raise KeyboardInterrupt  # `explore` serves until Ctrl-C: here it is pressed as soon as it serves

    monkeypatch.setattr(ThreadingHTTPServer, "serve_forever", ctrl_c)
    monkeypatch.setenv("NO_COLOR", "1")
    argv = _prepare(example.argv, tmp_path)
    code, out = _run(capsys, argv)
    assert code == example.exit, (f"`pausecheck {example.id}` ({example.where}) exits {code}, its text says "
                                  f"{example.exit}: {example.says}\n{out[-1500:]}")
    _promises(example, argv, out, tmp_path)
    sample = PAGE_SAMPLES.get(example.argv)
    if sample is not None:  # what the page shows the command printing, it prints
        why = mismatch(sample.lines, out)
        assert why is None, f"{sample.where}: the sample output of `pausecheck {example.id}` is stale: {why}"


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether a path relative to the repository root matches a .gitignore pattern (the forms we use:
    `/anchored`, `folder/`, `*.glob`)."""
    path = path.removeprefix("./").rstrip("/")
    for pattern in patterns:
        anchored, body = pattern.startswith("/"), pattern.strip("/")
        candidates = [path] if anchored else [path, path.rsplit("/", 1)[-1]]
        if any(fnmatch.fnmatchcase(c, body) for c in candidates):
            return True
        if pattern.endswith("/") and path.startswith(body + "/"):
            return True
    return False


def test_what_the_examples_write_is_ignored_by_git() -> None:
    """Running the documented examples in a checkout leaves nothing for `git status` to show."""
    patterns = [line.strip() for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    written = set()
    for example in EXAMPLES:
        argv = list(example.argv)
        written |= {argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg in ("--out", "--golden", "--standing")}
        if argv[:2] == ["vectors", "export"]:
            written.add(argv[2])
        if argv[0] == "readings" and "--out" not in argv and "--list" not in argv:
            written.add("readings/")
        if argv[0] == "shrink":
            written.add(argv[1].removesuffix(".itf.json") + ".shrunk.itf.json")
    relative = sorted(w for w in written if not Path(w).is_absolute())
    assert "report.html" in relative and "g.dot" in relative, relative
    assert [w for w in relative if not _ignored(w, patterns)] == []
    assert not _ignored("traces/golden/no_put_back.itf.json", patterns)  # the committed traces stay tracked

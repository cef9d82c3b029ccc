"""The state explorer (`pausecheck explore`): its answers from the model, and the page driven in a
headless Chromium: two actions taken by clicking, back and forward, a trace loaded and stepped
through, the path copied as ITF, nothing fetched from elsewhere."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pausecheck.checks.browse import Explorer, ViewError, itf_of, view
from pausecheck.model import Bounds, Machine, action_to_json
from pausecheck.traces.itf import encode_state
from pausecheck.traces.render import flat_view

import pausecheck

from .browser import Browser, chromium

SMALL = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0)
GOLDEN = Path(__file__).resolve().parent.parent / "traces" / "golden" / "no_put_back.itf.json"
needs_chromium = pytest.mark.skipif(chromium() is None, reason="no Chromium installed (.ci/run installs Debian's)")


def _path(machine: Machine, choices: list[int]) -> tuple[list, list]:
    """The states and actions reached by taking, at each state, the enabled action of that index."""
    states, actions = [machine.init_states()[0]], []
    for i in choices:
        action, post = list(machine.successors(states[-1]))[i]
        states.append(post)
        actions.append(action)
    return states, actions


def test_the_view_is_the_models() -> None:
    machine = Machine(SMALL)
    states, actions = _path(machine, [0, 0, 1])
    shown = view(machine, [action_to_json(a) for a in actions])
    assert shown["fields"] == [f"{k}: {v}" for k, v in flat_view(encode_state(states[-1])).items()]
    assert [e["text"] for e in shown["enabled"]] == [str(a) for a, _ in machine.successors(states[-1])]
    assert [s["text"] for s in shown["steps"]] == [str(a) for a in actions] and shown["diagram"].startswith("<svg")
    statuses = {p["name"]: p["status"] for p in shown["properties"]}
    assert statuses["no_loss"] == "holds here" and set(statuses.values()) <= {
        "holds here", "not here", "witnessed here", "judged on the whole graph"}
    document = json.loads(itf_of(machine, [action_to_json(a) for a in actions]))
    assert pausecheck.replay(document, machine).diverged_at is None
    with pytest.raises(ViewError, match="step 2: .* is not enabled here"):
        view(machine, [action_to_json(actions[0]), action_to_json(actions[0])])


@pytest.fixture()
def served() -> Iterator[str]:
    """The explorer on the small bounds, served on a free port of 127.0.0.1 in a thread; its address."""
    server = Explorer(Machine(SMALL)).server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _ready(browser: Browser, steps: int) -> None:
    browser.wait_for(f"document.body.dataset.ready === 'yes' && document.body.dataset.steps === '{steps}'")


@needs_chromium
def test_the_page_walks_the_model(served: str, tmp_path: Path) -> None:
    machine = Machine(SMALL)
    states, actions = _path(machine, [0, 0])
    with Browser(1400) as browser:
        browser.load(served)
        _ready(browser, 0)
        for step in (1, 2):  # take two actions by clicking their buttons
            browser.evaluate("document.querySelector('#enabled button[data-index=\"0\"]').click()")
            _ready(browser, step)
        fields = browser.evaluate("document.getElementById('fields').textContent").splitlines()
        assert fields == [f"{k}: {v}" for k, v in flat_view(encode_state(states[-1])).items()]
        assert browser.evaluate("document.getElementById('last').textContent").startswith(f"[Step 2] {actions[1]}")
        buttons = browser.evaluate("[...document.querySelectorAll('#enabled button')].map(b => b.textContent)")
        assert [b.removesuffix(" (changes nothing)") for b in buttons] == [
            str(a) for a, _ in machine.successors(states[-1])]
        row = "document.querySelector('tr[data-property=\"no_loss\"]').cells[2].textContent"
        assert browser.evaluate(row) == "holds here"
        browser.evaluate("document.getElementById('back').click()")
        _ready(browser, 1)
        browser.evaluate("document.getElementById('forward').click()")
        _ready(browser, 2)
        browser.evaluate("document.getElementById('copy').click()")
        copied = browser.wait_for("document.getElementById('itf').value")
        assert pausecheck.replay(json.loads(copied), machine).steps == 2
        # a trace loaded from a file (on its own machine: mutant no_put_back), stepped through to its end
        browser.set_files("#load", [str(GOLDEN)])
        _ready(browser, 0)
        steps = len(json.loads(GOLDEN.read_text(encoding="utf-8"))["states"]) - 1
        for step in range(1, steps + 1):
            browser.evaluate("document.getElementById('forward').click()")
            _ready(browser, step)
        broken = "document.querySelector('tr[data-property=\"failed_write_back_restores\"]').cells[2].textContent"
        assert browser.evaluate(broken) == "BROKEN here"
        assert "mutant no_put_back" in browser.evaluate("document.getElementById('machine').textContent")
        assert browser.evaluate("document.documentElement.scrollWidth") <= 1400
        origins = browser.evaluate("performance.getEntriesByType('resource').map(r => new URL(r.name).origin)")
        assert origins and set(origins) == {served.rstrip("/")}  # nothing fetched but from the explorer


@pytest.mark.parametrize("argv, words", [
    (["explore", "--trace", "/nonexistent/trace.itf.json"], "no such file"),
    (["explore", "--mutant", "nosuch"], "unknown mutant 'nosuch' (pausecheck mutants --list"),
    (["explore", "--port", "70000"], "--port must be from 0 (any free port) to 65535"),
    (["explore", "--calls", "0"], "bound calls=0"),
])
def test_explore_refuses_bad_input_in_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_trace_the_page_loads_is_checked_like_a_file() -> None:
    explorer = Explorer(Machine(SMALL))
    with pytest.raises(ViewError, match="not JSON"):
        explorer.answer("load", {"text": "{"})
    text = GOLDEN.read_text(encoding="utf-8")
    answer = explorer.answer("load", {"text": text})
    assert answer["machine"]["mutant"] == "no_put_back" and len(answer["actions"]) == 9
    assert explorer.answer("view", {"actions": answer["actions"]})["machine"]["mutant"] == "no_put_back"
    with pytest.raises(ViewError, match="no such question"):
        explorer.answer("nosuch", {})


def test_the_server_answers_in_json_and_serves_nothing_else(served: str) -> None:
    import urllib.error
    import urllib.request

    from pausecheck.checks.browse.page import PAGE

    assert "http:" not in PAGE and "https:" not in PAGE and "//" not in PAGE.split("<script>")[0]
    with urllib.request.urlopen(served) as response:
        assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert response.read().decode("utf-8") == PAGE
    for url, body in ((served + "nothing", None), (served + "api/view", b"not json"),
                      (served + "api/view", b'{"actions": [{"kind": "fly"}]}')):
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(urllib.request.Request(url, data=body))
        assert caught.value.code in (400, 404) and "error" in json.loads(caught.value.read())

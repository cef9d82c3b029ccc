"""A FlowDrop runtime whose write-back is one transaction, and its adapter.

Where examples/sqlite_runtime exposes each part of a write-back (take, write, put back, report), this
runtime does what most real ones do: one transaction takes the held list and writes the assistant
message; when the write fails the transaction rolls back, so nothing was taken and nothing needs putting
back, and the failure is counted. It says so in `hello` (`"macros": ["write-back"]`), and pausecheck drives
it at that grain (docs/oracle-adapter.md, "A runtime that writes back in one transaction").

The durable state (run records, attempts, questions, messages, held lists, warnings) is one JSON document,
replaced whole on disk at the end of each step (write to a temporary file, then rename): a step commits
entirely or not at all. What a segment has collected is in memory. Imports nothing from pausecheck.

    pausecheck conform -- python examples/atomic_runtime/runtime.py
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from typing import Any

PROTOCOL = "pausecheck-oracle/1"
ACTIONS = ["start-turn", "call-tool", "tool-returns", "tool-fails", "tool-interrupts", "observe-again", "poll",
           "answer", "node-fails", "write-back"]
BUGS = {
    "commit-failed-take": "loss: a failed write still commits the take, so the held artifacts are gone",
    "failure-unreported": "the write failure is swallowed: the run's write-failure count stays as it was",
    "refused-write-lands": "a refused write leaves its message behind (the rollback misses the message table), "
                           "though the held list is kept and the failure counted",
    "keep-held": "delivery: the write copies the held list onto the message but leaves it held",
    "new-before-held": "ordering: the message lists the resumed segment's artifacts before the held ones",
}


class Refused(Exception):
    """An action this runtime cannot take in its current state."""


class Runtime:
    def __init__(self, path: str, bug: str | None = None) -> None:
        self.path, self.bug = path, bug
        self.held_bound = 0
        self.store: dict[str, Any] = {"runs": {}, "warnings": []}
        self.collected: dict[str, list[str]] = {}  # per running segment, in memory

    # -- the store: one document, committed whole ---------------------------------------------

    def commit(self, store: dict[str, Any]) -> None:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(self.path))
        with os.fdopen(fd, "w") as out:
            json.dump(store, out)
        os.replace(temporary, self.path)
        self.store = store

    def restart(self) -> None:
        """A crash and a restart: memory is gone, the store is read back."""
        self.collected.clear()
        with open(self.path) as stored:
            self.store = json.load(stored)

    # -- the protocol --------------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        kind = request.get("type")
        try:
            if kind == "hello":
                return {"ok": True, "protocol": PROTOCOL, "name": "atomic" + (f" --bug {self.bug}" if self.bug else ""),
                        "actions": ACTIONS, "readings": ["conformant"], "held": True, "restart": True,
                        "macros": ["write-back"]}
            if kind == "reset":
                self.held_bound = request["bounds"]["held_bound"]
                self.collected.clear()
                self.commit({"runs": {}, "warnings": []})
                return {"ok": True}
            if kind == "apply":
                store = copy.deepcopy(self.store)  # the transaction: committed only if the step completes
                self.apply(store, request["action"], request["payload"])
                self.commit(store)
                return {"ok": True}
            if kind == "restart":
                self.restart()
                return {"ok": True}
            if kind == "observe":
                response = {"ok": True, "observation": self.observation()}
                if request.get("held"):
                    response["held"] = {eid: run["held"] for eid, run in self.store["runs"].items()}
                return response
            raise Refused(f"unknown request type {kind!r}")
        except (Refused, KeyError, TypeError) as error:
            return {"ok": False, "error": f"{type(error).__name__}: {error}"}

    # -- the rules -----------------------------------------------------------------------------

    def apply(self, store: dict[str, Any], action: dict[str, Any], payload: dict[str, Any]) -> None:
        kind, eid = action["kind"], action.get("execution")
        if kind == "start-turn":
            eid = payload["execution"]
            store["runs"][eid] = {"session": f"s{action['session']}", "status": "running", "unhandled": 0,
                                  "write_failures": 0, "messages": [], "attempts": [], "questions": [], "held": []}
            self.collected[eid] = []
            return
        run = store["runs"][eid]
        if kind == "call-tool":
            run["attempts"].append([payload["call"], "running"])
        elif kind == "tool-returns":
            settle(run, action["call"], "running", "completed")
            self.collected[eid] += [a["payload"]["ref"] for a in payload["artifacts"]]
        elif kind == "tool-fails":
            settle(run, action["call"], "running", "failed")
        elif kind == "tool-interrupts":
            settle(run, action["call"], "running", "interrupted")
            run["questions"].append({"id": payload["question"], "call": action["call"], "status": "pending"})
            run["status"] = "paused"
            held = run["held"] + self.collected.pop(eid)
            run["held"] = held[:self.held_bound]  # over the bound: the newest are dropped, each with a warning
            store["warnings"] += [{"execution": eid, "artifact": ref} for ref in held[self.held_bound:]]
        elif kind == "answer":
            self.answer(run, eid, payload["question"], action["approve"])
        elif kind == "node-fails":
            run["unhandled"] += 0 if action["routed"] else 1
        elif kind == "write-back":
            self.write_back(run, eid, action["final"], action["ok"])
        elif kind not in ("observe-again", "poll"):
            raise Refused(f"unknown action {kind!r}")

    def answer(self, run: dict[str, Any], eid: str, question: str, approve: bool) -> None:
        asked = next(q for q in run["questions"] if q["id"] == question)
        if asked["status"] != "pending":
            return  # a late answer: nothing changes
        asked["status"] = "approved" if approve else "declined"
        settle(run, asked["call"], "interrupted", "cancelled")
        if approve:
            run["attempts"].append([asked["call"], "running"])
        run["status"] = "running"
        self.collected[eid] = []

    def write_back(self, run: dict[str, Any], eid: str, final: bool, ok: bool) -> None:
        """One transaction: take the held list and write the message; a failed write takes nothing."""
        if not ok:  # the store refused the message: the transaction rolls back, the failure is counted
            if self.bug == "commit-failed-take":
                run["held"] = []
            if self.bug == "refused-write-lands":
                run["messages"].append(run["held"] + self.collected[eid])
            if self.bug != "failure-unreported":
                run["write_failures"] += 1
            return
        collected = self.collected[eid]
        run["messages"].append(collected + run["held"] if self.bug == "new-before-held" else run["held"] + collected)
        if self.bug != "keep-held":
            run["held"] = []
        self.collected[eid] = []
        if final:
            del self.collected[eid]
            interrupted = any(status == "interrupted" for _, status in run["attempts"])
            run["status"] = "failed" if run["unhandled"] else "paused" if interrupted else "completed"

    # -- what a caller sees --------------------------------------------------------------------

    def observation(self) -> dict[str, Any]:
        turns = {}
        for eid, run in self.store["runs"].items():
            attempts: dict[str, list[str]] = {}
            for call, status in run["attempts"]:
                attempts.setdefault(call, []).append(status)
            turns[eid] = {key: run[key] for key in ("session", "status", "unhandled", "write_failures", "messages",
                                                    "questions")} | {"attempts": attempts}
        return {"turns": turns, "warnings": self.store["warnings"]}


def settle(run: dict[str, Any], call: str, old: str, new: str) -> None:
    """Move the latest attempt of `call` from `old` to `new`."""
    attempt = next((a for a in reversed(run["attempts"]) if a == [call, old]), None)
    if attempt is None:
        raise Refused(f"{call} has no {old} attempt")
    attempt[1] = new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="bugs: " + "; ".join(f"{k} ({v})" for k, v in BUGS.items()))
    parser.add_argument("--bug", choices=sorted(BUGS), help="turn on one deliberate mistake")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="flowdrop-atomic-")
    runtime = Runtime(os.path.join(folder, "store.json"), args.bug)
    try:
        for line in sys.stdin:
            try:
                response = runtime.handle(json.loads(line))
            except ValueError as error:
                response = {"ok": False, "error": f"not JSON: {error}"}
            sys.stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
            sys.stdout.flush()
    finally:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)


if __name__ == "__main__":
    main()

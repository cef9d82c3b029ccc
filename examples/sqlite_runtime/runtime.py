"""A reference FlowDrop runtime for RT-TOOL-7 and RT-GATE-6, durable in SQLite, and its adapter.

This is an implementation of the rules, not the model re-exported: it imports nothing from
pausecheck. Run records, attempts, questions, assistant messages, held lists and warnings live in
SQLite tables; each step runs in its own transaction. What a segment has in flight (the calls it
made, the artifacts it collected, what a write-back took) is volatile, in memory, as in an engine.

It speaks the pausecheck adapter protocol (docs/oracle.md) on stdin/stdout, one JSON object per
line:

    pausecheck conform --strict -- python examples/sqlite_runtime/runtime.py

`--bug NAME` turns on one realistic mistake (see BUGS) so that the oracle can be seen catching it.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

PROTOCOL = "pausecheck-oracle/1"
ACTIONS = ["start-turn", "call-tool", "tool-returns", "tool-fails", "tool-interrupts", "observe-again", "poll",
           "answer", "node-fails", "start-write-back", "write-message", "put-back", "report-failure"]

BUGS = {
    "copy-not-take": "delivery: a write-back copies the held list instead of taking it, so a retry after a "
                     "failed write delivers an artifact twice",
    "forget-on-failure": "loss: a failed write-back does not put back what it took",
    "new-before-held": "ordering: the message lists the resumed segment's artifacts before the held ones",
    "interrupt-as-failure": "attempt trail: an interrupted attempt is recorded failed",
    "question-per-observation": "questions: observing the same interrupt again raises another question",
    "tool-failure-unhandled": "verdict: a tool failure counts as an unhandled failure and fails the run",
    "drop-oldest": "bound: an overflowing held list drops its oldest artifact instead of the newest",
    "held-in-memory": "durability: held lists live in the engine's memory, not the store, so a restart loses them",
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS executions (id TEXT PRIMARY KEY, n INTEGER, session TEXT, status TEXT,
                         unhandled INTEGER, write_failures INTEGER);
CREATE TABLE IF NOT EXISTS attempts (n INTEGER PRIMARY KEY, execution TEXT, call TEXT, status TEXT);
CREATE TABLE IF NOT EXISTS questions (n INTEGER PRIMARY KEY, execution TEXT, id TEXT, call TEXT, status TEXT);
CREATE TABLE IF NOT EXISTS messages (n INTEGER PRIMARY KEY, execution TEXT, refs TEXT);
CREATE TABLE IF NOT EXISTS held (execution TEXT, position INTEGER, ref TEXT, PRIMARY KEY (execution, position));
CREATE TABLE IF NOT EXISTS warnings (n INTEGER PRIMARY KEY, execution TEXT, ref TEXT);
"""


class Refused(Exception):
    """An action this runtime cannot take in its current state."""


@dataclass
class Segment:
    """One engine pass of an execution, in memory: lost if the process dies."""

    collected: list[str] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)
    final: bool = True
    phase: str = "working"  # working, taken, write failed, put back


class Runtime:
    def __init__(self, path: str, bug: str | None = None) -> None:
        self.path = path
        self.bug = bug
        self.held_bound = 0
        self.segments: dict[str, Segment] = {}
        self.db = self.open()

    def open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        return db

    def restart(self) -> None:
        """A crash and a restart: everything in memory is gone; the store is opened again."""
        self.segments.clear()
        if self.path == ":memory:":
            return  # an in-memory store cannot outlive its connection: nothing to reopen
        self.db.close()
        self.db = self.open()
        if self.bug == "held-in-memory":  # the held lists were only ever in memory
            with self.db:
                self.db.execute("BEGIN")
                self.db.execute("DELETE FROM held")

    # -- the protocol -------------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        kind = request.get("type")
        try:
            if kind == "hello":
                return {"ok": True, "protocol": PROTOCOL, "name": "sqlite-reference" + (f" --bug {self.bug}"
                        if self.bug else ""), "actions": ACTIONS, "readings": ["conformant"], "held": True,
                        "restart": self.path != ":memory:"}
            if kind == "reset":
                self.reset(request["bounds"]["held_bound"])
                return {"ok": True}
            if kind == "apply":
                with self.db:  # one transaction per step
                    self.db.execute("BEGIN")
                    self.apply(request["action"], request["payload"])
                return {"ok": True}
            if kind == "restart":
                self.restart()
                return {"ok": True}
            if kind == "observe":
                response = {"ok": True, "observation": self.observation()}
                if request.get("held"):
                    response["held"] = self.held_lists()
                return response
            raise Refused(f"unknown request type {kind!r}")
        except (Refused, KeyError, TypeError) as error:
            return {"ok": False, "error": f"{type(error).__name__}: {error}"}

    def reset(self, held_bound: int) -> None:
        with self.db:
            self.db.execute("BEGIN")
            for table in ("executions", "attempts", "questions", "messages", "held", "warnings"):
                self.db.execute(f"DELETE FROM {table}")
        self.segments.clear()
        self.held_bound = held_bound

    # -- the rules ----------------------------------------------------------------------------

    def apply(self, action: dict[str, Any], payload: dict[str, Any]) -> None:
        kind = action["kind"]
        execution = action.get("execution")
        if kind == "start-turn":
            self.db.execute("INSERT INTO executions VALUES (?, (SELECT COUNT(*) + 1 FROM executions), ?, "
                            "'running', 0, 0)", (payload["execution"], f"s{action['session']}"))
            self.segments[payload["execution"]] = Segment()
        elif kind == "call-tool":
            self.segment(execution)
            self.db.execute("INSERT INTO attempts (execution, call, status) VALUES (?, ?, 'running')",
                            (execution, payload["call"]))
        elif kind == "tool-returns":
            self.settle(execution, action["call"], "running", "completed")
            self.segment(execution).collected += [a["payload"]["ref"] for a in payload["artifacts"]]
        elif kind == "tool-fails":
            self.settle(execution, action["call"], "running", "failed")
            if self.bug == "tool-failure-unhandled":
                self.db.execute("UPDATE executions SET unhandled = unhandled + 1 WHERE id = ?", (execution,))
        elif kind == "tool-interrupts":
            self.pause(execution, action["call"], payload["question"])
        elif kind == "observe-again":
            if self.bug == "question-per-observation":
                call, = self.one("SELECT call FROM questions WHERE execution = ? ORDER BY n DESC LIMIT 1", execution)
                count, = self.one("SELECT COUNT(*) FROM questions WHERE execution = ?", execution)
                self.db.execute("INSERT INTO questions (execution, id, call, status) VALUES (?, ?, ?, 'pending')",
                                (execution, f"q{count + 1}", call))
        elif kind == "poll":
            self.one("SELECT status FROM executions WHERE id = ?", execution)
        elif kind == "answer":
            self.answer(execution, payload["question"], action["approve"])
        elif kind == "node-fails":
            if not action["routed"]:
                self.db.execute("UPDATE executions SET unhandled = unhandled + 1 WHERE id = ?", (execution,))
        elif kind in ("start-write-back", "write-message", "put-back", "report-failure"):
            self.write_back(kind, execution, action)
        else:
            raise Refused(f"unknown action {kind!r}")

    def one(self, sql: str, *args: Any) -> tuple[Any, ...]:
        row = self.db.execute(sql, args).fetchone()
        if row is None:
            raise Refused(f"nothing found for {args}")
        return row

    def segment(self, execution: str) -> Segment:
        if execution not in self.segments:
            raise Refused(f"{execution} has no segment running")
        return self.segments[execution]

    def settle(self, execution: str, call: str, old: str, new: str) -> None:
        """Move the latest attempt of `call` from `old` to `new`."""
        n, = self.one("SELECT MAX(n) FROM attempts WHERE execution = ? AND call = ? AND status = ?",
                      execution, call, old)
        if n is None:
            raise Refused(f"{execution} {call} has no {old} attempt")
        self.db.execute("UPDATE attempts SET status = ? WHERE n = ?", (new, n))

    def held(self, execution: str) -> list[tuple[int, str]]:
        return self.db.execute("SELECT position, ref FROM held WHERE execution = ? ORDER BY position",
                               (execution,)).fetchall()

    def pause(self, execution: str, call: str, question: str) -> None:
        """The attempt is interrupted, one question raised, the run paused, what was collected held."""
        self.settle(execution, call, "running", "failed" if self.bug == "interrupt-as-failure" else "interrupted")
        self.db.execute("INSERT INTO questions (execution, id, call, status) VALUES (?, ?, ?, 'pending')",
                        (execution, question, call))
        self.db.execute("UPDATE executions SET status = 'paused' WHERE id = ?", (execution,))
        segment = self.segments.pop(execution)
        held = [ref for _, ref in self.held(execution)] + segment.collected
        keep = held[len(held) - self.held_bound:] if self.bug == "drop-oldest" else held[:self.held_bound]
        dropped = [ref for ref in held if ref not in keep]
        self.db.execute("DELETE FROM held WHERE execution = ?", (execution,))
        self.db.executemany("INSERT INTO held VALUES (?, ?, ?)", [(execution, i, ref) for i, ref in enumerate(keep)])
        self.db.executemany("INSERT INTO warnings (execution, ref) VALUES (?, ?)", [(execution, r) for r in dropped])

    def answer(self, execution: str, question: str, approve: bool) -> None:
        call, status = self.one("SELECT call, status FROM questions WHERE execution = ? AND id = ?",
                                execution, question)
        if status != "pending":
            return  # a late answer from another tab: nothing changes
        self.db.execute("UPDATE questions SET status = ? WHERE execution = ? AND id = ?",
                        ("approved" if approve else "declined", execution, question))
        self.settle(execution, call, "interrupted", "cancelled")
        if approve:  # the consumer re-issues the call: a new attempt of its own
            self.db.execute("INSERT INTO attempts (execution, call, status) VALUES (?, ?, 'running')",
                            (execution, call))
        self.db.execute("UPDATE executions SET status = 'running' WHERE id = ?", (execution,))
        self.segments[execution] = Segment()

    def write_back(self, kind: str, execution: str, action: dict[str, Any]) -> None:
        segment = self.segment(execution)
        if kind == "start-write-back":
            segment.taken, segment.final, segment.phase = [ref for _, ref in self.held(execution)], action["final"], \
                "taken"
            if self.bug != "copy-not-take":
                self.db.execute("DELETE FROM held WHERE execution = ?", (execution,))
        elif kind == "write-message" and not action["ok"]:
            segment.phase = "write failed"  # the store refused the message: nothing was written
        elif kind == "write-message":
            refs = segment.collected + segment.taken if self.bug == "new-before-held" else \
                segment.taken + segment.collected
            self.db.execute("INSERT INTO messages (execution, refs) VALUES (?, ?)", (execution, json.dumps(refs)))
            segment.taken, segment.collected, segment.phase = [], [], "working"
            if segment.final:
                del self.segments[execution]
                self.db.execute("UPDATE executions SET status = ? WHERE id = ?", (self.verdict(execution), execution))
        elif kind == "put-back":
            if self.bug != "forget-on-failure":
                first = min([p for p, _ in self.held(execution)], default=0)
                self.db.executemany("INSERT INTO held VALUES (?, ?, ?)",
                                    [(execution, first - len(segment.taken) + i, ref)
                                     for i, ref in enumerate(segment.taken)])
            segment.taken, segment.phase = [], "put back"
        else:  # report-failure: the segment keeps what it collected and will retry the write-back
            self.db.execute("UPDATE executions SET write_failures = write_failures + 1 WHERE id = ?", (execution,))
            segment.phase = "working"

    def verdict(self, execution: str) -> str:
        """ORC-11: failed on an unhandled failure, paused on an interrupted attempt, else completed."""
        unhandled, = self.one("SELECT unhandled FROM executions WHERE id = ?", execution)
        interrupted, = self.one("SELECT COUNT(*) FROM attempts WHERE execution = ? AND status = 'interrupted'",
                                execution)
        return "failed" if unhandled else "paused" if interrupted else "completed"

    # -- what a caller sees -------------------------------------------------------------------

    def observation(self) -> dict[str, Any]:
        turns = {}
        for eid, session, status, unhandled, failures in self.db.execute(
                "SELECT id, session, status, unhandled, write_failures FROM executions ORDER BY n"):
            attempts: dict[str, list[str]] = {}
            for call, state in self.db.execute("SELECT call, status FROM attempts WHERE execution = ? ORDER BY n",
                                               (eid,)):
                attempts.setdefault(call, []).append(state)
            turns[eid] = {
                "session": session, "status": status, "unhandled": unhandled, "write_failures": failures,
                "messages": [json.loads(r) for r, in self.db.execute(
                    "SELECT refs FROM messages WHERE execution = ? ORDER BY n", (eid,))],
                "attempts": attempts,
                "questions": [{"id": q, "call": c, "status": s} for q, c, s in self.db.execute(
                    "SELECT id, call, status FROM questions WHERE execution = ? ORDER BY n", (eid,))],
            }
        warnings = [{"execution": e, "artifact": r} for e, r in
                    self.db.execute("SELECT execution, ref FROM warnings ORDER BY n")]
        return {"turns": turns, "warnings": warnings}

    def held_lists(self) -> dict[str, list[str]]:
        ids = [eid for eid, in self.db.execute("SELECT id FROM executions ORDER BY n")]
        return {eid: [ref for _, ref in self.held(eid)] for eid in ids}


def serve(runtime: Runtime, stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    """Answer one JSON line per request line until stdin closes."""
    for line in stdin:
        try:
            request = json.loads(line)
        except ValueError as error:
            response: dict[str, Any] = {"ok": False, "error": f"not JSON: {error}"}
        else:
            response = runtime.handle(request)
        stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="bugs: " + "; ".join(f"{k} ({v})" for k, v in BUGS.items()))
    parser.add_argument("--db", help="the SQLite file (default: a temporary file, removed at exit)")
    parser.add_argument("--bug", choices=sorted(BUGS), help="turn on one deliberate mistake")
    args = parser.parse_args()
    if args.db:
        serve(Runtime(args.db, args.bug))
        return
    folder = tempfile.mkdtemp(prefix="flowdrop-")
    path = os.path.join(folder, "runtime.sqlite")
    try:
        serve(Runtime(path, args.bug))
    finally:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)


if __name__ == "__main__":
    main()

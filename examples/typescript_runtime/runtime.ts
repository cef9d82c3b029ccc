// A FlowDrop runtime for RT-TOOL-7 and RT-GATE-6 in TypeScript (Node 20), and its pausecheck adapter.
//
// The TypeScript twin of examples/sqlite_runtime/runtime.py, at the model's grain: every part of a
// write-back (take, write, put back, report) is a step of its own. The durable state (run records,
// attempts, questions, messages, held lists, warnings) is one JSON document, replaced whole on disk at
// the end of each step (write a temporary file, then rename it over the old one): a step commits
// entirely or not at all. What a segment has in flight (what it collected, what a write-back took) is
// in memory, as in an engine, and is lost on a restart.
//
// It speaks the pausecheck adapter protocol (docs/oracle-adapter.md) on stdin/stdout, one JSON object
// per line:
//
//     npm install && npm run build
//     pausecheck conform -- node dist/runtime.js
//
// `--bug NAME` turns on one realistic mistake (see BUGS) so that the oracle can be seen catching it.
// Node's built-ins only; nothing from pausecheck.

// -- Node's built-ins, typed here so that the kit needs no @types/node ------------------------------
// (In a project that has @types/node, delete this block and `import * as fs from "node:fs"` etc.)

declare const require: (id: string) => unknown;
declare function structuredClone<T>(value: T): T;
declare const process: {
  argv: string[];
  stdin: unknown;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
  exit(code?: number): never;
  on(event: "exit" | "SIGTERM" | "SIGINT", listener: () => void): void;
};
const fs = require("node:fs") as {
  mkdtempSync(prefix: string): string;
  writeFileSync(file: string, data: string): void;
  readFileSync(file: string, encoding: "utf8"): string;
  renameSync(from: string, to: string): void;
  rmSync(target: string, options: { recursive: boolean; force: boolean }): void;
};
const os = require("node:os") as { tmpdir(): string };
const path = require("node:path") as { join(...parts: string[]): string };
const readline = require("node:readline") as {
  createInterface(options: { input: unknown; crlfDelay: number }): {
    on(event: "line", listener: (line: string) => void): void;
    on(event: "close", listener: () => void): void;
  };
};

// -- The protocol's vocabulary ------------------------------------------------------------------------

const PROTOCOL = "pausecheck-oracle/1";
const ACTIONS = ["start-turn", "call-tool", "tool-returns", "tool-fails", "tool-interrupts", "observe-again",
  "poll", "answer", "node-fails", "start-write-back", "write-message", "put-back", "report-failure"];

const BUGS: Record<string, string> = {
  "interrupt-as-failure": "attempt trail: an interrupted attempt is recorded failed",
  "copy-not-take": "delivery: a write-back copies the held list instead of taking it",
  "forget-on-failure": "loss: a failed write-back does not put back what it took",
  "new-before-held": "ordering: the message lists the resumed segment's artifacts before the held ones",
  "drop-oldest": "bound: an overflowing held list drops its oldest artifact instead of the newest",
};

type RunStatus = "running" | "paused" | "completed" | "failed";
type AttemptStatus = "running" | "completed" | "failed" | "interrupted" | "cancelled";

interface Attempt { call: string; status: AttemptStatus }
interface Question { id: string; call: string; status: "pending" | "approved" | "declined" }
interface Warning { execution: string; artifact: string }

/** One turn's durable record: everything a caller may see, and its held list (never on the wire). */
interface Run {
  session: string;
  status: RunStatus;
  unhandled: number;
  write_failures: number;
  messages: string[][]; // each assistant message: the refs of the artifacts it carries, in order
  attempts: Attempt[]; // in creation order, every call's attempts interleaved
  questions: Question[];
  held: string[]; // RT-TOOL-7's held list
}

interface Store { runs: Record<string, Run>; warnings: Warning[] }

/** One engine pass of an execution, in memory: lost if the process dies. */
interface Segment {
  collected: string[]; // refs the tools returned in this segment, in arrival order
  taken: string[]; // what the current write-back took from the held list
  final: boolean; // whether the current write-back ends the segment
}

interface Action {
  kind: string;
  execution?: string;
  session?: number;
  call?: string;
  approve?: boolean;
  routed?: boolean;
  final?: boolean;
  ok?: boolean;
}

interface Payload {
  execution?: string;
  call?: string;
  question?: string;
  artifacts?: { payload: { ref: string } }[];
}

interface Request {
  type?: string;
  bounds?: { held_bound?: number };
  action?: Action;
  payload?: Payload;
  held?: boolean;
}

type Response = { ok: true; [key: string]: unknown } | { ok: false; error: string };

/** An action this runtime cannot take in its current state: answered `{"ok": false}`. */
class Refused extends Error {
  override name = "Refused";
}

/** A field the request must carry. */
function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Refused(`missing ${name}`);
  return value;
}

function emptyStore(): Store {
  return { runs: {}, warnings: [] };
}

// -- The runtime ----------------------------------------------------------------------------------------

class Runtime {
  private store: Store = emptyStore();
  private segments = new Map<string, Segment>();
  private heldBound = 0;

  constructor(private readonly file: string, private readonly bug?: string) {}

  /** Replace the document on disk whole: a crash leaves the old one or the new one, never half. */
  private commit(store: Store): void {
    fs.writeFileSync(this.file + ".tmp", JSON.stringify(store));
    fs.renameSync(this.file + ".tmp", this.file);
    this.store = store;
  }

  /** A crash and a restart: memory is gone, the store is read back (T7.1: held lists are durable). */
  private restart(): void {
    this.segments.clear();
    this.store = JSON.parse(fs.readFileSync(this.file, "utf8")) as Store;
  }

  handle(request: Request): Response {
    try {
      switch (request.type) {
        case "hello":
          return { ok: true, protocol: PROTOCOL, name: "typescript" + (this.bug ? ` --bug ${this.bug}` : ""),
            actions: ACTIONS, readings: ["conformant"], held: true, restart: true };
        case "reset":
          this.heldBound = need(request.bounds?.held_bound, "bounds.held_bound");
          this.segments.clear();
          this.commit(emptyStore());
          return { ok: true };
        case "apply": {
          // The transaction: a copy of the store, committed only if the step completes.
          const store = structuredClone(this.store);
          this.apply(store, need(request.action, "action"), need(request.payload, "payload"));
          this.commit(store);
          return { ok: true };
        }
        case "restart":
          this.restart();
          return { ok: true };
        case "observe": {
          const response: Response = { ok: true, observation: this.observation() };
          if (request.held) {
            response.held = Object.fromEntries(Object.entries(this.store.runs).map(([eid, run]) => [eid, run.held]));
          }
          return response;
        }
        default:
          throw new Refused(`unknown request type ${JSON.stringify(request.type)}`);
      }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  }

  // -- the rules --------------------------------------------------------------------------------------

  private apply(store: Store, action: Action, payload: Payload): void {
    if (action.kind === "start-turn") {
      const eid = need(payload.execution, "payload.execution");
      store.runs[eid] = { session: `s${need(action.session, "session")}`, status: "running", unhandled: 0,
        write_failures: 0, messages: [], attempts: [], questions: [], held: [] };
      this.segments.set(eid, { collected: [], taken: [], final: true });
      return;
    }
    const eid = need(action.execution, "execution");
    const run = store.runs[eid];
    if (run === undefined) throw new Refused(`no execution ${eid}`);
    switch (action.kind) {
      case "call-tool":
        this.segment(eid);
        run.attempts.push({ call: need(payload.call, "payload.call"), status: "running" });
        break;
      case "tool-returns":
        settle(run, need(action.call, "call"), "running", "completed");
        this.segment(eid).collected.push(...need(payload.artifacts, "payload.artifacts").map((a) => a.payload.ref));
        break;
      case "tool-fails":
        // G6.6, G6.8: a tool failure is handled by construction: recorded failed, never counted unhandled.
        settle(run, need(action.call, "call"), "running", "failed");
        break;
      case "tool-interrupts":
        this.pause(store, run, eid, need(action.call, "call"), need(payload.question, "payload.question"));
        break;
      case "observe-again": // G6.9: the same interrupt seen again raises no second question
      case "poll": // T7.3: a caller reads the turn; held artifacts stay off the wire
        break;
      case "answer":
        this.answer(run, eid, need(payload.question, "payload.question"), need(action.approve, "approve"));
        break;
      case "node-fails":
        // Only a graph-node failure without an error edge is unhandled (ERR-9, ORC-11).
        if (!need(action.routed, "routed")) run.unhandled += 1;
        break;
      case "start-write-back":
      case "write-message":
      case "put-back":
      case "report-failure":
        this.writeBack(run, eid, action);
        break;
      default:
        throw new Refused(`unknown action ${JSON.stringify(action.kind)}`);
    }
  }

  private segment(eid: string): Segment {
    const segment = this.segments.get(eid);
    if (segment === undefined) throw new Refused(`${eid} has no segment running`);
    return segment;
  }

  /** The attempt is interrupted, one question raised, the run paused, what was collected held. */
  private pause(store: Store, run: Run, eid: string, call: string, question: string): void {
    const segment = this.segment(eid);
    // G6.1, G6.2: an interrupt escaping a tool records the attempt interrupted, not failed.
    settle(run, call, "running", this.bug === "interrupt-as-failure" ? "failed" : "interrupted");
    // G6.9: exactly one question per pause.
    run.questions.push({ id: question, call, status: "pending" });
    run.status = "paused";
    this.segments.delete(eid);
    // T7.1, T7.2, T7.9: the held list (from an earlier pause) then everything this segment collected.
    const held = [...run.held, ...segment.collected];
    // T7.13, T7.14, T7.15: the list is bounded; over the bound the newest are dropped, each with a warning.
    const keep = this.bug === "drop-oldest" ? held.slice(Math.max(0, held.length - this.heldBound))
      : held.slice(0, this.heldBound);
    run.held = keep;
    for (const ref of held) {
      if (!keep.includes(ref)) store.warnings.push({ execution: eid, artifact: ref });
    }
  }

  private answer(run: Run, eid: string, id: string, approve: boolean): void {
    const question = run.questions.find((q) => q.id === id);
    if (question === undefined) throw new Refused(`${eid} has no question ${id}`);
    if (question.status !== "pending") return; // a late answer (another tab): nothing changes (G6.9)
    question.status = approve ? "approved" : "declined";
    // G6.4: the superseded interrupted attempt is closed as cancelled ...
    settle(run, question.call, "interrupted", "cancelled");
    // G6.3: ... and an approved call is re-issued as a new attempt of its own.
    if (approve) run.attempts.push({ call: question.call, status: "running" });
    run.status = "running";
    this.segments.set(eid, { collected: [], taken: [], final: true });
  }

  private writeBack(run: Run, eid: string, action: Action): void {
    const segment = this.segment(eid);
    switch (action.kind) {
      case "start-write-back":
        // T7.4, T7.7: the write-back takes the held list, and taking is destructive: it moves, never copies.
        segment.taken = [...run.held];
        segment.final = need(action.final, "final");
        if (this.bug !== "copy-not-take") run.held = [];
        break;
      case "write-message":
        if (!need(action.ok, "ok")) break; // the store refused the message: nothing was written
        // T7.5, T7.6: the held artifacts first, then what the resumed segment collected, on one message.
        run.messages.push(this.bug === "new-before-held" ? [...segment.collected, ...segment.taken]
          : [...segment.taken, ...segment.collected]);
        segment.taken = [];
        segment.collected = [];
        if (segment.final) {
          this.segments.delete(eid);
          run.status = verdict(run);
        }
        break;
      case "put-back":
        // T7.10, T7.12: a failed write puts back what it took, in front of the held list: delivery is
        // postponed, not lost.
        if (this.bug !== "forget-on-failure") run.held = [...segment.taken, ...run.held];
        segment.taken = [];
        break;
      default: // report-failure: T7.11, only after the put-back; the segment keeps what it collected and retries
        run.write_failures += 1;
    }
  }

  // -- what a caller sees -------------------------------------------------------------------------------

  private observation(): { turns: Record<string, unknown>; warnings: Warning[] } {
    const turns: Record<string, unknown> = {};
    for (const [eid, run] of Object.entries(this.store.runs)) {
      const attempts: Record<string, AttemptStatus[]> = {};
      for (const { call, status } of run.attempts) (attempts[call] ??= []).push(status);
      turns[eid] = { session: run.session, status: run.status, unhandled: run.unhandled,
        write_failures: run.write_failures, messages: run.messages, attempts, questions: run.questions };
    }
    return { turns, warnings: this.store.warnings };
  }
}

/** Move the latest attempt of `call` from `from` to `to`. */
function settle(run: Run, call: string, from: AttemptStatus, to: AttemptStatus): void {
  const attempt = run.attempts.findLast((a) => a.call === call && a.status === from);
  if (attempt === undefined) throw new Refused(`${call} has no ${from} attempt`);
  attempt.status = to;
}

/** ORC-11: failed on an unhandled failure, paused while an attempt is interrupted, else completed (G6.5). */
function verdict(run: Run): RunStatus {
  if (run.unhandled > 0) return "failed";
  return run.attempts.some((a) => a.status === "interrupted") ? "paused" : "completed";
}

// -- the adapter loop: one JSON line in, one JSON line out, in order --------------------------------------

function main(argv: string[]): void {
  let bug: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--bug" && argv[i + 1] !== undefined && Object.hasOwn(BUGS, argv[i + 1])) {
      bug = argv[++i];
    } else {
      const bugs = Object.entries(BUGS).map(([name, what]) => `  ${name}: ${what}`).join("\n");
      process.stderr.write(`usage: node dist/runtime.js [--bug NAME]\nbugs:\n${bugs}\n`);
      process.exit(argv[i] === "--help" ? 0 : 2);
    }
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "flowdrop-ts-"));
  process.on("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
  process.on("SIGTERM", () => process.exit(143));
  process.on("SIGINT", () => process.exit(130));
  const runtime = new Runtime(path.join(folder, "store.json"), bug);
  // Each line is answered before the next is read: the handler is synchronous, and writes to a pipe are
  // synchronous on Linux, so pipelined requests are answered in order.
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let response: Response;
    try {
      response = runtime.handle(JSON.parse(line) as Request);
    } catch (error) {
      response = { ok: false, error: `not JSON: ${String(error)}` };
    }
    process.stdout.write(JSON.stringify(response) + "\n");
  });
  lines.on("close", () => process.exit(0));
}

main(process.argv.slice(2));

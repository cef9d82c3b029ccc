"""The explorer's one page: HTML, style and script inline, nothing fetched from anywhere but the local
server that served it (its `/api/...` answers). The report's visual language: the same verdict
colours, the state as `field: value` lines as `pausecheck replay` prints them, the path as the
report's sequence diagram (caller, runtime, tool, store; clause ids on the arrows)."""

from __future__ import annotations

__all__ = ["PAGE"]

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #263238;
       max-width: 1360px; margin: 0 auto; padding: .6em 1.2em; }
h1 { font-size: 1.4em; margin: .2em 0; } h2 { font-size: 1.1em; border-bottom: 2px solid #cfd8dc; margin: .6em 0 .3em; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f5f7f8; border: 1px solid #e0e6e8; padding: .5em; overflow-x: auto; margin: .3em 0; }
.bar { display: flex; gap: .6em; align-items: center; flex-wrap: wrap; padding: .4em 0;
       border-bottom: 1px solid #d5dde0; }
button { font: inherit; padding: .15em .6em; cursor: pointer; }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 1.5em; }
.small { font-size: 13px; color: #546e7a; }
#enabled li { margin: .2em 0; } #enabled button { text-align: left; }
.clauses { font-size: 12px; color: #546e7a; margin-left: .4em; }
table { border-collapse: collapse; width: 100%; font-size: 13px; table-layout: fixed; }
td { overflow-wrap: anywhere; }
th, td { border: 1px solid #d5dde0; padding: .15em .4em; text-align: left; vertical-align: top; }
th { background: #eceff1; }
.status { font-weight: 600; white-space: nowrap; padding: 0 .3em; border-radius: 3px; }
.ok { color: #1b5e20; background: #e8f5e9; } .bad { color: #b71c1c; background: #ffebee; }
.muted { color: #546e7a; background: #eceff1; }
#error { color: #b71c1c; font-weight: 600; } #changed { color: #0d47a1; }
.diagram svg { max-width: 100%; height: auto; }
textarea { width: 100%; height: 10em; font: 12px ui-monospace, monospace; }
"""

_SCRIPT = r"""
"use strict";
let path = [];      // every action taken or loaded, as JSON
let cursor = 0;     // how many of them lead to the state shown
let machine = null; // bounds, reading, mutant

const $ = (id) => document.getElementById(id);

async function ask(what, body) {
  const response = await fetch("/api/" + what, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) { throw new Error(answer.error || response.statusText); }
  return answer;
}

function cell(row, text, cls) {
  const td = row.insertCell();
  if (cls) {
    const span = document.createElement("span");
    span.className = cls; span.textContent = text; td.append(span);
  } else { td.textContent = text; }
  return td;
}

function statusClass(status) {
  if (status.startsWith("BROKEN")) { return "status bad"; }
  if (status === "holds here" || status === "witnessed here") { return "status ok"; }
  return "status muted";
}

function draw(v) {
  machine = v.machine;
  $("machine").textContent = Object.entries(v.machine.bounds).map(([k, n]) => k.replace("_", "-") + "=" + n).join(" ")
    + " · reading " + v.machine.reading + (v.machine.mutant ? " · mutant " + v.machine.mutant : "");
  $("position").textContent = "step " + cursor + " of " + path.length;
  $("stepno").textContent = cursor;
  $("back").disabled = cursor === 0;
  $("forward").disabled = cursor >= path.length;
  const last = v.steps[cursor - 1];
  $("last").textContent = cursor === 0 ? "the initial state: no turn has started"
    : "[Step " + cursor + "] " + last.text + "   (" + (last.clauses.join(" ") || "environment") + ")";
  $("final").textContent = v.final ? "final: every execution has finished"
    : (v.enabled.length ? "" : "DEADLOCK: not final, nothing enabled");
  $("changed").textContent = cursor === 0 ? "" : (v.changed.join("\n") || "(this step changed no field)");
  $("fields").textContent = v.fields.join("\n");
  const list = $("enabled");
  list.replaceChildren();
  v.enabled.forEach((e, i) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = e.text + (e.changes_nothing ? " (changes nothing)" : "");
    button.dataset.index = i;
    button.addEventListener("click", () => take(e.action));
    const clauses = document.createElement("span");
    clauses.className = "clauses";
    clauses.textContent = e.clauses.join(" ") || "environment";
    li.append(button, clauses);
    list.append(li);
  });
  const table = $("properties");
  table.tBodies[0].replaceChildren();
  for (const p of v.properties) {
    const row = table.tBodies[0].insertRow();
    row.dataset.property = p.name;
    cell(row, p.name).title = p.doc;
    cell(row, p.kind); cell(row, p.status, statusClass(p.status));
    cell(row, p.clauses.join(" ")); cell(row, p.message || "");
  }
  const steps = $("steps");
  steps.replaceChildren();
  v.steps.forEach((s) => {
    const li = document.createElement("li");
    li.textContent = s.text + "   (" + (s.clauses.join(" ") || "environment") + ")";
    steps.append(li);
  });
  $("diagram").innerHTML = v.diagram;  // our own SVG, built from escaped text by the server
  document.body.dataset.steps = String(cursor);
  document.body.dataset.ready = "yes";
}

async function show() {
  document.body.dataset.ready = "no";
  try {
    $("error").textContent = "";
    draw(await ask("view", {actions: path.slice(0, cursor)}));
  } catch (error) {
    $("error").textContent = String(error.message || error);
    document.body.dataset.ready = "yes";
  }
}

function take(action) { path = path.slice(0, cursor).concat([action]); cursor += 1; show(); }
function back() { if (cursor > 0) { cursor -= 1; show(); } }
function forward() { if (cursor < path.length) { cursor += 1; show(); } }

async function load(file) {
  try {
    const answer = await ask("load", {text: await file.text()});
    path = answer.actions; cursor = 0; show();
  } catch (error) { $("error").textContent = String(error.message || error); }
}

async function copy() {
  try {
    const answer = await ask("itf", {actions: path.slice(0, cursor)});
    $("itf").hidden = false;
    $("itf").value = answer.text;
    $("itf").select();
    if (navigator.clipboard) { await navigator.clipboard.writeText(answer.text).catch(() => {}); }
  } catch (error) { $("error").textContent = String(error.message || error); }
}

window.addEventListener("DOMContentLoaded", async () => {
  $("back").addEventListener("click", back);
  $("forward").addEventListener("click", forward);
  $("copy").addEventListener("click", copy);
  $("load").addEventListener("change", (event) => { if (event.target.files[0]) { load(event.target.files[0]); } });
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "TEXTAREA") { return; }
    if (event.key === "ArrowLeft") { back(); } else if (event.key === "ArrowRight") { forward(); }
  });
  const start = await ask("start");
  path = start.actions;
  show();
});
"""

PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pausecheck explore</title>
<style>{_CSS}</style>
</head>
<body data-ready="no">
<header><h1>pausecheck explore</h1><p class="small" id="machine"></p></header>
<div class="bar">
<button id="back" title="back one step (left arrow)">&#9664; back</button>
<button id="forward" title="forward one step along the path (right arrow)">forward &#9654;</button>
<span id="position"></span>
<label class="small">load an ITF trace <input type="file" id="load" accept=".json,application/json"></label>
<button id="copy">copy the path as ITF</button>
<span id="error"></span>
</div>
<textarea id="itf" hidden readonly></textarea>
<div class="grid">
<section>
<h2>State after step <span id="stepno">0</span></h2>
<p id="last"></p><p id="final" class="small"></p>
<pre id="changed"></pre>
<details><summary class="small">every field</summary><pre id="fields"></pre></details>
<h2>Enabled actions (click one to take it)</h2>
<ol id="enabled"></ol>
</section>
<section>
<h2>Properties here</h2>
<p class="small">hover a name for its meaning; a broken property says how</p>
<table id="properties"><colgroup><col style="width: 30%"><col style="width: 14%"><col style="width: 15%">
<col style="width: 15%"><col></colgroup>
<thead><tr><th>property</th><th>kind</th><th>here</th><th>clauses</th><th>how</th></tr>
</thead><tbody></tbody></table>
</section>
</div>
<h2>The path so far</h2>
<ol id="steps"></ol>
<div class="diagram" id="diagram"></div>
<script>{_SCRIPT}</script>
</body>
</html>
"""

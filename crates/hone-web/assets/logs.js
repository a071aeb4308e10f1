// The logs panel of hone web: the session's audit logs (.hone/logs/), the tool calls with
// their results or the model requests and responses, one compact line each that opens onto
// its JSON. Lines come redacted from the server and are shown as text. Loaded before
// app.js, whose helpers ($, attempt, state) these functions use when called.
"use strict";

const logs = { kind: "tools", newest: null, seen: new Set() };

// Reads the log: from scratch, or only the entries newer than those shown.
async function readLogs(fresh) {
  if (fresh) clearLogs();
  const params = { kind: logs.kind, limit: 200 };
  if (logs.newest != null) params.after_ms = logs.newest;
  await attempt("logs.read", params);
}

function clearLogs() {
  logs.newest = null;
  logs.seen.clear();
  $("lg-list").replaceChildren();
  $("lg-note").textContent = "Reading…";
}

function size(bytes) {
  return bytes < 1024 ? bytes + " B" : (bytes / 1024).toFixed(bytes < 10240 ? 1 : 0) + " kB";
}

// Appends the entries this page asked for (another tab's answers are its own).
function showLogs(event) {
  if (!event.request_id || event.kind !== logs.kind) return;
  const note = $("lg-note");
  if (!event.enabled) {
    note.textContent = "This session writes no audit logs.";
    return;
  }
  const list = $("lg-list");
  for (const entry of event.entries) {
    const key = entry.time_ms + " " + entry.label + " " + entry.bytes + " " + entry.summary;
    if (logs.seen.has(key)) continue;
    logs.seen.add(key);
    logs.newest = Math.max(logs.newest || 0, entry.time_ms);
    list.appendChild(logLine(entry));
  }
  const count = list.children.length;
  note.textContent = count
    ? count + (logs.kind === "tools" ? " tool call" : " model exchange") + (count === 1 ? "" : "s") + (event.truncated ? " (older ones left out)" : "")
    : (logs.kind === "tools" ? "No tool call logged in this session yet." : "No model request logged in this session yet.");
}

// One entry: time, label, summary and size; opening it shows the logged JSON.
function logLine(entry) {
  const li = document.createElement("li");
  li.className = "entry" + (entry.is_error ? " failed" : "");
  li.dataset.label = entry.label;
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  const parts = [
    ["time", new Date(entry.time_ms).toLocaleTimeString()],
    ["label", entry.label],
    ["sum", entry.summary],
    ["size", size(entry.bytes)],
  ];
  for (const [cls, text] of parts) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    summary.appendChild(span);
  }
  summary.title = entry.summary;
  details.appendChild(summary);
  details.addEventListener("toggle", () => {
    if (!details.open || details.querySelector("pre")) return;
    const body = document.createElement("pre");
    body.textContent = entry.entry !== undefined && entry.entry !== null
      ? JSON.stringify(entry.entry, null, 2)
      : "Too large to show here (" + size(entry.bytes) + "): see .hone/logs/.";
    details.appendChild(body);
  });
  li.appendChild(details);
  return li;
}

// New entries after each turn, while the panel is open.
function refreshLogs() {
  if (!$("logs").hidden) readLogs(false);
}

// A new or resumed session: its own logs.
function resetLogs() {
  clearLogs();
  $("lg-note").textContent = "Not read yet.";
  refreshLogs();
}

function toggleLogs() {
  const aside = $("logs");
  aside.hidden = !aside.hidden;
  if (!aside.hidden) readLogs(true);
}

function initLogs() {
  $("btn-logs").addEventListener("click", toggleLogs);
  $("lg-refresh").addEventListener("click", () => readLogs(true));
  for (const radio of document.querySelectorAll('input[name="lg-kind"]')) {
    radio.addEventListener("change", () => {
      logs.kind = radio.value;
      readLogs(true);
    });
  }
}

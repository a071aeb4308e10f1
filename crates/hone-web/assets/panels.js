// The side panels of hone web: the saved sessions (resume, fork, export, delete) and the
// context (the window's use, the inspector, pinned files, compaction, the index's symbols). Loaded before
// app.js, whose helpers ($, attempt, button, div, state) these functions use when called.
"use strict";

// --- sessions ------------------------------------------------------------------------

async function listSessions() {
  const listed = await attempt("session.list", { limit: 50 });
  const list = $("session-list");
  list.replaceChildren();
  if (!listed) return;
  if (!listed.sessions.length) {
    const empty = document.createElement("li");
    empty.textContent = "No saved sessions yet.";
    list.appendChild(empty);
  }
  for (const summary of listed.sessions) {
    const li = document.createElement("li");
    li.dataset.session = summary.id;
    if (summary.id === state.session) li.classList.add("current");
    const title = document.createElement("div");
    title.className = "title";
    title.textContent = summary.title || "(no message yet)";
    title.title = summary.title;
    const meta = document.createElement("div");
    meta.className = "meta";
    meta.textContent = new Date(summary.updated_ms).toLocaleString() + " · " + summary.model + " · " + summary.messages + " messages";
    const row = document.createElement("div");
    row.className = "row";
    row.append(
      button("Resume", () => resume(summary.id)),
      button("Fork", () => fork(summary.id)),
      button("Export", () => exportSession(summary.id)),
      button("Delete", () => deleteSession(summary.id), summary.id === state.session),
    );
    li.append(title, meta, row);
    list.appendChild(li);
  }
}

async function leave() {
  if (state.session) await attempt("session.shutdown", {});
}

async function resume(id) {
  if (id === state.session) return;
  await leave();
  const started = await attempt("session.resume", { session_id: id });
  if (started) await showStarted(started, true);
}

async function fork(id) {
  await leave();
  const started = await attempt("session.fork", { session_id: id });
  if (started) await showStarted(started, true);
}

async function newSession() {
  await leave();
  const started = await attempt("session.new", {});
  if (started) await showStarted(started, false);
}

async function exportSession(id) {
  const exported = await attempt("session.export", { session_id: id, format: "markdown" });
  if (!exported) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([exported.text], { type: "text/markdown" }));
  link.download = "hone-" + exported.session_id + ".md";
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

async function deleteSession(id) {
  if (!confirm("Delete session " + id + " and its messages?")) return;
  if (await attempt("session.delete", { session_id: id })) listSessions();
}

function toggleSessions() {
  const aside = $("sessions");
  aside.hidden = !aside.hidden;
  if (!aside.hidden) listSessions();
}

// --- the context panel ---------------------------------------------------------------

function showUsage(event) {
  const box = $("cx-usage");
  box.replaceChildren();
  const size = event.window || state.window;
  box.appendChild(document.createTextNode(
    "Last request: " + event.used + " tokens" + (size ? " of " + size + " (" + (100 * event.used / size).toFixed(1) + "%)" : "")));
  if (size) {
    const meter = div("meter");
    const fill = document.createElement("span");
    fill.style.width = Math.min(100, 100 * event.used / size) + "%";
    meter.appendChild(fill);
    box.appendChild(meter);
  }
}

// Asks for the next request part by part (answered by a `context.inspected` event).
async function inspectContext() {
  const draft = $("cx-draft").checked ? input.value : "";
  await attempt("context.inspect", draft.trim() ? { message: draft } : {});
}

// The inspector: the total against the window, then a bar per part (its share of the
// request); pinned files can be unpinned here.
function showInspection(event) {
  const size = event.window || state.window;
  const total = $("cx-total");
  total.dataset.tokens = event.tokens;
  total.replaceChildren(document.createTextNode(event.tokens + " tokens" +
    (size ? " of " + size + " (" + (100 * event.tokens / size).toFixed(1) + "%)" : "") +
    (event.trimmed ? " · " + event.trimmed + " older messages left out to fit" : "")));
  if (size) {
    const meter = div("meter");
    const fill = document.createElement("span");
    fill.style.width = Math.min(100, 100 * event.tokens / size) + "%";
    meter.appendChild(fill);
    total.appendChild(meter);
  }
  const list = $("cx-parts");
  list.replaceChildren();
  const scale = event.tokens || 1;
  for (const part of event.parts) {
    const li = document.createElement("li");
    li.className = "part kind-" + part.kind;
    li.dataset.kind = part.kind;
    li.dataset.tokens = part.tokens;
    li.title = part.why;
    const row = div("row");
    const name = document.createElement("span");
    name.className = part.path ? "path" : "label";
    name.textContent = part.label;
    const count = document.createElement("span");
    count.className = "muted";
    count.textContent = part.tokens + " tokens · " + Math.round(100 * part.tokens / scale) + "%";
    row.append(name, count);
    if (part.path) row.appendChild(button("Unpin", () => attempt("files.untrack", { patterns: [part.path] })));
    const meter = div("meter");
    const fill = document.createElement("span");
    fill.style.width = Math.max(0.5, Math.min(100, 100 * part.tokens / scale)) + "%";
    meter.appendChild(fill);
    li.append(row, meter);
    list.appendChild(li);
  }
  if (event.pending && event.pending.length) {
    list.appendChild(Object.assign(document.createElement("li"), {
      className: "muted pending",
      textContent: "With the next message: " + event.pending.join(", "),
    }));
  }
}

// Keeps an open inspector current.
function refreshInspection() {
  if (!$("context").hidden) inspectContext();
}

function showTracked(files) {
  const list = $("cx-files");
  list.replaceChildren();
  if (!files.length) {
    list.appendChild(Object.assign(document.createElement("li"), { className: "muted", textContent: "None." }));
    return;
  }
  for (const file of files) {
    const li = document.createElement("li");
    li.dataset.path = file.path;
    const name = document.createElement("span");
    name.className = "path";
    name.textContent = file.path;
    name.title = file.path;
    const size = document.createElement("span");
    size.className = "muted";
    size.textContent = (file.mode === "outline" ? "outline · " : "") + file.tokens + " tokens";
    li.append(name, size, button("Unpin", () => attempt("files.untrack", { patterns: [file.path] })));
    list.appendChild(li);
  }
}

async function findSymbols(event) {
  event.preventDefault();
  const prefix = $("cx-prefix").value.trim();
  const list = $("cx-found");
  list.replaceChildren();
  if (!prefix) return;
  const found = await attempt("index.symbols", { prefix, limit: 50 });
  if (!found) return;
  if (!found.symbols.length) list.appendChild(Object.assign(document.createElement("li"), { className: "muted", textContent: "No symbol starts with " + prefix + "." }));
  for (const symbol of found.symbols) {
    const li = document.createElement("li");
    const name = document.createElement("span");
    name.className = "path";
    name.textContent = symbol.name;
    const where = document.createElement("span");
    where.className = "muted";
    where.textContent = symbol.location;
    li.append(name, where);
    list.appendChild(li);
  }
}

function toggleContext() {
  $("context").hidden = !$("context").hidden;
  refreshInspection();
}

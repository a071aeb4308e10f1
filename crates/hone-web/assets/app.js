// hone web: one page speaking hone's JSON-RPC protocol over a WebSocket (docs/protocol.md).
// Everything the model or a tool wrote is put in the page with textContent (or the
// renderers in markdown.js and diff.js, which build DOM nodes the same way).
"use strict";

const $ = (id) => document.getElementById(id);
const log = $("log");
const input = $("input");

const state = {
  socket: null,
  nextId: 1,
  pending: new Map(),
  session: null,        // the running session's key (its saved id, or unsaved-N)
  busy: false,
  tools: new Map(),     // call_id → the tool's <details>
  assistant: null,      // { el, text } of the reply being streamed
  thinking: null,
  approvals: [],        // approval.needed events waiting for the dialog
  tokens: { input: 0, output: 0 },
  window: null,         // the model's context window, when known
  used: null,           // the tokens of the last request, when one was made
  retry: 500,
};

// --- the socket --------------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(scheme + "://" + location.host + "/ws");
  state.socket = socket;
  setConnection("connecting…", "");
  socket.onopen = () => {
    state.retry = 500;
    setConnection("connected", "ok");
    openSession();
  };
  socket.onmessage = (message) => {
    let frame;
    try {
      frame = JSON.parse(message.data);
    } catch (_) {
      return;
    }
    if (frame.method === "event" && frame.params) onEvent(frame.params);
    else if ("id" in frame) onResponse(frame);
  };
  socket.onclose = () => {
    setConnection("disconnected: reconnecting…", "bad");
    for (const { reject } of state.pending.values()) reject(new Error("disconnected"));
    state.pending.clear();
    setBusy(false);
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 8000);
  };
}

function setConnection(text, cls) {
  const pill = $("connection");
  pill.textContent = text;
  pill.title = "hone web: " + text;
  pill.className = "pill " + cls;
}

// Sends a call; resolves with its result, rejects with its error.
function call(method, params) {
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      reject(new Error("not connected"));
      return;
    }
    state.pending.set(id, { resolve, reject });
    state.socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: params || {} }));
  });
}

function onResponse(frame) {
  const waiting = state.pending.get(frame.id);
  if (!waiting) {
    if (frame.error) notice("error: " + frame.error.message, "error");
    return;
  }
  state.pending.delete(frame.id);
  if (frame.error) waiting.reject(new Error(frame.error.message));
  else waiting.resolve(frame.result);
}

// Calls and shows a failure in the log instead of throwing.
async function attempt(method, params) {
  try {
    return await call(method, params);
  } catch (error) {
    notice(method + ": " + error.message, "error");
    return null;
  }
}

// --- sessions ----------------------------------------------------------------------

function sessionFromHash() {
  const match = location.hash.match(/session=([\w-]+)/);
  return match ? match[1] : null;
}

// Opens the session named in the URL (a reload, a second tab), else a new one.
async function openSession() {
  const wanted = sessionFromHash();
  if (wanted) {
    const started = await attempt("session.resume", { session_id: wanted });
    if (started) {
      await showStarted(started, true);
      return started;
    }
  }
  const started = await attempt("session.new", {});
  if (started) await showStarted(started, false);
  return started;
}

async function showStarted(started, withHistory) {
  state.session = started.session || null;
  state.tools.clear();
  state.assistant = null;
  state.thinking = null;
  state.tokens = { input: 0, output: 0 };
  state.used = null;
  $("st-tokens").textContent = "0 tokens";
  log.replaceChildren();
  status(started);
  if (started.session_id) history.replaceState(null, "", "#session=" + started.session_id);
  else history.replaceState(null, "", location.pathname);
  notice((started.session_id ? "session " + started.session_id : "unsaved session") + " · " + started.root + (started.forked_from ? " · forked from " + started.forked_from : ""));
  if (withHistory) {
    const past = await attempt("session.history", {});
    if (past) past.entries.forEach(showEntry);
  }
  showTracked([]);
  resetLogs();
  await loadSettings();
  if (!$("sessions").hidden) listSessions();
  scrollDown();
}

// The session's settings: its model's context window (again after a model switch).
async function loadSettings() {
  const settings = await attempt("settings.get", {});
  if (settings) {
    state.window = settings.settings.context_window || null;
    $("st-context").title = "Context window: " + (state.window || "unknown") + " tokens · sandbox: " + settings.settings.sandbox + " · index: " + settings.settings.index;
  }
  showContextUse();
}

// The last request's tokens against the current model's window, in the status bar and
// the context panel.
function showContextUse() {
  const used = state.used;
  if (used == null) {
    $("st-context").textContent = "context –";
    $("cx-usage").textContent = "No request yet.";
    return;
  }
  $("st-context").textContent = "context " + (state.window ? (100 * used / state.window).toFixed(used < state.window / 10 ? 1 : 0) + "%" : used + " tokens");
  showUsage({ used, window: state.window });
}

function status(started) {
  $("st-provider").textContent = started.provider;
  $("st-model").textContent = started.model;
  $("st-model").title = "Model " + started.model + ": click to switch (the conversation goes on)";
  $("st-approval").value = started.approval;
}

// --- the conversation ----------------------------------------------------------------

function scrollDown() {
  log.scrollTop = log.scrollHeight;
}

function add(el) {
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  log.appendChild(el);
  if (atEnd) scrollDown();
  return el;
}

function div(cls, text) {
  const el = document.createElement("div");
  el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

function button(label, action, disabled) {
  const b = document.createElement("button");
  b.textContent = label;
  b.disabled = !!disabled;
  b.addEventListener("click", action);
  return b;
}

function notice(text, cls) {
  return add(div("line " + (cls || ""), text));
}

function userMessage(text) {
  add(div("msg user", text));
}

function assistantText(text) {
  const el = add(div("msg assistant"));
  el.appendChild(renderMarkdown(text));
  return el;
}

// One line per tool call, opening onto its arguments, diff and output.
function toolLine(callId, name, args) {
  const details = document.createElement("details");
  details.className = "tool";
  details.dataset.call = callId;
  const summary = document.createElement("summary");
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const brief = document.createElement("span");
  brief.className = "brief";
  brief.textContent = " " + describe(args);
  const outcome = document.createElement("span");
  outcome.className = "outcome";
  summary.append(label, brief, outcome);
  details.appendChild(summary);
  state.tools.set(callId, details);
  add(details);
  return details;
}

function describe(args) {
  if (typeof args === "string") return args.slice(0, 120);
  if (!args || typeof args !== "object") return "";
  const first = args.path || args.command || args.pattern || args.query || args.name;
  const text = first !== undefined ? String(first) : JSON.stringify(args);
  return text.length > 120 ? text.slice(0, 117) + "…" : text;
}

function toolFor(callId, name) {
  return state.tools.get(callId) || toolLine(callId, name || "tool", {});
}

function pre(text) {
  const el = document.createElement("pre");
  el.textContent = text;
  return el;
}

function showEntry(entry) {
  switch (entry.kind) {
    case "user": userMessage(entry.text); break;
    case "assistant": if (entry.text) assistantText(entry.text); break;
    case "thinking": add(div("thinking", entry.text)); break;
    case "tool_call": toolLine(entry.call_id, entry.name, entry.arguments); break;
    case "tool_result": {
      const tool = toolFor(entry.call_id);
      tool.appendChild(pre(entry.output));
      tool.classList.add(entry.is_error ? "failed" : "done");
      break;
    }
  }
}

function streamAssistant(text) {
  if (!state.assistant) state.assistant = { el: add(div("msg assistant")), text: "", queued: false };
  const reply = state.assistant;
  reply.text += text;
  if (!reply.queued) {
    reply.queued = true;
    requestAnimationFrame(() => {
      reply.queued = false;
      reply.el.replaceChildren(renderMarkdown(reply.text));
      scrollDown();
    });
  }
}

function plural(count, word) {
  return count + " " + word + (count === 1 ? "" : "s");
}

function stats(s) {
  const tokens = s.usage.input_tokens + s.usage.output_tokens;
  return (s.duration_ms / 1000).toFixed(1) + " s · " + plural(s.model_requests, "request") + " · " + plural(s.tool_calls, "tool call") + " · " + plural(tokens, "token");
}

function setBusy(busy) {
  state.busy = busy;
  $("btn-cancel").disabled = !busy;
  document.body.classList.toggle("busy", busy);
}

function onEvent(event) {
  if (event.session && state.session && event.session !== state.session) return;
  switch (event.type) {
    case "turn.started": setBusy(true); break;
    case "message.delta": streamAssistant(event.text); break;
    case "thinking.delta":
      if (!state.thinking) state.thinking = add(div("thinking", ""));
      state.thinking.textContent += event.text;
      break;
    case "message.completed":
      if (state.assistant) state.assistant.el.replaceChildren(renderMarkdown(event.text));
      else if (event.text) assistantText(event.text);
      state.assistant = null;
      state.thinking = null;
      break;
    case "tool.requested": toolLine(event.call_id, event.name, event.arguments); break;
    case "approval.needed": askApproval(event); break;
    case "tool.approved": break;
    case "tool.denied": {
      const tool = toolFor(event.call_id);
      tool.querySelector(".outcome").textContent = " · denied: " + event.reason;
      tool.classList.add("failed");
      closeApproval(event.call_id);
      break;
    }
    case "diff.proposed": toolFor(event.call_id).appendChild(renderDiff(event.diff)); break;
    case "diff.applied": {
      const tool = toolFor(event.call_id);
      tool.querySelector(".outcome").textContent = " · wrote " + event.paths.join(", ");
      closeApproval(event.call_id);
      break;
    }
    case "tool.completed": {
      const tool = toolFor(event.call_id, event.name);
      tool.appendChild(pre(event.output));
      tool.classList.add(event.is_error ? "failed" : "done");
      closeApproval(event.call_id);
      break;
    }
    case "usage":
      state.tokens.input += event.usage.input_tokens;
      state.tokens.output += event.usage.output_tokens;
      $("st-tokens").textContent = state.tokens.input + " in · " + state.tokens.output + " out";
      break;
    case "context.usage":
      state.used = event.used;
      if (event.window) state.window = event.window;
      showContextUse();
      break;
    case "turn.completed":
      notice((event.end === "answered" ? "✓ " : "• ") + event.end.replace(/_/g, " ") + " · " + stats(event.stats), "turn-end " + (event.end === "answered" ? "ok" : ""));
      endTurn();
      break;
    case "turn.failed":
      notice("✗ " + event.error.message, "turn-end error");
      endTurn();
      break;
    case "turn.cancelled":
      notice("cancelled · " + stats(event.stats), "turn-end");
      endTurn();
      break;
    case "error": notice("error: " + event.error.message, "error"); break;
    case "warning": notice("warning: " + event.message); break;
    case "undo.completed":
      notice(event.undone.length ? "undone: " + event.undone.join("; ") : "nothing to undo");
      break;
    case "undo.failed": notice("undo failed: " + event.message, "error"); break;
    case "turn.error": {
      const detail = event.error.provider_detail ? "\n" + event.error.provider_detail : "";
      choose("The model request failed", event.error.message + detail, event.choices, (choice) => call("error.answer", { choice }));
      break;
    }
    case "edit.conflict":
      choose("The file changed", event.message, event.choices, (choice) => call("conflict.answer", { choice }));
      break;
    case "approval.mode": $("st-approval").value = event.mode; break;
    case "context.inspected": showInspection(event); break;
    case "project.files": showFiles(event); break;
    case "file.content": showFile(event); break;
    case "project.map": showMap(event); break;
    case "logs.entries": showLogs(event); break;
    case "files.tracked":
      showTracked(event.files);
      refreshInspection();
      if (event.unmatched && event.unmatched.length) notice("nothing matched: " + event.unmatched.join(", "), "error");
      if (event.skipped && event.skipped.length) notice("not pinned: " + event.skipped.join("; "), "error");
      break;
    case "checks.started": notice("checks: " + event.files.join(", ")); break;
    case "checks.completed":
      notice("checks " + (event.passed ? "passed" : "failed") + ": " + event.checks.map((c) => c.name + " " + c.status).join(", "), event.passed ? "ok" : "error");
      break;
    case "context.compacted":
      notice("context compacted: " + event.before_tokens + " → " + event.after_tokens + " tokens");
      refreshInspection();
      break;
    case "model.retrying": notice("retrying in " + Math.round(event.delay_ms / 1000) + " s: " + event.reason); break;
    case "session.started":
      status(event);
      loadSettings();
      break;
  }
}

function endTurn() {
  state.assistant = null;
  state.thinking = null;
  setBusy(false);
  if (!$("sessions").hidden) listSessions();
  refreshInspection();
  refreshLogs();
}

async function send() {
  const text = input.value;
  if (!text.trim()) return;
  input.value = "";
  userMessage(text);
  scrollDown();
  await attempt("user.message", { text });
}

// --- dialogs -------------------------------------------------------------------------

function askApproval(event) {
  state.approvals.push(event);
  if (!$("approval").open) nextApproval();
}

function nextApproval() {
  const event = state.approvals[0];
  const dialog = $("approval");
  if (!event) {
    if (dialog.open) dialog.close();
    return;
  }
  $("ap-title").textContent = "Approve " + event.name + "?";
  $("ap-summary").textContent = event.summary;
  $("ap-reason").textContent = event.reason;
  const command = $("ap-command");
  command.hidden = !event.command;
  command.textContent = event.command || "";
  showApprovalDiff(event);
  $("ap-view").hidden = !event.diff;
  const editable = event.content != null || event.command != null;
  $("ap-edit-start").hidden = !editable;
  $("ap-edit").hidden = true;
  $("ap-edit").value = event.content != null ? event.content : (event.command || "");
  $("ap-approve").textContent = "Approve";
  $("ap-deny-reason").value = "";
  if (!dialog.open) dialog.showModal();
  $("ap-approve").focus();
}

// The diff unified or side by side (the choice is remembered).
function showApprovalDiff(event) {
  const side = localStorage.getItem("hone-diff") === "side";
  for (const radio of document.querySelectorAll('input[name="ap-view"]')) radio.checked = radio.value === (side ? "side" : "unified");
  $("ap-diff").replaceChildren(...(event.diff ? [side ? renderSideBySide(event.diff) : renderDiff(event.diff)] : []));
}

// "Edit…": the new content (or the command) in a text box; Approve then sends that version.
function startEdit() {
  const box = $("ap-edit");
  box.hidden = false;
  $("ap-diff").replaceChildren();
  $("ap-view").hidden = true;
  $("ap-edit-start").hidden = true;
  $("ap-approve").textContent = "Approve edited";
  box.focus();
}

function approve() {
  const box = $("ap-edit");
  if (!box.hidden) answerApproval({ answer: "edit", replacement: box.value });
  else answerApproval({ answer: "approve" });
}

async function answerApproval(decision) {
  const event = state.approvals.shift();
  nextApproval();
  if (event) await attempt("approval.answer", { call_id: event.call_id, decision });
}

// Another tab answered (or the call ended): the dialog for it goes away.
function closeApproval(callId) {
  const before = state.approvals.length;
  state.approvals = state.approvals.filter((event) => event.call_id !== callId);
  if (state.approvals.length !== before) nextApproval();
}

function choose(title, message, choices, answer) {
  const dialog = $("choice");
  $("ch-title").textContent = title;
  $("ch-message").textContent = message;
  const buttons = $("ch-buttons");
  buttons.replaceChildren(...choices.map((choice, n) => {
    const b = button(choice.replace(/_/g, " "), async () => {
      dialog.close();
      try {
        await answer(choice);
      } catch (error) {
        notice(error.message, "error");
      }
    });
    if (n === 0) b.className = "primary";
    return b;
  }));
  if (!dialog.open) dialog.showModal();
}

// --- controls ------------------------------------------------------------------------

async function switchModel() {
  const model = prompt("Go on with this conversation on model:", $("st-model").textContent);
  if (!model || !model.trim() || model.trim() === $("st-model").textContent) return;
  const started = await attempt("session.set_model", { model: model.trim() });
  if (started) {
    status(started);
    await loadSettings();
    notice("model: " + started.model);
  }
}

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem("hone-theme", theme);
}

function init() {
  const saved = localStorage.getItem("hone-theme");
  applyTheme(saved || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  $("btn-theme").addEventListener("click", () => applyTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark"));
  $("btn-send").addEventListener("click", send);
  $("btn-cancel").addEventListener("click", () => attempt("turn.cancel", {}));
  $("btn-undo").addEventListener("click", () => attempt("undo.apply", { count: 1 }));
  $("btn-new").addEventListener("click", newSession);
  $("btn-sessions").addEventListener("click", toggleSessions);
  $("btn-refresh").addEventListener("click", listSessions);
  $("btn-context").addEventListener("click", toggleContext);
  $("st-model").addEventListener("click", switchModel);
  $("btn-compact").addEventListener("click", () => attempt("context.compact", {}));
  $("cx-pin").addEventListener("submit", (e) => {
    e.preventDefault();
    const pattern = $("cx-pattern").value.trim();
    if (!pattern) return;
    $("cx-pattern").value = "";
    attempt("files.track", { patterns: [pattern], summary: $("cx-outline").checked });
  });
  $("cx-symbols").addEventListener("submit", findSymbols);
  $("cx-inspect").addEventListener("click", inspectContext);
  $("btn-project").addEventListener("click", toggleProject);
  initLogs();
  $("pj-refresh").addEventListener("click", listFiles);
  $("vw-close").addEventListener("click", () => $("viewer").close());
  $("st-approval").addEventListener("change", (e) => attempt("session.set_approval", { mode: e.target.value }));
  $("ap-approve").addEventListener("click", approve);
  $("ap-edit-start").addEventListener("click", startEdit);
  for (const radio of document.querySelectorAll('input[name="ap-view"]')) {
    radio.addEventListener("change", () => {
      localStorage.setItem("hone-diff", radio.value);
      if (state.approvals[0]) showApprovalDiff(state.approvals[0]);
    });
  }
  $("approval").addEventListener("keydown", (e) => {
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    const action = { a: approve, d: () => $("ap-deny").click(), e: () => { if (!$("ap-edit-start").hidden) startEdit(); } }[e.key.toLowerCase()];
    if (action) { e.preventDefault(); action(); }
  });
  $("ap-always").addEventListener("click", () => answerApproval({ answer: "always_for_session" }));
  $("ap-deny").addEventListener("click", () => {
    const message = $("ap-deny-reason").value.trim();
    answerApproval({ answer: "deny", message: message || null });
  });
  $("ap-deny-reason").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); $("ap-deny").click(); }
  });
  // Esc on the approval dialog is not a denial: the dialog stays until it is answered.
  $("approval").addEventListener("cancel", (e) => e.preventDefault());
  $("choice").addEventListener("cancel", (e) => e.preventDefault());
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.busy && !document.querySelector("dialog[open]")) {
      e.preventDefault();
      attempt("turn.cancel", {});
    } else if (e.altKey && !e.ctrlKey && !e.metaKey) {
      const action = { s: toggleSessions, c: toggleContext, n: newSession, i: inspectContext, p: toggleProject, l: toggleLogs, z: () => attempt("undo.apply", { count: 1 }) }[e.key.toLowerCase()];
      if (action) { e.preventDefault(); action(); }
    }
  });
  connect();
  input.focus();
}

init();

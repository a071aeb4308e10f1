// The project panel of hone web: the files as hone's tools see them (a tree), one file
// read-only with its outline (through the session's path checks: secrets are refused), and
// the repository map. Loaded before app.js, whose helpers ($, attempt, button, div, state)
// these functions use when called.
"use strict";

const project = { wanted: null };

async function listFiles() {
  await attempt("project.files", {});
}

// The paths as nested <details>, directories first.
function showFiles(event) {
  const root = { dirs: new Map(), files: [] };
  for (const path of event.files) {
    const parts = path.split("/");
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      if (!node.dirs.has(dir)) node.dirs.set(dir, { dirs: new Map(), files: [] });
      node = node.dirs.get(dir);
    }
    node.files.push({ name: parts[parts.length - 1], path });
  }
  const tree = $("pj-tree");
  tree.replaceChildren(renderDir(root, 0));
  $("pj-note").textContent = event.files.length + " files" + (event.truncated ? " (more not listed)" : "");
}

function renderDir(node, depth) {
  const list = document.createElement("ul");
  for (const name of [...node.dirs.keys()].sort()) {
    const li = document.createElement("li");
    const details = document.createElement("details");
    details.open = depth === 0 && node.dirs.size + node.files.length < 12;
    const summary = document.createElement("summary");
    summary.textContent = name + "/";
    details.append(summary, renderDir(node.dirs.get(name), depth + 1));
    li.appendChild(details);
    list.appendChild(li);
  }
  for (const file of node.files) {
    const li = document.createElement("li");
    li.dataset.path = file.path;
    const link = button(file.name, () => openFile(file.path));
    link.className = "link file";
    li.appendChild(link);
    list.appendChild(li);
  }
  return list;
}

async function openFile(path) {
  project.wanted = path;
  await attempt("file.read", { path });
}

// A file's text with line numbers, and its outline: a click goes to the line.
function showFile(event) {
  if (event.path !== project.wanted) return;
  project.wanted = null;
  $("vw-path").textContent = event.path;
  const text = $("vw-text");
  text.replaceChildren();
  const lines = event.content.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  lines.forEach((line, n) => {
    const row = document.createElement("span");
    row.className = "l";
    row.id = "vw-line-" + (n + 1);
    const number = document.createElement("span");
    number.className = "n";
    number.textContent = String(n + 1);
    row.append(number, document.createTextNode(line));
    text.appendChild(row);
  });
  const outline = $("vw-outline");
  outline.replaceChildren();
  outline.hidden = !event.outline.length;
  for (const item of event.outline) {
    const entry = button(item.name, () => goToLine(item.line));
    entry.className = "link symbol kind-" + item.kind;
    entry.style.paddingLeft = (item.depth * 12) + "px";
    entry.title = item.kind + ", line " + item.line;
    outline.appendChild(entry);
  }
  const dialog = $("viewer");
  if (!dialog.open) dialog.showModal();
}

function goToLine(line) {
  const row = document.getElementById("vw-line-" + line);
  if (!row) return;
  for (const marked of document.querySelectorAll("#vw-text .l.at")) marked.classList.remove("at");
  row.classList.add("at");
  row.scrollIntoView({ block: "center" });
}

function showMap(event) {
  $("pj-map").textContent = event.map || "No repository map in this session (no code index when it started).";
}

function toggleProject() {
  const aside = $("project");
  aside.hidden = !aside.hidden;
  if (!aside.hidden) {
    listFiles();
    attempt("project.map", {});
  }
}

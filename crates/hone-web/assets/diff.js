// Unified diffs as coloured lines: added and removed lines, hunks and file headers; in a
// run of removed lines followed by as many added ones, the changed words are marked.
// DOM nodes and textContent only.
"use strict";

function lineSpan(cls, text) {
  const span = document.createElement("span");
  span.className = "l " + cls;
  span.textContent = text;
  return span;
}

// The line with the part between the common start and end of `line` and `other` marked.
function markedLine(cls, line, other) {
  const a = line.slice(1);
  const b = other.slice(1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const span = lineSpan(cls, "");
  span.appendChild(document.createTextNode(line[0] + a.slice(0, start)));
  const mark = document.createElement("mark");
  mark.textContent = a.slice(start, a.length - end);
  span.appendChild(mark);
  span.appendChild(document.createTextNode(a.slice(a.length - end)));
  return span;
}

function renderDiff(text) {
  const pre = document.createElement("pre");
  pre.className = "diff";
  const lines = text.replace(/\n$/, "").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith("---") || line.startsWith("+++")) {
      pre.appendChild(lineSpan("file", line));
      i++;
    } else if (line.startsWith("@@")) {
      pre.appendChild(lineSpan("hunk", line));
      i++;
    } else if (line.startsWith("-")) {
      const removed = [];
      while (i < lines.length && lines[i].startsWith("-") && !lines[i].startsWith("---")) removed.push(lines[i++]);
      const added = [];
      while (i < lines.length && lines[i].startsWith("+") && !lines[i].startsWith("+++")) added.push(lines[i++]);
      const paired = removed.length === added.length;
      removed.forEach((l, n) => pre.appendChild(paired ? markedLine("del", l, added[n]) : lineSpan("del", l)));
      added.forEach((l, n) => pre.appendChild(paired ? markedLine("add", l, removed[n]) : lineSpan("add", l)));
    } else if (line.startsWith("+")) {
      pre.appendChild(lineSpan("add", line));
      i++;
    } else {
      pre.appendChild(lineSpan("ctx", line));
      i++;
    }
  }
  return pre;
}

// The same diff side by side: the old lines on the left, the new on the right, a run of
// removed lines beside the added ones that replace it (changed words marked when paired).
function renderSideBySide(text) {
  const grid = document.createElement("div");
  grid.className = "diff side";
  const row = (left, right) => {
    grid.append(left || lineSpan("empty", ""), right || lineSpan("empty", ""));
  };
  const lines = text.replace(/\n$/, "").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith("---") || line.startsWith("+++") || line.startsWith("@@")) {
      const span = lineSpan(line.startsWith("@@") ? "hunk wide" : "file wide", line);
      grid.appendChild(span);
      i++;
    } else if (line.startsWith("-") || line.startsWith("+")) {
      const removed = [];
      while (i < lines.length && lines[i].startsWith("-") && !lines[i].startsWith("---")) removed.push(lines[i++]);
      const added = [];
      while (i < lines.length && lines[i].startsWith("+") && !lines[i].startsWith("+++")) added.push(lines[i++]);
      const paired = removed.length === added.length;
      for (let n = 0; n < Math.max(removed.length, added.length); n++) {
        const left = removed[n] === undefined ? null : (paired ? markedLine("del", removed[n], added[n]) : lineSpan("del", removed[n]));
        const right = added[n] === undefined ? null : (paired ? markedLine("add", added[n], removed[n]) : lineSpan("add", added[n]));
        row(left, right);
      }
    } else {
      row(lineSpan("ctx", line), lineSpan("ctx", line));
      i++;
    }
  }
  return grid;
}

// A small Markdown renderer for the model's answers. It builds DOM nodes with
// createElement and textContent only: no text from the model is ever parsed as HTML.
// Blocks: fenced code (highlighted), headings, lists, quotes, rules, paragraphs.
// Inline: `code`, **bold**, *emphasis*, [links](https://…) (http and https only).
"use strict";

const KEYWORDS = new Set(("as async await break case catch class const continue def default do " +
  "elif else enum export extends false fn for from func function if impl import in interface " +
  "let loop match mod mut new nil None null package pass pub raise return self Self static " +
  "struct super switch this throw true True False try type undefined use var void while with yield").split(" "));

// One token at a time: comments, strings, numbers, words, anything else.
const TOKEN = /(\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)|("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|(\b\d[\d_.]*\b)|([A-Za-z_][A-Za-z0-9_]*)|([\s\S])/g;

function highlight(code, lang) {
  const out = document.createDocumentFragment();
  const hashComments = /^(py|python|sh|bash|shell|toml|yaml|yml|rb|ruby)$/.test(lang || "");
  let plain = "";
  const flush = () => { if (plain) { out.appendChild(document.createTextNode(plain)); plain = ""; } };
  const span = (cls, text) => {
    flush();
    const s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    out.appendChild(s);
  };
  for (const m of code.matchAll(TOKEN)) {
    if (m[1] !== undefined && (m[1][0] !== "#" || hashComments)) span("hl-com", m[1]);
    else if (m[2] !== undefined) span("hl-str", m[2]);
    else if (m[3] !== undefined) span("hl-num", m[3]);
    else if (m[4] !== undefined && KEYWORDS.has(m[4])) span("hl-kw", m[4]);
    else plain += m[0];
  }
  flush();
  return out;
}

function safeHref(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (_) {
    return null;
  }
}

// Inline markup of one paragraph's text, appended to `parent`.
function inline(text, parent) {
  const pattern = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
    last = m.index + m[0].length;
    if (m[2] !== undefined) {
      const code = document.createElement("code");
      code.textContent = m[2];
      parent.appendChild(code);
    } else if (m[3] !== undefined || m[4] !== undefined) {
      const strong = document.createElement("strong");
      inline(m[3] !== undefined ? m[3] : m[4], strong);
      parent.appendChild(strong);
    } else if (m[5] !== undefined) {
      const em = document.createElement("em");
      inline(m[5], em);
      parent.appendChild(em);
    } else {
      const href = safeHref(m[7]);
      if (href) {
        const a = document.createElement("a");
        a.href = href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        inline(m[6], a);
        parent.appendChild(a);
      } else {
        parent.appendChild(document.createTextNode(m[0]));
      }
    }
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
}

// The Markdown `text` as a fragment of DOM nodes.
function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  let paragraph = [];
  const endParagraph = () => {
    if (paragraph.length) {
      const p = document.createElement("p");
      paragraph.forEach((line, n) => {
        if (n) p.appendChild(document.createElement("br"));
        inline(line, p);
      });
      out.appendChild(p);
      paragraph = [];
    }
  };
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
    if (fence) {
      endParagraph();
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.appendChild(highlight(body.join("\n"), fence[2].toLowerCase()));
      pre.appendChild(code);
      out.appendChild(pre);
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      endParagraph();
      const h = document.createElement("h" + Math.min(heading[1].length + 2, 6));
      inline(heading[2], h);
      out.appendChild(h);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      endParagraph();
      out.appendChild(document.createElement("hr"));
      i++;
      continue;
    }
    const item = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
    if (item) {
      endParagraph();
      const list = document.createElement(/\d/.test(item[1]) ? "ol" : "ul");
      while (i < lines.length) {
        const next = lines[i].match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
        if (!next) break;
        const li = document.createElement("li");
        inline(next[2], li);
        list.appendChild(li);
        i++;
      }
      out.appendChild(list);
      continue;
    }
    if (/^\s*>/.test(line)) {
      endParagraph();
      const quote = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quote.push(lines[i++].replace(/^\s*>\s?/, ""));
      const block = document.createElement("blockquote");
      block.appendChild(renderMarkdown(quote.join("\n")));
      out.appendChild(block);
      continue;
    }
    if (!line.trim()) endParagraph();
    else paragraph.push(line);
    i++;
  }
  endParagraph();
  return out;
}

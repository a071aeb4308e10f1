//! Just enough Markdown for the docs test: fenced code blocks, inline code spans (which may
//! wrap across the lines of a paragraph), relative links and GitHub's heading anchors.

/// Text found in a document, with the line it starts on.
#[derive(Debug, Clone)]
pub struct Found {
    pub line: usize,
    pub text: String,
}

/// A fenced code block: its info string (`sh`, `toml task.toml`, …) and its lines.
#[derive(Debug)]
pub struct Block {
    pub line: usize,
    pub info: String,
    pub lines: Vec<Found>,
}

/// What the docs test reads from one Markdown file.
#[derive(Debug, Default)]
pub struct Document {
    pub blocks: Vec<Block>,
    pub spans: Vec<Found>,
    pub links: Vec<Found>,
    pub anchors: Vec<String>,
}

/// Reads `text`: code blocks, the code spans and links of everything outside them, and the
/// anchors of its headings.
pub fn parse(text: &str) -> Document {
    let mut document = Document::default();
    let mut paragraph: Vec<Found> = Vec::new();
    // Headings' anchors before de-duplication: GitHub numbers repeats `-1`, `-2`, …
    let mut bases: Vec<String> = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line));
    while let Some((number, line)) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(fence) = fence_of(trimmed) {
            flush(&mut paragraph, &mut document);
            let info = trimmed[fence.len()..].trim().to_string();
            let mut block = Block {
                line: number,
                info,
                lines: Vec::new(),
            };
            for (inner_number, inner) in lines.by_ref() {
                let closing = inner.trim();
                if closing.starts_with(&fence) && closing.chars().all(|c| c == fence_char(&fence)) {
                    break;
                }
                block.lines.push(Found {
                    line: inner_number,
                    text: inner.to_string(),
                });
            }
            document.blocks.push(block);
            continue;
        }
        let own_block = trimmed.starts_with('|') || trimmed.starts_with('#');
        if trimmed.is_empty() || own_block {
            flush(&mut paragraph, &mut document);
        }
        if let Some(heading) = trimmed.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim();
            let base = slug(title);
            let earlier = bases.iter().filter(|b| **b == base).count();
            document.anchors.push(if earlier == 0 {
                base.clone()
            } else {
                format!("{base}-{earlier}")
            });
            bases.push(base);
        }
        if !trimmed.is_empty() {
            paragraph.push(Found {
                line: number,
                text: line.to_string(),
            });
        }
        if own_block {
            flush(&mut paragraph, &mut document);
        }
    }
    flush(&mut paragraph, &mut document);
    document
}

/// The opening fence of a code block (three or more backticks or tildes), if `line` is one.
fn fence_of(line: &str) -> Option<String> {
    let first = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let fence: String = line.chars().take_while(|c| *c == first).collect();
    (fence.len() >= 3).then_some(fence)
}

fn fence_char(fence: &str) -> char {
    fence.chars().next().unwrap_or('`')
}

/// Takes the code spans and links out of a paragraph (its lines joined, as Markdown does).
fn flush(paragraph: &mut Vec<Found>, document: &mut Document) {
    if paragraph.is_empty() {
        return;
    }
    let mut joined = String::new();
    let mut starts = Vec::new();
    for found in paragraph.iter() {
        starts.push((joined.len(), found.line));
        joined.push_str(&found.text);
        joined.push(' ');
    }
    let line_at = |offset: usize| {
        starts
            .iter()
            .rev()
            .find(|(start, _)| *start <= offset)
            .map_or(0, |(_, line)| *line)
    };
    let (spans, rest) = code_spans(&joined);
    for (offset, text) in spans {
        document.spans.push(Found {
            line: line_at(offset),
            text,
        });
    }
    for (offset, target) in links(&rest) {
        document.links.push(Found {
            line: line_at(offset),
            text: target,
        });
    }
    paragraph.clear();
}

/// The code spans of `text` with their offsets, and `text` with each span blanked out.
fn code_spans(text: &str) -> (Vec<(usize, String)>, String) {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut rest = text.to_string();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let run = bytes[at..].iter().take_while(|b| **b == b'`').count();
        let body = at + run;
        let close = (body..bytes.len()).find(|&end| {
            bytes[end..].iter().take_while(|b| **b == b'`').count() == run
                && (end == 0 || bytes[end - 1] != b'`')
        });
        let Some(end) = close else {
            at = body;
            continue;
        };
        let content = &text[body..end];
        let stripped = match content.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
            Some(inner) if !inner.trim().is_empty() => inner,
            _ => content,
        };
        spans.push((at, stripped.to_string()));
        rest.replace_range(at..end + run, &" ".repeat(end + run - at));
        at = end + run;
    }
    (spans, rest)
}

/// The targets of inline links `[text](target)` in `text`, with their offsets.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(position) = text[from..].find("](") {
        let start = from + position + 2;
        let Some(length) = text[start..].find(')') else {
            break;
        };
        found.push((start, text[start..start + length].trim().to_string()));
        from = start + length;
    }
    found
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
pub fn slug(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn spans_may_wrap_and_blocks_keep_their_info_string() {
    let document = parse(
        "# A `title`\n\nRun `hone exec --file\nREADME.md` now; see [usage](usage.md#a-title).\n\n\
         ```toml task.toml\nprompt = \"x\"\n```\n\n| `a \\| b` | `` `c` `` |\n",
    );
    let spans: Vec<&str> = document.spans.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        spans,
        ["title", "hone exec --file README.md", "a \\| b", "`c`"]
    );
    assert_eq!(document.spans[1].line, 3);
    assert_eq!(document.blocks[0].info, "toml task.toml");
    assert_eq!(document.blocks[0].lines[0].text, "prompt = \"x\"");
    assert_eq!(document.links[0].text, "usage.md#a-title");
    assert_eq!(document.anchors, ["a-title"]);
}

#[test]
fn anchors_follow_github() {
    assert_eq!(slug("@path mentions"), "path-mentions");
    assert_eq!(
        slug("`hone exec`: the agent, headless"),
        "hone-exec-the-agent-headless"
    );
    assert_eq!(
        slug("The embedded engine against llama.cpp"),
        "the-embedded-engine-against-llamacpp"
    );
}

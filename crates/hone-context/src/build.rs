//! Building the messages of one request so that it fits the window: the view of the
//! history (compacted part left out, stale results stubbed, superseded snapshots
//! stripped), then trimming of the oldest units, then shortening of the largest blocks.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use hone_protocol::{ContentBlock, Message, Role, ToolSpec};

use crate::error::ContextError;
use crate::history::{self, HONE_NOTE_PREFIX, is_request, repair_pairs};
use crate::tokens::TokenCounter;
use crate::tracked::{self, snapshot_path, superseded_stub, untracked_stub};

/// Tokens of the request framing (see [`TokenCounter::request_raw`]).
pub(crate) const REQUEST_OVERHEAD: usize = 3;
/// Tokens allowed for the blank lines between system-prompt sections.
const SECTION_SEPARATOR_TOKENS: usize = 2;
/// Blocks are never shortened below this many bytes.
const MIN_BLOCK_BYTES: usize = 400;
/// The note put first when older messages were trimmed.
pub(crate) const TRIM_NOTE: &str = "[hone] Older messages were removed to fit the context window; \
     the task memory in the system prompt says what the task is and where it stands.";

/// A request ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The system prompt: the base prompt, the project instructions, the task memory and the
    /// summary of earlier turns.
    pub system: String,
    /// The messages to send.
    pub messages: Vec<Message>,
    /// Estimated tokens of the request (calibrated).
    pub tokens: usize,
    /// The same estimate before calibration (what provider reports are compared with).
    pub raw_tokens: usize,
    /// Estimated tokens of the whole view before any trimming (what compaction decisions
    /// look at); 0 when the window is unknown.
    pub untrimmed_tokens: usize,
    /// Messages of the view left out to fit the window.
    pub trimmed: usize,
    /// Blocks shortened to fit the window.
    pub shortened: usize,
    /// The sections of the system prompt as sent, with their raw tokens (separators
    /// included): what the context inspector breaks the prompt into.
    pub(crate) sections: Vec<(Section, usize)>,
}

/// A section of the system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// The base prompt (with the repo map when there is one).
    Base,
    /// The project's instruction files.
    Instructions,
    /// The task memory.
    Task,
    /// The summary of compacted turns.
    Summary,
}

/// The parts of the system prompt, in order.
pub(crate) struct SystemParts<'a> {
    pub(crate) base: &'a str,
    pub(crate) instructions: &'a str,
    pub(crate) task: String,
    pub(crate) summary: Option<String>,
}

impl SystemParts<'_> {
    fn sections(&self, with_summary: bool) -> Vec<(Section, &str)> {
        let mut sections = vec![(Section::Base, self.base.trim_end())];
        for (section, part) in [
            (Section::Instructions, self.instructions),
            (Section::Task, self.task.as_str()),
        ] {
            if !part.trim().is_empty() {
                sections.push((section, part.trim_end()));
            }
        }
        if with_summary && let Some(summary) = &self.summary {
            sections.push((Section::Summary, summary.trim_end()));
        }
        sections
    }

    /// Raw tokens of each section of the rendered prompt (cached), separators included.
    fn counted(&self, counter: &mut TokenCounter, with_summary: bool) -> Vec<(Section, usize)> {
        self.sections(with_summary)
            .into_iter()
            .map(|(section, text)| {
                (
                    section,
                    counter.text_cached(text) + SECTION_SEPARATOR_TOKENS,
                )
            })
            .collect()
    }

    /// Raw tokens of the rendered prompt, counted per section (cached) plus separators.
    pub(crate) fn raw(&self, counter: &mut TokenCounter, with_summary: bool) -> usize {
        self.counted(counter, with_summary)
            .iter()
            .map(|(_, tokens)| tokens)
            .sum()
    }

    fn render(&self, with_summary: bool) -> String {
        let texts: Vec<&str> = self
            .sections(with_summary)
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        let mut system = texts.join("\n\n");
        system.push('\n');
        system
    }
}

/// The history as it is sent before trimming: from `boundary` on, results in `stubbed`
/// replaced by their stubs, snapshots of untracked files and all but the newest snapshot of
/// each tracked file stripped, tool call/result pairs made valid.
pub(crate) fn view(
    history: &[Message],
    boundary: usize,
    stubbed: &BTreeMap<String, String>,
    tracked: &HashSet<&str>,
) -> Vec<Message> {
    let start = boundary.min(history.len());
    let mut messages: Vec<Message> = history[start..].to_vec();
    let mut newest: HashMap<String, (usize, usize)> = HashMap::new();
    for (index, message) in history.iter().enumerate() {
        for (position, block) in message.content.iter().enumerate() {
            if let ContentBlock::Text { text } = block
                && let Some(path) = snapshot_path(text)
            {
                newest.insert(path.to_string(), (index, position));
            }
        }
    }
    for (index, message) in messages.iter_mut().enumerate() {
        let mut content = Vec::with_capacity(message.content.len());
        let had_content = !message.content.is_empty();
        for (position, block) in std::mem::take(&mut message.content).into_iter().enumerate() {
            match block {
                ContentBlock::ToolResult(mut result) => {
                    if let Some(stub) = stubbed.get(&result.call_id) {
                        result.content.clone_from(stub);
                    }
                    content.push(ContentBlock::ToolResult(result));
                }
                ContentBlock::Text { text } if tracked::is_snapshot(&text) => {
                    let path = snapshot_path(&text).unwrap_or_default().to_string();
                    if newest.get(&path) != Some(&(start + index, position)) {
                        continue;
                    }
                    if tracked.contains(path.as_str()) {
                        content.push(ContentBlock::Text { text });
                    } else {
                        content.push(ContentBlock::Text {
                            text: untracked_stub(&path),
                        });
                    }
                }
                other => content.push(other),
            }
        }
        if content.is_empty() && had_content {
            let path = message_snapshot_paths(history, start + index);
            content.push(ContentBlock::Text {
                text: path
                    .iter()
                    .map(|path| superseded_stub(path))
                    .collect::<Vec<_>>()
                    .join("\n"),
            });
        }
        message.content = content;
    }
    carry_compacted_snapshots(history, start, &newest, tracked, &mut messages);
    repair_pairs(messages)
}

/// Tracked files whose newest snapshot was compacted away keep it: it is put first into
/// the view (into the first message when that is a plain user message).
fn carry_compacted_snapshots(
    history: &[Message],
    start: usize,
    newest: &HashMap<String, (usize, usize)>,
    tracked: &HashSet<&str>,
    messages: &mut Vec<Message>,
) {
    let mut carried: Vec<(usize, usize)> = newest
        .iter()
        .filter(|(path, (index, _))| *index < start && tracked.contains(path.as_str()))
        .map(|(_, at)| *at)
        .collect();
    if carried.is_empty() {
        return;
    }
    carried.sort_unstable();
    let blocks: Vec<ContentBlock> = carried
        .into_iter()
        .map(|(index, position)| history[index].content[position].clone())
        .collect();
    prepend(messages, blocks);
}

fn message_snapshot_paths(history: &[Message], index: usize) -> BTreeSet<String> {
    history[index]
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text } => snapshot_path(text).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// Raw tokens of a request made of `parts`, `messages` and `tools`.
pub(crate) fn count(
    counter: &mut TokenCounter,
    parts: &SystemParts<'_>,
    messages: &[Message],
    tools: &[ToolSpec],
) -> usize {
    REQUEST_OVERHEAD
        + counter.tools_raw(tools)
        + parts.raw(counter, true)
        + messages
            .iter()
            .map(|message| counter.message_raw(message))
            .sum::<usize>()
}

/// Fits `messages` (a [`view`]) and the system prompt into `budget` tokens (with the
/// window it comes from, for the error message). Without a budget nothing is counted (the
/// window is unknown) and the estimate is 0.
pub(crate) fn fit(
    counter: &mut TokenCounter,
    parts: &SystemParts<'_>,
    messages: Vec<Message>,
    tools: &[ToolSpec],
    budget: Option<(usize, u32)>,
) -> Result<Built, ContextError> {
    let Some((budget, window)) = budget else {
        return Ok(finish(counter, parts, true, messages, (0, 0), (0, 0)));
    };
    let tools_raw = counter.tools_raw(tools);
    let mut with_summary = true;
    let mut fixed = REQUEST_OVERHEAD + tools_raw + parts.raw(counter, with_summary);
    let mut sizes: Vec<usize> = messages
        .iter()
        .map(|message| counter.message_raw(message))
        .collect();
    let mut kept: usize = sizes.iter().sum();
    let untrimmed = fixed + kept;
    let fits = |counter: &TokenCounter, raw: usize| counter.calibrated(raw) <= budget;
    if fits(counter, fixed + kept) {
        return Ok(finish(
            counter,
            parts,
            true,
            messages,
            (untrimmed, untrimmed),
            (0, 0),
        ));
    }
    let note_raw = counter.message_raw(&Message::user(TRIM_NOTE));
    let request = messages.iter().rposition(is_request);
    let last = messages.len().checked_sub(1);
    let mut keep = vec![true; messages.len()];
    let mut trimmed = 0;
    for unit in history::units(&messages) {
        if fits(counter, fixed + kept + note_raw) {
            break;
        }
        let protected = request.is_some_and(|index| unit.contains(&index))
            || last.is_some_and(|index| unit.contains(&index));
        if !protected {
            for index in unit {
                keep[index] = false;
                kept -= sizes[index];
                trimmed += 1;
            }
        }
    }
    let note = if trimmed > 0 { note_raw } else { 0 };
    if !fits(counter, fixed + kept + note) && parts.summary.is_some() {
        with_summary = false;
        fixed = REQUEST_OVERHEAD + tools_raw + parts.raw(counter, with_summary);
    }
    let mut messages: Vec<Message> = messages
        .into_iter()
        .zip(&keep)
        .filter(|(_, kept)| **kept)
        .map(|(message, _)| message)
        .collect();
    sizes = sizes
        .into_iter()
        .zip(&keep)
        .filter(|(_, kept)| **kept)
        .map(|(size, _)| size)
        .collect();
    let request = messages.iter().rposition(is_request);
    let mut shortened = 0;
    loop {
        let raw = fixed + sizes.iter().sum::<usize>() + note;
        if fits(counter, raw) {
            break;
        }
        let Some((index, position, length)) = largest_block(&messages, request) else {
            return Err(ContextError::WindowTooSmall {
                needed: counter.calibrated(raw),
                budget,
                window,
            });
        };
        let excess = counter.calibrated(raw) - budget;
        let block_tokens = counter
            .calibrated(block_raw(counter, &messages[index].content[position]))
            .max(1);
        let bytes_per_token = length as f64 / block_tokens as f64;
        let cut_bytes = ((excess as f64 + 16.0) * bytes_per_token * 1.1).ceil() as usize + 64;
        let target = length.saturating_sub(cut_bytes).max(MIN_BLOCK_BYTES / 2);
        shorten_block(&mut messages[index].content[position], target);
        sizes[index] = counter.message_raw(&messages[index]);
        shortened += 1;
    }
    if trimmed > 0 {
        insert_note(&mut messages);
    }
    let raw = fixed
        + messages
            .iter()
            .map(|message| counter.message_raw(message))
            .sum::<usize>();
    Ok(finish(
        counter,
        parts,
        with_summary,
        messages,
        (raw, untrimmed),
        (trimmed, shortened),
    ))
}

fn finish(
    counter: &mut TokenCounter,
    parts: &SystemParts<'_>,
    with_summary: bool,
    messages: Vec<Message>,
    (raw, untrimmed): (usize, usize),
    (trimmed, shortened): (usize, usize),
) -> Built {
    Built {
        system: parts.render(with_summary),
        sections: parts.counted(counter, with_summary),
        messages,
        tokens: counter.calibrated(raw),
        raw_tokens: raw,
        untrimmed_tokens: counter.calibrated(untrimmed),
        trimmed,
        shortened,
    }
}

/// The largest block that may be shortened: any text or tool result of at least
/// [`MIN_BLOCK_BYTES`], except the user's own text in the latest request.
fn largest_block(messages: &[Message], request: Option<usize>) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    for (index, message) in messages.iter().enumerate() {
        for (position, block) in message.content.iter().enumerate() {
            let length = match block {
                ContentBlock::Text { text } => {
                    let users_own = Some(index) == request && !tracked::is_snapshot(text);
                    if users_own || text.starts_with(HONE_NOTE_PREFIX) {
                        continue;
                    }
                    text.len()
                }
                ContentBlock::Thinking { text, .. } => text.len(),
                ContentBlock::ToolResult(result) => result.content.len(),
                ContentBlock::ToolCall(_) | ContentBlock::Image(_) => continue,
            };
            if length >= MIN_BLOCK_BYTES && best.is_none_or(|(_, _, known)| length > known) {
                best = Some((index, position, length));
            }
        }
    }
    best
}

fn block_raw(counter: &TokenCounter, block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text { text } | ContentBlock::Thinking { text, .. } => counter.text_raw(text),
        ContentBlock::ToolResult(result) => counter.text_raw(&result.content),
        ContentBlock::ToolCall(_) | ContentBlock::Image(_) => 0,
    }
}

fn shorten_block(block: &mut ContentBlock, target: usize) {
    match block {
        ContentBlock::Text { text } | ContentBlock::Thinking { text, .. } => {
            *text = shorten(text, target);
        }
        ContentBlock::ToolResult(result) => result.content = shorten(&result.content, target),
        ContentBlock::ToolCall(_) | ContentBlock::Image(_) => {}
    }
}

/// `text` cut to about `target` bytes: two thirds from the head, one third from the tail.
pub(crate) fn shorten(text: &str, target: usize) -> String {
    if text.len() <= target {
        return text.to_string();
    }
    let head_end = floor(text, target * 2 / 3);
    let tail_start = ceil(text, text.len() - target / 3);
    let tail_start = tail_start.max(head_end);
    format!(
        "{}\n[hone: {} bytes cut here to fit the context window]\n{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Puts [`TRIM_NOTE`] first: into the first message when it is a user message without tool
/// results, else as a message of its own.
fn insert_note(messages: &mut Vec<Message>) {
    let note = ContentBlock::Text {
        text: TRIM_NOTE.to_string(),
    };
    prepend(messages, vec![note]);
}

/// Puts `blocks` first: at the start of the first message when it is a user message without
/// tool results (results must come first after a call), else as a user message of its own.
fn prepend(messages: &mut Vec<Message>, blocks: Vec<ContentBlock>) {
    match messages.first_mut() {
        Some(first)
            if first.role == Role::User
                && !first
                    .content
                    .iter()
                    .any(|block| matches!(block, ContentBlock::ToolResult(_))) =>
        {
            first.content.splice(0..0, blocks);
        }
        _ => messages.insert(
            0,
            Message {
                role: Role::User,
                content: blocks,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Tokenizer;

    #[test]
    fn shorten_keeps_head_and_tail_on_char_boundaries() {
        let text = "é".repeat(1_000);
        let short = shorten(&text, 300);
        assert!(short.len() < 400, "{}", short.len());
        assert!(short.starts_with('é') && short.ends_with('é'));
        assert!(short.contains("bytes cut here"));
        assert_eq!(shorten("abc", 10), "abc");
    }

    #[test]
    fn only_the_newest_snapshot_of_a_tracked_file_is_kept() {
        let block = |path: &str, body: &str| ContentBlock::Text {
            text: format!(
                "<tracked_file path=\"{path}\" mode=\"full\" lines=\"1\">\n{body}\n</tracked_file>"
            ),
        };
        let history = vec![
            Message {
                role: Role::User,
                content: vec![
                    block("a.rs", "v1"),
                    block("b.rs", "b1"),
                    ContentBlock::Text { text: "go".into() },
                ],
            },
            Message::assistant("ok"),
            Message {
                role: Role::User,
                content: vec![block("a.rs", "v2")],
            },
        ];
        let tracked: HashSet<&str> = HashSet::from(["a.rs"]);
        let view = view(&history, 0, &BTreeMap::new(), &tracked);
        let texts: Vec<String> = view.iter().map(Message::text).collect();
        assert_eq!(texts[0], format!("{}go", untracked_stub("b.rs")));
        assert!(texts[2].contains("v2"));
        assert!(!texts.concat().contains("v1"));
    }

    #[test]
    fn nothing_is_trimmed_when_the_request_fits() {
        let mut counter = TokenCounter::new(Tokenizer::Estimate);
        let parts = SystemParts {
            base: "base",
            instructions: "",
            task: "task".into(),
            summary: None,
        };
        let messages = vec![Message::user("hi")];
        let built = fit(
            &mut counter,
            &parts,
            messages.clone(),
            &[],
            Some((1_000, 2_000)),
        )
        .unwrap();
        assert_eq!(built.messages, messages);
        assert_eq!(built.system, "base\n\ntask\n");
        assert_eq!(built.trimmed, 0);
        let error = fit(&mut counter, &parts, messages, &[], Some((3, 10))).unwrap_err();
        assert!(
            matches!(error, ContextError::WindowTooSmall { .. }),
            "{error}"
        );
    }
}

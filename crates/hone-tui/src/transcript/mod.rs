//! The conversation as entries, rendered to wrapped lines with a per-entry cache so a
//! streamed reply re-renders only itself.

mod render;

use ratatui::text::Line;

use crate::markdown::CodeCache;
use render::render_entry;

/// What happened to a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolState {
    /// Planned or running.
    Running,
    /// Waiting for the user's approval.
    Waiting,
    /// Refused, with the reason.
    Denied(String),
    /// Finished.
    Done {
        /// Whether it failed.
        is_error: bool,
        /// Wall time (unknown for resumed conversations).
        duration_ms: Option<u64>,
    },
}

/// One tool call in the conversation.
#[derive(Debug, Clone)]
pub(crate) struct ToolEntry {
    pub(crate) call_id: String,
    pub(crate) line: String,
    pub(crate) state: ToolState,
    pub(crate) output: String,
}

/// What became of a proposed change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiffOutcome {
    /// Written to disk.
    Applied,
    /// Denied by the user; nothing was written.
    Rejected,
}

/// Changed lines up to which a kept diff starts expanded.
pub(crate) const SMALL_DIFF_LINES: usize = 20;

/// How a notice looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoticeKind {
    /// Neutral information.
    Info,
    /// Something to pay attention to.
    Warning,
}

/// One block of the conversation.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    /// What the user sent.
    User(String),
    /// The model's answer (markdown), possibly still streaming.
    Assistant { text: String, streaming: bool },
    /// The model's reasoning.
    Thinking { text: String, streaming: bool },
    /// A tool call.
    Tool(ToolEntry),
    /// An applied or rejected change; `expanded` shows the diff itself.
    Diff {
        diff: String,
        outcome: DiffOutcome,
        expanded: bool,
    },
    /// Per-answer totals.
    Stats(String),
    /// Information from hone.
    Notice(NoticeKind, String),
    /// Something failed.
    Error(String),
}

impl Entry {
    fn compact(&self) -> bool {
        matches!(
            self,
            Entry::Tool(_)
                | Entry::Diff {
                    expanded: false,
                    ..
                }
        )
    }
}

struct Item {
    entry: Entry,
    cache: Option<(usize, Vec<Line<'static>>)>,
}

/// The rendered window of the conversation.
pub(crate) struct Window {
    /// The visible lines, top to bottom.
    pub(crate) lines: Vec<Line<'static>>,
    /// Lines below the window (scrolled up by this much).
    pub(crate) below: usize,
}

/// The conversation.
#[derive(Default)]
pub(crate) struct Transcript {
    items: Vec<Item>,
    show_tool_output: bool,
    show_thinking: bool,
    code: CodeCache,
}

impl Transcript {
    /// Whether nothing has been said yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Drops everything.
    pub(crate) fn clear(&mut self) {
        self.items.clear();
    }

    /// Adds an entry at the end (closing any open stream first).
    pub(crate) fn push(&mut self, entry: Entry) {
        self.finish_streams();
        self.items.push(Item { entry, cache: None });
    }

    /// Appends answer text to the streaming answer, starting one if needed.
    pub(crate) fn append_answer(&mut self, delta: &str) {
        if let Some(Item {
            entry:
                Entry::Assistant {
                    text,
                    streaming: true,
                },
            cache,
        }) = self.items.last_mut()
        {
            text.push_str(delta);
            *cache = None;
            return;
        }
        self.push(Entry::Assistant {
            text: delta.to_string(),
            streaming: true,
        });
    }

    /// Appends reasoning text to the streaming thinking block, starting one if needed.
    pub(crate) fn append_thinking(&mut self, delta: &str) {
        if let Some(Item {
            entry:
                Entry::Thinking {
                    text,
                    streaming: true,
                },
            cache,
        }) = self.items.last_mut()
        {
            text.push_str(delta);
            *cache = None;
            return;
        }
        self.push(Entry::Thinking {
            text: delta.to_string(),
            streaming: true,
        });
    }

    /// One reply is complete: its full text replaces what streamed (they normally agree).
    pub(crate) fn complete_answer(&mut self, full: &str) {
        let streamed = self
            .items
            .iter_mut()
            .rev()
            .take(2)
            .find_map(|item| match &mut item.entry {
                Entry::Assistant {
                    text,
                    streaming: true,
                } => Some((text, &mut item.cache)),
                _ => None,
            });
        match streamed {
            Some((text, cache)) => {
                if !full.is_empty() && text != full {
                    *text = full.to_string();
                }
                *cache = None;
            }
            None if !full.trim().is_empty() => self.push(Entry::Assistant {
                text: full.to_string(),
                streaming: false,
            }),
            None => {}
        }
        self.finish_streams();
    }

    /// Marks streaming answers and thoughts as complete.
    pub(crate) fn finish_streams(&mut self) {
        for item in self.items.iter_mut().rev().take(3) {
            match &mut item.entry {
                Entry::Assistant { streaming, .. } | Entry::Thinking { streaming, .. }
                    if *streaming =>
                {
                    *streaming = false;
                    item.cache = None;
                }
                _ => {}
            }
        }
    }

    /// Changes the tool call `call_id`, if it is in the conversation.
    pub(crate) fn update_tool(&mut self, call_id: &str, change: impl FnOnce(&mut ToolEntry)) {
        let found = self
            .items
            .iter_mut()
            .rev()
            .find(|item| matches!(&item.entry, Entry::Tool(tool) if tool.call_id == call_id));
        if let Some(item) = found {
            if let Entry::Tool(tool) = &mut item.entry {
                change(tool);
            }
            item.cache = None;
        }
    }

    /// Shows or hides tool results; returns the new setting.
    pub(crate) fn toggle_tool_output(&mut self) -> bool {
        self.show_tool_output = !self.show_tool_output;
        self.invalidate(|entry| matches!(entry, Entry::Tool(_)));
        self.show_tool_output
    }

    /// Expands every kept diff, or collapses them all when all are expanded; returns
    /// whether they are expanded now (`None` when there are none).
    pub(crate) fn toggle_diffs(&mut self) -> Option<bool> {
        let mut diffs = self
            .items
            .iter()
            .filter_map(|item| match item.entry {
                Entry::Diff { expanded, .. } => Some(expanded),
                _ => None,
            })
            .peekable();
        diffs.peek()?;
        let expand = diffs.any(|expanded| !expanded);
        for item in &mut self.items {
            if let Entry::Diff { expanded, .. } = &mut item.entry {
                *expanded = expand;
                item.cache = None;
            }
        }
        Some(expand)
    }

    /// Every line of the conversation at `width` columns, top to bottom.
    pub(crate) fn all_lines(&mut self, width: usize) -> Vec<Line<'static>> {
        let total = self.total_height(width);
        self.window(width, total, 0).lines
    }

    /// Shows or hides reasoning; returns the new setting.
    pub(crate) fn toggle_thinking(&mut self) -> bool {
        self.show_thinking = !self.show_thinking;
        self.invalidate(|entry| matches!(entry, Entry::Thinking { .. }));
        self.show_thinking
    }

    fn invalidate(&mut self, which: impl Fn(&Entry) -> bool) {
        for item in &mut self.items {
            if which(&item.entry) {
                item.cache = None;
            }
        }
    }

    /// All lines of the conversation at `width` columns.
    pub(crate) fn total_height(&mut self, width: usize) -> usize {
        (0..self.items.len())
            .map(|index| self.lines_of(index, width).len() + usize::from(self.gap_before(index)))
            .sum()
    }

    /// The `height` lines that end `scroll` lines above the bottom, at `width` columns.
    pub(crate) fn window(&mut self, width: usize, height: usize, scroll: usize) -> Window {
        let mut heights = Vec::with_capacity(self.items.len());
        for index in 0..self.items.len() {
            heights.push(self.lines_of(index, width).len() + usize::from(self.gap_before(index)));
        }
        let total: usize = heights.iter().sum();
        let below = scroll.min(total.saturating_sub(height));
        let end = total - below;
        let start = end.saturating_sub(height);
        let mut lines = Vec::with_capacity(height);
        let mut at = 0;
        for (index, entry_height) in heights.iter().enumerate() {
            let next = at + entry_height;
            if next > start && at < end {
                let gap = self.gap_before(index);
                let cached = self.lines_of(index, width);
                let all = gap
                    .then(Line::default)
                    .into_iter()
                    .chain(cached.iter().cloned());
                for (offset, line) in all.enumerate() {
                    let position = at + offset;
                    if position >= start && position < end {
                        lines.push(line);
                    }
                }
            }
            at = next;
            if at >= end {
                break;
            }
        }
        Window { lines, below }
    }

    fn gap_before(&self, index: usize) -> bool {
        index > 0 && !(self.items[index].entry.compact() && self.items[index - 1].entry.compact())
    }

    fn lines_of(&mut self, index: usize, width: usize) -> &[Line<'static>] {
        let fresh = matches!(&self.items[index].cache, Some((cached, _)) if *cached == width);
        if !fresh {
            let lines = render_entry(
                &self.items[index].entry,
                width,
                self.show_tool_output,
                self.show_thinking,
                &mut self.code,
            );
            self.items[index].cache = Some((width, lines));
        }
        match &self.items[index].cache {
            Some((_, lines)) => lines,
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(window: &Window) -> Vec<String> {
        window.lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn streaming_appends_to_one_answer_and_completes() {
        let mut transcript = Transcript::default();
        transcript.push(Entry::User("hi".into()));
        transcript.append_answer("Hel");
        transcript.append_answer("lo");
        transcript.complete_answer("Hello");
        let window = transcript.window(40, 10, 0);
        assert_eq!(text(&window), ["› hi", "", "  Hello"]);
        transcript.append_answer("Again");
        assert_eq!(transcript.total_height(40), 5);
    }

    #[test]
    fn the_window_scrolls_from_the_bottom() {
        let mut transcript = Transcript::default();
        for index in 0..10 {
            transcript.push(Entry::Notice(NoticeKind::Info, format!("n{index}")));
        }
        let bottom = transcript.window(20, 3, 0);
        assert_eq!(transcript.total_height(20), 19);
        assert_eq!(text(&bottom), ["  • n8", "", "  • n9"]);
        let up = transcript.window(20, 3, 4);
        assert_eq!(text(&up), ["  • n6", "", "  • n7"]);
        assert_eq!(up.below, 4);
        let top = transcript.window(20, 3, 1_000);
        assert_eq!(text(&top), ["  • n0", "", "  • n1"]);
    }

    #[test]
    fn tool_calls_are_compact_and_expand_to_their_output() {
        let mut transcript = Transcript::default();
        for id in ["a", "b"] {
            transcript.push(Entry::Tool(ToolEntry {
                call_id: id.into(),
                line: format!("read_file {id}.rs"),
                state: ToolState::Running,
                output: String::new(),
            }));
        }
        transcript.update_tool("a", |tool| {
            tool.state = ToolState::Done {
                is_error: false,
                duration_ms: Some(12),
            };
            tool.output = "1│ fn a() {}".into();
        });
        assert_eq!(
            text(&transcript.window(40, 10, 0)),
            ["  ✓ read_file a.rs 12ms", "  ▸ read_file b.rs …"]
        );
        assert!(transcript.toggle_tool_output());
        assert_eq!(
            text(&transcript.window(40, 10, 0)),
            [
                "  ✓ read_file a.rs 12ms",
                "    │ 1│ fn a() {}",
                "  ▸ read_file b.rs …"
            ]
        );
    }

    #[test]
    fn diffs_toggle_together_and_only_when_there_are_some() {
        let mut transcript = Transcript::default();
        assert_eq!(transcript.toggle_diffs(), None);
        let diff = "--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-a\n+b\n";
        for (outcome, expanded) in [(DiffOutcome::Applied, true), (DiffOutcome::Rejected, false)] {
            transcript.push(Entry::Diff {
                diff: diff.into(),
                outcome,
                expanded,
            });
        }
        // The expanded one: header, file, hunk, two lines; a gap; the collapsed one.
        assert_eq!(transcript.total_height(40), 7);
        // One is collapsed: all expand; then all collapse.
        assert_eq!(transcript.toggle_diffs(), Some(true));
        let expanded = text(&transcript.window(60, 20, 0));
        let added = expanded.iter().filter(|line| line.ends_with("1 + b"));
        assert_eq!(added.count(), 2, "{expanded:#?}");
        assert_eq!(transcript.toggle_diffs(), Some(false));
        assert_eq!(
            text(&transcript.window(60, 20, 0)),
            [
                "  ✎ a.rs +1 −1  (Ctrl+G shows the diff)",
                "  ✗ rejected a.rs +1 −1  (Ctrl+G shows the diff)"
            ]
        );
    }

    #[test]
    fn thinking_is_collapsed_until_toggled() {
        let mut transcript = Transcript::default();
        transcript.append_thinking("first idea. second idea.");
        transcript.finish_streams();
        assert_eq!(
            text(&transcript.window(60, 10, 0)),
            ["  ✻ thought for 4 words (Ctrl+T shows)"]
        );
        transcript.toggle_thinking();
        assert_eq!(transcript.total_height(60), 2);
    }
}

//! Markdown to styled, wrapped terminal lines: headings, emphasis, inline code, lists,
//! quotes, tables, and code blocks with syntax colouring. Works on partial (streaming)
//! text: an unclosed code fence is a code block up to the end.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::LineHighlighter;
use crate::wrap::{self, Mode};

/// Highlighted code blocks by content, so a streamed answer re-highlights only its open block.
#[derive(Default)]
pub(crate) struct CodeCache {
    blocks: HashMap<u64, Vec<Vec<Span<'static>>>>,
}

impl CodeCache {
    const LIMIT: usize = 128;

    fn highlighted(&mut self, lang: &str, code: &str) -> Vec<Vec<Span<'static>>> {
        let mut hasher = DefaultHasher::new();
        (lang, code).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(lines) = self.blocks.get(&key) {
            return lines.clone();
        }
        let mut highlighter = LineHighlighter::for_token(lang);
        let lines: Vec<_> = code
            .trim_end_matches('\n')
            .split('\n')
            .map(|line| highlighter.line(&line.replace('\t', "    ")))
            .collect();
        if self.blocks.len() >= Self::LIMIT {
            self.blocks.clear();
        }
        self.blocks.insert(key, lines.clone());
        lines
    }
}

/// Renders `text` to lines at most `width` columns wide.
pub(crate) fn render(text: &str, width: usize, cache: &mut CodeCache) -> Vec<Line<'static>> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::new(width.max(8), cache);
    for event in Parser::new_ext(text, options) {
        renderer.event(event);
    }
    renderer.finish()
}

struct ListLevel {
    next: Option<u64>,
}

struct Renderer<'c> {
    width: usize,
    cache: &'c mut CodeCache,
    out: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<ListLevel>,
    marker: Option<String>,
    quote: usize,
    code: Option<(String, String)>,
    links: Vec<String>,
    table: Option<Table>,
}

#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    cell: String,
    header_rows: usize,
}

impl<'c> Renderer<'c> {
    fn new(width: usize, cache: &'c mut CodeCache) -> Self {
        Self {
            width,
            cache,
            out: Vec::new(),
            spans: Vec::new(),
            styles: vec![Style::new()],
            lists: Vec::new(),
            marker: None,
            quote: 0,
            code: None,
            links: Vec::new(),
            table: None,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, change: impl FnOnce(Style) -> Style) {
        let next = change(self.style());
        self.styles.push(next);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.style().fg(Color::Cyan);
                self.inline(code.to_string(), style);
            }
            Event::InlineMath(math) | Event::DisplayMath(math) => {
                let style = self.style().fg(Color::Cyan);
                self.inline(math.to_string(), style);
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let style = self.style().add_modifier(Modifier::DIM);
                self.inline(html.trim_end().to_string(), style);
            }
            Event::SoftBreak => self.inline(" ".into(), Style::new()),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.gap();
                let rule = "─".repeat(self.width.min(40));
                self.out
                    .push(Line::styled(rule, Style::new().add_modifier(Modifier::DIM)));
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "[x] " } else { "[ ] " };
                self.inline(mark.into(), Style::new().fg(Color::Green));
            }
            Event::FootnoteReference(name) => self.inline(format!("[^{name}]"), Style::new()),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.block_start(),
            Tag::Heading { level, .. } => {
                self.block_start();
                let style = match level {
                    HeadingLevel::H1 => Style::new()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                    HeadingLevel::H2 => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    _ => Style::new().add_modifier(Modifier::BOLD),
                };
                self.styles.push(style);
            }
            Tag::BlockQuote(_) => {
                self.block_start();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.block_start();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split([' ', ',', '{']).next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.block_start();
                } else {
                    self.flush();
                }
                self.lists.push(ListLevel { next: start });
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(ListLevel { next: Some(n) }) => {
                        let marker = format!("{n}. ");
                        *n += 1;
                        marker
                    }
                    _ => "• ".to_string(),
                };
                self.marker = Some(marker);
            }
            Tag::Emphasis => self.push_style(|style| style.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|style| style.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(|style| style.add_modifier(Modifier::CROSSED_OUT))
            }
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(|style| style.fg(Color::Blue).add_modifier(Modifier::UNDERLINED));
            }
            Tag::Table(_) => {
                self.block_start();
                self.table = Some(Table::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(table) = self.table.as_mut() {
                    table.cell.clear();
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush(),
            TagEnd::Heading(_) => {
                self.flush();
                self.pop_style();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::Item => {
                self.flush();
                self.marker = None;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link | TagEnd::Image => {
                self.pop_style();
                if let Some(url) = self.links.pop() {
                    let shown: String = self
                        .spans
                        .iter()
                        .map(|span| span.content.as_ref())
                        .collect();
                    if !url.is_empty() && !shown.ends_with(url.as_str()) {
                        self.inline(
                            format!(" ({url})"),
                            Style::new().add_modifier(Modifier::DIM),
                        );
                    }
                }
            }
            TagEnd::TableCell => {
                if let Some(table) = self.table.as_mut() {
                    let cell = std::mem::take(&mut table.cell);
                    if let Some(row) = table.rows.last_mut() {
                        row.push(cell.trim().to_string());
                    }
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.header_rows = table.rows.len();
                }
            }
            TagEnd::Table => self.end_table(),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = self.code.as_mut() {
            code.push_str(text);
            return;
        }
        if let Some(table) = self.table.as_mut() {
            table.cell.push_str(text);
            return;
        }
        let style = self.style();
        self.inline(text.to_string(), style);
    }

    fn inline(&mut self, text: String, style: Style) {
        if let Some(table) = self.table.as_mut() {
            table.cell.push_str(&text);
            return;
        }
        self.spans.push(Span::styled(text, style));
    }

    /// A blank line before a top-level block, unless it is the first.
    fn block_start(&mut self) {
        self.flush();
        if self.lists.is_empty() {
            self.gap();
        }
    }

    fn gap(&mut self) {
        if self.out.last().is_some_and(|line| line.width() > 0) {
            self.out.push(Line::default());
        }
    }

    /// The prefixes of the next line: (first line, continuation lines).
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut base = Vec::new();
        if self.quote > 0 {
            base.push(Span::styled(
                "│ ".repeat(self.quote),
                Style::new().fg(Color::DarkGray),
            ));
        }
        let depth = self.lists.len().saturating_sub(1);
        if !self.lists.is_empty() {
            base.push(Span::raw("  ".repeat(depth)));
        }
        let mut first = base.clone();
        let mut rest = base;
        if let Some(marker) = self.marker.take() {
            rest.push(Span::raw(" ".repeat(marker.chars().count())));
            first.push(Span::styled(marker, Style::new().fg(Color::Yellow)));
        } else if !self.lists.is_empty() {
            first.push(Span::raw("  "));
            rest.push(Span::raw("  "));
        }
        (first, rest)
    }

    fn flush(&mut self) {
        if self.spans.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        let (first, rest) = self.prefixes();
        let lines = wrap::wrap(spans, self.width, &first, &rest, Mode::Words);
        self.out.extend(lines);
    }

    fn end_code(&mut self) {
        let Some((lang, code)) = self.code.take() else {
            return;
        };
        let (first, _) = self.prefixes();
        let mut indent = first;
        indent.push(Span::raw("  "));
        for spans in self.cache.highlighted(&lang, &code) {
            self.out
                .extend(wrap::wrap(spans, self.width, &indent, &indent, Mode::Chars));
        }
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0usize; columns];
        for row in &table.rows {
            for (index, cell) in row.iter().enumerate() {
                widths[index] =
                    widths[index].max(unicode_width::UnicodeWidthStr::width(cell.as_str()));
            }
        }
        let dim = Style::new().fg(Color::DarkGray);
        for (index, row) in table.rows.iter().enumerate() {
            let style = if index < table.header_rows {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            let mut spans = Vec::new();
            for (column, cell) in row.iter().enumerate() {
                if column > 0 {
                    spans.push(Span::styled(" │ ", dim));
                }
                let pad = widths[column]
                    .saturating_sub(unicode_width::UnicodeWidthStr::width(cell.as_str()));
                spans.push(Span::styled(format!("{cell}{}", " ".repeat(pad)), style));
            }
            self.out
                .extend(wrap::wrap(spans, self.width, &[], &[], Mode::Chars));
            if index + 1 == table.header_rows {
                let rule: Vec<String> = widths.iter().map(|width| "─".repeat(*width)).collect();
                self.out.push(Line::styled(rule.join("─┼─"), dim));
            }
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if self.code.is_some() {
            self.end_code();
        }
        if self.table.is_some() {
            self.end_table();
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str, width: usize) -> Vec<String> {
        render(text, width, &mut CodeCache::default())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn headings_paragraphs_and_lists() {
        let lines = plain(
            "# Title\n\nSome *text* here.\n\n- one\n- two\n  1. a\n  2. b\n",
            40,
        );
        assert_eq!(
            lines,
            [
                "Title",
                "",
                "Some text here.",
                "",
                "• one",
                "• two",
                "  1. a",
                "  2. b"
            ]
        );
    }

    #[test]
    fn list_items_wrap_under_their_text() {
        let lines = plain("- alpha beta gamma delta", 14);
        assert_eq!(lines, ["• alpha beta", "  gamma delta"]);
    }

    #[test]
    fn code_blocks_are_indented_and_coloured() {
        let text = "Look:\n\n```rust\nfn main() {}\n```\n\nDone.";
        let lines = render(text, 40, &mut CodeCache::default());
        let shown: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["Look:", "", "  fn main() {}", "", "Done."]);
        assert!(lines[2].spans.iter().any(|span| span.style.fg.is_some()));
    }

    #[test]
    fn an_unclosed_fence_while_streaming_is_still_code() {
        let lines = plain("```python\nprint(1)\nx = ", 40);
        assert_eq!(lines, ["  print(1)", "  x ="]);
    }

    #[test]
    fn inline_code_and_links_are_styled() {
        let lines = render(
            "Run `cargo test` see [docs](https://x.dev).",
            80,
            &mut CodeCache::default(),
        );
        let code = lines[0]
            .spans
            .iter()
            .find(|span| span.content == "cargo test")
            .unwrap();
        assert_eq!(code.style.fg, Some(Color::Cyan));
        assert!(lines[0].to_string().contains("docs (https://x.dev)"));
    }

    #[test]
    fn tables_align_columns() {
        let lines = plain("| a | bb |\n|---|---|\n| ccc | d |\n", 40);
        assert_eq!(lines, ["a   │ bb", "────┼───", "ccc │ d"]);
    }

    #[test]
    fn quotes_get_a_bar() {
        assert_eq!(plain("> careful", 40), ["│ careful"]);
    }
}

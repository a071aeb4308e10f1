//! Exporting a session as Markdown (to read or paste) or JSON (to process).

use std::fmt::Write;
use std::str::FromStr;

use hone_protocol::{ContentBlock, ImageRef, Role};
use serde::Serialize;

use crate::error::MemoryError;
use crate::facade::SessionStore;
use crate::messages::StoredMessage;
use crate::store::SessionInfo;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A readable transcript.
    Markdown,
    /// `{"session": …, "messages": […]}` with every content block.
    Json,
}

impl FromStr for ExportFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Ok(Self::Markdown),
            "json" => Ok(Self::Json),
            other => Err(format!("unknown export format `{other}`: use md or json")),
        }
    }
}

#[derive(Serialize)]
struct Export<'a> {
    session: &'a SessionInfo,
    messages: &'a [StoredMessage],
}

impl SessionStore {
    /// Session `id` (or unique id prefix) with all its messages, in `format`.
    pub fn export(&self, id: &str, format: ExportFormat) -> Result<String, MemoryError> {
        let session = self.find(id)?;
        let messages = self.messages(&session.id)?;
        match format {
            ExportFormat::Json => {
                let export = Export {
                    session: &session,
                    messages: &messages,
                };
                hone_api::display::json_pretty(&export).map_err(|error| MemoryError::Decode {
                    path: self.describe().into(),
                    what: format!("session {}", session.id),
                    detail: error.to_string(),
                })
            }
            ExportFormat::Markdown => Ok(markdown(&session, &messages)),
        }
    }
}

/// The transcript as Markdown: a header with the session's facts, then each message, with
/// the control characters of what was stored shown (`hone_api::display::text`), since the
/// document is read on a terminal or pasted.
pub fn markdown(session: &SessionInfo, messages: &[StoredMessage]) -> String {
    hone_api::display::text(&markdown_raw(session, messages)).into_owned()
}

fn markdown_raw(session: &SessionInfo, messages: &[StoredMessage]) -> String {
    let mut out = String::new();
    let title = if session.title.is_empty() {
        "(untitled session)"
    } else {
        session.title.as_str()
    };
    let stats = &session.stats;
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(out, "- session: `{}`", session.id);
    if let Some(parent) = &session.forked_from {
        let _ = writeln!(out, "- forked from: `{parent}`");
    }
    let _ = writeln!(out, "- project: `{}`", session.project);
    let _ = writeln!(out, "- model: {} ({})", session.model, session.provider);
    let _ = writeln!(
        out,
        "- messages: {} · turns: {} · tokens: {} in, {} out · tool calls: {} · edits: {} applied, {} rejected\n",
        session.messages,
        stats.turns,
        stats.tokens_in,
        stats.tokens_out,
        stats.tool_calls,
        stats.edits_applied,
        stats.edits_rejected
    );
    for stored in messages {
        let results = stored
            .message
            .content
            .iter()
            .all(|block| matches!(block, ContentBlock::ToolResult(_)));
        let heading = match (stored.message.role, results) {
            (Role::Assistant, _) => "Assistant",
            (Role::User, true) => "Tool results",
            (Role::User, false) if is_hone_note(&stored.message) => "hone (note to the model)",
            (Role::User, false) => "User",
        };
        let _ = writeln!(out, "## {heading}\n");
        for block in &stored.message.content {
            render_block(&mut out, block);
        }
    }
    out
}

/// Whether every text of `message` is a note hone added for the model (`[hone] …`), which
/// the user never typed.
fn is_hone_note(message: &hone_protocol::Message) -> bool {
    let mut texts = message.content.iter().filter_map(|block| match block {
        ContentBlock::Text { text } => Some(text),
        _ => None,
    });
    texts
        .next()
        .is_some_and(|first| first.starts_with("[hone]"))
        && texts.all(|text| text.starts_with("[hone]"))
}

fn render_block(out: &mut String, block: &ContentBlock) {
    match block {
        ContentBlock::Text { text } => {
            let _ = writeln!(out, "{}\n", text.trim_end());
        }
        ContentBlock::Thinking { text, .. } => {
            for line in text.trim_end().lines() {
                let _ = writeln!(out, "> {line}");
            }
            out.push('\n');
        }
        ContentBlock::ToolCall(call) => {
            let arguments = call
                .parse_arguments()
                .ok()
                .and_then(|value| serde_json::to_string_pretty(&value).ok())
                .unwrap_or_else(|| call.arguments.clone());
            let _ = writeln!(out, "**call** `{}` (`{}`)\n", call.name, call.id);
            fenced(out, "json", &arguments);
        }
        ContentBlock::ToolResult(result) => {
            let status = if result.is_error { " — error" } else { "" };
            let _ = writeln!(
                out,
                "**result** of `{}` (`{}`){status}\n",
                result.name, result.call_id
            );
            fenced(out, "", &result.content);
        }
        ContentBlock::Image(image) => {
            let _ = match image {
                ImageRef::Base64 { media_type, data } => writeln!(
                    out,
                    "[image: {media_type}, {} bytes of base64]\n",
                    data.len()
                ),
                ImageRef::Url { url } => writeln!(out, "![image]({url})\n"),
            };
        }
    }
}

/// A fenced block long enough not to be closed by backticks inside `text`.
fn fenced(out: &mut String, language: &str, text: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}{language}\n{}\n{fence}\n", text.trim_end());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        let mut out = String::new();
        fenced(&mut out, "", "a ```rust\nb\n```");
        assert!(out.starts_with("````\n"), "{out}");
        assert!(out.ends_with("\n````\n\n"), "{out}");
    }

    #[test]
    fn hone_s_notes_are_headed_as_hone_s_not_the_user_s() {
        use hone_protocol::Message;
        assert!(is_hone_note(&Message::user("[hone] The checks failed.")));
        assert!(!is_hone_note(&Message::user("fix [hone] the bug")));
        let mut mixed = Message::user("[hone] Code from the project");
        mixed.content.push(ContentBlock::Text {
            text: "the user's request".into(),
        });
        assert!(!is_hone_note(&mixed));
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("md".parse::<ExportFormat>(), Ok(ExportFormat::Markdown));
        assert_eq!("JSON".parse::<ExportFormat>(), Ok(ExportFormat::Json));
        assert!(
            "pdf"
                .parse::<ExportFormat>()
                .unwrap_err()
                .contains("md or json")
        );
    }
}

//! Saved sessions and the undo journal as text: the tables and transcripts `hone sessions`
//! and `hone undo --list` print, and times as people read them. What was stored (titles,
//! messages, tool calls, file names, project paths) is made safe for a terminal here
//! (`hone_api::display`), so replaying a session cannot replay an escape sequence.

use hone_api::display;
use hone_memory::{JournalEntry, SessionInfo, StoredMessage};
use hone_protocol::{ContentBlock, Role};

/// A session's title on one line, or `untitled`.
pub fn title(session: &SessionInfo) -> String {
    if session.title.is_empty() {
        "untitled".to_string()
    } else {
        display::flat(&session.title)
    }
}

/// `resuming session ID (title, 12 messages)` or `forked into session …` for a saved
/// session that was not created just now.
pub fn opening_line(saved: &crate::OpenedSession) -> Option<String> {
    let verb = match saved.opening {
        crate::Opening::Created => return None,
        crate::Opening::Resumed => "resuming",
        crate::Opening::Forked => "forked into",
    };
    Some(format!(
        "{verb} session {} ({}, {} messages)",
        saved.info.id,
        title(&saved.info),
        saved.info.messages
    ))
}

/// The `hone sessions list` table (`with_project`: a project column, for `--all`).
pub fn table(sessions: &[SessionInfo], with_project: bool, now: i64) -> String {
    let mut out = format!(
        "{:<26}  {:<12}  {:>5}  {:>9}  {:<20}  {}\n",
        "ID",
        "ACTIVE",
        "MSGS",
        "TOKENS",
        "MODEL",
        if with_project {
            "PROJECT  TITLE"
        } else {
            "TITLE"
        }
    );
    for session in sessions {
        let tokens = session.stats.tokens_in + session.stats.tokens_out;
        let project = if with_project {
            format!("{}  ", display::line(&session.project))
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{:<26}  {:<12}  {:>5}  {:>9}  {:<20}  {project}{}\n",
            session.id,
            ago(session.updated_ms, now),
            session.messages,
            tokens,
            cut(&session.model, 20),
            cut(&title(session), 60)
        ));
    }
    out
}

/// `hone sessions show`: the facts, then one or two lines per message block.
pub fn show(session: &SessionInfo, messages: &[StoredMessage], now: i64) -> String {
    let stats = &session.stats;
    let mut out = format!(
        "session   {}\ntitle     {}\nproject   {}\nmodel     {} ({})\ncreated   {}\nactive    {}\n",
        display::line(&session.id),
        title(session),
        display::line(&session.project),
        display::line(&session.model),
        display::line(&session.provider),
        ago(session.created_ms, now),
        ago(session.updated_ms, now),
    );
    if let Some(parent) = &session.forked_from {
        out.push_str(&format!("forked    from {}\n", display::line(parent)));
    }
    out.push_str(&format!(
        "totals    {} messages · {} turns · {} tokens in, {} out · {} tool calls · {} edits applied, {} rejected\n\n",
        session.messages,
        stats.turns,
        stats.tokens_in,
        stats.tokens_out,
        stats.tool_calls,
        stats.edits_applied,
        stats.edits_rejected
    ));
    for stored in messages {
        for block in &stored.message.content {
            let line = match (stored.message.role, block) {
                // hone's own notes to the model are not the user's words.
                (Role::User, ContentBlock::Text { text })
                    if text.starts_with(hone_context::HONE_NOTE_PREFIX) =>
                {
                    let note = text.trim_start_matches(hone_context::HONE_NOTE_PREFIX);
                    format!("     (hone to the model) {}", cut(note.trim_start(), 100))
                }
                (Role::User, ContentBlock::Text { text }) => format!("you  {}", cut(text, 200)),
                (Role::Assistant, ContentBlock::Text { text }) => {
                    format!("hone {}", cut(text, 200))
                }
                (_, ContentBlock::Thinking { text, .. }) => {
                    format!("     (thinking) {}", cut(text, 100))
                }
                (_, ContentBlock::ToolCall(call)) => {
                    format!("  ▸ {} {}", cut(&call.name, 60), cut(&call.arguments, 100))
                }
                (_, ContentBlock::ToolResult(result)) => {
                    let mark = if result.is_error { "✗" } else { "✓" };
                    format!("    {mark} {}", cut(&result.content, 100))
                }
                (_, ContentBlock::Image(_)) => "     [image]".to_string(),
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The undo stack, one numbered line per edit, newest first.
pub fn undo_list(stack: &[JournalEntry], now: i64) -> String {
    let mut out = String::new();
    for (position, entry) in stack.iter().enumerate() {
        let view = entry.entry();
        let pending = if entry.state == hone_memory::EditState::Pending {
            " (interrupted while writing)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{:>2}. {}{pending}  [{} · session {}]\n",
            position + 1,
            display::flat(&view.summary),
            ago(view.applied_ms, now),
            view.session_id
        ));
    }
    out
}

/// One line of at most `limit` characters, its control characters shown.
fn cut(text: &str, limit: usize) -> String {
    let flat = display::flat(text)
        .split(' ')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if flat.chars().count() <= limit {
        return flat;
    }
    let kept: String = flat.chars().take(limit.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// `just now`, `5 min ago`, `3 h ago`, `2 days ago`, or the UTC date for older times.
pub fn ago(then_ms: i64, now_ms: i64) -> String {
    let seconds = (now_ms - then_ms).max(0) / 1000;
    match seconds {
        0..60 => "just now".to_string(),
        60..3_600 => format!("{} min ago", seconds / 60),
        3_600..86_400 => format!("{} h ago", seconds / 3_600),
        86_400..172_800 => "yesterday".to_string(),
        172_800..604_800 => format!("{} days ago", seconds / 86_400),
        _ => {
            let (year, month, day) =
                crate::document::civil_from_days(then_ms.div_euclid(86_400_000));
            format!("{year:04}-{month:02}-{day:02}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_naturally() {
        let now = 1_750_000_000_000;
        assert_eq!(ago(now - 5_000, now), "just now");
        assert_eq!(ago(now - 5 * 60_000, now), "5 min ago");
        assert_eq!(ago(now - 3 * 3_600_000, now), "3 h ago");
        assert_eq!(ago(now - 30 * 3_600_000, now), "yesterday");
        assert_eq!(ago(now - 3 * 86_400_000, now), "3 days ago");
        assert_eq!(ago(0, now), "1970-01-01");
        assert_eq!(ago(1_709_164_800_000, now), "2024-02-29");
    }

    fn session(title: &str) -> SessionInfo {
        SessionInfo {
            id: "01JABCDEFGHJKMNPQRSTVWXYZ0".into(),
            project: "/p".into(),
            created_ms: 0,
            updated_ms: 0,
            title: title.into(),
            provider: "openai".into(),
            model: "gpt-4o".into(),
            forked_from: None,
            messages: 4,
            stats: hone_memory::SessionStats::default(),
        }
    }

    #[test]
    fn a_replayed_session_shows_the_escapes_it_stored() {
        let stored = |message| StoredMessage {
            seq: 1,
            message,
            stats: hone_memory::MessageStats::default(),
            created_ms: 0,
        };
        let mut call = hone_protocol::Message::assistant("\x1b]52;c;cm0gLXJmIH4=\x07done");
        call.content
            .push(ContentBlock::ToolCall(hone_protocol::ToolCall {
                id: "c1".into(),
                name: "run_command".into(),
                arguments: "{\"command\": \"touch pwned\r\x1b[2Kls src\"}".into(),
            }));
        let messages = [
            stored(hone_protocol::Message::user("hi\u{202e}")),
            stored(call),
        ];
        let text = show(&session("title\x1b]0;owned\x07"), &messages, 0);
        assert!(
            !text.contains(['\x1b', '\x07', '\r', '\u{202e}']),
            "{text:?}"
        );
        assert!(text.contains(r"title     title\x1b]0;owned\x07"), "{text}");
        assert!(text.contains(r"you  hi\u{202e}"), "{text}");
        assert!(
            text.contains(r"hone \x1b]52;c;cm0gLXJmIH4=\x07done"),
            "{text}"
        );
        assert!(text.contains(r"touch pwned\r\x1b[2Kls src"), "{text}");
        let table = table(&[session("\r\x1b[2Kinnocent")], true, 0);
        assert!(table.contains(r"\r\x1b[2Kinnocent"), "{table}");
    }

    #[test]
    fn hone_s_notes_to_the_model_are_not_shown_as_the_user_s() {
        let stored = |message| StoredMessage {
            seq: 1,
            message,
            stats: hone_memory::MessageStats::default(),
            created_ms: 0,
        };
        let messages = [
            stored(hone_protocol::Message::user("fix the bug")),
            stored(hone_protocol::Message::user(
                "[hone] If that completes the request, answer the user now.",
            )),
        ];
        let text = show(&session("t"), &messages, 0);
        assert!(text.contains("you  fix the bug"), "{text}");
        assert!(
            text.contains("(hone to the model) If that completes the request"),
            "{text}"
        );
        assert!(!text.contains("you  [hone]"), "{text}");
    }

    #[test]
    fn table_rows_line_up() {
        let session = SessionInfo {
            id: "01JABCDEFGHJKMNPQRSTVWXYZ0".into(),
            project: "/p".into(),
            created_ms: 0,
            updated_ms: 0,
            title: "fix the bug".into(),
            provider: "openai".into(),
            model: "gpt-4o".into(),
            forked_from: None,
            messages: 4,
            stats: hone_memory::SessionStats {
                tokens_in: 1000,
                tokens_out: 234,
                ..Default::default()
            },
        };
        let resumed = crate::OpenedSession {
            info: session.clone(),
            opening: crate::Opening::Resumed,
        };
        assert_eq!(
            opening_line(&resumed).as_deref(),
            Some("resuming session 01JABCDEFGHJKMNPQRSTVWXYZ0 (fix the bug, 4 messages)")
        );
        let text = table(&[session], false, 60_000);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[1].starts_with("01JABCDEFGHJKMNPQRSTVWXYZ0  1 min ago"),
            "{text}"
        );
        assert!(
            lines[1].contains(" 1234 ") && lines[1].ends_with("fix the bug"),
            "{text}"
        );
        assert_eq!(
            lines[0].find("MSGS").unwrap() + 3,
            lines[1].find('4').unwrap()
        );
    }
}

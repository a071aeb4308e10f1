//! `@path` mentions: `explain @src/auth.rs` attaches the file (numbered lines) or, for a
//! directory, its listing to the prompt, within a token budget. Every front end (the
//! terminal UI, `hone exec`, `hone ask`) expands prompts with [`expand`].
//!
//! A mention is `@` at the start of the prompt or after whitespace or an opening bracket or
//! quote, followed by a path; trailing punctuation (`.`, `,`, `)`, …) is not part of it, so
//! `look at @src/a.rs.` works and `a@b.com` is no mention. Paths are resolved like every
//! tool path ([`PathGuard`]: inside the project, symlinks resolved, `.honeignore`), and
//! git-ignored files and files that may hold secrets (`hone_policy::SecretFiles`: `.env`,
//! keys, credentials, configured globs) are refused. What cannot
//! be attached is reported, never dropped silently; the prompt's text is kept as written.
//! A mentioned PNG, JPEG, WebP or GIF file (told by its bytes) is attached as an image
//! ([`Expanded::images`]) for the message to carry, not as text.

use std::fmt::Write as _;
use std::path::Path;

use hone_policy::PathGuard;
use hone_protocol::estimate_tokens;
use ignore::gitignore::GitignoreBuilder;

/// What [`expand`] attaches at most, in estimated tokens, unless the caller says otherwise.
pub const DEFAULT_MENTION_BUDGET_TOKENS: usize = 16_000;
/// Entries listed for a mentioned directory.
const DIRECTORY_ENTRIES: usize = 200;
/// Bytes looked at to tell a binary file.
const BINARY_SNIFF: usize = 8_192;
/// The fewest tokens worth attaching a cut file for.
const MIN_PIECE_TOKENS: usize = 50;

/// One `@path` in a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Byte offset of the `@`.
    pub start: usize,
    /// The path as written (without `@`).
    pub path: String,
}

/// What a mention attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The path relative to the project root (a directory ends with `/`).
    pub path: String,
    /// Lines (files) or entries (directories) attached.
    pub count: usize,
    /// Lines or entries there were in all (more than `count` when cut to the budget).
    pub total: usize,
    /// Whether it is a directory listing.
    pub directory: bool,
    /// Whether it is an image (carried by the message beside its text).
    pub image: bool,
}

impl Attachment {
    /// One line for people: `src/a.rs (40 lines)`, `src/ (12 entries)`, `big.rs (lines 1-300 of 4000)`.
    pub fn describe(&self) -> String {
        if self.image {
            return format!("{} (image)", self.path);
        }
        let unit = match (self.directory, self.total) {
            (true, 1) => "entry",
            (true, _) => "entries",
            (false, 1) => "line",
            (false, _) => "lines",
        };
        if self.count < self.total {
            if self.directory {
                format!("{} ({} of {} {unit})", self.path, self.count, self.total)
            } else {
                format!(
                    "{} (lines 1-{} of {}, cut to the budget)",
                    self.path, self.count, self.total
                )
            }
        } else {
            format!("{} ({} {unit})", self.path, self.total)
        }
    }
}

/// Why a mention was not attached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MentionError {
    /// Nothing at that path.
    #[error("@{path}: no such file or directory in the project")]
    Missing {
        /// The path as written.
        path: String,
    },
    /// The path leaves the project, is `.honeignore`d or cannot be resolved.
    #[error("@{path}: {reason}")]
    Refused {
        /// The path as written.
        path: String,
        /// The guard's reason.
        reason: String,
    },
    /// The path is git-ignored.
    #[error("@{path}: ignored by .gitignore, not attached")]
    GitIgnored {
        /// The path as written.
        path: String,
    },
    /// The file looks like it holds secrets.
    #[error("@{path}: may hold secrets (keys, passwords), not attached")]
    Secret {
        /// The path as written.
        path: String,
    },
    /// The file is not text, or could not be read.
    #[error("@{path}: {reason}")]
    Unreadable {
        /// The path as written.
        path: String,
        /// Why.
        reason: String,
    },
    /// The budget was used up by earlier mentions.
    #[error("@{path}: not attached, the mentions' budget of {budget} tokens is used up")]
    OverBudget {
        /// The path as written.
        path: String,
        /// The budget in tokens.
        budget: usize,
    },
}

/// A prompt with its mentions expanded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The prompt as written, followed by the attached files and listings (the prompt
    /// alone when nothing was attached).
    pub text: String,
    /// What was attached, in mention order.
    pub attached: Vec<Attachment>,
    /// Mentions that were not attached.
    pub problems: Vec<MentionError>,
    /// The images mentioned, in mention order, for the message to carry.
    pub images: Vec<hone_api::ImageAttachment>,
}

/// The `@path` mentions in `text`, in order, each path once.
pub fn find(text: &str) -> Vec<Mention> {
    let mut found: Vec<Mention> = Vec::new();
    for (start, _) in text.match_indices('@') {
        let before = text[..start].chars().next_back();
        if before.is_some_and(|c| {
            !(c.is_whitespace() || matches!(c, '(' | '[' | '{' | '"' | '\'' | '`'))
        }) {
            continue;
        }
        let rest = &text[start + 1..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>' | '@'))
            .unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(|c: char| {
            matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | ')' | ']' | '}')
        });
        let looks_like_path = path
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '/' | '-' | '~'));
        if looks_like_path && !found.iter().any(|mention| mention.path == path) {
            found.push(Mention {
                start,
                path: path.to_string(),
            });
        }
    }
    found
}

/// Expands the mentions in `text` for the project `guard` guards, attaching at most
/// `budget_tokens` (estimated at four bytes a token).
pub fn expand(guard: &PathGuard, text: &str, budget_tokens: usize) -> Expanded {
    let mut expanded = Expanded {
        text: text.to_string(),
        ..Expanded::default()
    };
    let mut body = String::new();
    let mut left = budget_tokens;
    for mention in find(text) {
        match attach(guard, &mention.path, left, budget_tokens) {
            Ok(Piece::Text(attachment, piece)) => {
                left = left.saturating_sub(estimate_tokens(&piece));
                body.push_str(&piece);
                expanded.attached.push(attachment);
            }
            Ok(Piece::Image(attachment, image)) => {
                expanded.images.push(image);
                expanded.attached.push(attachment);
            }
            Err(problem) => expanded.problems.push(problem),
        }
    }
    if !body.is_empty() {
        expanded
            .text
            .push_str("\n\n[Attached with @mentions; line numbers are not part of the files.]\n");
        expanded.text.push_str(&body);
    }
    expanded
}

/// What one mention attaches.
enum Piece {
    /// Text for the prompt.
    Text(Attachment, String),
    /// An image for the message.
    Image(Attachment, hone_api::ImageAttachment),
}

fn attach(
    guard: &PathGuard,
    written: &str,
    left: usize,
    budget: usize,
) -> Result<Piece, MentionError> {
    let path = written.to_string();
    let resolved = guard
        .resolve_read(written)
        .map_err(|error| MentionError::Refused {
            path: path.clone(),
            reason: error.to_string(),
        })?;
    let metadata = std::fs::metadata(&resolved.absolute)
        .map_err(|_| MentionError::Missing { path: path.clone() })?;
    let relative = resolved.relative;
    if git_ignored(guard.root(), &relative, metadata.is_dir()) {
        return Err(MentionError::GitIgnored { path });
    }
    if left < MIN_PIECE_TOKENS {
        return Err(MentionError::OverBudget { path, budget });
    }
    if metadata.is_dir() {
        let (attachment, piece) = listing(guard, &resolved.absolute, &relative, left);
        return Ok(Piece::Text(attachment, piece));
    }
    if guard.is_secret(&relative) {
        return Err(MentionError::Secret { path });
    }
    let unreadable = |reason: String| MentionError::Unreadable {
        path: path.clone(),
        reason,
    };
    if crate::images::is_image_file(&resolved.absolute) {
        let mut image = crate::images::read_image_file(&resolved.absolute)
            .map_err(|error| unreadable(error.to_string()))?;
        image.name = Some(relative.clone());
        let attachment = Attachment {
            path: relative,
            count: 0,
            total: 0,
            directory: false,
            image: true,
        };
        return Ok(Piece::Image(attachment, image));
    }
    let bytes = std::fs::read(&resolved.absolute).map_err(|error| unreadable(error.to_string()))?;
    if bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0) {
        return Err(unreadable("a binary file, not attached".into()));
    }
    let content =
        String::from_utf8(bytes).map_err(|_| unreadable("not UTF-8 text, not attached".into()))?;
    let (attachment, piece) = numbered(&relative, &content, left);
    Ok(Piece::Text(attachment, piece))
}

/// `content` with numbered lines in a fenced block, cut to `left` tokens.
fn numbered(relative: &str, content: &str, left: usize) -> (Attachment, String) {
    let total = content.lines().count();
    let fence = if content.contains("```") {
        "````"
    } else {
        "```"
    };
    let mut piece = format!("\n{relative}\n{fence}\n");
    let mut count = 0;
    for (index, line) in content.lines().enumerate() {
        let numbered = format!("{:>5}  {line}\n", index + 1);
        if estimate_tokens(&piece) + estimate_tokens(&numbered) + 20 > left {
            break;
        }
        piece.push_str(&numbered);
        count += 1;
    }
    piece.push_str(fence);
    piece.push('\n');
    if count < total {
        let _ = writeln!(
            piece,
            "(cut at line {count} of {total}; read the rest with the file tools)"
        );
    }
    (
        Attachment {
            path: relative.to_string(),
            count,
            total,
            directory: false,
            image: false,
        },
        piece,
    )
}

/// The entries of the directory `absolute` (ignored ones left out), cut to `left` tokens.
fn listing(
    guard: &PathGuard,
    absolute: &Path,
    relative: &str,
    left: usize,
) -> (Attachment, String) {
    let prefix = if relative.is_empty() {
        String::new()
    } else {
        format!("{relative}/")
    };
    let mut entries: Vec<String> = std::fs::read_dir(absolute)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let name = entry.file_name().into_string().ok()?;
                    let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                    let path = format!("{prefix}{name}");
                    let hidden = name == ".git"
                        || guard.is_ignored(&path, is_dir)
                        || git_ignored(guard.root(), &path, is_dir);
                    (!hidden).then(|| format!("{name}{}", if is_dir { "/" } else { "" }))
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let total = entries.len();
    let shown = if prefix.is_empty() {
        "./".to_string()
    } else {
        prefix
    };
    let mut piece = format!("\n{shown} (directory)\n```\n");
    let mut count = 0;
    for entry in entries.iter().take(DIRECTORY_ENTRIES) {
        if estimate_tokens(&piece) + estimate_tokens(entry) + 10 > left {
            break;
        }
        piece.push_str(entry);
        piece.push('\n');
        count += 1;
    }
    piece.push_str("```\n");
    (
        Attachment {
            path: shown,
            count,
            total,
            directory: true,
            image: false,
        },
        piece,
    )
}

/// Whether a `.gitignore` between the root and `relative` ignores it (deeper files win).
fn git_ignored(root: &Path, relative: &str, is_dir: bool) -> bool {
    let mut ignored = false;
    let mut dir = root.to_path_buf();
    let mut rest: Vec<&str> = relative
        .split('/')
        .filter(|part| !part.is_empty())
        .collect();
    loop {
        let file = dir.join(".gitignore");
        if file.is_file() {
            let mut builder = GitignoreBuilder::new(&dir);
            let _ = builder.add(&file);
            if let Ok(matcher) = builder.build() {
                let below = rest.join("/");
                if !below.is_empty() {
                    let matched = matcher.matched_path_or_any_parents(&below, is_dir);
                    if matched.is_ignore() {
                        ignored = true;
                    } else if matched.is_whitelist() {
                        ignored = false;
                    }
                }
            }
        }
        if rest.len() <= 1 {
            return ignored;
        }
        dir.push(rest.remove(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        find(text).into_iter().map(|mention| mention.path).collect()
    }

    #[test]
    fn finds_mentions_but_not_emails_or_trailing_punctuation() {
        assert_eq!(paths("explain @src/a.rs."), ["src/a.rs"]);
        assert_eq!(paths("@a.rs and (@b/) then @a.rs"), ["a.rs", "b/"]);
        assert!(paths("write to a@b.com or me@example.org").is_empty());
        assert!(paths("an @ alone, @@ twice, @!").is_empty());
        assert_eq!(paths("\"@.hone/config.toml\""), [".hone/config.toml"]);
    }
}

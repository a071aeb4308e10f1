//! Localisation: the code a request is about, found before the model is asked.
//!
//! Small models rarely explore with tools; put the right code in front of them and they
//! fix it. [`extract_mentions`] reads traceback frames, paths, file names, symbols and
//! phrases from the request; a [`Localizer`] (the code index, plugged in by the front end)
//! turns them into ranked [`Candidate`]s ([`locate_request`] adds the evidence of failing
//! tests and leaves test files out of requests not about tests); [`plan_attachment`] cuts
//! them to a token budget — whole small files, otherwise the matching definitions with a
//! few lines around — and renders them with line numbers for the user message.

mod attach;
mod frames;
mod mentions;
mod tests_rule;

pub(crate) use attach::is_localized;
pub use attach::{Attachment, CONTEXT_LINES, LocalizedItem, plan_attachment, without_line_numbers};
pub use frames::{Frame, frames};
pub use mentions::{Mention, MentionKind, extract_mentions, is_stop_word, variants};
pub use tests_rule::{about_tests, is_test_path};

/// The candidates for `request`, through `localizer`: the request's mentions, then what
/// `evidence` (a failing test's output) names as code — frames, paths, symbols, not its
/// prose. Test files are left out unless the request is about tests ([`about_tests`]).
pub fn locate_request(
    localizer: &dyn Localizer,
    request: &str,
    evidence: Option<&str>,
) -> Vec<Candidate> {
    let mut mentions = extract_mentions(request);
    if let Some(evidence) = evidence {
        let named: Vec<Mention> = extract_mentions(evidence)
            .into_iter()
            .filter(|mention| mention.kind >= MentionKind::Symbol)
            .filter(|mention| {
                !mentions
                    .iter()
                    .any(|known| known.names == mention.names && known.line == mention.line)
            })
            .collect();
        mentions.extend(named);
        mentions.sort_by_key(|mention| std::cmp::Reverse(mention.kind));
    }
    if mentions.is_empty() {
        return Vec::new();
    }
    let mut candidates = localizer.locate(&mentions);
    if !about_tests(request) {
        candidates.retain(|candidate| !is_test_path(&candidate.path));
    }
    candidates
}

/// Finds the code that mentions name (implemented by the code index).
pub trait Localizer: Send + Sync {
    /// Candidate locations for `mentions`, in any order; higher scores matter more.
    fn locate(&self, mentions: &[Mention]) -> Vec<Candidate>;
}

/// One place in the project a request may be about.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Root-relative path.
    pub path: String,
    /// The definition's first and last line (1-based, inclusive); `None` for the file itself.
    pub lines: Option<(u32, u32)>,
    /// What is there: `function cartTotal`, `class ItemStore`, `reference to ItemStore`.
    pub what: String,
    /// The mention it answers, as written in the request.
    pub mention: String,
    /// How the mention was recognised (for the wording of the reason).
    pub kind: MentionKind,
    /// Relevance; higher first.
    pub score: f64,
}

impl Candidate {
    /// Why it was picked, as the user reads it: `mentions "src/math.ts"`,
    /// `matches "the cart total"`.
    pub fn reason(&self) -> String {
        match self.kind {
            MentionKind::Path | MentionKind::FileName | MentionKind::Frame => {
                format!("mentions {:?}", self.mention)
            }
            MentionKind::Symbol | MentionKind::Phrase | MentionKind::Word => {
                format!("matches {:?}", self.mention)
            }
        }
    }
}

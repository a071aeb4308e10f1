//! Localisation: the code a request is about, found before the model is asked.
//!
//! Small models rarely explore with tools; put the right code in front of them and they
//! fix it. [`extract_mentions`] reads paths, file names, symbols and phrases from the
//! request; a [`Localizer`] (the code index, plugged in by the front end) turns them into
//! ranked [`Candidate`]s; [`plan_attachment`] cuts them to a token budget — whole small
//! files, otherwise the matching definitions with a few lines around — and renders them with
//! line numbers for the user message.

mod attach;
mod mentions;

pub use attach::{Attachment, CONTEXT_LINES, LocalizedItem, plan_attachment, without_line_numbers};
pub use mentions::{Mention, MentionKind, extract_mentions, variants};

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
            MentionKind::Path | MentionKind::FileName => format!("mentions {:?}", self.mention),
            MentionKind::Symbol | MentionKind::Phrase | MentionKind::Word => {
                format!("matches {:?}", self.mention)
            }
        }
    }
}

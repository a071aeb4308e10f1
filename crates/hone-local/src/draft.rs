//! Drafts for speculative decoding, looked up in the context ("prompt lookup").
//!
//! An agent's answers copy much of what is already in the prompt: code being edited, file
//! names, earlier calls. When the last few tokens occurred before, the tokens that followed
//! them then are a good guess for what follows now. The engine verifies such a draft in one
//! forward pass and keeps the tokens the model itself would have chosen.

/// Longest and shortest suffix looked up, in tokens: a longer match predicts better, a
/// shorter one is found more often.
const LONGEST_NGRAM: usize = 4;
const SHORTEST_NGRAM: usize = 2;

/// How far back a match is searched for, in tokens (the lookup runs once per pass).
const SEARCH_WINDOW: usize = 16_384;

/// Passes without drafts after drafting stopped paying off, before trying again.
const PAUSE: usize = 8;

/// How many tokens to draft: grows while drafts are accepted whole, shrinks when they are
/// rejected early (every rejected token costs a row of computation), and pauses drafting
/// for a while when even single tokens are rejected (text unlike the context).
#[derive(Debug, Clone)]
pub(crate) struct DraftLength {
    current: usize,
    most: usize,
    paused: usize,
}

impl DraftLength {
    /// Starts at a few tokens; never drafts more than `most`.
    pub(crate) fn new(most: usize) -> Self {
        Self {
            current: most.min(4),
            most,
            paused: 0,
        }
    }

    /// Tokens to draft in the next pass (0 while paused).
    pub(crate) fn next(&mut self) -> usize {
        if self.paused > 0 {
            self.paused -= 1;
            return 0;
        }
        self.current
    }

    /// Adjusts after a pass that drafted `drafted` tokens of which `accepted` were kept.
    pub(crate) fn update(&mut self, drafted: usize, accepted: usize) {
        if drafted == 0 {
            return;
        }
        if accepted == drafted {
            self.current = (self.current * 2).min(self.most);
        } else if accepted == 0 && self.current <= 1 {
            self.paused = PAUSE;
        } else if accepted * 2 < drafted {
            self.current = (self.current / 2).max(1);
        }
    }
}

/// Up to `most` tokens that followed the latest earlier occurrence of the longest suffix of
/// `context` (between [`SHORTEST_NGRAM`] and [`LONGEST_NGRAM`] tokens) found in it; empty
/// when there is none.
pub(crate) fn lookup(context: &[u32], most: usize) -> &[u32] {
    if most == 0 {
        return &[];
    }
    let window = &context[context.len().saturating_sub(SEARCH_WINDOW)..];
    for n in (SHORTEST_NGRAM..=LONGEST_NGRAM).rev() {
        let Some(start) = window.len().checked_sub(n) else {
            continue;
        };
        let suffix = &window[start..];
        // Candidate occurrences end before the suffix itself; the latest is most likely
        // to continue the same way.
        let found = (0..start).rev().find(|&at| window[at..at + n] == *suffix);
        if let Some(at) = found {
            let follows = at + n;
            let end = (follows + most).min(window.len());
            return &window[follows..end];
        }
    }
    &[]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_after_the_latest_earlier_occurrence_are_drafted() {
        // "1 2 3" occurs twice before the end: the later one (followed by 7 8) wins.
        let context = [1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 6, 1, 2, 3];
        assert_eq!(lookup(&context, 2), &[7, 8]);
        assert_eq!(lookup(&context, 10), &[7, 8, 6, 1, 2, 3]);
    }

    #[test]
    fn longer_matches_are_preferred_over_shorter_later_ones() {
        // "5 2 3" is found at the start; "2 3" alone occurs later, followed by 0.
        let context = [5, 2, 3, 4, 2, 3, 0, 5, 2, 3];
        assert_eq!(lookup(&context, 1), &[4]);
    }

    #[test]
    fn nothing_is_drafted_without_a_repeated_suffix() {
        assert!(lookup(&[1, 2, 3, 4, 5], 4).is_empty());
        assert!(lookup(&[1], 4).is_empty());
        assert!(lookup(&[], 4).is_empty());
        // A single repeated token is too weak a hint.
        assert!(lookup(&[7, 1, 8, 1], 4).is_empty());
        assert!(lookup(&[1, 2, 1, 2], 0).is_empty());
    }

    #[test]
    fn the_draft_length_adapts_to_acceptance() {
        let mut length = DraftLength::new(16);
        assert_eq!(length.next(), 4);
        length.update(4, 4);
        assert_eq!(length.next(), 8);
        length.update(8, 8);
        length.update(16, 16);
        assert_eq!(length.next(), 16);
        length.update(16, 3);
        assert_eq!(length.next(), 8);
        length.update(8, 5);
        assert_eq!(length.next(), 8);
        length.update(0, 0);
        assert_eq!(length.next(), 8);
        for _ in 0..3 {
            length.update(8, 0);
        }
        assert_eq!(length.next(), 1);
        // A single rejected token pauses drafting, then it starts again with one.
        length.update(1, 0);
        for _ in 0..PAUSE {
            assert_eq!(length.next(), 0);
        }
        assert_eq!(length.next(), 1);
    }
}

//! Cheap text similarity for "did you mean" suggestions: edit distance for short names,
//! character-bigram overlap for lines (linear, so whole files can be scanned).

/// Similarity of two short strings in `0.0..=1.0` from their Levenshtein distance.
pub(crate) fn name_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &left) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &right) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(left != right);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    1.0 - previous[b.len()] as f64 / longest as f64
}

/// The sorted character bigrams of a trimmed line, compared with [`bigram_similarity`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bigrams {
    pairs: Vec<(char, char)>,
    trimmed: String,
}

impl Bigrams {
    /// The bigrams of `line`, ignoring surrounding whitespace.
    pub(crate) fn of(line: &str) -> Self {
        let trimmed = line.trim();
        let chars: Vec<char> = trimmed.chars().collect();
        let mut pairs: Vec<(char, char)> =
            chars.windows(2).map(|pair| (pair[0], pair[1])).collect();
        pairs.sort_unstable();
        Self {
            pairs,
            trimmed: trimmed.to_string(),
        }
    }
}

/// Dice coefficient of two lines' bigrams in `0.0..=1.0`; lines too short for bigrams
/// count as equal or different.
pub(crate) fn bigram_similarity(a: &Bigrams, b: &Bigrams) -> f64 {
    if a.pairs.is_empty() || b.pairs.is_empty() {
        return if a.trimmed == b.trimmed { 1.0 } else { 0.0 };
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.pairs.len() && j < b.pairs.len() {
        match a.pairs[i].cmp(&b.pairs[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (2 * shared) as f64 / (a.pairs.len() + b.pairs.len()) as f64
}

/// The window of `needle.len()` consecutive lines of `haystack` most similar to `needle`:
/// `(start index, window length, similarity)`; `None` when either is empty.
pub(crate) fn closest_window(
    haystack: &[String],
    needle: &[String],
) -> Option<(usize, usize, f64)> {
    // Long needles are scored by their first lines: enough to locate them, and it keeps the
    // scan linear in the file size.
    const SCORED_LINES: usize = 30;
    if haystack.is_empty() || needle.is_empty() {
        return None;
    }
    let window = needle.len().min(haystack.len());
    let scored = window.min(SCORED_LINES);
    let needle: Vec<Bigrams> = needle[..scored]
        .iter()
        .map(|line| Bigrams::of(line))
        .collect();
    let lines: Vec<Bigrams> = haystack.iter().map(|line| Bigrams::of(line)).collect();
    let mut best: Option<(usize, f64)> = None;
    for start in 0..=haystack.len() - window {
        let total: f64 = needle
            .iter()
            .zip(&lines[start..start + scored])
            .map(|(wanted, line)| bigram_similarity(wanted, line))
            .sum();
        let score = total / scored as f64;
        if best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((start, score));
        }
    }
    best.map(|(start, score)| (start, window, score))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_one_typo_apart_are_similar() {
        assert!(name_similarity("store.ts", "stor.ts") > 0.8);
        assert!(name_similarity("store.ts", "main.rs") < 0.5);
        assert_eq!(name_similarity("", ""), 1.0);
    }

    #[test]
    fn lines_are_compared_without_surrounding_whitespace() {
        let a = Bigrams::of("    let total = price * count;");
        let b = Bigrams::of("let total = price * count;  ");
        assert_eq!(bigram_similarity(&a, &b), 1.0);
        let c = Bigrams::of("}");
        assert_eq!(bigram_similarity(&c, &Bigrams::of("  }")), 1.0);
        assert_eq!(bigram_similarity(&c, &Bigrams::of(")")), 0.0);
    }

    #[test]
    fn the_closest_window_is_found_anywhere_in_the_file() {
        let file: Vec<String> = ["fn a() {", "    one();", "}", "fn b() {", "    two();", "}"]
            .iter()
            .map(ToString::to_string)
            .collect();
        let needle = vec!["fn b() {".to_string(), "    too();".to_string()];
        let (start, len, score) = closest_window(&file, &needle).unwrap();
        assert_eq!((start, len), (3, 2));
        assert!(score > 0.7);
    }
}

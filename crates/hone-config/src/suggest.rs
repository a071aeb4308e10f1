//! "Did you mean …?" suggestions by edit distance.

/// Edit distance between `a` and `b` in characters: insertions, deletions, substitutions and
/// swaps of adjacent characters (optimal string alignment) each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance between the first i characters of a and the first j of b.
    let mut rows = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// The candidate closest to `name` (case-insensitively), when it is close enough to be a typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let name = name.to_lowercase();
    let threshold = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(&name, &candidate.to_lowercase()), candidate))
        .filter(|(distance, _)| *distance <= threshold)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.to_string())
}

/// serde's "unknown field `x`, expected one of `a`, `b`" with ". Did you mean `a`?" added when
/// one of the expected names is close to `x`; other messages unchanged.
pub(crate) fn unknown_field_hint(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message;
    };
    let Some((field, expected)) = rest.split_once('`') else {
        return message;
    };
    let candidates = expected.split('`').skip(1).step_by(2);
    match closest(field, candidates) {
        Some(name) => format!("{message}. Did you mean `{name}`?"),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_get_the_closest_expected_name() {
        let message =
            "unknown field `namspace`, expected one of `backend`, `namespace`".to_string();
        assert!(unknown_field_hint(message).ends_with("Did you mean `namespace`?"));
        let far = "unknown field `zzz`, expected `backend`".to_string();
        assert_eq!(unknown_field_hint(far.clone()), far);
        let other = "invalid type".to_string();
        assert_eq!(unknown_field_hint(other.clone()), other);
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("antropic", "anthropic"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("fsat", "fast"), 1);
    }

    #[test]
    fn closest_suggests_only_near_misses() {
        let names = ["openai", "anthropic", "ollama", "groq"];
        assert_eq!(closest("antropic", names).as_deref(), Some("anthropic"));
        assert_eq!(closest("OLAMA", names).as_deref(), Some("ollama"));
        assert_eq!(closest("grok", names).as_deref(), Some("groq"));
        assert_eq!(closest("something-else", names), None);
    }
}

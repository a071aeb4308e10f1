//! The code around the places a failure names, numbered, the named lines marked.

/// Lines shown before and after a failing line.
const CONTEXT_LINES: usize = 3;

/// `places` grouped by file, in the order the files first appear.
pub(super) fn by_file(places: &[(String, usize)]) -> Vec<(String, Vec<usize>)> {
    let mut files: Vec<(String, Vec<usize>)> = Vec::new();
    for (path, line) in places {
        match files.iter_mut().find(|(file, _)| file == path) {
            Some((_, lines)) => lines.push(*line),
            None => files.push((path.clone(), vec![*line])),
        }
    }
    files
}

/// The code around each of `lines` of `source`, numbered, the named lines marked; windows
/// that overlap or touch are shown once.
pub(super) fn snippets(path: &str, source: &str, lines: &[usize]) -> String {
    let mut lines: Vec<usize> = lines.to_vec();
    lines.sort_unstable();
    lines.dedup();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for line in lines {
        match groups.last_mut() {
            Some(group)
                if group
                    .last()
                    .is_some_and(|last| line <= last + 2 * CONTEXT_LINES + 1) =>
            {
                group.push(line)
            }
            _ => groups.push(vec![line]),
        }
    }
    groups
        .iter()
        .map(|group| marked_window(path, source, group))
        .collect()
}

/// The lines around `line` of `source`, numbered, the line itself marked.
pub(super) fn snippet(path: &str, source: &str, line: usize) -> String {
    marked_window(path, source, &[line])
}

/// The lines from a little before the first of `marked` to a little after the last,
/// numbered, each of `marked` flagged with `>`.
fn marked_window(path: &str, source: &str, marked: &[usize]) -> String {
    let (Some(&line), Some(&end)) = (marked.first(), marked.last()) else {
        return String::new();
    };
    let lines: Vec<&str> = source.lines().collect();
    if line == 0 || line > lines.len() + 1 {
        return String::new();
    }
    let first = line.saturating_sub(CONTEXT_LINES).max(1);
    let last = (end + CONTEXT_LINES).min(lines.len());
    let width = last.to_string().len();
    let mut text = if marked.len() == 1 {
        format!("{path} around line {line}:\n")
    } else {
        let named: Vec<String> = marked.iter().map(usize::to_string).collect();
        format!("{path} around lines {}:\n", named.join(", "))
    };
    for number in first..=last {
        let mark = if marked.contains(&number) { '>' } else { ' ' };
        text.push_str(&format!(
            "{mark} {number:>width$} | {}\n",
            lines.get(number - 1).copied().unwrap_or("")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_numbered_and_marked() {
        let text = snippet("a.py", "a\nb\nc\nd\ne\nf\ng\nh\n", 5);
        assert_eq!(
            text,
            "a.py around line 5:\n  2 | b\n  3 | c\n  4 | d\n> 5 | e\n  6 | f\n  7 | g\n  8 | h\n"
        );
        assert_eq!(snippet("a.py", "a\n", 9), "");
    }

    #[test]
    fn places_close_together_share_one_window() {
        let source: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let text = snippets("t.js", &source, &[6, 5, 7, 18]);
        assert!(
            text.starts_with("t.js around lines 5, 6, 7:\n   2 | line 2\n"),
            "{text}"
        );
        assert!(
            text.contains(">  5 | line 5\n>  6 | line 6\n>  7 | line 7\n"),
            "{text}"
        );
        assert_eq!(text.matches("around line").count(), 2, "{text}");
        assert!(text.contains("t.js around line 18:\n"), "{text}");
        assert!(!text.contains("line 1\n"), "{text}");
    }
}

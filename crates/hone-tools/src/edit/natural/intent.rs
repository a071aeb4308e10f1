//! Reading what a block leaves out and what the user asked for: elision markers
//! (`// ... rest unchanged`), stub bodies, requests for deletions, questions.

/// Words of a comment that stands for code left out.
const ELISION_WORDS: &[&str] = &[
    "existing code",
    "rest of the",
    "rest unchanged",
    "remains unchanged",
    "remain unchanged",
    "unchanged code",
    "code omitted",
    "omitted for brevity",
    "same as before",
    "as before",
    "other methods",
    "other functions",
    "previous code",
];

/// Lines that are a whole body a model left unwritten.
const STUB_LINES: &[&str] = &[
    "pass",
    "...",
    "…",
    "todo!()",
    "unimplemented!()",
    "raise notimplementederror",
    "raise notimplementederror()",
    "throw new error(\"not implemented\");",
    "throw new error('not implemented');",
    "throw new unsupportedoperationexception();",
    "panic(\"not implemented\")",
];

/// The first line of `new` that stands for left-out code and is not already in `old`.
pub(crate) fn elision(new: &str, old: &str) -> Option<String> {
    new.lines()
        .map(str::trim)
        .filter(|line| is_elision(line))
        .find(|line| !old.lines().any(|old_line| old_line.trim() == *line))
        .map(str::to_string)
}

/// Whether one trimmed line stands for left-out code.
fn is_elision(line: &str) -> bool {
    if matches!(line, "..." | "…" | ". . .") {
        return true;
    }
    let comment = ["//", "#", "/*", "*", "--", "<!--"]
        .iter()
        .find_map(|leader| line.strip_prefix(leader));
    let Some(comment) = comment else {
        return false;
    };
    let lower = comment.to_lowercase();
    lower.contains("...")
        || lower.contains('…')
        || ELISION_WORDS.iter().any(|words| lower.contains(words))
}

/// Whether a definition's text has a stub body (`pass`, `todo!()`, `{}`…) where the
/// original has real code.
pub(crate) fn stub_replaces_code(new: &str, old: &str) -> bool {
    is_stub(new) && !is_stub(old)
}

fn is_stub(definition: &str) -> bool {
    let mut lines = definition.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return true;
    };
    let body: Vec<String> = lines
        .filter(|line| !matches!(*line, "}" | "{" | "};"))
        .map(str::to_lowercase)
        .collect();
    if body.is_empty() {
        // One line: `fn a() {}`, `def a(): pass`, `function a() { return 1; }`.
        let inner = first
            .split_once('{')
            .map(|(_, rest)| rest.trim_end_matches(';').trim_end_matches('}').trim())
            .or_else(|| first.rsplit_once("):").map(|(_, rest)| rest.trim()))
            .or_else(|| first.rsplit_once(':').map(|(_, rest)| rest.trim()));
        return inner.is_none_or(|inner| inner.is_empty() || is_stub_line(&inner.to_lowercase()));
    }
    body.iter().all(|line| is_stub_line(line))
}

fn is_stub_line(line: &str) -> bool {
    STUB_LINES.contains(&line)
        || line.starts_with("// todo")
        || line.starts_with("# todo")
        || line.contains("not implemented")
}

/// Verbs that ask for code to go.
const DELETION_VERBS: &[&str] = &["delete", "remove", "drop", "strip", "eliminate", "erase"];

/// Words that only soften a request ("please remove", "can you delete").
const SOFTENERS: &[&str] = &[
    "please", "can", "could", "would", "will", "you", "kindly", "also",
];

/// Whether the user's request asks for something to be removed: a deletion verb opening a
/// sentence or a clause ("Remove the helper", "fix a, then delete b"), or "get rid of". The
/// same verb inside a description ("returns it without removing it", "add a `remove(name)`
/// method") does not count: there a block leaving code out must not delete it.
pub(crate) fn asks_for_deletion(request: &str) -> bool {
    let lower = without_code_spans(&request.to_lowercase());
    lower.contains("get rid of")
        || clause_openers(&lower)
            .iter()
            .any(|word| DELETION_VERBS.contains(&word.as_str()))
}

/// `text` with each `` `code` `` span blanked (names in backticks are not verbs).
fn without_code_spans(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(index, part)| if index % 2 == 1 { " x " } else { part })
        .collect()
}

/// The first word of each sentence and of each clause (after a comma, "and", "then"),
/// softening words skipped.
fn clause_openers(lower: &str) -> Vec<String> {
    let mut openers = Vec::new();
    let mut at_start = true;
    for raw in lower.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if word.is_empty() {
            continue;
        }
        if word == "and" || word == "then" {
            at_start = true;
        } else if at_start && !SOFTENERS.contains(&word) {
            openers.push(word.to_string());
            at_start = false;
        }
        if raw.ends_with(['.', '!', '?', ';', ':', ',']) {
            at_start = true;
        }
    }
    openers
}

/// Whether the user's request is a question rather than a request for a change.
pub(crate) fn is_question(request: &str) -> bool {
    // Strong verbs only: `add`, `set` or `use` are as often names of functions.
    let asks_for_change = words(request).any(|word| {
        matches!(
            word.as_str(),
            "fix"
                | "change"
                | "implement"
                | "update"
                | "rename"
                | "refactor"
                | "write"
                | "create"
                | "remove"
                | "delete"
                | "replace"
                | "modify"
                | "edit"
                | "correct"
                | "rewrite"
                | "convert"
        )
    });
    if asks_for_change {
        return false;
    }
    let first = words(request).next().unwrap_or_default();
    request.trim_end().ends_with('?')
        || matches!(
            first.as_str(),
            "explain"
                | "what"
                | "why"
                | "how"
                | "where"
                | "which"
                | "who"
                | "when"
                | "describe"
                | "show"
                | "tell"
                | "does"
                | "do"
                | "is"
                | "are"
                | "can"
                | "could"
                | "list"
                | "summarize"
                | "summarise"
        )
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elision_comments_are_found_in_every_comment_style() {
        for line in [
            "// ... rest unchanged",
            "# ... existing code ...",
            "    ...",
            "/* rest of the file */",
            "// other methods",
            "-- …",
        ] {
            let new = format!("def a():\n{line}\n");
            assert!(
                elision(&new, "def a():\n    return 1\n").is_some(),
                "{line}"
            );
        }
    }

    #[test]
    fn code_and_markers_already_in_the_file_are_not_elisions() {
        assert!(elision("f(...args);\nlet a = [...b];\n", "").is_none());
        assert!(elision("// add two numbers\n", "").is_none());
        let protocol = "class P(Protocol):\n    def a(self): ...\n    ...\n";
        assert!(elision(protocol, protocol).is_none());
    }

    #[test]
    fn stub_bodies_replacing_code_are_caught() {
        let old = "def a():\n    x = 1\n    return x\n";
        assert!(stub_replaces_code("def a():\n    pass\n", old));
        assert!(stub_replaces_code("def a(): ...\n", old));
        assert!(stub_replaces_code("fn a() {}\n", "fn a() {\n    b();\n}\n"));
        assert!(stub_replaces_code(
            "fn a() {\n    todo!()\n}\n",
            "fn a() {\n    b();\n}\n"
        ));
        assert!(!stub_replaces_code(
            "fn a() { b() }\n",
            "fn a() {\n    c();\n}\n"
        ));
        assert!(!stub_replaces_code(
            "def a():\n    pass\n",
            "def a():\n    pass\n"
        ));
    }

    #[test]
    fn deletion_requests_are_recognised() {
        assert!(asks_for_deletion("Remove the unused helper"));
        assert!(asks_for_deletion("please delete `old()`"));
        assert!(asks_for_deletion(
            "Fix the parser, then drop the debug print."
        ));
        assert!(asks_for_deletion("The helper is dead code. Remove it"));
        assert!(asks_for_deletion("get rid of the old cache"));
        assert!(!asks_for_deletion("Fix the add function"));
        // Described behaviour and method names are not requests to delete code.
        assert!(!asks_for_deletion(
            "Add a `peek()` method: it returns the top item without removing it."
        ));
        assert!(!asks_for_deletion(
            "Add a `remove(name)` method to the `Cart` class"
        ));
        assert!(!asks_for_deletion(
            "pop() removes the last item twice; fix it"
        ));
    }

    #[test]
    fn questions_are_not_change_requests() {
        assert!(is_question("Explain how add works"));
        assert!(is_question("What does the Cart class do?"));
        assert!(is_question("is this thread safe"));
        assert!(!is_question(
            "The add function subtracts instead of adding. Fix it."
        ));
        assert!(!is_question("Can you fix the add function?"));
        assert!(!is_question("Add a total method to Cart"));
        assert!(!is_question("The add function in src/math.ts subtracts"));
        assert!(is_question("What does add do?"));
    }
}

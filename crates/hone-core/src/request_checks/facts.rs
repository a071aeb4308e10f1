//! Concrete facts in a request that a small script can check: a call of a named function
//! with the result it should give ("`add(2, 3)` should return 5", "add(2,3) returns 6
//! instead of 5", "f(100, 10) should return 90 but it returns -900", "parse('x') should
//! raise ValueError"). Only literal results are taken (numbers, strings, lists, maps,
//! booleans, null); anything vaguer ("should be correct") is no fact.

/// A call and what it should give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fact {
    /// The function called (`add`).
    pub(crate) function: String,
    /// The call as written (`add(2, 3)`).
    pub(crate) call: String,
    /// What it should give.
    pub(crate) expected: Expected,
}

/// What a call should give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expected {
    /// This value, as a literal written in the request (`5`, `'A B'`, `[1, 2]`).
    Value(String),
    /// An error, of this type when named (`ValueError`).
    Raises(Option<String>),
}

/// Verbs after "should"/"must" that introduce the expected result.
const EXPECT_VERBS: &[&str] = &[
    "return", "be", "give", "equal", "yield", "output", "produce", "print",
];
/// Verbs that introduce the actual result before "instead of".
const ACTUAL_VERBS: &[&str] = &[
    "returns", "gives", "yields", "is", "outputs", "produces", "prints", "equals", "returned",
    "gave",
];
/// Verbs after "should"/"must" that ask for an error.
const RAISE_VERBS: &[&str] = &["raise", "throw", "fail", "error"];

/// The facts of `request`, one per call that has an expected result, in order.
pub(crate) fn facts(request: &str) -> Vec<Fact> {
    let mut found: Vec<Fact> = Vec::new();
    for (start, end) in calls(request) {
        let call = &request[start..end];
        let Some(open) = call.find('(') else {
            continue;
        };
        let function = &call[..open];
        // The rest of the sentence after the call says what it gives.
        let rest = sentence_rest(&request[end..]);
        let Some(expected) = expected_in(rest) else {
            continue;
        };
        let fact = Fact {
            function: function.to_string(),
            call: call.to_string(),
            expected,
        };
        if !found.contains(&fact) {
            found.push(fact);
        }
    }
    found
}

/// The byte ranges of the calls in `text`: an identifier directly followed by balanced
/// parentheses (`add(2, 3)`), not part of a dotted name (`math.add(…)` is left out: its
/// receiver is unknown).
fn calls(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut ranges = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let is_start = is_identifier_start(bytes[index])
            && (index == 0 || !is_identifier_byte(bytes[index - 1]) && bytes[index - 1] != b'.');
        if !is_start {
            index += 1;
            continue;
        }
        let mut end = index;
        while end < bytes.len() && is_identifier_byte(bytes[end]) {
            end += 1;
        }
        if bytes.get(end) == Some(&b'(')
            && let Some(close) = closing(text, end)
        {
            ranges.push((index, close + 1));
            index = close + 1;
        } else {
            index = end;
        }
    }
    ranges
}

/// The index of the bracket closing the one at `open`, quotes respected.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (offset, character) in text[open..].char_indices() {
        if let Some(mark) = quote {
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == mark {
                quote = None;
            }
            continue;
        }
        match character {
            '\'' | '"' => quote = Some(character),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + offset);
                }
            }
            '\n' => return None,
            _ => {}
        }
    }
    None
}

fn is_identifier_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// `text` up to the end of its sentence (a `.`, `!`, `?` or `;` followed by a space or
/// the end, or a line break), quotes and brackets respected.
fn sentence_rest(text: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((index, character)) = chars.next() {
        if let Some(mark) = quote {
            if character == mark {
                quote = None;
            }
            continue;
        }
        match character {
            '\'' | '"' => quote = Some(character),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => return &text[..index],
            '.' | '!' | '?' | ';' if depth == 0 => {
                let next = chars.peek().map(|(_, next)| *next);
                if next.is_none_or(char::is_whitespace) {
                    return &text[..index];
                }
            }
            _ => {}
        }
    }
    text
}

/// What the clause `rest` (after a call) says the call should give: after "should/must
/// VERB", after "instead of", or after "expected".
fn expected_in(rest: &str) -> Option<Expected> {
    let words = word_spans(rest);
    for (position, (_, word)) in words.iter().enumerate() {
        let lower = word.to_ascii_lowercase();
        let next = words
            .get(position + 1)
            .map(|(_, word)| word.to_ascii_lowercase());
        // The text after the word `skip` words on (0: this one).
        let after = |skip: usize| {
            words
                .get(position + skip)
                .map(|(start, word)| &rest[*start + word.len()..])
        };
        match lower.as_str() {
            "should" | "must" => {
                let Some(verb) = next else { continue };
                let verb = verb.trim_end_matches('s');
                if RAISE_VERBS.contains(&verb) {
                    let name = after(1).and_then(error_name);
                    return Some(Expected::Raises(name));
                }
                if EXPECT_VERBS.contains(&verb)
                    && let Some(value) = after(1).and_then(literal)
                {
                    return Some(Expected::Value(value));
                }
            }
            "instead" if next.as_deref() == Some("of") => {
                if let Some(value) = after(1).and_then(literal) {
                    return Some(Expected::Value(value));
                }
            }
            "expected" | "expecting" => {
                let text = after(0).unwrap_or("").trim_start_matches([':', ' ']);
                if let Some(value) = literal(text) {
                    return Some(Expected::Value(value));
                }
            }
            _ => {}
        }
    }
    // "add(2, 3) returns 6, not 5".
    let lower = rest.to_ascii_lowercase();
    if words
        .first()
        .is_some_and(|(_, word)| ACTUAL_VERBS.contains(&word.to_ascii_lowercase().as_str()))
        && let Some(at) = lower.find(", not ")
    {
        return literal(&rest[at + ", not ".len()..]).map(Expected::Value);
    }
    None
}

/// The words of `text` with their byte offsets (letters only: values are read from the
/// offsets).
fn word_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (index, character) in text.char_indices() {
        match (character.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(index),
            (false, Some(begin)) => {
                spans.push((begin, &text[begin..index]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(begin) = start {
        spans.push((begin, &text[begin..]));
    }
    spans
}

/// The literal value `text` starts with (after an article or "with"), backticks removed.
fn literal(text: &str) -> Option<String> {
    let mut text = text.trim_start();
    for filler in ["the value ", "a value of ", "with "] {
        if let Some(rest) = text.strip_prefix(filler) {
            text = rest.trim_start();
        }
    }
    let fenced = text.starts_with('`');
    let text = text.trim_start_matches('`');
    let first = text.chars().next()?;
    let value = match first {
        '\'' | '"' => {
            let end = text[1..].find(first)? + 1;
            &text[..=end]
        }
        '[' | '{' | '(' => {
            let end = closing(text, 0)?;
            &text[..=end]
        }
        '-' | '+' | '0'..='9' => {
            let end = text
                .char_indices()
                .skip(1)
                .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '_' || *c == 'e'))
                .map_or(text.len(), |(index, _)| index);
            let number = text[..end].trim_end_matches('.');
            number
                .trim_start_matches(['-', '+'])
                .starts_with(|c: char| c.is_ascii_digit())
                .then_some(number)?
        }
        _ => {
            let word: String = text
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            let known = [
                "true",
                "false",
                "True",
                "False",
                "None",
                "null",
                "undefined",
                "NaN",
            ];
            known
                .contains(&word.as_str())
                .then_some(&text[..word.len()])?
        }
    };
    if fenced && !text[value.len()..].starts_with('`') {
        return None;
    }
    Some(value.to_string())
}

/// The error type named at the start of `text` (`ValueError`, `TypeError`), when it looks
/// like one: a capitalised identifier ending in Error or Exception.
fn error_name(text: &str) -> Option<String> {
    let text = text
        .trim_start()
        .trim_start_matches("an ")
        .trim_start_matches("a ")
        .trim_start_matches('`');
    let name: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    (name.starts_with(|c: char| c.is_ascii_uppercase())
        && (name.ends_with("Error") || name.ends_with("Exception")))
    .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(function: &str, call: &str, expected: &str) -> Fact {
        Fact {
            function: function.into(),
            call: call.into(),
            expected: Expected::Value(expected.into()),
        }
    }

    #[test]
    fn a_call_with_what_it_should_return_is_a_fact() {
        for (request, fact) in [
            ("add(2, 3) should return 5", value("add", "add(2, 3)", "5")),
            (
                "The add function is wrong: `add(2, 3)` should return `5`. Fix it.",
                value("add", "add(2, 3)", "5"),
            ),
            (
                "add(2,3) returns 6 instead of 5",
                value("add", "add(2,3)", "5"),
            ),
            (
                "f(100, 10) should return 90 but it returns -900",
                value("f", "f(100, 10)", "90"),
            ),
            (
                "discount(100, 10) returns -900, expected 90.",
                value("discount", "discount(100, 10)", "90"),
            ),
            (
                "title_case('a b') gives 'A b' instead of 'A B'",
                value("title_case", "title_case('a b')", "'A B'"),
            ),
            (
                "Calling split_words(\"a  b\") should give [\"a\", \"b\"]; it keeps the empty word.",
                value("split_words", "split_words(\"a  b\")", "[\"a\", \"b\"]"),
            ),
            (
                "is_even(3) should be False",
                value("is_even", "is_even(3)", "False"),
            ),
            (
                "mean([1.5, 2.5]) must return 2.0.",
                value("mean", "mean([1.5, 2.5])", "2.0"),
            ),
            (
                "parse_duration('2h') returns 720, not 7200",
                value("parse_duration", "parse_duration('2h')", "7200"),
            ),
        ] {
            assert_eq!(facts(request), vec![fact], "{request}");
        }
    }

    #[test]
    fn an_error_that_should_be_raised_is_a_fact() {
        assert_eq!(
            facts("parse_int('x') should raise ValueError, but it returns 0"),
            vec![Fact {
                function: "parse_int".into(),
                call: "parse_int('x')".into(),
                expected: Expected::Raises(Some("ValueError".into())),
            }]
        );
        assert_eq!(
            facts("divide(1, 0) should throw.")[0].expected,
            Expected::Raises(None)
        );
    }

    #[test]
    fn vague_requests_and_unknown_receivers_give_no_fact() {
        for request in [
            "Fix the add function in src/math.js",
            "add(2, 3) should be correct",
            "add(2, 3) is wrong",
            "cart.total() should return 5",
            "The add() function is wrong; fix it and run the tests",
            "add(2, 3) returns 6. It should return 5.",
            "",
        ] {
            assert_eq!(facts(request), Vec::new(), "{request}");
        }
    }

    #[test]
    fn each_call_keeps_its_own_expectation() {
        let found = facts("add(2, 3) should return 5 and sub(3, 2) should return 1.");
        assert_eq!(
            found,
            vec![
                value("add", "add(2, 3)", "5"),
                value("sub", "sub(3, 2)", "1")
            ]
        );
    }
}

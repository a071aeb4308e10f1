use super::*;

const KNOWN: &[&str] = &["read_file", "edit_file", "write_file", "run_shell"];

fn parser() -> ToolCallParser {
    ToolCallParser::new(KNOWN.iter().copied())
}

fn merged(pieces: Vec<Parsed>) -> Vec<Parsed> {
    let mut out = Output::default();
    for piece in pieces {
        match piece {
            Parsed::Text(text) => out.text(&text),
            call => out.0.push(call),
        }
    }
    out.0
}

fn run<'a>(chunks: impl IntoIterator<Item = &'a str>) -> Vec<Parsed> {
    let mut parser = parser();
    let mut pieces = Vec::new();
    for chunk in chunks {
        pieces.extend(parser.push(chunk));
    }
    pieces.extend(parser.finish());
    merged(pieces)
}

fn parse(input: &str) -> Vec<Parsed> {
    run([input])
}

fn chunked(input: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let boundaries: Vec<usize> = input.char_indices().map(|(index, _)| index).collect();
    for (count, &index) in boundaries.iter().enumerate() {
        if count > 0 && count % size == 0 {
            chunks.push(&input[start..index]);
            start = index;
        }
    }
    chunks.push(&input[start..]);
    chunks
}

fn text(value: &str) -> Parsed {
    Parsed::Text(value.to_owned())
}

fn call(name: &str, arguments: &str) -> Parsed {
    Parsed::Call {
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    }
}

fn assert_plain_text(input: &str) {
    assert_eq!(parse(input), vec![text(input)], "input: {input:?}");
}

/// Every input used below; each must parse the same whatever the chunking.
const CORPUS: &[&str] = &[
    "Sure.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}</tool_call>",
    "<tool_call>\n  {\n    \"name\": \"read_file\",\n    \"arguments\": {\"path\": \"a.rs\"}\n  }\n</tool_call>\nDone.",
    "Reading.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n",
    "<tool_call>{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a.rs\\\"}\"}</tool_call>",
    "<tool_call>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.rs\"}}</tool_call>",
    "A\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\nB\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}</tool_call>\nC",
    "<tool_call>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}]</tool_call>",
    "I'll edit it.\n```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/main.rs\", \"old\": \"a\", \"new\": \"b\"}}\n```\nThat should work.",
    "```\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```",
    "```tool_call\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```",
    "```json\n[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}]\n```",
    "Let me look.\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\nok",
    "Let me look.\n  {\n    \"name\": \"read_file\",\n    \"arguments\": {\"path\": \"a{b}\"}\n  }\n",
    "Here is the fix:\n```rust\nfn main() {\n    let s = \"<tool_call>\";\n}\n{\"name\": \"read_file\", \"arguments\": {}}\n```\nDone.",
    "```json\n{\n  \"compilerOptions\": {\"strict\": true}\n}\n```\n",
    "Config:\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n",
    "Use the <tools> section or a <tool in prose, and x < y.",
    "A set looks like\n{ 1, 2, 3 }\nin math, and {braces} mid-line too.",
    "Write `<tool_call>` followed by JSON to call a tool.",
    "```json\n{\"name\": \"delete_everything\", \"arguments\": {}}\n```",
    "{\"name\": \"delete_everything\", \"arguments\": {}}\n",
    "<tool_call>{\"name\": \"delete_everything\", \"arguments\": {}}</tool_call>",
    "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"</tool_call>after",
    "<tool_call>{\"arguments\": 1, 2}</tool_call>",
    "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}</tool_call>",
    "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"p.rs\", \"content\": \"const CLOSE: &str = \\\"</tool_call>\\\";\"}}</tool_call>",
    "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"line 1\nline 2\"}}</tool_call>",
    "```xml\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n```\n",
    "```json\n{\"name\": \"read_file\", \"description\": \"Reads\", \"parameters\": {\"type\": \"object\"}}\n```",
    "````markdown\n```json\n{\"name\": \"read_file\", \"arguments\": {}}\n```\n````\nafter",
    "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}",
    "```\nplain output\n",
    "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}} trailing words",
    "text <tool_c",
    "\n``",
    "héllo wörld — ünïcode {\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"é\"}}</tool_call>ß",
];

#[test]
fn splitting_the_input_anywhere_never_changes_the_output() {
    for input in CORPUS {
        let whole = parse(input);
        for size in [1, 2, 3, 7] {
            assert_eq!(
                run(chunked(input, size)),
                whole,
                "chunk size {size}, input {input:?}"
            );
        }
    }
}

#[test]
fn nothing_the_model_wrote_is_lost_outside_calls() {
    for input in CORPUS {
        let visible: String = parse(input)
            .into_iter()
            .filter_map(|piece| match piece {
                Parsed::Text(text) => Some(text),
                Parsed::Call { .. } => None,
            })
            .collect();
        let mut rest = visible.as_str();
        for character in input.chars() {
            if rest.starts_with(character) {
                rest = &rest[character.len_utf8()..];
            }
        }
        assert!(
            rest.is_empty(),
            "visible text {visible:?} is not a subsequence of {input:?}"
        );
    }
}

#[test]
fn a_tagged_call_is_recognised_and_text_before_it_is_kept() {
    assert_eq!(
        parse(CORPUS[0]),
        vec![text("Sure.\n"), call("read_file", r#"{"path":"a.rs"}"#)]
    );
}

#[test]
fn whitespace_and_newlines_inside_tags_are_tolerated_and_text_after_is_kept() {
    assert_eq!(
        parse(CORPUS[1]),
        vec![call("read_file", r#"{"path":"a.rs"}"#), text("\nDone.")]
    );
}

#[test]
fn an_unclosed_tag_at_the_end_of_the_stream_is_still_a_call() {
    assert_eq!(
        parse(CORPUS[2]),
        vec![
            text("Reading.\n"),
            call("read_file", r#"{"path":"a.rs"}"#),
            text("\n")
        ]
    );
}

#[test]
fn arguments_given_as_a_json_string_are_unwrapped() {
    assert_eq!(
        parse(CORPUS[3]),
        vec![call("read_file", r#"{"path": "a.rs"}"#)]
    );
}

#[test]
fn parameters_are_accepted_instead_of_arguments() {
    assert_eq!(
        parse(CORPUS[4]),
        vec![call("read_file", r#"{"path":"a.rs"}"#)]
    );
}

#[test]
fn several_tagged_calls_keep_the_text_between_them() {
    assert_eq!(
        parse(CORPUS[5]),
        vec![
            text("A\n"),
            call("read_file", r#"{"path":"a"}"#),
            text("\nB\n"),
            call("read_file", r#"{"path":"b"}"#),
            text("\nC"),
        ]
    );
}

#[test]
fn a_json_array_in_one_block_gives_several_calls() {
    assert_eq!(
        parse(CORPUS[6]),
        vec![
            call("read_file", r#"{"path":"a"}"#),
            call("read_file", r#"{"path":"b"}"#)
        ]
    );
}

#[test]
fn a_json_fence_naming_a_known_tool_is_a_call_as_qwen_coder_writes_it() {
    assert_eq!(
        parse(CORPUS[7]),
        vec![
            text("I'll edit it.\n"),
            call("edit_file", r#"{"new":"b","old":"a","path":"src/main.rs"}"#),
            text("\nThat should work."),
        ]
    );
}

#[test]
fn fences_without_language_or_tagged_tool_call_are_calls_too() {
    assert_eq!(parse(CORPUS[8]), vec![call("read_file", r#"{"path":"a"}"#)]);
    assert_eq!(parse(CORPUS[9]), vec![call("read_file", r#"{"path":"a"}"#)]);
}

#[test]
fn a_fenced_array_gives_several_calls() {
    assert_eq!(
        parse(CORPUS[10]),
        vec![
            call("read_file", r#"{"path":"a"}"#),
            call("read_file", r#"{"path":"b"}"#)
        ]
    );
}

#[test]
fn a_bare_object_starting_a_line_is_a_call() {
    assert_eq!(
        parse(CORPUS[11]),
        vec![
            text("Let me look.\n"),
            call("read_file", r#"{"path":"a"}"#),
            text("\nok")
        ]
    );
}

#[test]
fn an_indented_pretty_printed_bare_object_is_a_call() {
    assert_eq!(
        parse(CORPUS[12]),
        vec![
            text("Let me look.\n  "),
            call("read_file", r#"{"path":"a{b}"}"#),
            text("\n")
        ]
    );
}

#[test]
fn an_ordinary_rust_code_block_stays_text_byte_for_byte() {
    assert_plain_text(CORPUS[13]);
}

#[test]
fn json_that_is_not_a_call_stays_text() {
    assert_plain_text(CORPUS[14]);
    assert_plain_text(CORPUS[15]);
    assert_plain_text(CORPUS[28]);
}

#[test]
fn prose_with_angle_brackets_and_braces_stays_text() {
    assert_plain_text(CORPUS[16]);
    assert_plain_text(CORPUS[17]);
    assert_plain_text(CORPUS[18]);
}

#[test]
fn an_unknown_tool_stays_text_in_a_fence_or_bare_but_is_a_call_inside_tags() {
    assert_plain_text(CORPUS[19]);
    assert_plain_text(CORPUS[20]);
    assert_eq!(parse(CORPUS[21]), vec![call("delete_everything", "{}")]);
}

#[test]
fn malformed_json_inside_tags_is_repaired_or_keeps_the_name_and_the_raw_text() {
    // Missing closing braces: repaired.
    assert_eq!(
        parse(CORPUS[22]),
        vec![call("read_file", r#"{"path":"a"}"#), text("after")]
    );
    // Cut off inside a string: not completed, the raw text goes on to the tool layer.
    let cut = r#"{"name": "read_file", "arguments": {"path": "a"#;
    assert_eq!(
        parse(&format!("<tool_call>{cut}</tool_call>after")),
        vec![call("read_file", cut), text("after")]
    );
}

#[test]
fn a_tag_without_a_name_stays_text() {
    assert_plain_text(CORPUS[23]);
}

#[test]
fn a_new_tag_closes_a_call_whose_closing_tag_is_missing() {
    assert_eq!(
        parse(CORPUS[24]),
        vec![
            call("read_file", r#"{"path":"a"}"#),
            text("\n"),
            call("read_file", r#"{"path":"b"}"#)
        ]
    );
}

#[test]
fn a_closing_tag_inside_a_json_string_does_not_end_the_call() {
    let expected = r#"{"content":"const CLOSE: &str = \"</tool_call>\";","path":"p.rs"}"#;
    assert_eq!(parse(CORPUS[25]), vec![call("write_file", expected)]);
}

#[test]
fn raw_newlines_inside_argument_strings_are_repaired() {
    assert_eq!(
        parse(CORPUS[26]),
        vec![call(
            "write_file",
            r#"{"content":"line 1\nline 2","path":"a.txt"}"#
        )]
    );
}

#[test]
fn tags_wrapped_in_an_xml_fence_are_calls() {
    assert_eq!(
        parse(CORPUS[27]),
        vec![call("read_file", r#"{"path":"a"}"#), text("\n")]
    );
}

#[test]
fn a_fence_inside_a_longer_fence_is_just_code() {
    assert_plain_text(CORPUS[29]);
}

#[test]
fn an_unclosed_fence_at_the_end_is_a_call_when_its_content_is_one() {
    assert_eq!(
        parse(CORPUS[30]),
        vec![call("read_file", r#"{"path":"a"}"#)]
    );
    assert_plain_text(CORPUS[31]);
}

#[test]
fn text_after_an_unclosed_tagged_value_is_text_again() {
    assert_eq!(
        parse(CORPUS[32]),
        vec![
            call("read_file", r#"{"path":"a"}"#),
            text(" trailing words")
        ]
    );
}

#[test]
fn partial_markers_at_the_end_of_the_stream_are_text() {
    assert_plain_text(CORPUS[33]);
    assert_plain_text(CORPUS[34]);
}

#[test]
fn non_ascii_text_around_calls_survives() {
    assert_eq!(
        parse(CORPUS[35]),
        vec![
            text("héllo wörld — ünïcode {\n"),
            call("read_file", r#"{"path":"é"}"#),
            text("ß"),
        ]
    );
}

#[test]
fn text_that_cannot_start_a_call_is_released_immediately() {
    let mut parser = parser();
    assert_eq!(parser.push("Hello wor"), vec![text("Hello wor")]);
    assert_eq!(parser.push("ld <tool_c"), vec![text("ld ")]);
    assert_eq!(parser.push("ourage"), vec![text("<tool_courage")]);
    assert_eq!(parser.push("\n{"), vec![text("\n")]);
    assert_eq!(parser.held_len(), 1);
    assert_eq!(parser.push(" x"), vec![text("{ x")]);
    assert_eq!(
        parser.push("\n```rust\nfn main() {}\n"),
        vec![text("\n```rust\nfn main() {}\n")]
    );
    assert_eq!(parser.held_len(), 0);
}

#[test]
fn a_candidate_call_is_held_until_it_is_decided() {
    let mut parser = parser();
    assert_eq!(
        parser.push("ok\n```json\n{\"name\": \"read_file\", "),
        vec![text("ok\n")]
    );
    assert_eq!(parser.push("\"arguments\": {}}\n"), vec![]);
    assert_eq!(
        parser.push("```\nnext"),
        vec![call("read_file", "{}"), text("\nnext")]
    );
}

#[test]
fn a_fence_that_never_closes_is_eventually_released_as_text() {
    let mut parser = parser();
    let mut pieces =
        parser.push("```json\n{\"name\": \"read_file\", \"arguments\": {\"content\": \"");
    let filler = "x".repeat(1024);
    for _ in 0..300 {
        pieces.extend(parser.push(&filler));
    }
    assert!(parser.held_len() <= MAX_HELD_BYTES);
    assert!(matches!(pieces.first(), Some(Parsed::Text(text)) if text.starts_with("```json")));
    pieces.extend(parser.finish());
    assert!(pieces.iter().all(|piece| matches!(piece, Parsed::Text(_))));
}

#[test]
fn flush_raw_returns_the_held_text_verbatim_and_resets() {
    let mut parser = parser();
    assert_eq!(
        parser.push("a\n<tool_call>{\"name\": \"read"),
        vec![text("a\n")]
    );
    assert_eq!(parser.flush_raw(), "<tool_call>{\"name\": \"read");
    assert_eq!(parser.held_len(), 0);
    assert_eq!(
        parser.push("{\"name\": \"read_file\", \"arguments\": {}}"),
        vec![call("read_file", "{}")]
    );
    assert_eq!(parser.finish(), vec![]);
}

#[test]
fn finish_resets_the_parser_for_the_next_response() {
    let mut parser = parser();
    parser.push("```rust\nlet x = 1;\n");
    assert_eq!(parser.finish(), vec![]);
    let mut pieces = parser.push("{\"name\": \"read_file\", \"arguments\": {}}");
    pieces.extend(parser.finish());
    assert_eq!(pieces, vec![call("read_file", "{}")]);
}

/// A tiny deterministic generator, so the randomised tests need no dependency.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % bound as u64) as usize
    }
}

const FRAGMENTS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<tool",
    "```",
    "```json\n",
    "```rust\n",
    "\n",
    "  ",
    "{",
    "}",
    "[",
    "]",
    "\"name\": \"read_file\"",
    "\"name\": \"nope\"",
    ", ",
    "\"arguments\": {\"path\": \"a\"}",
    "\"",
    "\\",
    "word",
    "é",
    "<",
    "`",
];

#[test]
fn random_mixtures_of_markers_parse_the_same_whatever_the_chunking() {
    let mut random = Lcg(7);
    for _ in 0..3_000 {
        let count = random.below(24);
        let input: String = (0..count)
            .map(|_| FRAGMENTS[random.below(FRAGMENTS.len())])
            .collect();
        let whole = parse(&input);
        for size in [1, 2, 3, 7] {
            assert_eq!(
                run(chunked(&input, size)),
                whole,
                "chunk size {size}, input {input:?}"
            );
        }
        let mut boundaries: Vec<usize> = input.char_indices().map(|(index, _)| index).collect();
        boundaries.push(input.len());
        let mut cuts: Vec<usize> = (0..4)
            .map(|_| boundaries[random.below(boundaries.len())])
            .collect();
        cuts.push(0);
        cuts.push(input.len());
        cuts.sort_unstable();
        let pieces = cuts.windows(2).map(|pair| &input[pair[0]..pair[1]]);
        assert_eq!(run(pieces), whole, "random cuts {cuts:?}, input {input:?}");
        let visible: String = whole
            .iter()
            .filter_map(|piece| match piece {
                Parsed::Text(text) => Some(text.as_str()),
                Parsed::Call { .. } => None,
            })
            .collect();
        if !whole
            .iter()
            .any(|piece| matches!(piece, Parsed::Call { .. }))
        {
            assert_eq!(visible, input, "text-only output must be the input");
        }
    }
}

#[test]
fn a_python_dict_inside_tags_is_repaired_into_a_call() {
    let input = "<tool_call>{'name': 'read_file', 'arguments': {'path': 'a'}}</tool_call>";
    assert_eq!(parse(input), vec![call("read_file", r#"{"path":"a"}"#)]);
}

#[test]
fn a_large_call_streamed_in_small_chunks_is_parsed_whole() {
    let content = "fn main() { println!(\\\"{}\\\", 1); }\\n".repeat(4_000);
    let inputs = [
        format!(
            "<tool_call>{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{content}\"}}}}</tool_call>"
        ),
        format!(
            "```json\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{content}\"}}}}\n```"
        ),
        format!(
            "{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{content}\"}}}}"
        ),
    ];
    for input in &inputs {
        let parsed = run(chunked(input, 3));
        assert_eq!(parsed.len(), 1);
        let Parsed::Call { name, arguments } = &parsed[0] else {
            panic!("not a call: {parsed:?}");
        };
        assert_eq!(name, "write_file");
        let arguments: serde_json::Value = serde_json::from_str(arguments).unwrap();
        assert_eq!(arguments["content"].as_str().unwrap().len(), 4_000 * 33);
    }
}

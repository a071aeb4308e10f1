//! Adversarial decoding: fake logits that push for malformed calls, over a small
//! byte-level tokenizer built here (and over the test model's vocabulary when
//! `HONE_TEST_MODEL` is set). Whatever the logits prefer, a call that comes out parses
//! as JSON naming an offered tool with arguments that match its schema.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokenizers::Tokenizer;

use super::*;
use crate::sampler::Sampler;

const ADDED: [&str; 4] = ["<tool_call>", "</tool_call>", "<|im_end|>", "<|endoftext|>"];

/// Multi-character tokens (written as text): what the adversaries like to pick.
const WORDS: [&str; 20] = [
    "{\"",
    "\"}",
    "}}",
    "}",
    "\":",
    " \"",
    "name",
    "read_file",
    "count_lines",
    "rm",
    "path",
    "limit",
    "arguments",
    "\"rm\"",
    "123",
    "12",
    "\"abc\"",
    "\n",
    "src/main.rs",
    "\", \"",
];

/// GPT-2's byte-level spelling of `text` (space is 'Ġ', newline 'Ċ').
fn byte_level(text: &str) -> String {
    let chars = vocab::byte_chars();
    text.bytes().map(|byte| chars[byte as usize]).collect()
}

/// A byte-level BPE tokenizer: the 256 bytes, [`WORDS`] and the [`ADDED`] specials.
fn small_tokenizer() -> ModelTokenizer {
    let mut vocab = serde_json::Map::new();
    for (id, c) in vocab::byte_chars().iter().enumerate() {
        vocab.insert(c.to_string(), json!(id));
    }
    for word in WORDS {
        let id = vocab.len();
        vocab.entry(byte_level(word)).or_insert(json!(id));
    }
    let first_added = vocab.len();
    let added: Vec<Value> = ADDED
        .iter()
        .enumerate()
        .map(|(index, content)| {
            json!({"id": first_added + index, "content": content, "single_word": false,
                   "lstrip": false, "rstrip": false, "normalized": false, "special": true})
        })
        .collect();
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false,
                            "trim_offsets": false, "use_regex": true});
    let spec = json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
        "normalizer": null, "pre_tokenizer": byte_level, "post_processor": null,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab, "merges": []},
    });
    let tokenizer: Tokenizer = spec.to_string().parse().unwrap();
    ModelTokenizer::from_tokenizer(tokenizer, None).unwrap()
}

/// The tokenizers to test over: the small one, and the test model's when there is one.
fn tokenizers() -> Vec<ModelTokenizer> {
    let mut all = vec![small_tokenizer()];
    match std::env::var_os("HONE_TEST_MODEL").filter(|path| !path.is_empty()) {
        Some(path) => all.push(ModelTokenizer::from_file(std::path::Path::new(&path)).unwrap()),
        None => eprintln!("the test model's vocabulary is skipped: set HONE_TEST_MODEL"),
    }
    all
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            }),
        },
        ToolSpec {
            name: "count_lines".into(),
            description: "Count lines.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path", "limit"],
            }),
        },
    ]
}

/// Fake logits: seeded noise under a few liked tokens.
struct Adversary<'a> {
    noise: Vec<f32>,
    /// Liked tokens by id, most liked first, with the text counted in `decay`.
    liked: Vec<(u32, &'a str)>,
    /// How much each occurrence of a liked token's text in the answer lowers it, so an
    /// adversary moves on to its next wish instead of repeating one inside a string.
    decay: f32,
    closers: Vec<(u32, &'a str)>,
}

impl<'a> Adversary<'a> {
    fn new(tokenizer: &'a ModelTokenizer, liked: &[&'a str], decay: f32, seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let size = tokenizer.shared().get_vocab_size(true) + 7;
        let id = |word: &str| {
            tokenizer
                .token_id(word)
                .or_else(|| tokenizer.token_id(&byte_level(word)))
        };
        let ids = |words: &[&'a str]| -> Vec<(u32, &'a str)> {
            words
                .iter()
                .filter_map(|&word| Some((id(word)?, word)))
                .collect()
        };
        Self {
            noise: (0..size).map(|_| rng.random::<f32>()).collect(),
            closers: ids(&["\"", "}", "\n", "</tool_call>"]),
            liked: ids(liked),
            decay,
        }
    }

    /// The logits after `text`: the liked tokens far above the noise, in order.
    fn logits(&mut self, text: &str) -> Vec<f32> {
        let mut logits = self.noise.clone();
        for (rank, &(id, word)) in self.liked.iter().enumerate() {
            let seen = text.matches(word).count() as f32;
            logits[id as usize] = 40.0 - rank as f32 - self.decay * seen;
        }
        // Below the wishes but above the noise: what ends strings, numbers and objects,
        // so the answer finishes once the wishes are spent.
        for &(id, _) in &self.closers {
            logits[id as usize] = logits[id as usize].max(5.0);
        }
        // Shift the noise a little each step so sampling sees varied values.
        self.noise.rotate_left(1);
        logits
    }
}

/// Plays the engine's loop: `logits_for(text so far)` stands in for the model. The answer
/// starts with `<tool_call>` (the model opening a call); returns the text generated.
fn decode(
    tokenizer: &ModelTokenizer,
    guide: &mut ToolGuide,
    sampler: &mut Sampler,
    mut logits_for: impl FnMut(&str) -> Vec<f32>,
) -> String {
    let open = tokenizer.token_id(OPEN_TAG).unwrap();
    let mut decoder = tokenizer.stream_decoder();
    let mut text = decoder.push(open).unwrap().unwrap();
    guide.accept(open, Some(&text));
    assert!(guide.in_call());
    for _ in 0..400 {
        let mut logits = logits_for(&text);
        guide.constrain(&mut logits);
        let token = sampler.sample(&logits).unwrap();
        if tokenizer.chat_stops().contains(&token) {
            break;
        }
        let piece = decoder.push(token).unwrap();
        guide.accept(token, piece.as_deref());
        text.push_str(piece.as_deref().unwrap_or_default());
        if !guide.in_call() {
            break;
        }
    }
    text
}

/// The call in `text`, checked against [`tools`]: its name and arguments.
fn valid_call(text: &str) -> (String, Value) {
    let body = text
        .strip_prefix("<tool_call>\n")
        .and_then(|rest| rest.strip_suffix("\n</tool_call>"))
        .unwrap_or_else(|| panic!("not a closed call: {text:?}"));
    let call: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    let object = call.as_object().unwrap();
    assert_eq!(object.len(), 2, "{call}");
    let name = call["name"].as_str().unwrap().to_owned();
    let arguments = call["arguments"].as_object().unwrap();
    assert!(arguments["path"].is_string(), "{call}");
    match name.as_str() {
        "read_file" => assert_eq!(arguments.len(), 1, "{call}"),
        "count_lines" => {
            assert!(
                arguments["limit"].is_i64() || arguments["limit"].is_u64(),
                "{call}"
            );
            assert_eq!(arguments.len(), 2, "{call}");
        }
        other => panic!("unknown tool {other}: {call}"),
    }
    (name, call["arguments"].clone())
}

#[test]
fn adversarial_logits_cannot_produce_a_malformed_call() {
    // What each adversary pushes for, most wanted first.
    let adversaries: [&[&str]; 5] = [
        // Closing too early, stopping in the middle.
        &["}", "}}", "\"}", "<|im_end|>", "</tool_call>"],
        // An unknown tool.
        &["{\"", "name", "\":", " \"", "rm", "\"rm\"", "\"}"],
        // A string where an integer belongs, and an invented argument.
        &[
            "\"abc\"",
            "{\"",
            "count_lines",
            "arguments",
            "limit",
            "rm",
            "\", \"",
        ],
        // Nothing at all but the end of the answer.
        &["<|endoftext|>", "<|im_end|>", "<tool_call>"],
        // A second opening tag inside the call.
        &["<tool_call>", "\n", "{\"", "read_file", "12", "}"],
    ];
    for tokenizer in tokenizers() {
        let guidance = Guidance::new();
        for (index, liked) in adversaries.iter().enumerate() {
            let mut guide = guidance.tool_calls(&tokenizer, &tools()).unwrap();
            let mut adversary = Adversary::new(&tokenizer, liked, 12.0, index as u64);
            let mut sampler = Sampler::new(0.0, None, 1);
            let text = decode(&tokenizer, &mut guide, &mut sampler, |text| {
                adversary.logits(text)
            });
            valid_call(&text);
        }
    }
}

#[test]
fn sampled_calls_from_noisy_logits_are_valid() {
    for tokenizer in tokenizers() {
        let guidance = Guidance::new();
        let mut names = HashSet::new();
        for seed in 0..12 {
            let mut guide = guidance.tool_calls(&tokenizer, &tools()).unwrap();
            let mut sampler = Sampler::new(1.0, Some(0.95), seed);
            // Noise, with a lean towards ending strings and objects so calls finish.
            let liked = [
                "\"",
                "}",
                "</tool_call>",
                "\", \"",
                "1",
                "count_lines",
                "read_file",
            ];
            let mut adversary = Adversary::new(&tokenizer, &liked, 0.0, seed);
            let text = decode(&tokenizer, &mut guide, &mut sampler, |text| {
                let mut logits = adversary.logits(text);
                logits
                    .iter_mut()
                    .for_each(|l| *l = (*l - 25.0).max(*l * 0.1));
                logits
            });
            names.insert(valid_call(&text).0);
        }
        assert!(!names.is_empty());
    }
}

#[test]
fn text_outside_calls_is_not_constrained_and_a_second_call_is() {
    let tokenizer = small_tokenizer();
    let mut guide = Guidance::new().tool_calls(&tokenizer, &tools()).unwrap();
    let mut logits: Vec<f32> = (0..300).map(|i| i as f32).collect();
    let before = logits.clone();
    guide.constrain(&mut logits);
    assert_eq!(logits, before);
    // Prose that mentions the tag in pieces still opens a call once the tag is complete.
    for piece in ["I will call ", "<tool", "_call", ">"] {
        assert!(!guide.in_call());
        let token = tokenizer.encode(piece).unwrap()[0];
        guide.accept(token, Some(piece));
    }
    assert!(guide.in_call());
}

#[test]
fn a_schema_the_compiler_rejects_falls_back_to_any_object() {
    let mut tools = tools();
    tools[0].parameters = json!({
        "type": "object",
        "properties": {"path": {"type": "string", "pattern": "(?<=src/)x"}},
        "required": ["path"],
    });
    let tokenizer = small_tokenizer();
    let guidance = Guidance::new();
    let factory = guidance.factory(&tokenizer).unwrap();
    let strict: Vec<ToolSchema> = tools.iter().map(ToolSchema::strict).collect();
    assert!(compile(factory, &call_grammar(&strict[..1], None)).is_err());

    let mut guide = guidance.tool_calls(&tokenizer, &tools).unwrap();
    assert!(guidance.loosened.lock().unwrap().contains("read_file"));
    let mut sampler = Sampler::new(0.0, None, 1);
    let liked = [
        "{\"",
        "name",
        "\":",
        " \"",
        "read_file",
        "\", \"",
        "arguments",
        "{\"",
        "rm",
        "}",
    ];
    let mut adversary = Adversary::new(&tokenizer, &liked, 12.0, 3);
    let text = decode(&tokenizer, &mut guide, &mut sampler, |text| {
        adversary.logits(text)
    });
    let body = &text["<tool_call>\n".len()..text.len() - "\n</tool_call>".len()];
    let call: Value = serde_json::from_str(body).unwrap();
    assert_eq!(call["name"], "read_file");
    assert!(call["arguments"].is_object(), "{call}");
}

#[test]
fn the_compiled_grammar_is_reused_for_the_same_tools() {
    let tokenizer = small_tokenizer();
    let guidance = Guidance::new();
    assert!(guidance.tool_calls(&tokenizer, &[]).is_none());
    guidance.tool_calls(&tokenizer, &tools()).unwrap();
    let first = guidance.last.lock().unwrap().as_ref().unwrap().0.clone();
    guidance.tool_calls(&tokenizer, &tools()).unwrap();
    assert_eq!(guidance.last.lock().unwrap().as_ref().unwrap().0, first);
    guidance.tool_calls(&tokenizer, &tools()[..1]).unwrap();
    assert_ne!(guidance.last.lock().unwrap().as_ref().unwrap().0, first);
}

#[test]
fn every_builtin_tool_schema_compiles() {
    let specs: Vec<ToolSpec> = hone_tools::builtin_tools()
        .iter()
        .map(|tool| tool.spec())
        .collect();
    assert!(specs.len() > 3);
    let tokenizer = small_tokenizer();
    let guidance = Guidance::new();
    assert!(guidance.tool_calls(&tokenizer, &specs).is_some());
    let loosened = guidance.loosened.lock().unwrap();
    assert!(loosened.is_empty(), "loosened: {loosened:?}");
}

#[test]
fn an_answer_that_starts_with_a_brace_gets_the_opening_tag() {
    let tokenizer = small_tokenizer();
    let guidance = Guidance::new();
    let open = tokenizer.token_id(OPEN_TAG).unwrap();
    let brace = tokenizer.token_id(&byte_level("{\"")).unwrap();
    let newline = tokenizer.token_id(&byte_level("\n")).unwrap();
    // Leading whitespace is kept; the brace becomes the tag, and the call is constrained.
    let mut guide = guidance.tool_calls(&tokenizer, &tools()).unwrap();
    assert_eq!(guide.redirect(newline, &tokenizer), newline);
    guide.accept(newline, Some("\n"));
    assert_eq!(guide.redirect(brace, &tokenizer), open);
    guide.accept(open, Some(OPEN_TAG));
    assert!(guide.in_call());
    // Prose first: a brace later is left alone.
    let mut guide = guidance.tool_calls(&tokenizer, &tools()).unwrap();
    let word = tokenizer.token_id("name").unwrap();
    assert_eq!(guide.redirect(word, &tokenizer), word);
    guide.accept(word, Some("name"));
    assert_eq!(guide.redirect(brace, &tokenizer), brace);
    assert!(!guide.in_call());
}

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! The GGUF tokenizer against reference ids from an independent implementation
//! (transformers' pure-Python Qwen2 tokenizer, see fixtures/make_fixtures.py).

mod common;

use hone_local::tokenizer::ModelTokenizer;
use serde_json::Value;

const FIXTURE: &str = include_str!("fixtures/tokens.json");

fn tokenizer() -> Option<ModelTokenizer> {
    common::test_model().map(|path| ModelTokenizer::from_file(&path).unwrap())
}

fn cases() -> Vec<(String, Vec<u32>, String)> {
    let cases: Vec<Value> = serde_json::from_str(FIXTURE).unwrap();
    cases
        .into_iter()
        .map(|case| {
            let ids = case["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|id| u32::try_from(id.as_u64().unwrap()).unwrap())
                .collect();
            (
                case["text"].as_str().unwrap().to_owned(),
                ids,
                case["decoded"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn encoding_matches_the_reference_ids() {
    let Some(tokenizer) = tokenizer() else { return };
    let cases = cases();
    assert!(cases.len() >= 15);
    for (text, ids, _) in &cases {
        assert_eq!(&tokenizer.encode(text).unwrap(), ids, "encoding {text:?}");
    }
}

#[test]
fn decoding_round_trips_including_special_tokens() {
    let Some(tokenizer) = tokenizer() else { return };
    for (text, ids, decoded) in cases() {
        assert_eq!(
            tokenizer.decode(&ids).unwrap(),
            decoded,
            "decoding {text:?}"
        );
    }
}

#[test]
fn chat_and_tool_markers_are_single_special_tokens() {
    let Some(tokenizer) = tokenizer() else { return };
    assert_eq!(tokenizer.token_id("<|endoftext|>"), Some(151_643));
    assert_eq!(tokenizer.token_id("<|im_start|>"), Some(151_644));
    assert_eq!(tokenizer.token_id("<|im_end|>"), Some(151_645));
    assert_eq!(tokenizer.encode("<tool_call>").unwrap(), vec![151_657]);
    assert_eq!(tokenizer.encode("</tool_call>").unwrap(), vec![151_658]);
    assert!(tokenizer.chat_stops().contains(&151_645));
    assert!(tokenizer.chat_stops().contains(&151_643));
    assert!(!tokenizer.chat_stops().contains(&151_657));
    let fim = tokenizer.fim_tokens().unwrap();
    assert_eq!(
        (fim.prefix, fim.suffix, fim.middle),
        (151_659, 151_661, 151_660)
    );
    assert!(tokenizer.fim_stops().contains(&151_664));
}

#[test]
fn streaming_decode_never_splits_a_character() {
    let Some(tokenizer) = tokenizer() else { return };
    for (text, ids, decoded) in cases() {
        let mut stream = tokenizer.stream_decoder();
        let mut out = String::new();
        for &id in &ids {
            if let Some(piece) = stream.push(id).unwrap() {
                assert!(!piece.contains('\u{fffd}'), "{piece:?} from {text:?}");
                out.push_str(&piece);
            }
        }
        if let Some(piece) = stream.finish().unwrap() {
            out.push_str(&piece);
        }
        assert_eq!(out, decoded);
    }
}

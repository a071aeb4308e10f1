//! The forward pass of each architecture against llama.cpp, on tiny models with random
//! weights (`tests/fixtures/synthetic`, written and run through llama.cpp by
//! `tests/fixtures/make_synthetic.py`): same logits after a prompt, same greedy tokens.

use std::path::PathBuf;

use super::config::Architecture;
use super::*;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/synthetic/{name}"))
}

/// llama.cpp's results for one model.
struct Reference {
    prompt: Vec<u32>,
    logits: Vec<f32>,
    greedy: Vec<u32>,
}

fn reference(architecture: &str) -> Reference {
    let text = std::fs::read_to_string(fixture("reference.json")).unwrap();
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entry = &all[architecture];
    let numbers = |key: &str| -> Vec<f64> {
        entry[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|value| value.as_f64().unwrap())
            .collect()
    };
    Reference {
        prompt: numbers("prompt").into_iter().map(|id| id as u32).collect(),
        logits: numbers("logits").into_iter().map(|x| x as f32).collect(),
        greedy: numbers("greedy").into_iter().map(|id| id as u32).collect(),
    }
}

fn load(architecture: &str) -> (Config, Transformer) {
    let path = fixture(&format!("{architecture}.gguf"));
    let mut file = std::fs::File::open(&path).unwrap();
    let content = gguf_file::Content::read(&mut file).unwrap();
    let config = Config::from_gguf(&content).unwrap();
    let model = Transformer::load(&content, file, 256, WeightLayout::Compact).unwrap();
    (config, model)
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Greedy tokens after the cached positions, one forward pass per token.
fn greedy(model: &mut Transformer, mut logits: Vec<f32>, count: usize) -> Vec<u32> {
    let mut tokens = Vec::new();
    for _ in 0..count {
        let token = argmax(&logits).unwrap() as u32;
        tokens.push(token);
        logits = model.forward(&[token], true).unwrap().unwrap();
    }
    tokens
}

fn check(architecture: &str, expected: Architecture) {
    let (config, mut model) = load(architecture);
    assert_eq!(config.architecture, expected);
    let reference = reference(architecture);
    // The prompt as one batch (blocked attention), then decoding one token at a time.
    let logits = model.forward(&reference.prompt, true).unwrap().unwrap();
    let difference = max_difference(&logits, &reference.logits);
    assert!(
        difference < 2e-3,
        "{architecture}: logits differ by {difference}"
    );
    let tokens = greedy(&mut model, logits, reference.greedy.len());
    assert_eq!(tokens, reference.greedy, "{architecture}");

    // The prompt one token at a time gives the same logits.
    model.truncate_cache(0);
    let mut last = Vec::new();
    for &token in &reference.prompt {
        last = model.forward(&[token], true).unwrap().unwrap();
    }
    assert!(
        max_difference(&last, &reference.logits) < 2e-3,
        "{architecture}"
    );
    // Verification rows are exactly single-token decoding.
    let each = model.forward_each(&reference.greedy[..4]).unwrap();
    model.truncate_cache(reference.prompt.len());
    for (index, row) in each.iter().enumerate() {
        let single = model
            .forward(&reference.greedy[index..=index], true)
            .unwrap()
            .unwrap();
        assert_eq!(*row, single, "{architecture}: row {index}");
    }
}

#[test]
fn qwen2_matches_llama_cpp() {
    check("qwen2", Architecture::Qwen2);
}

#[test]
fn qwen3_with_per_head_norms_and_its_own_head_size_matches_llama_cpp() {
    check("qwen3", Architecture::Qwen3);
}

#[test]
fn llama_with_interleaved_rotation_and_frequency_factors_matches_llama_cpp() {
    check("llama", Architecture::Llama);
}

#[test]
fn a_rope_factor_count_that_does_not_fit_the_head_is_rejected() {
    let (config, _) = load("llama");
    let error = rope_tables(&config, Some(&[1.0; 3]), 8, &Device::Cpu).unwrap_err();
    assert!(error.to_string().contains("rope_freqs"), "{error}");
}

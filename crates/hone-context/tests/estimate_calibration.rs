//! The token estimate (`hone_protocol::estimate_tokens`) against OpenAI's tokenizers on
//! hone's own sources: the calibration quoted in its documentation, kept true by this test.
#![allow(missing_docs, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hone_context::Tokenizer;
use hone_protocol::estimate_tokens;

fn files_under(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|entry| entry.path()) {
        if path.is_dir() {
            files_under(&path, extension, found);
        } else if path.extension().is_some_and(|found| found == extension) {
            found.push(path);
        }
    }
}

/// The estimate ÷ the real count over `files`, for `o200k_base` and `cl100k_base`.
fn ratios(files: &[PathBuf]) -> [f64; 2] {
    let (mut estimate, mut o200k, mut cl100k) = (0, 0, 0);
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        estimate += estimate_tokens(&text);
        o200k += Tokenizer::O200k.count(&text);
        cl100k += Tokenizer::Cl100k.count(&text);
    }
    [o200k, cl100k].map(|real| estimate as f64 / real.max(1) as f64)
}

#[test]
fn the_estimate_stays_a_little_above_real_tokenizers_on_code_and_prose() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut code = Vec::new();
    files_under(&repository.join("crates"), "rs", &mut code);
    let mut prose = vec![repository.join("README.md")];
    files_under(&repository.join("docs"), "md", &mut prose);
    assert!(code.len() > 100 && prose.len() > 2, "{code:?} {prose:?}");
    for ratio in ratios(&code) {
        assert!((1.08..=1.28).contains(&ratio), "code: {ratio:.3}");
    }
    for ratio in ratios(&prose) {
        assert!((1.0..=1.25).contains(&ratio), "prose: {ratio:.3}");
    }
}

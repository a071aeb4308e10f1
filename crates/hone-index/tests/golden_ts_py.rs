//! Golden outlines for TypeScript, TSX, JavaScript (JSX) and Python, plus robustness checks.
//!
//! Each fixture `tests/fixtures/<language>/<file>` has its expected outline next to it in
//! `<file>.expected.json` (a pretty-printed `FileOutline`). Run with `HONE_UPDATE_GOLDEN=1` to
//! rewrite the expectations, then review the diff: the expectations are the specification.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

mod golden;

use golden::check;
use golden::fixtures;
use golden::language_of;
use hone_index::Language;
use hone_index::parse::outline;
use std::fs;

#[test]
fn typescript_outlines() {
    check("typescript");
}

#[test]
fn tsx_outlines() {
    check("tsx");
}

#[test]
fn javascript_outlines() {
    check("javascript");
}

#[test]
fn python_outlines() {
    check("python");
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A string of `length` characters drawn from code-like ASCII, brackets and unicode.
    fn text(&mut self, length: usize) -> String {
        const ALPHABET: &[char] = &[
            'a', 'Z', '_', '$', '#', '@', '0', '9', ' ', '\n', '\t', '(', ')', '{', '}', '[', ']',
            '<', '>', ':', ';', ',', '.', '=', '"', '\'', '`', '\\', '/', '*', '+', '-', '?', '!',
            '&', '|', 'é', '日', '🦀', '\u{200b}', '\r', '\0', '\u{feff}',
        ];
        (0..length)
            .map(|_| ALPHABET[usize::try_from(self.next()).unwrap() % ALPHABET.len()])
            .collect()
    }
}

const LANGUAGES: [Language; 4] = [
    Language::TypeScript,
    Language::Tsx,
    Language::JavaScript,
    Language::Python,
];

#[test]
fn garbage_does_not_panic() {
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    for round in 0..60 {
        let source = noise.text(round * 11);
        for language in LANGUAGES {
            outline(language, &source);
        }
    }
    let keywords = "class def function import export from async await yield => -> :: \
                    interface enum namespace extends implements static private #x @dec \
                    require module.exports __all__ self lambda match case ";
    let words: Vec<&str> = keywords.split(' ').collect();
    for _ in 0..60 {
        let source: String = (0..60)
            .map(|_| {
                let index = usize::try_from(noise.next()).unwrap();
                format!("{} {}", words[index % words.len()], noise.text(index % 4))
            })
            .collect();
        for language in LANGUAGES {
            outline(language, &source);
        }
    }
}

#[test]
fn every_prefix_of_the_fixtures_parses_without_panic() {
    let directories = ["typescript", "tsx", "javascript", "python"];
    for path in directories.iter().flat_map(|directory| fixtures(directory)) {
        let source = fs::read_to_string(&path).unwrap();
        let language = language_of(&path);
        let cuts = source.char_indices().map(|(index, _)| index).step_by(29);
        for cut in cuts {
            outline(language, &source[..cut]);
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 10_000;
    let brackets = format!("x = {}1{}", "(".repeat(depth), ")".repeat(depth));
    let blocks = format!(
        "{}{}",
        "function f() {".repeat(depth / 4),
        "}".repeat(depth / 4)
    );
    let classes = format!(
        "{}{}",
        "class A { m() { return class {".repeat(500),
        "}}}".repeat(500)
    );
    for source in [brackets, blocks, classes] {
        for language in LANGUAGES {
            outline(language, &source);
        }
    }
}

#[test]
fn long_chains_do_not_overflow() {
    let chain = format!("const v = require('x'){};\n", ".a".repeat(50_000));
    let bases = format!("class A({}): pass\n", "B.".repeat(30_000) + "C");
    for source in [chain, bases] {
        for language in LANGUAGES {
            outline(language, &source);
        }
    }
}

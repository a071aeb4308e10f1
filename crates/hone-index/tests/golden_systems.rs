//! Golden outlines for the systems and data languages: Rust, Go, Java, C, C++, JSON, YAML.
//!
//! Each fixture `tests/fixtures/<language>/<file>` has its expected outline next to it in
//! `<file>.expected.json` (a pretty-printed `FileOutline`). Run with `HONE_UPDATE_GOLDEN=1` to
//! rewrite the expectations, then review the diff: the expectations are the specification.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

mod golden;

use golden::check;
use golden::fixtures;
use hone_index::Language;
use hone_index::parse::outline;
use std::fs;

#[test]
fn rust_outlines() {
    check("rust");
}

#[test]
fn go_outlines() {
    check("go");
}

#[test]
fn java_outlines() {
    check("java");
}

#[test]
fn c_outlines() {
    check("c");
}

#[test]
fn cpp_outlines() {
    check("cpp");
}

#[test]
fn json_outlines() {
    check("json");
}

#[test]
fn yaml_outlines() {
    check("yaml");
}

const SYSTEMS: [Language; 7] = [
    Language::Rust,
    Language::Go,
    Language::Java,
    Language::C,
    Language::Cpp,
    Language::Json,
    Language::Yaml,
];

/// Every fixture parses as every language, and cut at many points as its own.
#[test]
fn truncated_and_foreign_input_never_panics() {
    for directory in ["rust", "go", "java", "c", "cpp", "json", "yaml"] {
        for path in fixtures(directory) {
            let source = fs::read_to_string(&path).unwrap();
            for language in SYSTEMS {
                outline(language, &source);
            }
            let own = Language::from_path(&path.to_string_lossy()).unwrap();
            let step = (source.len() / 60).max(1);
            for cut in (0..source.len()).step_by(step) {
                if source.is_char_boundary(cut) {
                    let found = outline(own, &source[..cut]);
                    assert_eq!(found.language, own);
                }
            }
        }
    }
}

/// Random bytes, unbalanced brackets and very deep nesting yield outlines too.
#[test]
fn garbage_and_deep_nesting_never_panic() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut garbage = String::new();
    for _ in 0..5_000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let byte = (state >> 33) as u8;
        garbage.push(if byte.is_ascii() { byte as char } else { 'é' });
    }
    for input in [
        garbage.as_str(),
        "",
        "#include <\n#include \"\nimpl for <> { func (",
    ] {
        for language in SYSTEMS {
            outline(language, input);
        }
    }
    let deep = [
        (Language::Rust, "mod a { ".repeat(20_000)),
        (Language::Rust, "fn f() { (".repeat(1_000)),
        (Language::Go, "func f() { if x { ".repeat(2_000)),
        (Language::Java, "class A { class B { ".repeat(10_000)),
        (Language::C, "#ifdef A\n".repeat(10_000)),
        (Language::Cpp, "namespace a { class B { ".repeat(2_000)),
        (Language::Json, "{\"a\": [".repeat(20_000)),
        (Language::Yaml, "- [".repeat(20_000)),
    ];
    for (language, input) in &deep {
        let found = outline(*language, input);
        assert!(found.has_errors, "{language:?}");
    }
}

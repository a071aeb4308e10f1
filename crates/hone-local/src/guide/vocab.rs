//! The model's vocabulary as llguidance sees it: the bytes of every token in a trie.

use std::collections::HashMap;
use std::sync::Arc;

use tokenizers::{DecoderWrapper, Tokenizer};
use toktrie::{TokEnv, TokRxInfo, TokTrie, TokenId, TokenizerEnv};

use crate::LocalError;
use crate::tokenizer::{END_OF_TEXT, ModelTokenizer};

/// A byte-level BPE tokenizer with the trie of its tokens' bytes.
struct ByteLevelEnv {
    trie: TokTrie,
    tokenizer: Arc<Tokenizer>,
}

impl TokenizerEnv for ByteLevelEnv {
    fn tok_trie(&self) -> &TokTrie {
        &self.trie
    }

    fn tokenize_bytes(&self, bytes: &[u8]) -> Vec<TokenId> {
        self.trie.tokenize_with_greedy_fallback(bytes, |text| {
            self.tokenizer
                .encode_fast(text, false)
                .map(|encoding| encoding.get_ids().to_vec())
                .unwrap_or_default()
        })
    }
}

/// The tokenizer environment of `tokenizer` for building constraints. Added tokens
/// (`<tool_call>`, `<|im_end|>`) are special: a grammar names them, text never spells them.
pub(crate) fn token_env(tokenizer: &ModelTokenizer) -> Result<TokEnv, LocalError> {
    let hf = tokenizer.shared();
    if !matches!(hf.get_decoder(), Some(DecoderWrapper::ByteLevel(_))) {
        return Err(LocalError::Tokenizer(
            "constrained decoding needs a byte-level BPE tokenizer".into(),
        ));
    }
    let vocab = hf.get_vocab(true);
    let added: HashMap<u32, String> = hf
        .get_added_tokens_decoder()
        .into_iter()
        .map(|(id, token)| (id, token.content))
        .collect();
    let size = vocab.values().copied().max().map_or(0, |max| max + 1);
    let bytes_of = byte_level_chars();
    let mut words = vec![Vec::new(); size as usize];
    for (text, &id) in &vocab {
        let bytes = match added.get(&id) {
            Some(content) => {
                let mut bytes = vec![TokTrie::SPECIAL_TOKEN_MARKER];
                bytes.extend_from_slice(content.as_bytes());
                bytes
            }
            // A token with a character outside the byte alphabet stays empty: never allowed.
            None => text
                .chars()
                .map(|c| bytes_of.get(&c).copied())
                .collect::<Option<Vec<u8>>>()
                .unwrap_or_default(),
        };
        words[id as usize] = bytes;
    }
    let eos = tokenizer
        .chat_stops()
        .first()
        .copied()
        .or_else(|| tokenizer.token_id(END_OF_TEXT))
        .unwrap_or(0);
    let info = TokRxInfo::new(size, eos);
    let env = ByteLevelEnv {
        trie: TokTrie::from(&info, &words),
        tokenizer: Arc::clone(hf),
    };
    Ok(Arc::new(env))
}

/// GPT-2's byte-level alphabet: the character that stands for each byte in a token's
/// text (printable bytes for themselves, the others for U+0100 onwards in order).
pub(super) fn byte_chars() -> [char; 256] {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut next = 0x100u32;
    let mut chars = ['\0'; 256];
    for (byte, slot) in (0..=255u8).zip(chars.iter_mut()) {
        *slot = if printable(byte) {
            char::from(byte)
        } else {
            next += 1;
            char::from_u32(next - 1).unwrap_or(char::REPLACEMENT_CHARACTER)
        };
    }
    chars
}

/// The byte each character of the byte-level alphabet stands for.
fn byte_level_chars() -> HashMap<char, u8> {
    (0..=255u8)
        .zip(byte_chars())
        .map(|(byte, c)| (c, byte))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_alphabet_covers_every_byte_once() {
        let map = byte_level_chars();
        assert_eq!(map.len(), 256);
        assert_eq!(map.get(&'a'), Some(&b'a'));
        // Space is shown as 'Ġ' (U+0120), newline as 'Ċ' (U+010A).
        assert_eq!(map.get(&'\u{120}'), Some(&b' '));
        assert_eq!(map.get(&'\u{10A}'), Some(&b'\n'));
    }
}

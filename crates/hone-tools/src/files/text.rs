//! Files as text: hashing, binary detection, UTF-8 with a Latin-1 fallback.

use std::io::ErrorKind;

use hone_policy::ResolvedPath;
use sha2::{Digest, Sha256};

use crate::{FileState, TextEncoding, ToolError, ToolErrorKind};

/// Files larger than this are not loaded by the tools (they would flood the context).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// How many leading bytes are probed for a NUL byte to call a file binary.
const BINARY_PROBE_BYTES: usize = 8 * 1024;

/// SHA-256 of `bytes` as lowercase hex.
pub fn hash_bytes(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    hex
}

/// Whether `bytes` look binary: a NUL byte in the first 8 KB.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0)
}

/// Decodes `bytes` as UTF-8, or byte-per-char as Latin-1 when they are not valid UTF-8
/// (lossless: encoding the text again gives back the same bytes).
pub fn decode(bytes: &[u8]) -> (String, TextEncoding) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_string(), TextEncoding::Utf8),
        Err(_) => (
            bytes.iter().map(|&byte| char::from(byte)).collect(),
            TextEncoding::Latin1,
        ),
    }
}

/// Encodes `text` for the file `path` (named in the error) with `encoding`.
pub(crate) fn encode(path: &str, text: &str, encoding: TextEncoding) -> Result<Vec<u8>, ToolError> {
    match encoding {
        TextEncoding::Utf8 => Ok(text.as_bytes().to_vec()),
        TextEncoding::Latin1 => text
            .chars()
            .map(|char| {
                u8::try_from(u32::from(char)).map_err(|_| {
                    ToolError::new(
                        ToolErrorKind::EditFailed,
                        format!(
                            "`{char}` (U+{:04X}) cannot be written to {path}: the file is not UTF-8 \
                             but Latin-1, which only holds characters up to U+00FF; write it with \
                             an ASCII replacement or an escape sequence instead",
                            u32::from(char)
                        ),
                    )
                })
            })
            .collect(),
    }
}

/// Reads the raw bytes of an existing file, refusing directories and files over
/// [`MAX_FILE_BYTES`].
pub(crate) fn read_bytes(path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
    let shown = shown_path(path);
    let metadata = std::fs::metadata(&path.absolute).map_err(|error| io_error(&shown, &error))?;
    if metadata.is_dir() {
        return Err(ToolError::invalid(format!(
            "`{shown}` is a directory, not a file; use list_dir to see what it contains"
        )));
    }
    if !metadata.is_file() {
        // Opening a FIFO would wait for a writer; a device or socket is no source file.
        return Err(ToolError::invalid(format!(
            "`{shown}` is not a regular file (a named pipe, device or socket), so the file              tools do not read it"
        )));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(ToolError::invalid(format!(
            "`{shown}` is too large for the file tools ({} MB, the limit is {} MB); use \
             search_files to find the lines you need, or run_command for bulk changes",
            metadata.len() / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    // Opened without following a symlink swapped in since the path was resolved, and
    // without blocking should the file have become a FIFO.
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    hone_fs::open_regular(&path.absolute)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .map_err(|error| io_error(&shown, &error))?;
    Ok(bytes)
}

/// The state of a file with content `bytes`: decoded text, hash and encoding.
pub(crate) fn file_state(bytes: &[u8]) -> FileState {
    let (content, encoding) = decode(bytes);
    FileState {
        content,
        hash: hash_bytes(bytes),
        encoding,
        mode: None,
    }
}

/// Reads an existing text file for editing; binary files are refused.
pub fn read_text(path: &ResolvedPath) -> Result<FileState, ToolError> {
    text_state(path, read_bytes(path)?)
}

/// The state of the text file `path` with content `bytes`; binary files are refused.
pub(crate) fn text_state(path: &ResolvedPath, bytes: Vec<u8>) -> Result<FileState, ToolError> {
    if is_binary(&bytes) {
        return Err(ToolError::invalid(format!(
            "`{}` is a binary file ({} bytes) and cannot be edited as text",
            shown_path(path),
            bytes.len()
        )));
    }
    Ok(file_state(&bytes))
}

/// Number of lines of `text` as the model sees them (a final newline does not start a line).
pub(crate) fn line_count(text: &str) -> usize {
    text.lines().count()
}

pub(crate) fn shown_path(path: &ResolvedPath) -> String {
    if path.relative.is_empty() {
        ".".to_string()
    } else {
        path.relative.clone()
    }
}

pub(crate) fn io_error(shown: &str, error: &std::io::Error) -> ToolError {
    match error.kind() {
        ErrorKind::NotFound => ToolError::new(
            ToolErrorKind::NotFound,
            format!("`{shown}` does not exist; use glob_files or list_dir to find the right path"),
        ),
        _ => ToolError::io(format!("could not read `{shown}`: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_lowercase_sha256_hex() {
        assert_eq!(
            hash_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn latin1_bytes_decode_and_encode_back_to_the_same_bytes() {
        let bytes = b"caf\xe9 cr\xe8me\n".to_vec();
        let (text, encoding) = decode(&bytes);
        assert_eq!(encoding, TextEncoding::Latin1);
        assert_eq!(text, "café crème\n");
        assert_eq!(encode("a.txt", &text, encoding).unwrap(), bytes);
    }

    #[test]
    fn characters_beyond_latin1_are_refused_with_a_reason() {
        let error = encode("a.txt", "5 €", TextEncoding::Latin1).unwrap_err();
        assert_eq!(error.kind, ToolErrorKind::EditFailed);
        assert!(error.message.contains("U+20AC"), "{}", error.message);
    }

    #[test]
    fn nul_bytes_early_in_a_file_mean_binary() {
        assert!(is_binary(b"\x7fELF\0\0"));
        assert!(!is_binary("plain text\n".as_bytes()));
        let mut late = vec![b'a'; 9000];
        late.push(0);
        assert!(!is_binary(&late));
    }

    #[test]
    fn line_counts_ignore_the_final_newline() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\n"), 1);
        assert_eq!(line_count("a\r\nb\r\n"), 2);
        assert_eq!(line_count("\n"), 1);
    }
}

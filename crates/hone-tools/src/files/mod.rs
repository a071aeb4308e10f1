//! Read tools: `read_file`, `list_dir`, `search_files`, `glob_files`, `file_hash`, and the
//! helpers the edit tools share with them (hashing, decoding, "did you mean" paths).

mod access;
mod glob;
mod list;
mod read;
mod search;
pub(crate) mod similarity;
mod suggest;
mod text;
pub(crate) mod walk;

use std::sync::Arc;

use crate::Tool;

pub use access::WorkspaceFiles;
pub use suggest::{not_found, suggest_paths};
pub use text::{MAX_FILE_BYTES, decode, hash_bytes, is_binary, read_text};

pub(crate) use access::{held, read_bytes_in, read_text_in};
pub(crate) use text::{encode, file_state, line_count};

/// The read tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(read::ReadFile),
        Arc::new(list::ListDir),
        Arc::new(search::SearchFiles),
        Arc::new(glob::GlobFiles),
        Arc::new(read::FileHash),
    ]
}

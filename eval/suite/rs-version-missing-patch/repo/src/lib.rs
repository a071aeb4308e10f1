mod version;

pub use version::{parse_version, Version};

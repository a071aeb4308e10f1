//! Which paths are tests: the one rule, in hone-protocol (localisation uses it too).

pub use hone_protocol::is_test_path;

//! The model file for tests that need one.

use std::path::PathBuf;

/// The GGUF named by `HONE_TEST_MODEL`. When it is unset the test is skipped (prints why
/// and passes), unless `HONE_REQUIRE_TEST_MODEL=1`, which makes it fail instead (CI).
pub fn test_model() -> Option<PathBuf> {
    match std::env::var_os("HONE_TEST_MODEL").filter(|path| !path.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.is_file(),
                "HONE_TEST_MODEL={} is not a file",
                path.display()
            );
            Some(path)
        }
        None => {
            assert!(
                std::env::var("HONE_REQUIRE_TEST_MODEL").as_deref() != Ok("1"),
                "HONE_REQUIRE_TEST_MODEL=1 but HONE_TEST_MODEL is not set"
            );
            eprintln!("skipped: set HONE_TEST_MODEL");
            None
        }
    }
}

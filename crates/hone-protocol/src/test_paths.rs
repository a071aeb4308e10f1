//! Which paths are tests: the one rule for the checks, localisation and the tools.

/// Whether `path` looks like a test file (`tests/…`, `test_x.py`, `x_test.go`,
/// `x.test.ts`, `x.spec.js`, `XTest.java`, `TestMain.java`).
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    lower
        .split('/')
        .any(|part| matches!(part, "test" | "tests" | "__tests__" | "spec"))
        || stem.to_ascii_lowercase().starts_with("test")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || stem.ends_with("_test")
        || lower.contains(".test.")
        || lower.contains(".spec.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_of_each_language_are_recognised() {
        for path in [
            "src/TestMain.java",
            "src/test/java/com/example/CalcTest.java",
            "tests/test_cart.py",
            "test_cart.py",
            "src/math.test.ts",
            "web/__tests__/app.js",
            "lib/a.spec.js",
            "pkg/sum_test.go",
            "tests/api.rs",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/latest.py",
            "src/StringUtils.java",
            "src/shop/cart.py",
            "contest/a.py",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}

//! Plain Java sources without a build tool: a test class with a `main` method.

use std::path::{Path, PathBuf};

/// A Java test class with a `main` method among plain sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaMain {
    /// The directory of the sources, relative to the project directory (empty for itself).
    pub sources: String,
    /// The class to run, with its package (`com.example.TestMain`).
    pub class: String,
}

/// A test class with a `main` method (`TestMain.java`, `ParserTest.java`) directly in `dir`,
/// `dir/src` or `dir/test`.
pub(super) fn java_main(dir: &Path) -> Option<JavaMain> {
    ["", "src", "test"].into_iter().find_map(|sources| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sources))
            .ok()?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
            .collect();
        files.sort();
        files.into_iter().find_map(|path| {
            let stem = path.file_stem()?.to_str()?.to_string();
            let test_named =
                stem.starts_with("Test") || stem.ends_with("Test") || stem.ends_with("Tests");
            let source = std::fs::read_to_string(&path).ok()?;
            if !test_named || !source.contains("static void main") {
                return None;
            }
            let package = source.lines().find_map(|line| {
                line.trim()
                    .strip_prefix("package ")
                    .map(|rest| rest.trim_end_matches(';').trim().to_string())
            });
            let class = match package {
                Some(package) if !package.is_empty() => format!("{package}.{stem}"),
                _ => stem,
            };
            Some(JavaMain {
                sources: sources.to_string(),
                class,
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_class_with_main_is_found_with_its_package() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/Inventory.java"),
            "class Inventory {}\n",
        )
        .unwrap();
        assert_eq!(java_main(dir.path()), None);
        // A test class without main is not runnable this way.
        std::fs::write(dir.path().join("src/ShopTest.java"), "class ShopTest {}\n").unwrap();
        assert_eq!(java_main(dir.path()), None);
        std::fs::write(
            dir.path().join("src/TestMain.java"),
            "package shop;\npublic final class TestMain {\n  public static void main(String[] a) {}\n}\n",
        )
        .unwrap();
        assert_eq!(
            java_main(dir.path()),
            Some(JavaMain {
                sources: "src".into(),
                class: "shop.TestMain".into()
            })
        );
    }
}

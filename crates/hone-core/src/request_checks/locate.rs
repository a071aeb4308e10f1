//! Where the function a request's fact calls is defined: a top-level definition in one of
//! the project's Python or JavaScript files (test files left out). A file the request
//! names wins; a name defined in several other files is left alone (the check could call
//! the wrong one).

use std::path::Path;

use hone_policy::PathGuard;
use hone_tools::project::{is_test_path, project_files};

use super::script::Definition;

/// Files looked at, at most.
const FILES_SEEN: usize = 20_000;
/// Larger files are not read.
const MAX_FILE_BYTES: u64 = 1_000_000;

/// A language a check can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    JavaScript,
}

/// The file defining `function` and how a check reaches it, when exactly one file does
/// (or one the `request` names).
pub(crate) fn definition(
    guard: &PathGuard,
    function: &str,
    request: &str,
) -> Option<(String, Definition)> {
    let root = guard.root();
    let defining: Vec<(String, Language)> = project_files(guard, FILES_SEEN)
        .into_iter()
        .filter(|path| !is_test_path(path))
        .filter_map(|path| language(&path).map(|language| (path, language)))
        .filter(|(path, language)| {
            let absolute = root.join(path);
            let small = std::fs::symlink_metadata(&absolute)
                .is_ok_and(|meta| meta.is_file() && meta.len() <= MAX_FILE_BYTES);
            small
                && hone_fs::read_to_string_regular(&absolute)
                    .is_ok_and(|text| defines(&text, function, *language))
        })
        .collect();
    let named = defining.iter().find(|(path, _)| {
        let name = path.rsplit('/').next().unwrap_or(path);
        request.contains(path.as_str()) || request.contains(name)
    });
    let (path, language) = match (named, defining.as_slice()) {
        (Some(found), _) => found.clone(),
        (None, [only]) => only.clone(),
        (None, _) => return None,
    };
    let definition = match language {
        Language::Python => python_module(root, &path),
        Language::JavaScript => Definition::JavaScript { file: path.clone() },
    };
    Some((path, definition))
}

fn language(path: &str) -> Option<Language> {
    match path.rsplit_once('.')?.1 {
        "py" => Some(Language::Python),
        "js" | "mjs" | "cjs" => Some(Language::JavaScript),
        _ => None,
    }
}

/// Whether `text` defines `function` at its top level (or, in JavaScript, as a named
/// function or a binding anywhere a module could export it).
fn defines(text: &str, function: &str, language: Language) -> bool {
    match language {
        Language::Python => text.lines().any(|line| {
            let line = line.strip_prefix("async ").unwrap_or(line);
            line.strip_prefix("def ")
                .and_then(|rest| rest.strip_prefix(function))
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        }),
        Language::JavaScript => text.lines().any(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("export ").unwrap_or(line);
            let line = line.strip_prefix("async ").unwrap_or(line);
            let named = ["function ", "function* "].iter().any(|prefix| {
                line.strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(function))
                    .is_some_and(|rest| rest.trim_start().starts_with('('))
            });
            let bound = ["const ", "let ", "var ", "exports.", "module.exports."]
                .iter()
                .any(|prefix| {
                    line.strip_prefix(prefix)
                        .and_then(|rest| rest.strip_prefix(function))
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                });
            named || bound
        }),
    }
}

/// How a Python check imports the module at `path`: the directory above its package (the
/// directories holding `__init__.py` up from the file) goes on the path, and the module
/// is named from there (`src/shop/cart.py` in package `shop` → `src`, `shop.cart`).
fn python_module(root: &Path, path: &str) -> Definition {
    let parts: Vec<&str> = path.split('/').collect();
    let (file, directories) = parts.split_last().unwrap_or((&"", &[]));
    let mut package_start = directories.len();
    while package_start > 0
        && root
            .join(directories[..package_start].join("/"))
            .join("__init__.py")
            .is_file()
    {
        package_start -= 1;
    }
    let stem = file.strip_suffix(".py").unwrap_or(file);
    let mut module: Vec<&str> = directories[package_start..].to_vec();
    module.push(stem);
    let path_entry = if package_start == 0 {
        ".".to_string()
    } else {
        directories[..package_start].join("/")
    };
    Definition::Python {
        path_entry,
        module: module.join("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathGuard) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let guard = PathGuard::new(dir.path()).unwrap();
        (dir, guard)
    }

    #[test]
    fn a_python_function_in_a_src_package_is_imported_from_above_the_package() {
        let (_dir, guard) = project(&[
            ("src/shop/__init__.py", ""),
            ("src/shop/cart.py", "def total(items):\n    return 0\n"),
            ("tests/test_cart.py", "def total(x):\n    pass\n"),
        ]);
        assert_eq!(
            definition(&guard, "total", "total([1]) should return 1"),
            Some((
                "src/shop/cart.py".to_string(),
                Definition::Python {
                    path_entry: "src".into(),
                    module: "shop.cart".into(),
                }
            ))
        );
        let (_dir, guard) = project(&[("calc.py", "async def add(a, b):\n    pass\n")]);
        assert_eq!(
            definition(&guard, "add", "add(1, 2) should return 3"),
            Some((
                "calc.py".to_string(),
                Definition::Python {
                    path_entry: ".".into(),
                    module: "calc".into(),
                }
            ))
        );
    }

    #[test]
    fn javascript_definitions_of_every_export_style_are_found() {
        for text in [
            "function add(a, b) { return a - b; }\nmodule.exports = { add };\n",
            "export function add(a, b) { return a - b; }\n",
            "export const add = (a, b) => a - b;\n",
            "exports.add = function (a, b) { return a - b; };\n",
        ] {
            let (_dir, guard) = project(&[("src/math.js", text)]);
            assert_eq!(
                definition(&guard, "add", "add(2, 3) should return 5"),
                Some((
                    "src/math.js".to_string(),
                    Definition::JavaScript {
                        file: "src/math.js".into()
                    }
                )),
                "{text}"
            );
        }
        let (_dir, guard) = project(&[("src/math.js", "function addAll(xs) {}\n")]);
        assert_eq!(definition(&guard, "add", "add(1) should return 1"), None);
    }

    #[test]
    fn a_name_defined_twice_needs_the_request_to_name_the_file() {
        let files = [
            ("a/calc.py", "def add(a, b):\n    return a - b\n"),
            ("b/util.js", "function add(a, b) { return a - b; }\n"),
        ];
        let (_dir, guard) = project(&files);
        assert_eq!(definition(&guard, "add", "add(2, 3) should return 5"), None);
        let (path, _) = definition(&guard, "add", "in util.js, add(2, 3) should return 5").unwrap();
        assert_eq!(path, "b/util.js");
    }
}

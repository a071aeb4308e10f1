//! Plain-language hints for failures small models cause and then fail to read: a function
//! a changed module defines but does not export.

use hone_policy::PathGuard;

/// Hints for `output` of a failing check, given the files the model changed.
pub(crate) fn hints(guard: &PathGuard, changed: &[String], output: &str) -> Vec<String> {
    let mut found = Vec::new();
    for name in missing_exports(output) {
        for path in changed.iter().filter(|path| is_javascript(path)) {
            let Some(source) = super::places::read_inside(guard, path) else {
                continue;
            };
            if defines(&source, &name) && !exports(&source, &name) {
                let how = if is_module_syntax(&source) {
                    "write `export` before its definition".to_string()
                } else {
                    format!("end the file with `module.exports = {{ {name} }};`")
                };
                let hint = format!(
                    "{path} defines `{name}` but does not export it, so other files cannot \
                     use it: {how}."
                );
                if !found.contains(&hint) {
                    found.push(hint);
                }
            }
        }
    }
    found
}

/// Names the output says are not functions or not exported (`TypeError: clamp is not a
/// function`, `does not provide an export named 'clamp'`).
fn missing_exports(output: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in output.lines() {
        let candidates = [
            line.split_once(" is not a function")
                .map(|(before, _)| before),
            line.split_once(" is not a constructor")
                .map(|(before, _)| before),
        ];
        for before in candidates.into_iter().flatten() {
            let name: String = before
                .trim_end_matches(')')
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            // `(0 , _clamp.clamp) is not a function` and `strings.titleCase`: the last part.
            let name = name.rsplit('.').next().unwrap_or_default().to_string();
            if is_identifier(&name) && !names.contains(&name) {
                names.push(name);
            }
        }
        if let Some((_, rest)) = line.split_once("does not provide an export named ") {
            let name: String = rest
                .trim_start_matches(['\'', '"'])
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            if is_identifier(&name) && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_' || first == '$')
}

fn is_javascript(path: &str) -> bool {
    [".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
        .iter()
        .any(|extension| path.ends_with(extension))
}

/// Whether `source` defines `name` at the start of a line (a function, class or binding).
fn defines(source: &str, name: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line);
        let line = line.strip_prefix("async ").unwrap_or(line);
        [
            "function ",
            "function* ",
            "class ",
            "const ",
            "let ",
            "var ",
        ]
        .iter()
        .filter_map(|keyword| line.strip_prefix(keyword))
        .any(|rest| {
            rest.strip_prefix(name).is_some_and(|after| {
                !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
            })
        })
    })
}

/// Whether `source` exports `name` in either module system.
fn exports(source: &str, name: &str) -> bool {
    let mentions = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|word| word == name)
    };
    // `module.exports = { … }` may span lines: everything after it counts.
    if let Some((_, after)) = source.split_once("module.exports")
        && mentions(after)
    {
        return true;
    }
    source.lines().any(|line| {
        let line = line.trim_start();
        (line.starts_with("export ") || line.starts_with("exports.")) && mentions(line)
    })
}

/// Whether `source` is an ES module (`import … from`, `export …`).
fn is_module_syntax(source: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("export ") || (line.starts_with("import ") && line.contains(" from "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_function_defined_but_not_exported_is_named() {
        let dir = project(&[(
            "src/clamp.js",
            "function clamp(value, min, max) {\n  return value;\n}\n",
        )]);
        let output = "not ok 1 - inside\n  error: 'clamp is not a function'\n  name: 'TypeError'\n";
        let found = hints(
            &PathGuard::new(dir.path()).unwrap(),
            &["src/clamp.js".into()],
            output,
        );
        assert_eq!(
            found,
            [
                "src/clamp.js defines `clamp` but does not export it, so other files cannot use \
              it: end the file with `module.exports = { clamp };`."
            ]
        );
    }

    #[test]
    fn es_modules_are_told_to_export_and_exported_names_get_no_hint() {
        let dir = project(&[
            ("a.mjs", "import x from './x.mjs';\nfunction clamp() {}\n"),
            (
                "b.js",
                "function clamp() {}\nmodule.exports = {\n  clamp,\n};\n",
            ),
        ]);
        let output = "TypeError: (0 , _a.clamp) is not a function";
        let found = hints(
            &PathGuard::new(dir.path()).unwrap(),
            &["a.mjs".into(), "b.js".into()],
            output,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("a.mjs defines `clamp`"), "{found:?}");
        assert!(found[0].contains("write `export` before"), "{found:?}");
    }

    #[test]
    fn other_failures_and_unchanged_files_give_no_hint() {
        let dir = project(&[("src/a.js", "function clamp() {}\n")]);
        let changed = ["src/a.js".to_string()];
        assert!(
            hints(
                &PathGuard::new(dir.path()).unwrap(),
                &changed,
                "AssertionError: 1 !== 2"
            )
            .is_empty()
        );
        assert!(
            hints(
                &PathGuard::new(dir.path()).unwrap(),
                &[],
                "clamp is not a function"
            )
            .is_empty()
        );
        assert!(
            hints(
                &PathGuard::new(dir.path()).unwrap(),
                &changed,
                "clampX is not a function"
            )
            .is_empty()
        );
        assert_eq!(
            missing_exports(
                "SyntaxError: The requested module './a.js' does not provide an export named 'clamp'"
            ),
            ["clamp"]
        );
    }
}

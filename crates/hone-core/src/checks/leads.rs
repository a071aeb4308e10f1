//! The project files a failing test run points at, for localisation to attach first: the
//! frames of the project's own code in the failures (deepest first), then the modules the
//! failing test files import (Python, JavaScript and TypeScript, Java, Go, Rust).

use hone_policy::PathGuard;
use hone_tools::project::{is_test_path, project_files};

use super::failures::TestFailure;
use super::places::read_inside;
use super::reach::order_by_reach;

/// Lead files named, at most.
const MAX_LEADS: usize = 4;

/// Project files looked through to find a file named only by its tail.
const MAX_FILES: usize = 50_000;

/// Extensions tried for a JavaScript or TypeScript import without one.
const SCRIPT_EXTENSIONS: &[&str] = &["js", "ts", "mjs", "cjs", "jsx", "tsx", "mts", "cts"];

/// The project's files, listed once when a place needs finding by its tail.
pub(super) struct Finder<'a> {
    guard: &'a PathGuard,
    files: Option<Vec<String>>,
}

impl<'a> Finder<'a> {
    pub(super) fn new(guard: &'a PathGuard) -> Self {
        Self { guard, files: None }
    }

    /// The project path of a place as a runner printed it: as written when the project
    /// has it, else the one file whose path ends with it (`words_test.go` in `pkg/words/`,
    /// `com/example/CalcTest.java` under `src/test/java/`).
    pub(super) fn resolve(&mut self, printed: &str) -> Option<String> {
        let printed = printed.trim_start_matches("./");
        if printed.starts_with('/') || printed.split('/').any(|part| part == "..") {
            return None;
        }
        if read_inside(self.guard, printed).is_some() {
            return Some(printed.to_string());
        }
        let guard = self.guard;
        let files = self
            .files
            .get_or_insert_with(|| project_files(guard, MAX_FILES));
        let tail = format!("/{printed}");
        let mut matches = files.iter().filter(|file| file.ends_with(&tail));
        let first = matches.next()?.clone();
        // Two files end the same way: which one the runner meant is unknown.
        matches.next().is_none().then_some(first)
    }
}

/// The files the failures lead to, best first: the project code their frames name (the
/// deepest frame first: where the error was raised), then what the failing test files
/// import. `source_dirs` are where Python finds modules besides the root (`src`).
pub(super) fn leads(
    guard: &PathGuard,
    failures: &[TestFailure],
    source_dirs: &[String],
) -> Vec<String> {
    let mut finder = Finder::new(guard);
    let mut code: Vec<String> = Vec::new();
    let mut tests: Vec<String> = Vec::new();
    for failure in failures {
        for (printed, _) in failure.places.iter().rev() {
            let Some(path) = finder.resolve(printed) else {
                continue;
            };
            let list = if is_test_path(&path) {
                &mut tests
            } else {
                &mut code
            };
            if !list.contains(&path) {
                list.push(path);
            }
        }
    }
    // A test file's imports are in the order it wrote them; the tests in the order of
    // their failures (their places were read deepest first).
    tests.reverse();
    let mut imported: Vec<String> = Vec::new();
    for test in &tests {
        let Some(source) = read_inside(guard, test) else {
            continue;
        };
        for path in imports(guard, &mut finder, test, &source, source_dirs) {
            if !code.contains(&path) && !imported.contains(&path) && !is_test_path(&path) {
                imported.push(path);
            }
        }
    }
    // Of the imported modules, the one the failures reach most leads.
    let imported = order_by_reach(guard, imported, failures, &mut |module, source| {
        imports(guard, &mut finder, module, source, source_dirs)
    });
    let mut leads = code;
    leads.extend(imported);
    leads.truncate(MAX_LEADS);
    leads
}

/// The project files `source` (the test file `path`) imports.
fn imports(
    guard: &PathGuard,
    finder: &mut Finder<'_>,
    path: &str,
    source: &str,
    source_dirs: &[String],
) -> Vec<String> {
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let extension = path.rsplit_once('.').map_or("", |(_, ext)| ext);
    let exists = |candidate: &str| read_inside(guard, candidate).is_some();
    let mut found: Vec<String> = Vec::new();
    let mut push = |candidate: Option<String>| {
        if let Some(candidate) = candidate
            && !found.contains(&candidate)
        {
            found.push(candidate);
        }
    };
    match extension {
        "py" => {
            let mut bases: Vec<String> = vec![String::new(), dir.to_string()];
            bases.extend(source_dirs.iter().cloned());
            bases.push("src".to_string());
            let mut modules: Vec<String> = python_imports(source)
                .iter()
                .filter_map(|module| python_module(module, dir, &bases, &exists))
                .collect();
            // A package's `__init__.py` says less than its modules.
            modules.sort_by_key(|module| module.ends_with("__init__.py"));
            for module in modules {
                push(Some(module));
            }
        }
        "js" | "ts" | "mjs" | "cjs" | "jsx" | "tsx" | "mts" | "cts" => {
            for specifier in script_imports(source) {
                push(script_module(&specifier, dir, &exists));
            }
        }
        "java" => {
            let package = source.lines().find_map(|line| {
                line.trim()
                    .strip_prefix("package ")
                    .map(|rest| rest.trim_end_matches(';').trim().replace('.', "/"))
            });
            let stem = path
                .rsplit('/')
                .next()
                .unwrap_or(path)
                .trim_end_matches(".java");
            // The class under test: `CalcTest` and `TestCalc` test `Calc`.
            let tested = stem
                .strip_suffix("Tests")
                .or_else(|| stem.strip_suffix("Test"))
                .or_else(|| stem.strip_prefix("Test"))
                .filter(|name| !name.is_empty());
            if let (Some(tested), Some(package)) = (tested, &package) {
                push(finder.resolve(&format!("{package}/{tested}.java")));
            }
            for line in source.lines() {
                let Some(class) = line.trim().strip_prefix("import ") else {
                    continue;
                };
                let class = class.trim_end_matches(';').trim();
                if class.starts_with("static ") || class.ends_with('*') {
                    continue;
                }
                push(finder.resolve(&format!("{}.java", class.replace('.', "/"))));
            }
        }
        "go" => {
            let stem = path.trim_end_matches("_test.go");
            push(Some(format!("{stem}.go")).filter(|candidate| exists(candidate)));
        }
        "rs" if is_test_path(path) => {
            for candidate in ["src/lib.rs", "src/main.rs"] {
                if exists(candidate) {
                    push(Some(candidate.to_string()));
                    break;
                }
            }
        }
        _ => {}
    }
    found
}

/// The modules of `import a.b`, `import a.b as c`, `from a.b import c` (also `a/b/c` when
/// `c` is a module) and `from .m import x` (relative: a leading `.` kept).
fn python_imports(source: &str) -> Vec<String> {
    let mut modules = Vec::new();
    for line in source.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("import ") {
            for part in rest.split(',') {
                let module = part.split_whitespace().next().unwrap_or_default();
                if !module.is_empty() {
                    modules.push(module.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ")
            && let Some((module, names)) = rest.split_once(" import ")
        {
            let module = module.trim();
            modules.push(module.to_string());
            for name in names.trim_matches(['(', ')', ' ']).split(',') {
                let name = name.split_whitespace().next().unwrap_or_default();
                if !name.is_empty() && name != "*" {
                    let joined = if module.ends_with('.') {
                        format!("{module}{name}")
                    } else {
                        format!("{module}.{name}")
                    };
                    modules.push(joined);
                }
            }
        }
    }
    modules
}

/// The project file of a Python module: `a.b` as `a/b.py` or `a/b/__init__.py` under one
/// of `bases`; `.m` relative to the test's directory.
fn python_module(
    module: &str,
    dir: &str,
    bases: &[String],
    exists: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let dots = module.chars().take_while(|c| *c == '.').count();
    let path = module[dots..].replace('.', "/");
    let bases: Vec<String> = if dots > 0 {
        let mut base = dir.to_string();
        for _ in 1..dots {
            base = base
                .rsplit_once('/')
                .map_or(String::new(), |(up, _)| up.to_string());
        }
        vec![base]
    } else {
        bases.to_vec()
    };
    bases.iter().find_map(|base| {
        let prefix = if base.is_empty() {
            String::new()
        } else {
            format!("{base}/")
        };
        [
            format!("{prefix}{path}.py"),
            format!("{prefix}{path}/__init__.py"),
        ]
        .into_iter()
        .find(|candidate| !path.is_empty() && exists(candidate))
    })
}

/// The relative specifiers of `require('./x')`, `import … from './x'`, `import './x'` and
/// `import('./x')`.
fn script_imports(source: &str) -> Vec<String> {
    let mut specifiers = Vec::new();
    for line in source.lines() {
        let line = line.trim();
        let quoted_after = |marker: &str| -> Option<String> {
            let (_, rest) = line.split_once(marker)?;
            let rest = rest.trim_start_matches([' ', '(']);
            let quote = rest
                .chars()
                .next()
                .filter(|c| matches!(c, '\'' | '"' | '`'))?;
            let inner = &rest[1..];
            Some(inner.split(quote).next()?.to_string())
        };
        let found = quoted_after("require(")
            .or_else(|| quoted_after(" from "))
            .or_else(|| quoted_after("import("))
            .or_else(|| {
                line.strip_prefix("import ")
                    .and_then(|_| quoted_after("import"))
            });
        if let Some(specifier) = found.filter(|specifier| specifier.starts_with('.')) {
            specifiers.push(specifier);
        }
    }
    specifiers
}

/// The file a relative specifier names from `dir`: as written, with an extension, or its
/// directory's index file.
fn script_module(specifier: &str, dir: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for part in specifier.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let base = parts.join("/");
    // TypeScript imports name `.js` for a `.ts` file.
    let stem = base
        .strip_suffix(".js")
        .map(str::to_string)
        .unwrap_or_else(|| base.clone());
    std::iter::once(base.clone())
        .chain(SCRIPT_EXTENSIONS.iter().map(|ext| format!("{stem}.{ext}")))
        .chain(
            SCRIPT_EXTENSIONS
                .iter()
                .map(|ext| format!("{base}/index.{ext}")),
        )
        .find(|candidate| exists(candidate))
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

    fn failure(places: &[(&str, usize)]) -> TestFailure {
        TestFailure {
            test: "t".into(),
            places: places
                .iter()
                .map(|(path, line)| (path.to_string(), *line))
                .collect(),
            ..TestFailure::default()
        }
    }

    #[test]
    fn a_python_test_leads_to_the_module_it_imports_in_a_src_layout() {
        let dir = project(&[
            ("src/shop/__init__.py", ""),
            ("src/shop/cart.py", "from shop.prices import discount\n"),
            ("src/shop/prices.py", ""),
            (
                "tests/test_cart.py",
                "import unittest\n\nfrom shop.cart import total\n",
            ),
        ]);
        let guard = PathGuard::new(dir.path()).unwrap();
        let found = leads(
            &guard,
            &[failure(&[("tests/test_cart.py", 8)])],
            &["src".into()],
        );
        assert_eq!(found, ["src/shop/cart.py"]);
        // A frame in the code under test comes first.
        let found = leads(
            &guard,
            &[failure(&[
                ("tests/test_cart.py", 8),
                ("src/shop/prices.py", 2),
            ])],
            &["src".into()],
        );
        assert_eq!(found, ["src/shop/prices.py", "src/shop/cart.py"]);
    }

    #[test]
    fn the_shared_module_the_failing_lines_reach_most_leads() {
        let dir = project(&[
            ("shop/__init__.py", ""),
            (
                "shop/cart.py",
                "from shop.pricing import apply_discount\n\n\ndef order_total(prices, d=0):\n    return apply_discount(sum(prices), d)\n",
            ),
            (
                "shop/pricing.py",
                "def apply_discount(total, percent):\n    return float(int(total))\n",
            ),
            (
                "test_shop.py",
                "import unittest\n\nfrom shop.cart import order_total\nfrom shop.pricing import apply_discount\n\n\nclass T(unittest.TestCase):\n    def test_discount(self):\n        self.assertEqual(apply_discount(19.99, 10), 17.99)\n\n    def test_total(self):\n        self.assertEqual(order_total([10.0, 5.5], 0), 15.5)\n",
            ),
        ]);
        let guard = PathGuard::new(dir.path()).unwrap();
        let both = [
            failure(&[("test_shop.py", 9)]),
            failure(&[("test_shop.py", 12)]),
        ];
        // Both failures reach pricing.py: one directly, one through cart.py.
        assert_eq!(
            leads(&guard, &both, &[]),
            ["shop/pricing.py", "shop/cart.py"]
        );
        // Only the total fails: cart.py and the pricing it imports are reached alike, and
        // the test's import order stays.
        assert_eq!(
            leads(&guard, &both[1..], &[]),
            ["shop/cart.py", "shop/pricing.py"]
        );
    }

    #[test]
    fn a_script_helper_reached_by_more_failures_leads() {
        let dir = project(&[
            (
                "lib/strings.js",
                "function capitalize(word) {\n  return word;\n}\n\nfunction titleCase(text) {\n  return capitalize(text);\n}\n\nmodule.exports = { capitalize, titleCase };\n",
            ),
            (
                "lib/page.js",
                "const { titleCase } = require('./strings');\n\nfunction heading(title) {\n  return `# ${titleCase(title)}`;\n}\n",
            ),
            (
                "test/page.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { heading } = require('../lib/page');\nconst { titleCase } = require('../lib/strings');\n\ntest('every word', () => assert.strictEqual(titleCase('hello big world'), 'Hello Big World'));\ntest('mixed', () => assert.strictEqual(titleCase('hELLO'), 'Hello'));\ntest('heading', () => assert.strictEqual(heading('my notes'), '# My Notes'));\n",
            ),
        ]);
        let guard = PathGuard::new(dir.path()).unwrap();
        let failures = [
            failure(&[("test/page.test.js", 6)]),
            failure(&[("test/page.test.js", 7)]),
            failure(&[("test/page.test.js", 8)]),
        ];
        assert_eq!(
            leads(&guard, &failures, &[]),
            ["lib/strings.js", "lib/page.js"]
        );
    }

    #[test]
    fn script_imports_resolve_relative_specifiers() {
        let dir = project(&[
            ("src/math.js", ""),
            ("src/util/index.ts", ""),
            ("src/money.ts", ""),
            (
                "test/math.test.js",
                "const test = require('node:test');\nconst { add } = require('../src/math');\nimport { x } from \"../src/util\";\nimport '../src/money.js';\n",
            ),
        ]);
        let guard = PathGuard::new(dir.path()).unwrap();
        let found = leads(&guard, &[failure(&[("test/math.test.js", 6)])], &[]);
        assert_eq!(found, ["src/math.js", "src/util/index.ts", "src/money.ts"]);
    }

    #[test]
    fn java_go_and_rust_tests_lead_to_the_code_they_test() {
        let dir = project(&[
            ("src/main/java/com/example/Calc.java", ""),
            ("src/main/java/com/example/util/Money.java", ""),
            (
                "src/test/java/com/example/CalcTest.java",
                "package com.example;\n\nimport com.example.util.Money;\nimport static org.junit.Assert.assertEquals;\n",
            ),
            ("pkg/words/words.go", ""),
            ("pkg/words/words_test.go", ""),
            ("src/lib.rs", ""),
            ("tests/api.rs", ""),
        ]);
        let guard = PathGuard::new(dir.path()).unwrap();
        assert_eq!(
            leads(
                &guard,
                &[failure(&[("com/example/CalcTest.java", 10)])],
                &[]
            ),
            [
                "src/main/java/com/example/Calc.java",
                "src/main/java/com/example/util/Money.java"
            ]
        );
        assert_eq!(
            leads(&guard, &[failure(&[("words_test.go", 7)])], &[]),
            ["pkg/words/words.go"]
        );
        assert_eq!(
            leads(&guard, &[failure(&[("tests/api.rs", 3)])], &[]),
            ["src/lib.rs"]
        );
    }

    #[test]
    fn outside_and_ambiguous_places_lead_nowhere() {
        let dir = project(&[("a/x_test.go", ""), ("b/x_test.go", ""), ("a/x.go", "")]);
        let guard = PathGuard::new(dir.path()).unwrap();
        let mut finder = Finder::new(&guard);
        assert_eq!(finder.resolve("x_test.go"), None);
        assert_eq!(finder.resolve("/etc/passwd"), None);
        assert_eq!(finder.resolve("../x.go"), None);
        assert_eq!(finder.resolve("./a/x.go").as_deref(), Some("a/x.go"));
        let stdlib = failure(&[("/usr/lib/python3.11/unittest/case.py", 10)]);
        assert!(leads(&guard, &[stdlib], &[]).is_empty());
    }

    #[test]
    fn python_imports_name_modules_and_their_members() {
        assert_eq!(
            python_imports(
                "import os, shop.cart as c\nfrom shop import (cart, prices)\nfrom .helpers import x\n"
            ),
            [
                "os",
                "shop.cart",
                "shop",
                "shop.cart",
                "shop.prices",
                ".helpers",
                ".helpers.x"
            ]
        );
    }
}

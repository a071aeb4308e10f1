//! Which of the modules the failing tests import the failures reach most: the functions a
//! failing test's own line calls, found where they are defined, and one step through the
//! modules that import them. A bug in a shared helper fails the tests of every module that
//! calls it, so the helper reached by more failures leads (`apply_discount` in
//! `pricing.py`, called by a failing test directly and through `cart.py`'s
//! `order_total`), and the guided flow's example block names it.

use hone_policy::PathGuard;
use hone_tools::project::is_test_path;

use super::failures::TestFailure;
use super::places::read_inside;

/// Keywords that open a definition of the name after them, across the languages hone
/// checks (`def f(`, `class C`, `function f(`, `fn f(`, `const f =`).
const DEFINING_WORDS: &[&str] = &["def", "class", "function", "fn", "const", "let", "var"];

/// `modules` (the failing tests' imports, in import order) ordered by how many failures
/// reach each, most first; the import order breaks ties. `imports_of` lists the project
/// modules a module imports. Unchanged when no failing line calls a function they define.
pub(super) fn order_by_reach(
    guard: &PathGuard,
    modules: Vec<String>,
    failures: &[TestFailure],
    imports_of: &mut dyn FnMut(&str, &str) -> Vec<String>,
) -> Vec<String> {
    if modules.len() < 2 {
        return modules;
    }
    let called: Vec<Vec<String>> = failures
        .iter()
        .map(|failure| failing_line(guard, failure).map_or_else(Vec::new, |line| calls(&line)))
        .collect();
    let sources: Vec<String> = modules
        .iter()
        .map(|module| read_inside(guard, module).unwrap_or_default())
        .collect();
    // The failures (by index) whose line calls something each module defines.
    let direct: Vec<Vec<usize>> = sources
        .iter()
        .map(|source| {
            (0..called.len())
                .filter(|&index| called[index].iter().any(|name| defines(source, name)))
                .collect()
        })
        .collect();
    if direct.iter().all(Vec::is_empty) {
        return modules;
    }
    let imported: Vec<Vec<String>> = modules
        .iter()
        .zip(&sources)
        .map(|(module, source)| imports_of(module, source))
        .collect();
    let reach: Vec<usize> = (0..modules.len())
        .map(|index| {
            let mut reached = direct[index].clone();
            for (importer, imports) in imported.iter().enumerate() {
                if importer != index && imports.contains(&modules[index]) {
                    reached.extend(&direct[importer]);
                }
            }
            reached.sort_unstable();
            reached.dedup();
            reached.len()
        })
        .collect();
    let mut ordered: Vec<(usize, String)> = reach.into_iter().zip(modules).collect();
    // A stable sort: the import order stays among equals.
    ordered.sort_by_key(|(reach, _)| std::cmp::Reverse(*reach));
    ordered.into_iter().map(|(_, module)| module).collect()
}

/// The source line of the failing test itself: the first place in a test file.
fn failing_line(guard: &PathGuard, failure: &TestFailure) -> Option<String> {
    let (path, number) = failure
        .places
        .iter()
        .find(|(path, _)| is_test_path(path.trim_start_matches("./")))?;
    let source = read_inside(guard, path.trim_start_matches("./"))?;
    source
        .lines()
        .nth(number.checked_sub(1)?)
        .map(str::to_string)
}

/// The names `line` calls: each identifier right before a `(` (`apply_discount` in
/// `self.assertEqual(apply_discount(19.99, 10), 17.99)`, `peek` in `s.peek()`).
fn calls(line: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut current = String::new();
    for character in line.chars() {
        if character.is_alphanumeric() || character == '_' || character == '$' {
            current.push(character);
            continue;
        }
        if character == '('
            && current
                .chars()
                .next()
                .is_some_and(|first| !first.is_ascii_digit())
            && !names.contains(&current)
        {
            names.push(current.clone());
        }
        current.clear();
    }
    names
}

/// Whether `source` defines `name`: after a defining keyword (`def name(`, `export
/// function name`, `pub fn name`, `const name =`), as an export (`exports.name =`), or as a
/// method of a class (`  name(args) {`).
fn defines(source: &str, name: &str) -> bool {
    let is_part = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    source.lines().any(|line| {
        let after_keyword = line.match_indices(name).any(|(start, _)| {
            let next = line[start + name.len()..].chars().next();
            if next.is_some_and(is_part) {
                return false;
            }
            let before = line[..start].trim_end();
            // The keyword right before the name, with only spaces between.
            before.len() < line[..start].len()
                && DEFINING_WORDS.iter().any(|word| {
                    before
                        .strip_suffix(word)
                        .is_some_and(|rest| !rest.chars().next_back().is_some_and(is_part))
                })
        });
        let exported = line
            .trim_start()
            .strip_prefix("module.")
            .unwrap_or(line.trim_start())
            .strip_prefix("exports.")
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        let trimmed = line.trim_start();
        let method = trimmed
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('('))
            && line.trim_end().ends_with('{')
            && line.len() > trimmed.len();
        after_keyword || exported || method
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_the_names_before_an_opening_parenthesis() {
        assert_eq!(
            calls("        self.assertEqual(apply_discount(19.99, 10), 17.99)"),
            ["assertEqual", "apply_discount"]
        );
        assert_eq!(
            calls("expect(stack.peek()).toBe(3); f2(1)"),
            ["expect", "peek", "toBe", "f2"]
        );
        assert!(calls("assert x == 1").is_empty());
    }

    #[test]
    fn definitions_are_found_in_each_language_shape() {
        assert!(defines(
            "def apply_discount(total, percent):\n",
            "apply_discount"
        ));
        assert!(defines("    async def fetch(self):\n", "fetch"));
        assert!(defines("export function sum(xs) {\n", "sum"));
        assert!(defines("pub fn area(&self) -> f64 {\n", "area"));
        assert!(defines("const clamp = (x) => x;\n", "clamp"));
        assert!(defines("module.exports.parse = parse;\n", "parse"));
        assert!(defines("class Stack {\n  peek() {\n", "peek"));
        assert!(!defines(
            "    return apply_discount(sum(prices))\n",
            "apply_discount"
        ));
        assert!(
            !defines("peek() {\n", "peek"),
            "a call at the top level is no method"
        );
        assert!(!defines("def apply_discounts(x):\n", "apply_discount"));
        assert!(
            !defines("const { titleCase } = require('./strings');\n", "titleCase"),
            "an import is no definition"
        );
        assert!(!defines("undef titleCase\n", "titleCase"));
    }
}

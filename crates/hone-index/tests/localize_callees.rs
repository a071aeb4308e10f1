//! One step down the call graph: what the best candidates use becomes a weaker candidate.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;

use hone_context::localize::{Candidate, Localizer, extract_mentions};
use hone_index::tools::{IndexLocalizer, SharedIndex};
use hone_index::{IndexOptions, Indexer};

const PARSE_JS: &str = "\
const { clamp } = require('./limits');

var unitRegExp = /^(\\d+) *(kb|mb)$/;

function parseSize(text) {
  var match = unitRegExp.exec(text);
  return clamp(Number(match[1]), 0, 1024);
}

function unused() {
  return 1;
}

module.exports = { parseSize };
";

const LIMITS_JS: &str = "\
function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

module.exports = { clamp };
";

/// A file nobody imports that defines a function of the same name.
const OTHER_JS: &str = "\
function clamp(value) {
  return value;
}

module.exports = { clamp };
";

const CART_TS: &str = "\
export interface Item {
  price: number;
}

export function cartTotal(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price, 0);
}
";

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn localizer() -> (tempfile::TempDir, IndexLocalizer) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lib/parse.js", PARSE_JS);
    write(root, "lib/limits.js", LIMITS_JS);
    write(root, "vendor/other.js", OTHER_JS);
    write(root, "src/cart.ts", CART_TS);
    let indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    (dir, IndexLocalizer::new(SharedIndex::new(indexer)))
}

fn locate(localizer: &IndexLocalizer, request: &str) -> Vec<Candidate> {
    let mut candidates = localizer.locate(&extract_mentions(request));
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    candidates
}

fn find<'a>(candidates: &'a [Candidate], path: &str, what: &str) -> Option<&'a Candidate> {
    candidates
        .iter()
        .find(|candidate| candidate.path == path && candidate.what.starts_with(what))
}

#[test]
fn helpers_and_constants_a_function_uses_follow_it() {
    let (_dir, localizer) = localizer();
    let candidates = locate(
        &localizer,
        "parseSize('2KB') returns 2 but should return 2048",
    );
    let parent = find(&candidates, "lib/parse.js", "function parseSize").unwrap();
    let helper = find(&candidates, "lib/limits.js", "function clamp").unwrap();
    let constant = find(&candidates, "lib/parse.js", "variable unitRegExp").unwrap();
    assert!(
        helper.what.ends_with("(used by function parseSize)"),
        "{helper:?}"
    );
    assert_eq!(helper.lines, Some((1, 3)));
    assert_eq!(constant.lines, Some((3, 3)));
    for used in [helper, constant] {
        assert!(used.score < parent.score, "{used:?} outranks {parent:?}");
        assert_eq!(used.mention, parent.mention);
    }
}

#[test]
fn only_files_the_code_imports_and_only_code_follow() {
    let (_dir, localizer) = localizer();
    let candidates = locate(
        &localizer,
        "parseSize('2KB') returns 2 but should return 2048",
    );
    assert!(
        find(&candidates, "vendor/other.js", "function clamp").is_none(),
        "a same-named function in a file parse.js does not import: {candidates:#?}"
    );
    assert!(
        find(&candidates, "lib/parse.js", "function unused").is_none(),
        "a function parseSize does not use: {candidates:#?}"
    );
    let candidates = locate(&localizer, "cartTotal([]) throws instead of returning 0");
    assert!(
        candidates
            .iter()
            .all(|candidate| !candidate.what.contains("interface Item")),
        "types a function names are not followed: {candidates:#?}"
    );
}

#[test]
fn nothing_found_means_nothing_followed() {
    let (_dir, localizer) = localizer();
    assert!(locate(&localizer, "the weather is nice today").is_empty());
}

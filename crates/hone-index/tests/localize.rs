//! The index as a localizer: request mentions resolved to definitions with line ranges.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;

use hone_context::Tokenizer;
use hone_context::localize::{Candidate, Localizer, extract_mentions, plan_attachment};
use hone_index::tools::{IndexLocalizer, SharedIndex};
use hone_index::{IndexOptions, Indexer};

const CART_TS: &str = "\
import { clamp } from \"./math\";

export interface Item {
  price: number;
  quantity: number;
}

export function cartTotal(items: Item[]): number {
  let total = 0;
  for (const item of items) {
    total += item.price * item.quantity;
  }
  return clamp(total, 0, 1000);
}

export class ItemStore {
  private items: Item[] = [];

  add(item: Item): void {
    this.items.push(item);
  }

  average(): number {
    return cartTotal(this.items) / this.items.length;
  }
}
";

const MATH_TS: &str = "\
export function add(a: number, b: number): number {
  return a - b;
}

export function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
";

const HELPER_RS: &str = "\
pub fn shout(text: &str) -> String {
    text.to_uppercase()
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
    write(root, "src/cart.ts", CART_TS);
    write(root, "src/math.ts", MATH_TS);
    write(root, "crates/helper/src/lib.rs", HELPER_RS);
    let indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    (dir, IndexLocalizer::new(SharedIndex::new(indexer)))
}

fn locate(localizer: &IndexLocalizer, request: &str) -> Vec<Candidate> {
    let mut candidates = localizer.locate(&extract_mentions(request));
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    candidates
}

#[test]
fn a_named_function_in_a_named_file_comes_first_with_its_lines() {
    let (_dir, localizer) = localizer();
    let candidates = locate(
        &localizer,
        "The add function in src/math.ts subtracts instead of adding. Fix it.",
    );
    let best = &candidates[0];
    assert_eq!(best.path, "src/math.ts");
    assert_eq!(best.lines, Some((1, 3)));
    assert_eq!(best.what, "function add");
    assert!(
        candidates
            .iter()
            .any(|c| c.path == "src/math.ts" && c.lines.is_none())
    );
}

#[test]
fn calls_camel_case_and_phrases_find_definitions() {
    let (_dir, localizer) = localizer();
    let average = locate(&localizer, "Why does average() divide by zero?");
    assert_eq!(average[0].what, "method ItemStore.average");
    assert_eq!(average[0].lines, Some((23, 25)));
    let store = locate(&localizer, "ItemStore keeps duplicates");
    assert_eq!(store[0].what, "class ItemStore");
    assert_eq!(store[0].lines, Some((16, 26)));
    let phrase = locate(&localizer, "the cart total ignores discounts");
    assert_eq!(phrase[0].path, "src/cart.ts");
    assert_eq!(phrase[0].what, "function cartTotal", "{phrase:?}");
    assert_eq!(phrase[0].lines, Some((8, 14)));
    assert_eq!(phrase[0].mention, "cart total");
}

#[test]
fn file_names_and_crate_names_find_files() {
    let (_dir, localizer) = localizer();
    let by_name = locate(&localizer, "what does cart.ts export?");
    assert_eq!(by_name[0].path, "src/cart.ts");
    assert_eq!(by_name[0].lines, None);
    let crate_dir = locate(&localizer, "explain the Rust helper crate");
    assert_eq!(
        crate_dir[0].path, "crates/helper/src/lib.rs",
        "{crate_dir:?}"
    );
}

#[test]
fn a_rename_brings_the_reference_sites() {
    let (_dir, localizer) = localizer();
    let candidates = locate(&localizer, "Rename cartTotal to sumCart");
    assert!(candidates.iter().any(|c| c.what == "function cartTotal"));
    let references: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.what == "reference to cartTotal")
        .collect();
    assert!(
        references.iter().any(|c| c.lines == Some((24, 24))),
        "{candidates:?}"
    );
}

#[test]
fn unknown_names_find_nothing_or_text_lines() {
    let (_dir, localizer) = localizer();
    assert!(locate(&localizer, "Make it faster please").is_empty());
    let text = locate(&localizer, "where is `push` used?");
    assert_eq!(text.len(), 1, "{text:?}");
    assert_eq!(text[0].path, "src/cart.ts");
    assert_eq!(text[0].lines, Some((20, 20)));
    assert_eq!(text[0].what, "line mentioning push");
    let stem = locate(&localizer, "`Math` is slow");
    assert_eq!(stem[0].path, "src/math.ts");
}

#[test]
fn the_attachment_numbers_the_located_function() {
    let (dir, localizer) = localizer();
    let candidates = locate(&localizer, "the cart total is wrong");
    let root = dir.path().to_path_buf();
    let attachment = plan_attachment(candidates, 1_500, Tokenizer::Estimate, &mut |path| {
        std::fs::read_to_string(root.join(path)).ok()
    });
    assert_eq!(attachment.items[0].path, "src/cart.ts");
    assert!(
        attachment
            .text
            .contains(" 8│ export function cartTotal(items: Item[]): number {"),
        "{}",
        attachment.text
    );
}

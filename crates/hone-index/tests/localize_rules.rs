//! The rules that keep localisation on the culprit: stop words never match, traceback
//! frames lead, test files only for requests about tests, plain words as parts of names.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;

use hone_context::localize::{Candidate, locate_request};
use hone_index::tools::{IndexLocalizer, SharedIndex};
use hone_index::{IndexOptions, Indexer};

const CART_PY: &str = "\
class Cart:
    def __init__(self):
        self.items = {}

    def insert(self, name):
        self.items[name] = self.items.get(name, 0) + 1

    def total(self, prices):
        return sum(prices[name] * count for name, count in self.items.items())
";

const PRICING_PY: &str = "\
def apply_discount(total, percent):
    discounted = total * (100 - percent) / 100
    return float(int(discounted))


def add_tax(total, rate):
    return round(total * (1 + rate), 2)
";

const TEST_CART_PY: &str = "\
import unittest
from shop.cart import Cart


class CartTest(unittest.TestCase):
    def test_total(self):
        cart = Cart()
        cart.insert('apple')
        self.assertIn('apple', cart.items)
        self.assertEqual(cart.total({'apple': 2}), 2)
";

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn localizer() -> (tempfile::TempDir, IndexLocalizer) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "shop/cart.py", CART_PY);
    write(root, "shop/pricing.py", PRICING_PY);
    write(root, "tests/test_cart.py", TEST_CART_PY);
    let indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    (dir, IndexLocalizer::new(SharedIndex::new(indexer)))
}

fn locate(localizer: &IndexLocalizer, request: &str, evidence: Option<&str>) -> Vec<Candidate> {
    let mut candidates = locate_request(localizer, request, evidence);
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    candidates
}

#[test]
fn stop_words_never_localise() {
    let (_dir, localizer) = localizer();
    // "in" next to "class" and "as" used to match `insert` and `assertIn`.
    let candidates = locate(
        &localizer,
        "The Cart class in the shop counts an item as two. Use it as a method in the class.",
        None,
    );
    assert!(
        candidates
            .iter()
            .all(|c| !c.what.contains("insert") && !c.what.contains("assertIn")),
        "{candidates:?}"
    );
    assert_eq!(candidates[0].what, "class Cart", "{candidates:?}");
    assert!(locate(&localizer, "in as at to of", None).is_empty());
}

#[test]
fn a_traceback_s_frames_lead_the_attachment() {
    let (_dir, localizer) = localizer();
    let request = "The total is wrong:\n\
        Traceback (most recent call last):\n  \
        File \"/home/me/shop/tests/test_cart.py\", line 10, in test_total\n    \
        self.assertEqual(cart.total({'apple': 2}), 2)\n  \
        File \"/home/me/shop/shop/cart.py\", line 9, in total\n    \
        return sum(prices[name] * count for name, count in self.items.items())\n\
        TypeError: unsupported operand";
    let candidates = locate(&localizer, request, None);
    assert_eq!(candidates[0].path, "shop/cart.py", "{candidates:?}");
    assert_eq!(candidates[0].lines, Some((8, 9)));
    assert_eq!(candidates[0].what, "method Cart.total");
    // The request is not about tests: the test frame is left out.
    assert!(
        candidates.iter().all(|c| c.path != "tests/test_cart.py"),
        "{candidates:?}"
    );
}

#[test]
fn a_failing_test_s_output_locates_through_its_frames() {
    let (_dir, localizer) = localizer();
    let output = "FAIL: test_total (tests.test_cart.CartTest.test_total)\n\
        Traceback (most recent call last):\n  \
        File \"/tmp/p/tests/test_cart.py\", line 10, in test_total\n  \
        File \"/tmp/p/shop/cart.py\", line 9, in total\n\
        AssertionError: 4 != 2";
    let candidates = locate(
        &localizer,
        "The tests fail. Make them pass without changing the tests.",
        Some(output),
    );
    let paths: Vec<&str> = candidates.iter().map(|c| c.path.as_str()).collect();
    assert!(paths.contains(&"shop/cart.py"), "{candidates:?}");
    // "The tests fail" is about tests: their frame may come too.
    assert!(paths.contains(&"tests/test_cart.py"), "{candidates:?}");
}

#[test]
fn test_files_come_only_when_the_request_is_about_tests() {
    let (_dir, localizer) = localizer();
    let fix = locate(
        &localizer,
        "Cart.insert() counts twice; fix it and run the tests",
        None,
    );
    assert!(!fix.is_empty());
    assert!(
        fix.iter().all(|c| c.path != "tests/test_cart.py"),
        "{fix:?}"
    );
    let about = locate(
        &localizer,
        "Add a test of Cart.insert() to test_cart.py",
        None,
    );
    assert!(
        about.iter().any(|c| c.path == "tests/test_cart.py"),
        "{about:?}"
    );
}

#[test]
fn a_plain_word_finds_the_names_it_is_part_of() {
    let (_dir, localizer) = localizer();
    let candidates = locate(
        &localizer,
        "A 10% discount on 19.99 gives 17.0; prices must be rounded to cents",
        None,
    );
    assert!(
        candidates
            .iter()
            .any(|c| c.what == "function apply_discount"),
        "{candidates:?}"
    );
}

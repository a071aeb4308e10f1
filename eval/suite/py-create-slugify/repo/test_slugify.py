import unittest

from slugify import slugify


class SlugifyTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation_runs(self):
        self.assertEqual(slugify("  Rust, Go & Python!  "), "rust-go-python")

    def test_digits(self):
        self.assertEqual(slugify("Version 2.0"), "version-2-0")


if __name__ == "__main__":
    unittest.main()

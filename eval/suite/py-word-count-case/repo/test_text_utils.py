import unittest

from text_utils import count_words, most_common


class WordsTest(unittest.TestCase):
    def test_case_and_punctuation(self):
        counts = count_words("Hello world. hello, World!")
        self.assertEqual(counts["hello"], 2)
        self.assertEqual(counts["world"], 2)

    def test_most_common(self):
        self.assertEqual(most_common("b a B b"), ["b"])


if __name__ == "__main__":
    unittest.main()

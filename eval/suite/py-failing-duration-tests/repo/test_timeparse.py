import unittest

from timeparse import parse_duration


class DurationTest(unittest.TestCase):
    def test_single_unit(self):
        self.assertEqual(parse_duration("45s"), 45)

    def test_combined(self):
        self.assertEqual(parse_duration("1h30m"), 5400)

    def test_all_units(self):
        self.assertEqual(parse_duration("2h1m5s"), 7265)


if __name__ == "__main__":
    unittest.main()

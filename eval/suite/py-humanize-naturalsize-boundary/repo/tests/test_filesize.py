#!/usr/bin/env python

"""Tests for filesize humanizing."""
from __future__ import annotations

import unittest

import humanize

CASES = [
    ([300], "300 Bytes"),
    ([999], "999 Bytes"),
    ([1000], "1.0 kB"),
    ([3000], "3.0 kB"),
    ([3000000], "3.0 MB"),
    ([3000000000], "3.0 GB"),
    ([3000000000000], "3.0 TB"),
    ([300, True], "300 Bytes"),
    ([1023, True], "1023 Bytes"),
    ([1024, True], "1.0 KiB"),
    ([3000, True], "2.9 KiB"),
    ([3000000, True], "2.9 MiB"),
    ([300, False, True], "300B"),
    ([3000, False, True], "2.9K"),
    ([3000000, False, True], "2.9M"),
    ([1024, False, True], "1.0K"),
    ([10**26 * 30, False, True], "2481.5Y"),
    ([10**26 * 30, True], "2481.5 YiB"),
    ([10**26 * 30], "3000.0 YB"),
    ([1, False, False], "1 Byte"),
    ([3141592, False, False, "%.2f"], "3.14 MB"),
    ([3000, False, True, "%.3f"], "2.930K"),
    ([3000000000, False, True, "%.0f"], "3G"),
    ([10**26 * 30, True, False, "%.3f"], "2481.542 YiB"),
]


class NaturalsizeTests(unittest.TestCase):
    def test_naturalsize(self) -> None:
        for test_args, expected in CASES:
            with self.subTest(args=test_args):
                self.assertEqual(humanize.naturalsize(*test_args), expected)

                args_with_negative = list(test_args)
                args_with_negative[0] *= -1
                self.assertEqual(
                    humanize.naturalsize(*args_with_negative), "-" + expected
                )

    def test_strings_are_numbers(self) -> None:
        self.assertEqual(humanize.naturalsize("1000"), "1.0 kB")
        self.assertEqual(humanize.naturalsize("3000000"), "3.0 MB")


if __name__ == "__main__":
    unittest.main()

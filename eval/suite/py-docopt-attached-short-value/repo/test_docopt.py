"""Tests of docopt's parsing of argv against a usage message."""
import unittest

from docopt import docopt, DocoptExit, Option

DOC = """Usage:
  prog [-v...] [-q] [-o FILE] [--speed=KN] [--mode=M] [--] <input>...
  prog --version

Options:
  -v              Be verbose (repeat for more).
  -q --quiet      Print nothing.
  -o FILE, --output=FILE  Where to write.
  --speed=KN      Speed in knots [default: 10].
  --mode=M        Mode of operation [Default: fast].
  --version       Show the version.
"""


class OptionParseTests(unittest.TestCase):
    def test_short_and_long(self):
        self.assertEqual(Option.parse("-h --help  Show help."), Option("-h", "--help", 0, False))

    def test_argument_and_default(self):
        self.assertEqual(
            Option.parse("--speed=KN  Speed [default: 10]."), Option(None, "--speed", 1, "10")
        )

    def test_default_is_case_insensitive(self):
        self.assertEqual(Option.parse("-m M  Mode [Default: fast]."), Option("-m", None, 1, "fast"))


class DocoptTests(unittest.TestCase):
    def parse(self, argv):
        return docopt(DOC, argv, help=False)

    def test_defaults(self):
        self.assertEqual(
            self.parse("in.txt"),
            {
                "-v": 0,
                "--quiet": False,
                "--output": None,
                "--speed": "10",
                "--mode": "fast",
                "--version": False,
                "--": False,
                "<input>": ["in.txt"],
            },
        )

    def test_long_option_with_equals(self):
        self.assertEqual(self.parse("--output=out.txt in.txt")["--output"], "out.txt")

    def test_long_option_with_space(self):
        self.assertEqual(self.parse("--output out.txt in.txt")["--output"], "out.txt")

    def test_long_option_prefix(self):
        self.assertEqual(self.parse("--out out.txt in.txt")["--output"], "out.txt")

    def test_short_option_with_space(self):
        self.assertEqual(self.parse("-o out.txt in.txt")["--output"], "out.txt")

    def test_short_option_with_attached_value(self):
        args = self.parse("-oout.txt in.txt")
        self.assertEqual(args["--output"], "out.txt")
        self.assertEqual(args["<input>"], ["in.txt"])

    def test_stacked_short_options_then_value(self):
        args = self.parse("-qoout.txt in.txt")
        self.assertTrue(args["--quiet"])
        self.assertEqual(args["--output"], "out.txt")

    def test_repeated_flag_counts(self):
        self.assertEqual(self.parse("-vvv in.txt")["-v"], 3)
        self.assertEqual(self.parse("-v -v in.txt")["-v"], 2)

    def test_repeated_arguments(self):
        self.assertEqual(self.parse("a b c")["<input>"], ["a", "b", "c"])

    def test_double_dash_ends_options(self):
        self.assertEqual(self.parse("-- -q")["<input>"], ["-q"])

    def test_unknown_option_exits(self):
        with self.assertRaises(DocoptExit):
            self.parse("--nope in.txt")

    def test_missing_argument_exits(self):
        with self.assertRaises(DocoptExit):
            self.parse("-o")

    def test_version(self):
        with self.assertRaises(SystemExit):
            docopt(DOC, "--version", version="1.2.3")


if __name__ == "__main__":
    unittest.main()

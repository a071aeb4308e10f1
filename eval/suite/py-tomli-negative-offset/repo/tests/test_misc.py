# SPDX-License-Identifier: MIT
# Tests written for this copy of tomli 2.0.1 (the sdist ships none), in the style of
# upstream's tests/test_misc.py.

import datetime
import unittest

import tomli


class TestMiscellaneous(unittest.TestCase):
    def test_load(self):
        import io

        self.assertEqual(tomli.load(io.BytesIO(b'a = "b"')), {"a": "b"})

    def test_tables_and_arrays(self):
        doc = """
        [server]
        host = "localhost"
        ports = [8000, 8001]

        [[fruit]]
        name = "apple"

        [[fruit]]
        name = "banana"
        """
        self.assertEqual(
            tomli.loads(doc),
            {
                "server": {"host": "localhost", "ports": [8000, 8001]},
                "fruit": [{"name": "apple"}, {"name": "banana"}],
            },
        )

    def test_numbers(self):
        doc = "a = 0x_1\nb = 1_000\nc = 0o17\nd = 0b101\ne = -3.5e2\nf = inf"
        with self.assertRaises(tomli.TOMLDecodeError):
            tomli.loads(doc)
        doc = "b = 1_000\nc = 0o17\nd = 0b101\ne = -3.5e2\nf = inf"
        self.assertEqual(
            tomli.loads(doc),
            {"b": 1000, "c": 15, "d": 5, "e": -350.0, "f": float("inf")},
        )

    def test_strings(self):
        doc = 'a = "tab\\there"\nb = \'C:\\\\no\\\\escape\'\nc = """\nfirst\nsecond"""'
        self.assertEqual(
            tomli.loads(doc),
            {"a": "tab\there", "b": "C:\\\\no\\\\escape", "c": "first\nsecond"},
        )

    def test_parse_float(self):
        from decimal import Decimal

        self.assertEqual(tomli.loads("a = 0.1", parse_float=Decimal), {"a": Decimal("0.1")})

    def test_local_date_and_time(self):
        doc = "d = 1979-05-27\nt = 07:32:00.5\ndt = 1979-05-27T07:32:00"
        self.assertEqual(
            tomli.loads(doc),
            {
                "d": datetime.date(1979, 5, 27),
                "t": datetime.time(7, 32, 0, 500000),
                "dt": datetime.datetime(1979, 5, 27, 7, 32),
            },
        )

    def test_offset_datetimes(self):
        cases = {
            "1979-05-27T07:32:00Z": datetime.timedelta(0),
            "1979-05-27T07:32:00z": datetime.timedelta(0),
            "1979-05-27T00:32:00-07:00": datetime.timedelta(hours=-7),
            "1979-05-27T00:32:00+05:30": datetime.timedelta(hours=5, minutes=30),
            "1979-05-27T00:32:00-03:30": datetime.timedelta(hours=-3, minutes=-30),
            "1979-05-27T00:32:00-00:45": datetime.timedelta(minutes=-45),
        }
        for text, offset in cases.items():
            with self.subTest(text=text):
                value = tomli.loads(f"t = {text}")["t"]
                self.assertEqual(value.utcoffset(), offset)
                self.assertEqual(
                    value.astimezone(datetime.timezone.utc).replace(tzinfo=None),
                    datetime.datetime(1979, 5, 27, 7, 32) - offset
                    if text.endswith(("Z", "z"))
                    else datetime.datetime(1979, 5, 27, 0, 32) - offset,
                )

    def test_invalid_datetime(self):
        with self.assertRaises(tomli.TOMLDecodeError):
            tomli.loads("t = 1979-02-30")

    def test_duplicate_key(self):
        with self.assertRaises(tomli.TOMLDecodeError):
            tomli.loads("a = 1\na = 2")


if __name__ == "__main__":
    unittest.main()

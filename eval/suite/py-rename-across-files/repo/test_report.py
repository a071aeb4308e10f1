import unittest

import stats
from report import summary


class ReportTest(unittest.TestCase):
    def test_summary(self):
        self.assertEqual(summary([1, 2, 6]), "mean 3.0, spread 5")

    def test_mean_is_exported(self):
        self.assertEqual(stats.mean([2, 4]), 3)


if __name__ == "__main__":
    unittest.main()

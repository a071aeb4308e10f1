import unittest

from stockroom import Item


class ItemTests(unittest.TestCase):
    def test_label(self):
        self.assertEqual(Item("P-1", "pen").label(), "P-1 pen")

    def test_default_reorder_level(self):
        self.assertEqual(Item("P-1", "pen").reorder_at, 5)

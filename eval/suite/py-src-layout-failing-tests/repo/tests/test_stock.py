import unittest

from stockroom import Item, Stock

PEN = Item("P-1", "pen", reorder_at=10)
INK = Item("I-7", "ink", reorder_at=2)


class StockTests(unittest.TestCase):
    def setUp(self):
        self.stock = Stock()
        self.stock.add(PEN, 12)
        self.stock.add(INK, 3)

    def test_levels(self):
        self.assertEqual(self.stock.level("P-1"), 12)
        self.assertEqual(self.stock.level("nope"), 0)

    def test_take(self):
        self.stock.take("P-1", 5)
        self.assertEqual(self.stock.level("P-1"), 7)
        with self.assertRaises(ValueError):
            self.stock.take("I-7", 4)

    def test_nothing_to_reorder_above_the_level(self):
        self.assertEqual(self.stock.to_reorder(), [])

    def test_reorder_at_the_level(self):
        self.stock.take("P-1", 2)
        self.assertEqual(self.stock.to_reorder(), [PEN])

    def test_reorder_below_the_level(self):
        self.stock.take("P-1", 7)
        self.stock.take("I-7", 3)
        self.assertEqual(self.stock.to_reorder(), [INK, PEN])

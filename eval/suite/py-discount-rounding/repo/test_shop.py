import unittest

from shop.cart import order_total
from shop.pricing import add_tax, apply_discount


class ShopTest(unittest.TestCase):
    def test_discount_keeps_cents(self):
        self.assertEqual(apply_discount(19.99, 10), 17.99)

    def test_order_total(self):
        self.assertEqual(order_total([10.0, 5.5], 0), 15.5)

    def test_tax(self):
        self.assertEqual(add_tax(10.0, 0.2), 12.0)


if __name__ == "__main__":
    unittest.main()

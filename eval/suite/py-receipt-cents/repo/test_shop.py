import unittest
from decimal import Decimal

from shop.cart import Cart
from shop.money import format_price, parse_price, percent_of


class MoneyTests(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_price("$1,299.00"), Decimal("1299.00"))
        self.assertEqual(parse_price(" 3 "), Decimal("3.00"))

    def test_format(self):
        self.assertEqual(format_price(Decimal("1299.5")), "$1,299.50")
        self.assertEqual(format_price(Decimal("3")), "$3.00")
        self.assertEqual(format_price(Decimal("0.1")), "$0.10")
        self.assertEqual(format_price(Decimal("12.345")), "$12.35")

    def test_percent(self):
        self.assertEqual(percent_of(Decimal("19.99"), 10), Decimal("2.00"))


class ReceiptTests(unittest.TestCase):
    def test_receipt(self):
        cart = Cart(tax_percent=8)
        cart.add("laptop", parse_price("$1,299.50"))
        cart.add("cable", parse_price("3"), quantity=2)
        self.assertEqual(
            cart.receipt(),
            "1 x laptop: $1,299.50\n2 x cable: $6.00\nTax: $104.44\nTotal: $1,409.94",
        )

    def test_receipt_of_prices_without_cents(self):
        cart = Cart()
        cart.add("pen", Decimal("1.5"))
        cart.add("mug", Decimal("12"))
        self.assertEqual(
            cart.receipt(), "1 x pen: $1.50\n1 x mug: $12.00\nTax: $0.00\nTotal: $13.50"
        )


if __name__ == "__main__":
    unittest.main()

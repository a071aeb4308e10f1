import unittest

from cart import Cart


class CartTest(unittest.TestCase):
    def test_add(self):
        cart = Cart()
        cart.add("apple", 2)
        self.assertEqual(cart.count(), 2)

    def test_remove_one_unit(self):
        cart = Cart()
        cart.add("apple", 2)
        cart.remove("apple")
        self.assertEqual(cart.items, {"apple": 1})
        cart.remove("apple")
        self.assertEqual(cart.items, {})

    def test_remove_missing(self):
        with self.assertRaises(KeyError):
            Cart().remove("pear")


if __name__ == "__main__":
    unittest.main()

import unittest

from app.users import get_user
from app.views import greeting


class ViewsTest(unittest.TestCase):
    def test_known(self):
        self.assertEqual(greeting(1), "hello ada")

    def test_unknown(self):
        self.assertIsNone(get_user(99))
        self.assertEqual(greeting(99), "hello stranger")


if __name__ == "__main__":
    unittest.main()

# The package's own tests (tests/test_max-min.py of the semver 3.0.2 sdist), converted from pytest to unittest.
import unittest
from semver import max_ver, min_ver


class MaxMinTests(unittest.TestCase):

    def test_should_get_max(self):
        assert max_ver('3.4.5', '4.0.2') == '4.0.2'

    def test_should_get_max_same(self):
        assert max_ver('3.4.5', '3.4.5') == '3.4.5'

    def test_should_get_min(self):
        assert min_ver('3.4.5', '4.0.2') == '3.4.5'

    def test_should_get_min_same(self):
        assert min_ver('3.4.5', '3.4.5') == '3.4.5'

    def test_prerelease_order(self):
        for left, right, expected in [
            ('1.2.3-rc.2', '1.2.3-rc.10', '1.2.3-rc.2'),
            ('1.2.3-rc2', '1.2.3-rc10', '1.2.3-rc10'),
            ('1.2.3-Rc10', '1.2.3-rc10', '1.2.3-Rc10'),
            ('1.2.3-2', '1.2.3-rc', '1.2.3-2'),
            ('1.2.3-rc.2.1', '1.2.3-rc.2', '1.2.3-rc.2'),
            ('1.2.3', '1.2.3-1', '1.2.3-1'),
            ('1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha'),
        ]:
            with self.subTest(left=left, right=right, expected=expected):
                assert min_ver(left, right) == expected

if __name__ == '__main__':
    unittest.main()

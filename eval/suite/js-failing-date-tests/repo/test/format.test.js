const test = require('node:test');
const assert = require('node:assert');
const { formatDate } = require('../src/format');

test('pads month and day', () => assert.strictEqual(formatDate(new Date(Date.UTC(2024, 0, 5))), '2024-01-05'));
test('december', () => assert.strictEqual(formatDate(new Date(Date.UTC(2023, 11, 31))), '2023-12-31'));

const test = require('node:test');
const assert = require('node:assert');
const { sum, average } = require('../src/math');

test('sum of values', () => assert.strictEqual(sum([1, 2, 3]), 6));
test('sum of nothing', () => assert.strictEqual(sum([]), 0));
test('average', () => assert.strictEqual(average([2, 4]), 3));
test('average of nothing', () => assert.strictEqual(average([]), 0));

const test = require('node:test');
const assert = require('node:assert');
const { clamp } = require('../src/clamp');

test('inside', () => assert.strictEqual(clamp(5, 0, 10), 5));
test('below', () => assert.strictEqual(clamp(-3, 0, 10), 0));
test('above', () => assert.strictEqual(clamp(42, 0, 10), 10));
test('bad range', () => assert.throws(() => clamp(1, 5, 2), RangeError));

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { add, subtract, multiply, divide } = require('../src/math');

test('add', () => {
  assert.strictEqual(add(2, 3), 5);
  assert.strictEqual(add(-1, 1), 0);
  assert.strictEqual(add(0.5, 0.25), 0.75);
});

test('subtract', () => {
  assert.strictEqual(subtract(5, 3), 2);
});

test('multiply', () => {
  assert.strictEqual(multiply(4, 3), 12);
});

test('divide', () => {
  assert.strictEqual(divide(9, 3), 3);
  assert.throws(() => divide(1, 0), RangeError);
});

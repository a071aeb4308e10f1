const test = require('node:test');
const assert = require('node:assert');
const { Stack } = require('../stack');

test('push and pop', () => {
  const stack = new Stack().push(1).push(2);
  assert.strictEqual(stack.pop(), 2);
  assert.strictEqual(stack.size, 1);
});

test('peek leaves the item', () => {
  const stack = new Stack().push('a').push('b');
  assert.strictEqual(stack.peek(), 'b');
  assert.strictEqual(stack.size, 2);
});

test('peek on empty', () => assert.strictEqual(new Stack().peek(), undefined));

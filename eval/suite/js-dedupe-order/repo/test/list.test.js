const test = require('node:test');
const assert = require('node:assert');
const { unique, chunk } = require('../src/list');

test('unique keeps order', () => assert.deepStrictEqual(unique(['b', 'a', 'b', 'c', 'a']), ['b', 'a', 'c']));
test('chunk', () => assert.deepStrictEqual(chunk([1, 2, 3], 2), [[1, 2], [3]]));

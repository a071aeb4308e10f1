const test = require('node:test');
const assert = require('node:assert');
const { greet } = require('../lib/greet');
const { displayName } = require('../lib/user');

test('display name', () => assert.strictEqual(displayName({ first: 'Ada', last: 'Lovelace' }), 'Ada Lovelace'));
test('greeting', () => assert.strictEqual(greet({ first: 'Ada', last: '' }), 'Welcome, Ada!'));

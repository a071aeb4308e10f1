const test = require('node:test');
const assert = require('node:assert');
const { heading } = require('../lib/page');
const { titleCase } = require('../lib/strings');

test('every word', () => assert.strictEqual(titleCase('hello big world'), 'Hello Big World'));
test('mixed case input', () => assert.strictEqual(titleCase('hELLO wORLD'), 'Hello World'));
test('heading', () => assert.strictEqual(heading('my notes'), '# My Notes'));

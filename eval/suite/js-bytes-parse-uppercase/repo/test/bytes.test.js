'use strict';

// Tests for bytes 3.1.2 with node:test (after upstream's test/byte-format.js and test/byte-parse.js).
const test = require('node:test');
const assert = require('node:assert');
const bytes = require('..');

test('format: picks the unit', () => {
  assert.strictEqual(bytes.format(0), '0B');
  assert.strictEqual(bytes.format(100), '100B');
  assert.strictEqual(bytes.format(-100), '-100B');
  assert.strictEqual(bytes.format(1024), '1KB');
  assert.strictEqual(bytes.format(1536), '1.5KB');
  assert.strictEqual(bytes.format(1024 * 1024), '1MB');
  assert.strictEqual(bytes.format(1024 * 1024 * 1024), '1GB');
  assert.strictEqual(bytes.format(Math.pow(1024, 4)), '1TB');
  assert.strictEqual(bytes.format(Math.pow(1024, 5)), '1PB');
});

test('format: options', () => {
  assert.strictEqual(bytes.format(1000, { thousandsSeparator: ' ' }), '1 000B');
  assert.strictEqual(bytes.format(1024 * 1000, { unit: 'KB', thousandsSeparator: ',' }), '1,000KB');
  assert.strictEqual(bytes.format(1024, { unitSeparator: ' ' }), '1 KB');
  assert.strictEqual(bytes.format(1105, { decimalPlaces: 3 }), '1.079KB');
  assert.strictEqual(bytes.format(1024, { fixedDecimals: true }), '1.00KB');
  assert.strictEqual(bytes.format(1024 * 1024, { unit: 'KB' }), '1024KB');
});

test('format: invalid input', () => {
  assert.strictEqual(bytes.format(NaN), null);
  assert.strictEqual(bytes.format(Infinity), null);
  assert.strictEqual(bytes(undefined), null);
});

test('parse: plain numbers and lower-case units', () => {
  assert.strictEqual(bytes.parse(1024), 1024);
  assert.strictEqual(bytes.parse('1024'), 1024);
  assert.strictEqual(bytes.parse('1kb'), 1024);
  assert.strictEqual(bytes.parse('1mb'), 1024 * 1024);
  assert.strictEqual(bytes.parse('1gb'), 1024 * 1024 * 1024);
  assert.strictEqual(bytes.parse('1.5kb'), 1536);
  assert.strictEqual(bytes.parse('-1kb'), -1024);
  assert.strictEqual(bytes.parse('1 kb'), 1024);
});

test('parse: units are case-insensitive', () => {
  assert.strictEqual(bytes.parse('1KB'), 1024);
  assert.strictEqual(bytes.parse('1Kb'), 1024);
  assert.strictEqual(bytes.parse('1MB'), 1024 * 1024);
  assert.strictEqual(bytes.parse('1.5GB'), 1.5 * 1024 * 1024 * 1024);
  assert.strictEqual(bytes.parse('1TB'), Math.pow(1024, 4));
  assert.strictEqual(bytes('2 MB'), 2 * 1024 * 1024);
});

test('parse: invalid input', () => {
  assert.strictEqual(bytes.parse('foo'), null);
  assert.strictEqual(bytes.parse(undefined), null);
  assert.strictEqual(bytes.parse({}), null);
});

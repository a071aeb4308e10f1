'use strict';

// Tests for escape-html 1.0.3 with node:test (after upstream's test/index.js).
var test = require('node:test');
var assert = require('node:assert');
var escapeHtml = require('..');

test('escapes each special character', function () {
  assert.strictEqual(escapeHtml('"'), '&quot;');
  assert.strictEqual(escapeHtml('&'), '&amp;');
  assert.strictEqual(escapeHtml("'"), '&#39;');
  assert.strictEqual(escapeHtml('<'), '&lt;');
  assert.strictEqual(escapeHtml('>'), '&gt;');
});

test('escapes inside text', function () {
  assert.strictEqual(escapeHtml('foo<bar>baz'), 'foo&lt;bar&gt;baz');
  assert.strictEqual(escapeHtml('fish & chips'), 'fish &amp; chips');
  assert.strictEqual(escapeHtml('say "hi"'), 'say &quot;hi&quot;');
  assert.strictEqual(escapeHtml("O'Reilly"), 'O&#39;Reilly');
  assert.strictEqual(escapeHtml("it's <b>bold</b>"), 'it&#39;s &lt;b&gt;bold&lt;/b&gt;');
});

test('leaves other text alone', function () {
  assert.strictEqual(escapeHtml('plain text'), 'plain text');
  assert.strictEqual(escapeHtml(''), '');
  assert.strictEqual(escapeHtml('日本語'), '日本語');
});

test('turns other values into strings', function () {
  assert.strictEqual(escapeHtml(42), '42');
  assert.strictEqual(escapeHtml(null), 'null');
  assert.strictEqual(escapeHtml(undefined), 'undefined');
});

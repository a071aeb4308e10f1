'use strict';

// Tests for cookie 0.6.0 with node:test (after upstream's test/parse.js and test/serialize.js).
var test = require('node:test');
var assert = require('node:assert');
var cookie = require('..');

test('parse: basic', function () {
  assert.deepStrictEqual(Object.assign({}, cookie.parse('foo=bar')), { foo: 'bar' });
  assert.deepStrictEqual(Object.assign({}, cookie.parse('foo=123')), { foo: '123' });
});

test('parse: whitespace, quotes and escapes', function () {
  assert.deepStrictEqual(Object.assign({}, cookie.parse('FOO    = bar;   baz  =   raz')), { FOO: 'bar', baz: 'raz' });
  assert.deepStrictEqual(Object.assign({}, cookie.parse('foo="bar=123456789&name=Magic+Mouse"')), { foo: 'bar=123456789&name=Magic+Mouse' });
  assert.deepStrictEqual(Object.assign({}, cookie.parse('email=%20%22%2c%3b%2f')), { email: ' ",;/' });
});

test('parse: the first duplicate wins', function () {
  assert.deepStrictEqual(Object.assign({}, cookie.parse('foo=%1;bar=bar;foo=boo')), { foo: '%1', bar: 'bar' });
});

test('serialize: basic', function () {
  assert.strictEqual(cookie.serialize('foo', 'bar'), 'foo=bar');
  assert.strictEqual(cookie.serialize('foo', 'bar baz'), 'foo=bar%20baz');
  assert.strictEqual(cookie.serialize('foo', ''), 'foo=');
  assert.throws(cookie.serialize.bind(cookie, 'foo\n', 'bar'), /argument name is invalid/);
});

test('serialize: maxAge', function () {
  assert.strictEqual(cookie.serialize('foo', 'bar', { maxAge: 1000 }), 'foo=bar; Max-Age=1000');
  assert.strictEqual(cookie.serialize('foo', 'bar', { maxAge: '1000' }), 'foo=bar; Max-Age=1000');
  assert.strictEqual(cookie.serialize('foo', 'bar', { maxAge: 3.14 }), 'foo=bar; Max-Age=3');
  assert.strictEqual(cookie.serialize('foo', 'bar', { maxAge: null }), 'foo=bar');
  assert.throws(cookie.serialize.bind(cookie, 'foo', 'bar', { maxAge: 'buzz' }), /option maxAge is invalid/);
  assert.throws(cookie.serialize.bind(cookie, 'foo', 'bar', { maxAge: Infinity }), /option maxAge is invalid/);
});

test('serialize: maxAge 0 deletes the cookie', function () {
  assert.strictEqual(cookie.serialize('foo', 'bar', { maxAge: 0 }), 'foo=bar; Max-Age=0');
  assert.strictEqual(cookie.serialize('foo', '', { maxAge: 0, path: '/' }), 'foo=; Max-Age=0; Path=/');
});

test('serialize: domain, path, expires, flags', function () {
  assert.strictEqual(cookie.serialize('foo', 'bar', { domain: 'example.com' }), 'foo=bar; Domain=example.com');
  assert.strictEqual(cookie.serialize('foo', 'bar', { path: '/' }), 'foo=bar; Path=/');
  assert.strictEqual(
    cookie.serialize('foo', 'bar', { expires: new Date(Date.UTC(2000, 11, 24, 10, 30, 59, 900)) }),
    'foo=bar; Expires=Sun, 24 Dec 2000 10:30:59 GMT'
  );
  assert.strictEqual(cookie.serialize('foo', 'bar', { httpOnly: true }), 'foo=bar; HttpOnly');
  assert.strictEqual(cookie.serialize('foo', 'bar', { secure: true }), 'foo=bar; Secure');
  assert.strictEqual(cookie.serialize('foo', 'bar', { secure: false }), 'foo=bar');
  assert.strictEqual(cookie.serialize('foo', 'bar', { partitioned: true }), 'foo=bar; Partitioned');
});

test('serialize: priority and sameSite', function () {
  assert.strictEqual(cookie.serialize('foo', 'bar', { priority: 'High' }), 'foo=bar; Priority=High');
  assert.strictEqual(cookie.serialize('foo', 'bar', { sameSite: true }), 'foo=bar; SameSite=Strict');
  assert.strictEqual(cookie.serialize('foo', 'bar', { sameSite: 'Lax' }), 'foo=bar; SameSite=Lax');
  assert.strictEqual(cookie.serialize('foo', 'bar', { sameSite: false }), 'foo=bar');
  assert.throws(cookie.serialize.bind(cookie, 'foo', 'bar', { sameSite: 'foo' }), /option sameSite is invalid/);
});

'use strict'

// Tests for content-type 1.0.5 with node:test (after upstream's test/parse.js and test/format.js).
var test = require('node:test')
var assert = require('node:assert')
var contentType = require('..')

test('parse: basic type', function () {
  var type = contentType.parse('text/html')
  assert.strictEqual(type.type, 'text/html')
  assert.deepStrictEqual(Object.keys(type.parameters), [])
})

test('parse: lower-cases the type', function () {
  assert.strictEqual(contentType.parse('IMAGE/SVG+XML').type, 'image/svg+xml')
})

test('parse: surrounding whitespace', function () {
  assert.strictEqual(contentType.parse(' text/html ').type, 'text/html')
})

test('parse: parameters', function () {
  var type = contentType.parse('text/html; charset=utf-8; foo=bar')
  assert.strictEqual(type.type, 'text/html')
  assert.deepStrictEqual(Object.assign({}, type.parameters), { charset: 'utf-8', foo: 'bar' })
})

test('parse: parameter names are case-insensitive (lower-cased)', function () {
  var type = contentType.parse('text/html; Charset=UTF-8; FOO=Bar')
  assert.deepStrictEqual(Object.assign({}, type.parameters), { charset: 'UTF-8', foo: 'Bar' })
  var multipart = contentType.parse('multipart/form-data; BOUNDARY=abc123')
  assert.strictEqual(multipart.parameters.boundary, 'abc123')
})

test('parse: quoted values and escapes', function () {
  var type = contentType.parse('text/html; charset="UTF-8"')
  assert.strictEqual(type.parameters.charset, 'UTF-8')
  type = contentType.parse('text/html; foo="bar\\"baz"')
  assert.strictEqual(type.parameters.foo, 'bar"baz')
})

test('parse: request and response objects', function () {
  var req = { headers: { 'content-type': 'text/html' } }
  assert.strictEqual(contentType.parse(req).type, 'text/html')
  var res = { getHeader: function () { return 'text/plain; charset=utf-8' } }
  assert.strictEqual(contentType.parse(res).parameters.charset, 'utf-8')
})

test('parse: invalid input throws', function () {
  assert.throws(function () { contentType.parse() }, /argument string is required/)
  assert.throws(function () { contentType.parse('text/') }, /invalid media type/)
  assert.throws(function () { contentType.parse('text/plain; foo') }, /invalid parameter format/)
  assert.throws(function () { contentType.parse('text/plain; foo="bar') }, /invalid parameter format/)
})

test('format: type and sorted parameters', function () {
  assert.strictEqual(contentType.format({ type: 'text/html' }), 'text/html')
  assert.strictEqual(
    contentType.format({ type: 'text/html', parameters: { foo: 'bar', charset: 'utf-8' } }),
    'text/html; charset=utf-8; foo=bar'
  )
  assert.strictEqual(
    contentType.format({ type: 'text/html', parameters: { foo: 'bar baz' } }),
    'text/html; foo="bar baz"'
  )
})

test('format: invalid input throws', function () {
  assert.throws(function () { contentType.format() }, /argument obj is required/)
  assert.throws(function () { contentType.format({ type: 'text/' }) }, /invalid type/)
})

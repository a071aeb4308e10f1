// Tests for dotenv 16.4.5's parse() with node:test (after upstream's tests/test-parse.js).
const test = require('node:test')
const assert = require('node:assert')

const dotenv = require('../lib/main')

const env = [
  'BASIC=basic',
  'AFTER_LINE=after_line',
  'EMPTY=',
  "SINGLE_QUOTES='single_quotes'",
  "SINGLE_QUOTES_SPACED='    single quotes    '",
  'DOUBLE_QUOTES="double_quotes"',
  'DOUBLE_QUOTES_SPACED="    double quotes    "',
  'BACKTICKS=`backticks`',
  'EXPAND_NEWLINES="expand\\nnew\\nlines"',
  "DONT_EXPAND_UNQUOTED=dontexpand\\nnewlines",
  "DONT_EXPAND_SQUOTED='dontexpand\\nnewlines'",
  'INLINE_COMMENTS=inline comments # work #very #well',
  "INLINE_COMMENTS_SINGLE_QUOTES='inline comments outside of #singlequotes' # work",
  'INLINE_COMMENTS_DOUBLE_QUOTES="inline comments outside of #doublequotes" # work',
  '# COMMENTS=work',
  'EQUAL_SIGNS=equals==',
  'RETAIN_INNER_QUOTES={"foo": "bar"}',
  'TRIM_SPACE_FROM_UNQUOTED=    some spaced out string',
  'USERNAME=therealnerdybeast@example.tld',
  '    SPACED_KEY = parsed',
  'export EXPORTED=yes'
].join('\n')

const parsed = dotenv.parse(Buffer.from(env))

test('parses plain values', () => {
  assert.strictEqual(parsed.BASIC, 'basic')
  assert.strictEqual(parsed.AFTER_LINE, 'after_line')
  assert.strictEqual(parsed.EMPTY, '')
  assert.strictEqual(parsed.EQUAL_SIGNS, 'equals==')
  assert.strictEqual(parsed.RETAIN_INNER_QUOTES, '{"foo": "bar"}')
  assert.strictEqual(parsed.TRIM_SPACE_FROM_UNQUOTED, 'some spaced out string')
  assert.strictEqual(parsed.USERNAME, 'therealnerdybeast@example.tld')
  assert.strictEqual(parsed.SPACED_KEY, 'parsed')
  assert.strictEqual(parsed.EXPORTED, 'yes')
})

test('strips quotes and keeps the spaces inside them', () => {
  assert.strictEqual(parsed.SINGLE_QUOTES, 'single_quotes')
  assert.strictEqual(parsed.SINGLE_QUOTES_SPACED, '    single quotes    ')
  assert.strictEqual(parsed.DOUBLE_QUOTES, 'double_quotes')
  assert.strictEqual(parsed.DOUBLE_QUOTES_SPACED, '    double quotes    ')
  assert.strictEqual(parsed.BACKTICKS, 'backticks')
})

test('expands \\n only in double-quoted values', () => {
  assert.strictEqual(parsed.EXPAND_NEWLINES, 'expand\nnew\nlines')
  assert.strictEqual(parsed.DONT_EXPAND_UNQUOTED, 'dontexpand\\nnewlines')
  assert.strictEqual(parsed.DONT_EXPAND_SQUOTED, 'dontexpand\\nnewlines')
})

test('comments', () => {
  assert.strictEqual(parsed.INLINE_COMMENTS, 'inline comments')
  assert.strictEqual(parsed.INLINE_COMMENTS_SINGLE_QUOTES, 'inline comments outside of #singlequotes')
  assert.strictEqual(parsed.INLINE_COMMENTS_DOUBLE_QUOTES, 'inline comments outside of #doublequotes')
  assert.strictEqual(parsed.COMMENTS, undefined)
})

test('multi-line values and Windows line endings', () => {
  assert.deepStrictEqual(dotenv.parse('MULTI="one\ntwo"'), { MULTI: 'one\ntwo' })
  assert.deepStrictEqual(dotenv.parse('A=1\r\nB=2\r\n'), { A: '1', B: '2' })
  assert.deepStrictEqual(dotenv.parse('A="x\\r\\ny"'), { A: 'x\r\ny' })
})

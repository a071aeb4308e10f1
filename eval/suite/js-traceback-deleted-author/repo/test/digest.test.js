'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { byAuthor, digest } = require('../src/digest');
const { displayName } = require('../src/authors');

const ada = { login: 'Ada', name: 'Ada Lovelace' };
const bob = { login: 'bob', name: '  ' };

test('display names fall back to the login', () => {
  assert.strictEqual(displayName(ada), 'Ada Lovelace');
  assert.strictEqual(displayName(bob), 'bob');
});

test('posts are grouped by author', () => {
  const posts = [
    { title: 'Engines', author: ada },
    { title: 'Hello', author: bob },
    { title: 'Notes', author: { login: 'ADA', name: 'Ada Lovelace' } },
  ];
  assert.deepStrictEqual(byAuthor(posts), [
    { author: 'Ada Lovelace', titles: ['Engines', 'Notes'] },
    { author: 'bob', titles: ['Hello'] },
  ]);
});

test('posts of deleted accounts are grouped under [deleted]', () => {
  const posts = [
    { title: 'Engines', author: ada },
    { title: 'Old news', author: null },
    { title: 'Older news', author: undefined },
  ];
  assert.strictEqual(digest(posts), 'Ada Lovelace: Engines\n[deleted]: Old news, Older news');
});

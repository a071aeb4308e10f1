'use strict';

const { displayName, authorKey } = require('./authors');

/** Posts grouped by author: [{ author, titles }], authors in order of first post. */
function byAuthor(posts) {
  const groups = new Map();
  for (const post of posts) {
    const key = authorKey(post.author);
    if (!groups.has(key)) {
      groups.set(key, { author: displayName(post.author), titles: [] });
    }
    groups.get(key).titles.push(post.title);
  }
  return [...groups.values()];
}

/** A plain-text digest: one line per author with their post titles. */
function digest(posts) {
  return byAuthor(posts)
    .map((group) => `${group.author}: ${group.titles.join(', ')}`)
    .join('\n');
}

module.exports = { byAuthor, digest };

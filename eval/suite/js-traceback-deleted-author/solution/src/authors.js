'use strict';

/** The name shown for a post's author ("[deleted]" when the account is gone). */
function displayName(author) {
  if (!author) {
    return '[deleted]';
  }
  const name = author.name.trim();
  return name.length > 0 ? name : author.login;
}

/** A stable key to group an author's posts by. */
function authorKey(author) {
  if (!author) {
    return '[deleted]';
  }
  return author.login.toLowerCase();
}

module.exports = { displayName, authorKey };

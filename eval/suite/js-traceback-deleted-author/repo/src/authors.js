'use strict';

/** The name shown for a post's author. */
function displayName(author) {
  const name = author.name.trim();
  return name.length > 0 ? name : author.login;
}

/** A stable key to group an author's posts by. */
function authorKey(author) {
  return author.login.toLowerCase();
}

module.exports = { displayName, authorKey };

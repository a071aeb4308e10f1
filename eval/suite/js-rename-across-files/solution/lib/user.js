function displayName(user) {
  return `${user.first} ${user.last}`.trim();
}

module.exports = { displayName };

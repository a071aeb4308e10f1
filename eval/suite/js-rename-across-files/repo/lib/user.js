function getUserName(user) {
  return `${user.first} ${user.last}`.trim();
}

module.exports = { getUserName };

const { displayName } = require('./user');

function greet(user) {
  return `Welcome, ${displayName(user)}!`;
}

module.exports = { greet };

const { getUserName } = require('./user');

function greet(user) {
  return `Welcome, ${getUserName(user)}!`;
}

module.exports = { greet };

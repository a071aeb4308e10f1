const { titleCase } = require('./strings');

function heading(title) {
  return `# ${titleCase(title)}`;
}

module.exports = { heading };

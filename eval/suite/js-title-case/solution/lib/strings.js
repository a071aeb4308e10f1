function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function titleCase(text) {
  return text.toLowerCase().split(' ').map(capitalize).join(' ');
}

module.exports = { capitalize, titleCase };

function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function titleCase(text) {
  return capitalize(text.toLowerCase());
}

module.exports = { capitalize, titleCase };

function sum(values) {
  return values.reduce((total, value) => total + value);
}

function average(values) {
  return values.length === 0 ? 0 : sum(values) / values.length;
}

module.exports = { sum, average };

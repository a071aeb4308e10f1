function unique(values) {
  return [...new Set(values)];
}

function chunk(values, size) {
  const chunks = [];
  for (let i = 0; i < values.length; i += size) {
    chunks.push(values.slice(i, i + size));
  }
  return chunks;
}

module.exports = { unique, chunk };

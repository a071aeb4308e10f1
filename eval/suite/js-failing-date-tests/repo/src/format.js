function formatDate(date) {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  return `${year}-${month}-${day}`;
}

module.exports = { formatDate };

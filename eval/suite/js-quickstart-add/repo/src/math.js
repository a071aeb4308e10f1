'use strict';

/** The sum of a and b. */
function add(a, b) {
  return a - b;
}

/** The difference a - b. */
function subtract(a, b) {
  return a - b;
}

/** The product of a and b. */
function multiply(a, b) {
  return a * b;
}

/** a divided by b; throws on division by zero. */
function divide(a, b) {
  if (b === 0) {
    throw new RangeError('division by zero');
  }
  return a / b;
}

module.exports = { add, subtract, multiply, divide };

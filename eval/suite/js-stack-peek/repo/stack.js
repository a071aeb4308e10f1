class Stack {
  constructor() {
    this.items = [];
  }

  push(item) {
    this.items.push(item);
    return this;
  }

  pop() {
    return this.items.pop();
  }

  get size() {
    return this.items.length;
  }
}

module.exports = { Stack };

class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, quantity=1):
        self.items[name] = self.items.get(name, 0) + quantity

    def remove(self, name):
        if name not in self.items:
            raise KeyError(name)
        self.items[name] -= 1
        if self.items[name] == 0:
            del self.items[name]

    def count(self):
        return sum(self.items.values())

class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, quantity=1):
        self.items[name] = self.items.get(name, 0) + quantity

    def count(self):
        return sum(self.items.values())

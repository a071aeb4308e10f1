"""Stock levels."""

from __future__ import annotations

from stockroom.items import Item


class Stock:
    """How many of each item are on the shelves."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}
        self._levels: dict[str, int] = {}

    def add(self, item: Item, quantity: int) -> None:
        """Puts `quantity` units of `item` on the shelves."""
        if quantity < 0:
            raise ValueError("quantity must not be negative")
        self._items[item.sku] = item
        self._levels[item.sku] = self._levels.get(item.sku, 0) + quantity

    def take(self, sku: str, quantity: int) -> None:
        """Takes `quantity` units of the item `sku`; raises ValueError when there are not enough."""
        level = self._levels.get(sku, 0)
        if quantity > level:
            raise ValueError(f"only {level} of {sku} in stock")
        self._levels[sku] = level - quantity

    def level(self, sku: str) -> int:
        """Units of `sku` on the shelves (0 for an unknown SKU)."""
        return self._levels.get(sku, 0)

    def to_reorder(self) -> list[Item]:
        """The items at or below their reorder level, by SKU."""
        return [
            self._items[sku]
            for sku in sorted(self._items)
            if self._levels[sku] <= self._items[sku].reorder_at
        ]

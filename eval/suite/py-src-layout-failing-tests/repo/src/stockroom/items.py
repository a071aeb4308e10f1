"""Catalogue items."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    """An item of the catalogue: its SKU, name and the level at which to reorder."""

    sku: str
    name: str
    reorder_at: int = 5

    def label(self) -> str:
        """The item as shown on a pick list."""
        return f"{self.sku} {self.name}"

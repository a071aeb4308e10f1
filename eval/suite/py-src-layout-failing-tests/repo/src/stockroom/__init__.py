"""Stock levels and reorder points."""

from stockroom.items import Item
from stockroom.stock import Stock

__all__ = ["Item", "Stock"]

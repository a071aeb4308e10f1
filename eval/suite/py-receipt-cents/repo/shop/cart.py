"""A shopping cart and its receipt."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from shop.money import format_price, percent_of


@dataclass
class Line:
    name: str
    unit_price: Decimal
    quantity: int = 1

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class Cart:
    lines: list[Line] = field(default_factory=list)
    tax_percent: int = 0

    def add(self, name: str, unit_price: Decimal, quantity: int = 1) -> None:
        self.lines.append(Line(name, unit_price, quantity))

    def subtotal(self) -> Decimal:
        return sum((line.total for line in self.lines), Decimal(0))

    def tax(self) -> Decimal:
        return percent_of(self.subtotal(), self.tax_percent)

    def receipt(self) -> str:
        rows = [f"{line.quantity} x {line.name}: {format_price(line.total)}" for line in self.lines]
        rows.append(f"Tax: {format_price(self.tax())}")
        rows.append(f"Total: {format_price(self.subtotal() + self.tax())}")
        return "\n".join(rows)

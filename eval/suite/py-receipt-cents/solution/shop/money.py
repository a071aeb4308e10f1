"""Prices as Decimal: parsing what people type and formatting for receipts."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def parse_price(text: str) -> Decimal:
    """'$1,299.00' -> Decimal('1299.00'): a leading currency sign and thousands separators are ignored."""
    cleaned = text.strip().lstrip("$").replace(",", "")
    return Decimal(cleaned).quantize(CENT, rounding=ROUND_HALF_UP)


def format_price(value: Decimal) -> str:
    """Decimal('1299.5') -> '$1,299.50'."""
    return f"${value.quantize(CENT, rounding=ROUND_HALF_UP):,}"


def percent_of(value: Decimal, percent: int) -> Decimal:
    """`percent` % of `value`, rounded to the cent."""
    return (value * percent / 100).quantize(CENT, rounding=ROUND_HALF_UP)

"""A small shop: prices, carts and receipts."""

def apply_discount(total, percent):
    """`total` less `percent` percent, in currency units with cents."""
    discounted = total * (100 - percent) / 100
    return round(discounted, 2)


def add_tax(total, rate):
    return round(total * (1 + rate), 2)

def paginate(items, page, size):
    """Items of 1-based `page` when the list is cut into pages of `size` items."""
    if page < 1 or size < 1:
        raise ValueError("page and size start at 1")
    start = page * size
    return items[start:start + size]


def page_count(items, size):
    return (len(items) + size - 1) // size

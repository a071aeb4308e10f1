def calc_avg(values):
    if not values:
        raise ValueError("no values")
    return sum(values) / len(values)


def spread(values):
    return max(values) - min(values)

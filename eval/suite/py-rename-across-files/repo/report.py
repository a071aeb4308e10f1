from stats import calc_avg, spread


def summary(values):
    return f"mean {calc_avg(values):.1f}, spread {spread(values)}"

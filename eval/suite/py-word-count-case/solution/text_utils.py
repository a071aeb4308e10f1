import re
from collections import Counter


def count_words(text):
    return Counter(re.findall(r"[a-z0-9']+", text.lower()))


def most_common(text, n=1):
    return [word for word, _ in count_words(text).most_common(n)]

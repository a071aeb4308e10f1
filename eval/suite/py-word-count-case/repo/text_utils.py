from collections import Counter


def count_words(text):
    return Counter(text.split())


def most_common(text, n=1):
    return [word for word, _ in count_words(text).most_common(n)]

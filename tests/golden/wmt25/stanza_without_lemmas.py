"""A stand-in for stanza that leaves lemmas out: every call lemmatises its text to one word no other call gives,
so the scorer's lemma half never matches and its surface half (lower-cased substrings) alone decides."""

import itertools

_n = itertools.count()


class _W:
    def __init__(self):
        self.lemma = f"\x00{next(_n)}\x00"


class _S:
    def __init__(self):
        self.words = [_W()]


class _D:
    def __init__(self):
        self.sentences = [_S()]


class Pipeline:
    def __init__(self, *a, **k):
        pass

    def __call__(self, text):
        return _D()

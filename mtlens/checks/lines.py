"""Checks of a whole output line (issue 60; each rule's cases in docs/checks.md): empty, left untranslated, in
another language, looping, or far longer or shorter than the pair's lines usually are. A failing line's span covers
the output (or the loop's repeats)."""

from __future__ import annotations

import re

from ..scores.spans import Span
from .language import other_language

SEVERITY = "major"

#: untranslated: the source line needs this many words of letters to be checked (names, titles, numbers and code
#: stay the same in any language), and at least this share of its characters must be letters
MIN_WORDS = 3
MIN_LETTER_SHARE = 0.5
#: ... and the output is the source (case, spaces and punctuation aside), or this share of the output's words are
#: the source's words in a line of about the source's length
NEAR_COPY = 0.9
NEAR_LENGTH = (0.8, 1.25)
#: ... an output is looked at only when this share of its space-separated tokens are the source's
LOOKED_AT = 0.5

#: repetition: an n-gram of 1 to MAX_LOOP_N tokens repeated back to back; a word at least this many times in a
#: row, a longer n-gram at least LOOP_REPEATS times, and more than the source's own longest run plus one
MAX_LOOP_N = 8
WORD_REPEATS = 4
LOOP_REPEATS = 3

#: length: the output's characters over the source's, against the set's median ratio (every system's lines), a
#: failure beyond this factor either way; source lines shorter than LENGTH_MIN_CHARS are not checked
LENGTH_FACTOR = 3.0
LENGTH_MIN_CHARS = 10

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
#: the characters of the CJK scripts written without spaces (kana, CJK ideographs, Hangul): each one a token
CJK = "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
_TOKEN = re.compile(rf"{CJK}|[^\W_]+|[^\w\s]", re.UNICODE)


def _whole(output: str, category: str, text: str = "") -> list[Span]:
    return [Span(0, len(output), SEVERITY, category, text or output)]


def check_empty(source: str | None, output: str) -> list[Span]:
    """The output is empty or white space where the source (if given) is not."""
    if output.strip() or (source is not None and not source.strip()):
        return []
    return [Span(None, None, SEVERITY, "Accuracy/Omission", "empty output")]


_NOT_ALNUM = re.compile(r"[\W_]+")


def _plain(text: str) -> str:
    """The line's letters and digits, case-folded (what is left once case, spaces and punctuation are set aside)."""
    return _NOT_ALNUM.sub("", text.casefold())


def untranslatable(source: str) -> bool:
    """Whether a source line may stay as it is: fewer than :data:`MIN_WORDS` words of letters (a name, a title, a
    number), or under :data:`MIN_LETTER_SHARE` letters (code, numbers, addresses)."""
    words = _WORD.findall(source)
    letters = sum(len(w) for w in words)
    visible = len("".join(source.split()))
    return len(words) < MIN_WORDS or visible == 0 or letters / visible < MIN_LETTER_SHARE


def source_words(source: str) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """What :func:`check_untranslated` compares of a source line, found once for every system: its plain text, its
    words and its space-separated tokens (case-folded); None for a line that may stay as it is
    (:func:`untranslatable`)."""
    if untranslatable(source):
        return None
    low = source.casefold()
    return _plain(source), frozenset(_WORD.findall(low)), frozenset(low.split())


def check_untranslated(source: str, output: str, src: tuple | bool | None = False) -> list[Span]:
    """The output is the source left as it was: equal once case, spaces and punctuation are set aside, or nearly
    (:data:`NEAR_COPY` of its words are the source's and its length within :data:`NEAR_LENGTH` of the source's);
    lines that may stay as they are (:func:`untranslatable`) and empty outputs pass. An output is looked at only
    when at least :data:`LOOKED_AT` of its distinct space-separated tokens (case-folded) are the source's: a copy
    shares nearly all of them, a translation few. ``src``: the source's (:func:`source_words`)."""
    prep = source_words(source) if src is False else src
    if prep is None or not output.strip():
        return []
    a, words, spaced = prep
    toks = set(output.casefold().split())
    if not a or len(toks & spaced) < LOOKED_AT * len(toks):
        return []
    b = _plain(output)
    if a == b:
        return _whole(output, "Accuracy/Untranslated")
    if not (NEAR_LENGTH[0] <= len(b) / len(a) <= NEAR_LENGTH[1]):
        return []
    out_words = _WORD.findall(output.casefold())
    if out_words and sum(w in words for w in out_words) / len(out_words) >= NEAR_COPY:
        return _whole(output, "Accuracy/Untranslated")
    return []


def tokens(line: str) -> list[re.Match]:
    """A line's tokens for the loop check: words, numbers, punctuation marks, and each CJK character."""
    return list(_TOKEN.finditer(line.casefold()))


def longest_run(toks: list[str]) -> tuple[int, int, int]:
    """The longest back-to-back repetition: ``(repeats, n, start)`` of an n-gram (n up to :data:`MAX_LOOP_N`)
    repeated ``repeats`` times from token ``start``; (1, 0, 0) without one.

    >>> longest_run("i am i am i am i am".split())
    (4, 2, 0)
    """
    best = (1, 0, 0)
    size = len(toks)
    for n in range(1, min(MAX_LOOP_N, size // 2) + 1):
        i = 0
        while i + 2 * n <= size:
            k = 1
            while i + (k + 1) * n <= size and toks[i + k * n : i + (k + 1) * n] == toks[i : i + n]:
                k += 1
            if k > best[0]:
                best = (k, n, i)
            i += max(1, (k - 1) * n) if k > 1 else 1
    return best


def _loops(repeats: int, n: int) -> bool:
    return n > 0 and repeats >= (WORD_REPEATS if n == 1 else LOOP_REPEATS)


#: a loop as text: a token 4 times, or 2 to MAX_LOOP_N tokens 3 times, back to back, on the tokens joined by NULs
_TANDEM = re.compile(
    rf"(?:^|(?<=\x00))(?:([^\x00]+\x00)\1{{{WORD_REPEATS - 1},}}|((?:[^\x00]+\x00){{2,{MAX_LOOP_N}}}?)\2{{{LOOP_REPEATS - 1},}})"
)


def may_loop(line: str) -> bool:
    """Whether a line holds a loop (:func:`check_repetition`'s first condition), tested by one regular expression on
    its tokens joined by NULs (a line with a NUL is tested token by token). Over many lines,
    :func:`mtlens.checks.candidates.may_loop` finds the lines where this can hold, all at once."""
    low = line.casefold()
    toks = _TOKEN.findall(low)
    if len(toks) < min(WORD_REPEATS, 2 * LOOP_REPEATS):
        return False
    if "\x00" in line:
        return _loops(*longest_run(toks)[:2])
    return _TANDEM.search("\x00".join(toks) + "\x00") is not None


def check_repetition(source: str | None, output: str) -> list[Span]:
    """The output loops: an n-gram repeated back to back (a word :data:`WORD_REPEATS` times, a longer n-gram
    :data:`LOOP_REPEATS` times) more often than the source repeats anything, plus one ("ha ha ha ha" translating
    "ha ha ha ha" passes); the span covers the repeats."""
    if not may_loop(output):
        return []
    found = tokens(output)
    repeats, n, start = longest_run([m.group() for m in found])
    if not _loops(repeats, n):
        return []
    if source is not None and repeats <= longest_run([m.group() for m in tokens(source)])[0] + 1:
        return []
    first, last = found[start], found[start + repeats * n - 1]
    return [Span(first.start(), last.end(), SEVERITY, "Accuracy/Addition", output[first.start() : last.end()])]


def median_ratio(sources, outputs_by_system) -> float | None:
    """The set's usual length ratio: the median of output over source characters, over every system's lines whose
    source has :data:`LENGTH_MIN_CHARS`+ characters and whose output is not empty; None when no line has one."""
    import numpy as np

    ratios = [
        len(o.strip()) / len(s.strip())
        for lines in outputs_by_system
        for s, o in zip(sources, lines, strict=True)
        if len(s.strip()) >= LENGTH_MIN_CHARS and o.strip()
    ]
    return float(np.median(ratios)) if ratios else None


def check_length(source: str, output: str, usual: float | None) -> list[Span]:
    """The output's length over the source's is more than :data:`LENGTH_FACTOR` times the set's usual ratio or
    less than its inverse (empty outputs are the empty check's; short sources are not checked)."""
    src, out = source.strip(), output.strip()
    if usual is None or not out or len(src) < LENGTH_MIN_CHARS:
        return []
    ratio = len(out) / len(src) / usual
    if ratio > LENGTH_FACTOR:
        return _whole(output, "Accuracy/Addition", f"{ratio:.1f}x the usual length")
    if ratio < 1 / LENGTH_FACTOR:
        return _whole(output, "Accuracy/Omission", f"{ratio:.2f}x the usual length")
    return []


def check_language(output: str, target: str, cache: dict) -> list[Span]:
    """The output is surely in another language than the target (:mod:`.language`'s rule: 20+ characters, 95%
    sure, close variants alike); the span says which."""
    other = other_language(output, target, cache)
    return [] if other is None else _whole(output, "Non-translation", f"in {other}, not {target}")

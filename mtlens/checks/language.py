"""Which language a line is in, the one rule for every check that asks (``check:language``, the COMET pitfalls'
wrong-language lines, the reference's): py3langid (a NumPy port of langid.py, 97 languages, its model shipped in
the wheel and read without pickle: :mod:`.langid_model`; many lines at once: :mod:`.langid_batch`, the same
numbers up to float32 rounding) names a line's language only when the line has at least
:data:`MIN_CHARS` characters (stripped) and the identifier is at least :data:`MIN_PROBABILITY` sure; shorter lines,
names and numbers are not identified reliably. Close variants count as one language (:data:`SAME_LANGUAGE`).
"""

from __future__ import annotations

from collections.abc import Iterable

#: a line is identified only from this many characters (stripped)
MIN_CHARS = 20
#: and only when the detector is at least this sure
MIN_PROBABILITY = 0.95
#: languages py3langid tells apart that a translation into the first may be identified as
SAME_LANGUAGE = {
    "zh": {"zh", "wuu", "yue"},
    "no": {"no", "nb", "nn"},
    "nb": {"no", "nb", "nn"},
    "nn": {"no", "nb", "nn"},
    "sr": {"sr", "hr", "bs"},
    "hr": {"sr", "hr", "bs"},
    "bs": {"sr", "hr", "bs"},
    "ms": {"ms", "id"},
    "id": {"ms", "id"},
}


def identify(line: str) -> tuple[str, float] | None:
    """(language, probability) of a line long enough to tell, else None."""
    return identify_many([line])[line.strip()]


def identify_many(lines: Iterable[str]) -> dict[str, tuple[str, float] | None]:
    """Each distinct stripped line -> (language, probability), None for one too short to tell; every line in one
    compiled pass (:func:`.langid_batch.classify_many`)."""
    from .langid_batch import classify_many

    texts = {line.strip() for line in lines}
    long = [t for t in texts if len(t) >= MIN_CHARS]
    out: dict[str, tuple[str, float] | None] = dict.fromkeys(texts)
    out.update(zip(long, classify_many(long), strict=True))
    return out


def same_as(expected: str) -> set[str]:
    """The languages a line in ``expected`` may be identified as."""
    return SAME_LANGUAGE.get(expected, {expected})


def other_language(line: str, expected: str, cache: dict | None = None) -> str | None:
    """The language a line is surely in when it is not ``expected`` (a close variant is ``expected``), else None;
    ``cache``: stripped text -> identification (:func:`identify_many` fills it for many lines at once)."""
    text = line.strip()
    if cache is None:
        got = identify(text)
    else:
        if text not in cache:
            cache.update(identify_many([text]))
        got = cache[text]
    if got is not None and got[1] >= MIN_PROBABILITY and got[0] not in same_as(expected):
        return got[0]
    return None

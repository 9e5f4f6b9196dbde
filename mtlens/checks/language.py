"""Which language a line is in, the one rule for every check that asks (``check:language``, the COMET pitfalls'
wrong-language lines, the reference's): py3langid (a NumPy port of langid.py, 97 languages, its model shipped in
the wheel and read without pickle: :mod:`.langid_model`) names a line's language only when the line has at least
:data:`MIN_CHARS` characters (stripped) and the identifier is at least :data:`MIN_PROBABILITY` sure; shorter lines,
names and numbers are not identified reliably. Close variants count as one language (:data:`SAME_LANGUAGE`).
"""

from __future__ import annotations

from .langid_model import identifier

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
    text = line.strip()
    if len(text) < MIN_CHARS:
        return None
    lang, prob = identifier().classify(text)
    return str(lang), float(prob)


def same_as(expected: str) -> set[str]:
    """The languages a line in ``expected`` may be identified as."""
    return SAME_LANGUAGE.get(expected, {expected})


def other_language(line: str, expected: str, cache: dict | None = None) -> str | None:
    """The language a line is surely in when it is not ``expected`` (a close variant is ``expected``), else None;
    ``cache``: text -> identification, shared by the lines of one run (systems repeat each other's lines)."""
    text = line.strip()
    if cache is None:
        got = identify(text)
    else:
        if text not in cache:
            cache[text] = identify(text)
        got = cache[text]
    if got is not None and got[1] >= MIN_PROBABILITY and got[0] not in same_as(expected):
        return got[0]
    return None

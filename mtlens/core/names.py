"""The one rule for a name a user gives, on every path (issue 51): a set, a project, a system or a reference
(from a file's stem, a TSV column, an XML ``sysid``, a bundle, a form), a run, a family, a metadata key.

A name is text that shows as itself everywhere it goes (a terminal, a CI log, JUnit XML, Markdown, a page): white
space is folded to single spaces, and any other control or format character (ESC, BEL, backspace, NUL, the
bidirectional overrides such as RLO, zero-width characters) is refused, because it would act instead of show (a
clear-screen in a CI log, XML that does not parse, a name that reads backwards). Names are at most 200 characters.
Messages show a refused name with such characters as ``\\uXXXX`` escapes (:func:`shown`), so the message cannot act
either.

Example:
    >>> clean_name("  my   system \\t v2 ", "system")
    'my system v2'
    >>> clean_name("evil\\x1b[2J", "system")
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: the system name 'evil\\x1b[2J' holds a control or format character; names are plain text
"""

from __future__ import annotations

import unicodedata

from .errors import InputError

#: the longest name, in characters
MAX_NAME = 200


def _acts(ch: str) -> bool:
    """A character that would act rather than show: Unicode's control, format, surrogate and unassigned ones."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def shown(text: str, limit: int = 80) -> str:
    """``text`` as a message may show it: every character that would act written as an escape, cut to ``limit``."""
    out = "".join(
        ch if not _acts(ch) else f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" for ch in text
    )
    return out if len(out) <= limit else out[: limit - 1] + "…"


_ACTING = None
#: the blocks that hold Unicode's format characters (Cf: soft hyphen, Arabic marks, the zero-width and bidirectional
#: controls, tags...): scanning them, not every plane, builds :func:`terminal_safe`'s pattern in a few milliseconds
#: (the whole range took 160 ms of every command); a test holds every Cf character of the running Python inside them
FORMAT_BLOCKS = (
    range(0xAD, 0xAE), range(0x600, 0x900), range(0x1800, 0x1900), range(0x2000, 0x2070), range(0xFE00, 0x10000),
    range(0x11000, 0x11100), range(0x13400, 0x13460), range(0x1BC00, 0x1BD00), range(0x1D100, 0x1D200),
    range(0xE0000, 0xE1000),
)  # fmt: skip


def _acting():
    """A pattern of the characters :func:`terminal_safe` escapes (built once, on first use)."""
    global _ACTING
    if _ACTING is None:
        import re

        formats = "".join(chr(c) for r in FORMAT_BLOCKS for c in r if unicodedata.category(chr(c)) == "Cf")
        _ACTING = re.compile(
            "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff" + re.escape(formats) + "]"
        )
    return _ACTING


def terminal_safe(text: str) -> str:
    r"""``text`` as the command line prints it: every character that would act in a terminal or a CI log (a control,
    format, surrogate or private-use character; the line break and the tab that lay out the output are kept) written
    as a ``\uXXXX`` escape, which JSON reads back as the same character (issue 58, G10: rater names, document ids and
    domains, a judge's model were printed raw; this is the last guard of the command line's output).

    >>> terminal_safe("r1\x1b[2J\tok\u202e\n")
    'r1\\u001b[2J\tok\\u202e\n'
    """
    pattern = _acting()
    if not pattern.search(text):
        return text
    return pattern.sub(lambda m: _escape(ord(m.group())), text)


def _escape(c: int) -> str:
    """A code point as JSON writes it: ``\\uXXXX``, a surrogate pair beyond the first plane."""
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def problem(text: str, limit: int = MAX_NAME) -> str | None:
    """What is wrong with ``text`` as a name after white space is folded (None: nothing)."""
    if not text:
        return "is empty"
    if any(unicodedata.category(ch) == "Cs" for ch in text):  # bytes that were not UTF-8 (surrogate escapes)
        return "is not valid UTF-8 text"
    if any(_acts(ch) for ch in text):
        return "holds a control or format character; names are plain text"
    if len(text) > limit:
        return f"is longer than {limit} characters"
    return None


def clean_name(text, what: str, limit: int = MAX_NAME, cut: bool = False, empty: str | None = None) -> str:
    """``text`` as a name: white space folded to single spaces, then checked (:func:`problem`); ``cut``: a name
    longer than ``limit`` is cut instead of refused (a run named after a long file stem); ``empty``: the sentence
    for a name with nothing left (else "... is empty"). An InputError names ``what`` and shows the name safely."""
    name = " ".join(str(text).split())
    if not name and empty is not None:
        raise InputError(empty)
    if cut:
        name = name[:limit]
    why = problem(name, limit)
    if why:
        raise InputError(f"the {what} name '{shown(name)}' {why}")
    return name


def optional_name(text, what: str, limit: int = MAX_NAME, cut: bool = False) -> str | None:
    """:func:`clean_name`, or None for no name at all (None, or only white space): a run's family, a project."""
    return clean_name(text, what, limit, cut) if " ".join(str(text or "").split()) else None


def check_names(names, what: str) -> None:
    """Refuse names given as they are (a file's stem, a column, a stream of a corpus): white space is not folded
    here (that would rename a file's system silently), and a tab or a line break inside one is refused too."""
    for name in names:
        why = problem(str(name))
        if why:
            raise InputError(f"the {what} name '{shown(str(name))}' {why}")


def auto_set_name(systems: int, pair: str, lines: int) -> str:
    """The name a set gets from an upload when nobody names it (``8 systems, en-de, 1002 lines``).

    >>> auto_set_name(1, "en-de", 200), renumbered("8 systems, en-de, 1002 lines (2)", 8, 9)
    ('1 system, en-de, 200 lines', '9 systems, en-de, 1002 lines (2)')
    """
    return f"{systems} system{'' if systems == 1 else 's'}, {pair}, {lines} lines"


def renumbered(name: str, before: int, after: int) -> str:
    """An automatic set name with its count of systems brought up to date (issue 58: runs added to an auto-named set
    left it saying "8 systems"); any other name is the user's and stays as it is."""
    import re

    m = re.fullmatch(r"(\d+) systems?, (.+), (\d+) lines( \(\d+\))?", name)
    if m is None or int(m.group(1)) != before:
        return name
    return auto_set_name(after, m.group(2), int(m.group(3))) + (m.group(4) or "")

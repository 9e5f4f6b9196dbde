"""What a translation must keep from its source: numbers, placeholders, markup, URLs and e-mail addresses
(issue 60; each rule's cases in docs/checks.md). Each function takes one source line and one output line and
returns the line's failures as spans (an empty list: the line passes): a span with a place marks what the output
has that it should not (an extra placeholder, an unbalanced tag), a span without a place (an omission) what the
source has that the output lost."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

from ..scores.spans import Span

#: a number as written in any script: digits (any Unicode decimal digit) joined by separators
_NUMBER = re.compile(r"\d+(?:[.,'’\u00a0\u202f\u2009 \u066b\u066c]\d+)*")
_ANY_DIGIT = re.compile(r"\d")
#: marks a decimal fraction may use; marks that group thousands
_DECIMAL = frozenset(".,\u066b")
_GROUP = frozenset(".,'’\u00a0\u202f\u2009 \u066c")
_SPACES = frozenset(" \u00a0\u202f\u2009")

#: placeholders of the usual formats: {{x}}, {0}/{name}/{}, ${x}, printf's %s %1$d %.2f %@, Python's %(name)s
_PLACEHOLDER = re.compile(
    r"\{\{[^{}]*\}\}|\$\{[^{}]*\}|\{[^{}\s]*\}|%\([A-Za-z_]\w*\)[sdfr]|%(?:\d+\$)?[-+#0]?\d*(?:\.\d+)?[sdifuxXeEgGcp@]"
)
#: a tag (opening, closing or empty) and a character entity
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)(?:\s[^<>]*?)?(/?)>")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")
#: URLs and e-mail addresses; what ends a sentence is not part of them
_URL = re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<>\"]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)
_URL_TAIL = ".,;:!?)]}'\"»”’"

#: the MQM categories of these failures
NUMBER_CATEGORY = "Accuracy/Mistranslation"
MARKUP_CATEGORY = "Design and markup/Markup"
URL_CATEGORY = "Accuracy/Mistranslation"
SEVERITY = "major"


def _digits(text: str) -> str:
    """ASCII digits for any script's decimal digits (٢ -> 2, ２ -> 2)."""
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in text)


@functools.lru_cache(maxsize=65536)
def readings(token: str) -> frozenset[str]:
    """The values a written number may stand for, as canonical text (an integer without leading zeros, or
    ``INT.FRACTION`` with the fraction as written): the separators are thousands marks when every group after the
    first has three digits and one mark is used; the last mark is a decimal mark when it is ``.``, ``,`` or ``٫``
    and the marks before it (if any) group thousands with another mark. A token with no reading is its digit groups
    (a date ``12.05.2020``, a time): :func:`numbers` splits it.

    >>> sorted(readings("1,000")), sorted(readings("2,5")), sorted(readings("1.234.567,89")), sorted(readings("٢٫٥"))
    (['1.000', '1000'], ['2.5'], ['1234567.89'], ['2.5'])
    >>> sorted(readings("12.05.2020")), sorted(readings("007"))
    ([], ['7'])
    """
    token = _digits(token)
    groups = re.split(r"[^0-9]", token)
    marks = [c for c in token if not c.isdigit()]
    if not marks:
        return frozenset({str(int(token))})
    out = set()
    one_mark = len({(" " if m in _SPACES else m) for m in marks}) == 1
    if one_mark and marks[0] in _GROUP and all(len(g) == 3 for g in groups[1:]):
        out.add(str(int("".join(groups))))
    last = marks[-1]
    if last in _DECIMAL:
        before = marks[:-1]
        if not before or (
            len({(" " if m in _SPACES else m) for m in before}) == 1
            and before[0] != last
            and before[0] in _GROUP
            and all(len(g) == 3 for g in groups[1:-1])
        ):
            out.add(f"{int(''.join(groups[:-1]))}.{groups[-1]}")
    return frozenset(out)


def _masked(line: str) -> str:
    """The line with its placeholders, tags, entities, URLs and addresses blanked out (same length): their digits
    are theirs (``{0}``, ``&#169;``, ``/v2/``), kept or lost by their own checks, not numbers of the text."""
    if not any(c in line for c in "{%$<&@") and "://" not in line and "www." not in line.lower():
        return line
    chars = list(line)
    for pattern in (_PLACEHOLDER, _TAG, _ENTITY, _URL):
        for m in pattern.finditer(line):
            chars[m.start() : m.end()] = " " * (m.end() - m.start())
    return "".join(chars)


def numbers(line: str) -> list[tuple[int, int, frozenset[str]]]:
    """The numbers of a line (outside its placeholders, tags, entities and URLs): ``(start, end, readings)``; a
    token with no reading counts as its digit groups (:func:`check_numbers`)."""
    out: list[tuple[int, int, frozenset[str]]] = []
    if not _ANY_DIGIT.search(line):
        return out
    for m in _NUMBER.finditer(_masked(line)):
        read = readings(m.group())
        if read:
            out.append((m.start(), m.end(), read))
        else:
            for g in re.finditer(r"\d+", m.group()):
                out.append((m.start() + g.start(), m.start() + g.end(), readings(g.group())))
    return out


def check_numbers(source: str, output: str, src_numbers=None) -> list[Span]:
    """Every number of the source is in the output, in any way the output may write it (``2.5`` as ``2,5``,
    ``1,000`` as ``1.000`` or ``1 000``, Arabic-Indic or full-width digits); a number the source writes with spaces
    (``5 100``) is kept as well when each of its parts is. Numbers the output adds are not failures. Spelled-out
    numbers (``two``, ``二``) are not read: a source digit written out in words fails (docs/checks.md)."""
    found = numbers(source) if src_numbers is None else src_numbers
    if not found:
        return []
    pool = Counter(r for _, _, read in numbers(output) for r in read)
    missing = []
    for start, end, read in found:
        hit = next((r for r in sorted(read) if pool[r] > 0), None)
        if hit is not None:
            pool[hit] -= 1
            continue
        parts = [readings(g) for g in re.findall(r"\d+", _digits(source[start:end]))]
        if len(parts) > 1 and any(c in _SPACES for c in source[start:end]):
            got = [next((r for r in p if pool[r] > 0), None) for p in parts]
            if all(g is not None for g in got):
                for g in got:
                    pool[g] -= 1
                continue
        missing.append(Span(None, None, SEVERITY, NUMBER_CATEGORY, source[start:end]))
    return missing


def _placed_difference(src_items: list[str], out_items: list[tuple[int, int, str]], category: str) -> list[Span]:
    """Spans for a multiset difference: the source's items the output lacks (omissions) and the output's items the
    source lacks (placed)."""
    want = Counter(src_items)
    spans = []
    for start, end, text in out_items:
        if want[text] > 0:
            want[text] -= 1
        else:
            spans.append(Span(start, end, SEVERITY, category, text))
    spans += [Span(None, None, SEVERITY, category, text) for text, n in want.items() for _ in range(n)]
    return spans


def placeholders(source: str) -> list[str]:
    """A line's placeholders (what :func:`check_placeholders` compares)."""
    return _PLACEHOLDER.findall(source) if ("{" in source or "%" in source) else []


def check_placeholders(source: str, output: str, src: list[str] | None = None) -> list[Span]:
    """The output has the same placeholders as the source, as a multiset (order may change; a placeholder lost,
    added or altered fails). ``src``: the source's, found once for every system (:func:`placeholders`)."""
    src = placeholders(source) if src is None else src
    if not src and "{" not in output and "%" not in output:
        return []
    out = [(m.start(), m.end(), m.group()) for m in _PLACEHOLDER.finditer(output)]
    if not src and not out:
        return []
    return _placed_difference(src, out, MARKUP_CATEGORY)


def _tags(line: str) -> list[tuple[int, int, str]]:
    """A line's tags as ``<name>``, ``</name>`` or ``<name/>`` (attributes left out: a translator may translate an
    ``alt`` or a ``title``) and its character entities."""
    out = [(m.start(), m.end(), f"<{m.group(1)}{m.group(2).lower()}{m.group(3)}>") for m in _TAG.finditer(line)]
    out += [(m.start(), m.end(), m.group()) for m in _ENTITY.finditer(line)]
    return sorted(out)


def tags(source: str) -> list[tuple[int, int, str]]:
    """A line's tags and entities (what :func:`check_markup` compares)."""
    return _tags(source) if ("<" in source or "&" in source) else []


def check_markup(source: str, output: str, src: list | None = None) -> list[Span]:
    """The output keeps the source's tags (by name and kind) and character entities, and its tags are balanced
    wherever the source's are (every closing tag closes the last one opened). ``src``: the source's (:func:`tags`)."""
    src = tags(source) if src is None else src
    if not src and "<" not in output and "&" not in output:
        return []
    out = _tags(output)
    if not src and not out:
        return []
    spans = _placed_difference([t for _, _, t in src], out, MARKUP_CATEGORY)
    if not spans and _balanced(src) and not _balanced(out):
        spans = [Span(0, len(output), SEVERITY, MARKUP_CATEGORY, "tags out of order")]
    return spans


def _balanced(tags) -> bool:
    stack: list[str] = []
    for _, _, t in tags:
        if t.startswith("</"):
            if not stack or stack.pop() != t[2:-1]:
                return False
        elif t.startswith("<") and not t.endswith("/>"):
            stack.append(t[1:-1])
    return not stack


def _urls(line: str) -> list[tuple[int, int, str]]:
    low = line.lower()
    if "://" not in low and "www." not in low and "@" not in low:
        return []
    out = []
    for m in _URL.finditer(line):
        text = m.group().rstrip(_URL_TAIL)
        out.append((m.start(), m.start() + len(text), text))
    return out


def urls(source: str) -> list[str]:
    """A line's URLs and e-mail addresses (what :func:`check_urls` looks for)."""
    return [text for _, _, text in _urls(source)]


def check_urls(source: str, output: str, src: list[str] | None = None) -> list[Span]:
    """Every URL and e-mail address of the source is in the output verbatim (a translated, re-cased or cut address
    fails; one the output adds does not). ``src``: the source's (:func:`urls`)."""
    spans = []
    for text in urls(source) if src is None else src:
        if text not in output:
            spans.append(Span(None, None, SEVERITY, URL_CATEGORY, text))
    return spans

"""One marked stretch of a line, whoever marked it: a human rater (MQM, ESA), a model (xCOMET) or an LLM judge
(GEMBA-MQM). One class and one rule for placing quoted text, so that every reader, the judges, the analyses and the
faces speak of the same thing (issue 59).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: how far before a model's own offset its quoted text is looked for first (xCOMET's offsets drift by a token or
#: a leading space: COMET issue #179)
NEAR = 20


@dataclass(frozen=True, slots=True)
class Span:
    """A marked error: ``[start, end)`` character offsets into the rated line (the translation, or the source where
    the reader says so); ``start`` and ``end`` None for an error without a place (an omission, a row whose tags could
    not be read, a judge's quote not found in the line).

    Attributes:
        severity: as its source writes it (``major``, ``Minor``, ``critical``...).
        category: the error's category where its source names one (``Fluency/Grammar``), else empty.
        text: the text it covers (or quotes, when it has no place), else empty.
        confidence: a model's confidence (xCOMET); NaN for a human's or a judge's.
        by: who marked it (a rater's id); empty where the source is the whole file (a model, a judge).
        comment: a rater's comment.
        row: the row of the file it was read from (0 where it was not read from rows).
    """

    start: int | None
    end: int | None
    severity: str
    category: str = ""
    text: str = ""
    confidence: float = math.nan
    by: str = ""
    comment: str = ""
    row: int = 0

    @property
    def omission(self) -> bool:
        """Whether the span has no place in the line."""
        return self.start is None


def place_quote(text: str, line: str, near: int | None = None, taken: set[int] | None = None) -> int | None:
    """Where quoted ``text`` starts in ``line``, the one rule for every source that quotes (a model's span with its
    own offset ``near``, a judge's error that quotes without offsets); None when the text is not in the line.

    With ``near`` (where a model said it is, and it was not there): its first occurrence from :data:`NEAR`
    characters before ``near``, else its first anywhere. Without: its first occurrence (of the non-overlapping ones) not in ``taken``, else its
    first; the start chosen is added to ``taken`` (two errors of one answer that quote the same word mark its two
    occurrences).

    >>> place_quote("cat", "cat " * 10, near=33)  # occurrences at 0, 4, ..., 36: the first from 13
    16
    >>> place_quote("cat", "a cat", near=30)
    2
    >>> taken = set()
    >>> [place_quote("cat", "a cat and a cat", taken=taken) for _ in range(3)]
    [2, 12, 2]
    >>> place_quote("dog", "the cat") is None
    True
    """
    if not text:
        return None
    if near is not None:
        found = line.find(text, max(0, near - NEAR))
        if found < 0:
            found = line.find(text)
        return found if found >= 0 else None
    starts = [m.start() for m in re.finditer(re.escape(text), line)]
    if not starts:
        return None
    start = next((s for s in starts if taken is None or s not in taken), starts[0])
    if taken is not None:
        taken.add(start)
    return start

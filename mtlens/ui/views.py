"""Small helpers several screens share: a metric's decimals in tables and hover labels, a widget key made safe
from any text, and the "(any)" choice of a filter. Each screen owns its own view code (``mtlens/ui/screens/``);
documents and annotations, which two screens share, are :mod:`mtlens.ui.documents` and :mod:`mtlens.ui.annotated`.
"""

from __future__ import annotations

ANY = "(any)"


def safe_key(text: str) -> str:
    """A widget or container key made of letters, digits, ``-`` and ``_`` only (for a CSS class)."""
    import hashlib

    clean = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in text)[:40]
    return f"{clean}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"


def hover_format(metric: str, values=()) -> str:
    """The d3 format of a metric's numbers in a chart's hover (:func:`mtlens.exports.numbers.hover_format`)."""
    from ..exports.numbers import hover_format as rule

    return rule(metric, values)


def metric_decimals(metric: str, values=()) -> int:
    """The decimals of a metric's scores in every table (:func:`mtlens.exports.numbers.decimals`)."""
    from ..exports.numbers import decimals

    return decimals(metric, values)

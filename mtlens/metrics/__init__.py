"""Metric registry: the names used on the command line, in JSON and in exports."""

from __future__ import annotations

from .base import Metric, Signature
from .bleu import BLEU, CharBLEU, bleu_from_totals
from .chrf import CHRF, chrf_from_totals

#: metric names in the order they are shown
METRIC_NAMES: tuple[str, ...] = ("bleu", "bleu-c", "chrf", "chrf++")


def make_metric(
    name: str,
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    max_ngram_order: int = 4,
    char_order: int = 18,
    char_keep_spaces: bool = False,
) -> Metric:
    """Build a metric from its name and the command line's options.

    Options that do not apply to a metric are ignored (``tokenize`` is only for
    word BLEU, ``char_order`` only for character BLEU; chrF keeps sacrebleu's
    defaults except for ``lowercase``).

    Raises:
        ValueError: unknown name or invalid option values.
    """
    if name == "bleu":
        return BLEU(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order)
    if name == "bleu-c":
        return CharBLEU(char_order, char_keep_spaces, lowercase, smooth_method, smooth_value)
    if name == "chrf":
        return CHRF(lowercase=lowercase)
    if name == "chrf++":
        return CHRF(word_order=2, lowercase=lowercase)
    raise ValueError(f"unknown metric {name!r}; choose from {', '.join(METRIC_NAMES)}")


__all__ = [
    "BLEU",
    "CHRF",
    "METRIC_NAMES",
    "CharBLEU",
    "Metric",
    "Signature",
    "bleu_from_totals",
    "chrf_from_totals",
    "make_metric",
]

"""Metric registry: the names used on the command line, in JSON and in exports."""

from __future__ import annotations

from .base import Metric, Signature
from .bleu import BLEU, CharBLEU, bleu_from_totals
from .chrf import CHRF, chrf_from_totals
from .nist import NIST
from .tbleu import TBLEU
from .ter import TER

#: metric names in the order they are shown
METRIC_NAMES: tuple[str, ...] = ("bleu", "bleu-c", "chrf", "chrf++", "ter", "nist", "tbleu")


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
    ter_normalized: bool = False,
    ter_no_punct: bool = False,
    ter_asian_support: bool = False,
    ter_case_sensitive: bool = False,
    nist_case_sensitive: bool = False,
    tbleu_epsilon: float = 0.05,
) -> Metric:
    """Build a metric from its name and the command line's options.

    Options that do not apply to a metric are ignored (``tokenize`` is only for
    word BLEU, ``char_order`` only for character BLEU; chrF keeps sacrebleu's
    defaults except for ``lowercase``; TER has its own ``ter_*`` options and is
    lowercased unless ``ter_case_sensitive``, as in sacrebleu).

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
    if name == "ter":
        return TER(ter_normalized, ter_no_punct, ter_asian_support, ter_case_sensitive)
    if name == "nist":
        return NIST(lowercase=not nist_case_sensitive)
    if name == "tbleu":
        return TBLEU(tbleu_epsilon, tokenize, lowercase, smooth_method, smooth_value, max_ngram_order)
    raise ValueError(f"unknown metric {name!r}; choose from {', '.join(METRIC_NAMES)}")


__all__ = [
    "BLEU",
    "CHRF",
    "METRIC_NAMES",
    "NIST",
    "TER",
    "CharBLEU",
    "Metric",
    "Signature",
    "bleu_from_totals",
    "chrf_from_totals",
    "make_metric",
]

"""Metric registry: the names used on the command line, in JSON and in exports."""

from __future__ import annotations

from ..errors import InputError
from ..options import DEFAULTS, Options
from .base import Metric, Signature
from .bleu import BLEU, CharBLEU, bleu_from_totals
from .chrf import CHRF, chrf_from_totals
from .nist import NIST
from .tbleu import TBLEU
from .ter import TER

#: metric names in the order they are shown
METRIC_NAMES: tuple[str, ...] = ("bleu", "bleu-c", "chrf", "chrf++", "ter", "nist", "tbleu")
#: metrics with a meaningful score per line (NIST's information weights are corpus-wide only)
SENTENCE_METRICS: tuple[str, ...] = ("bleu", "chrf", "chrf++", "bleu-c", "ter", "tbleu")


def make_metric(name: str, options: Options | None = None, **changes) -> Metric:
    """Build a metric from its name and the options (:class:`mtlens.options.Options`).

    ``changes`` are applied on top of ``options`` (or of the defaults), e.g.
    ``make_metric("bleu", tokenize="zh")``. Options that do not apply to a metric
    are ignored by it (see :data:`mtlens.options.SPECS` for which metric each changes).

    Raises:
        InputError: unknown name, unknown option, or an option out of its bounds.
    """
    o = options or DEFAULTS
    if changes:
        o = Options.from_mapping({**o.as_dict(), **changes})
    metric = _build(name, o)
    metric.spec = (name, o.as_dict())  # rebuilds it in a helper process (mtlens.parallel)
    return metric


def _build(name: str, o: Options) -> Metric:
    sv = o.smooth_value
    if name == "bleu":
        return BLEU(o.tokenize, o.lowercase, o.smooth_method, sv, o.max_ngram_order)
    if name == "bleu-c":
        return CharBLEU(o.char_order, o.char_keep_spaces, o.lowercase, o.smooth_method, sv)
    if name == "chrf":
        return CHRF(lowercase=o.lowercase, eps_smoothing=o.chrf_eps_smoothing)
    if name == "chrf++":
        return CHRF(word_order=2, lowercase=o.lowercase, eps_smoothing=o.chrf_eps_smoothing)
    if name == "ter":
        return TER(o.ter_normalized, o.ter_no_punct, o.ter_asian_support, o.ter_case_sensitive, o.ter_single_pass)
    if name == "nist":
        return NIST(lowercase=not o.nist_case_sensitive, tokenize=o.tokenize)
    if name == "tbleu":
        return TBLEU(o.tbleu_epsilon, o.tokenize, o.lowercase, o.smooth_method, sv, o.max_ngram_order)
    raise InputError(f"unknown metric {name!r}; choose from {', '.join(METRIC_NAMES)}")


__all__ = [
    "BLEU",
    "CHRF",
    "METRIC_NAMES",
    "NIST",
    "SENTENCE_METRICS",
    "TER",
    "CharBLEU",
    "Metric",
    "Signature",
    "bleu_from_totals",
    "chrf_from_totals",
    "make_metric",
]

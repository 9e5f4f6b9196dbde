"""Cached computations of Compare two systems (one decorator, :func:`mtlens.ui.cache.cache`): the n-grams each of
two systems gets right, what the test set can detect between them, their buckets and slices. Keys as in
:mod:`mtlens.ui.cached`: the fingerprints of everything a result depends on."""

from __future__ import annotations

from ..core.options import DEFAULTS, Options
from ..service.results import options_key
from .cache import cache, text_fingerprint
from .cached import metric_result
from .state import Dataset


@cache(
    lambda ds, a, b, opts: (ds.fingerprint, a, b, opts.tokenize, opts.lowercase),
    spinner="Counting the n-grams each system gets right…",
)
def ngram_differences(dataset: Dataset, a: str, b: str, opts: Options):
    from ..analysis.pairwise import ngram_differences as compute

    return compute(dataset.corpus, a, b, DEFAULTS.replace(tokenize=opts.tokenize, lowercase=opts.lowercase))


@cache(
    lambda ds, metric, a, b, opts: (ds.fingerprint, ds.scores_fingerprint, metric, options_key(metric, opts), a, b),
    max_entries=32,
    spinner="What this test set can detect for the two systems…",
)
def pair_power(dataset: Dataset, metric: str, a: str, b: str, opts: Options) -> float:
    """The smallest difference the paired bootstrap detects between ``a`` and ``b`` (computed once per pair: it
    was computed again on every rerun of Compare two systems, issue 51)."""
    from ..analysis.policy import SEED
    from ..analysis.significance import pair_power as compute

    return compute(metric_result(dataset, metric, opts), a, b, seed=SEED)


def _buckets_key(dataset: Dataset, kind: str, metric: str, a: str, b: str, opts: Options, frequency=None) -> tuple:
    if kind == "length":  # the metric's options, and the BLEU tokenizer the lengths are counted with
        base = options_key(metric, opts)
        key = base if "tokenize" in dict(base) else (*base, ("tokenize", opts.tokenize))
    else:
        key = (("tokenize", opts.tokenize), ("lowercase", opts.lowercase))
    freq_fp = dataset.scores_fingerprint + "|" + (text_fingerprint(frequency[0]) + frequency[1] if frequency else "")
    return (dataset.fingerprint, kind, metric, key, a, b, freq_fp)


@cache(_buckets_key, max_entries=32, spinner="Buckets and their bootstrap tests…")
def buckets(dataset: Dataset, kind: str, metric: str, a: str, b: str, opts: Options, frequency=None):
    """Length or frequency buckets; ``frequency`` is ``(lines, file name)`` of a frequency corpus or None."""
    from ..analysis.pairwise import frequency_buckets, length_buckets

    if kind == "length":
        return length_buckets(dataset.corpus, metric_result(dataset, metric, opts), a, b, opts)
    lines, source = frequency if frequency is not None else (None, "")
    return frequency_buckets(dataset.corpus, a, b, opts, lines, source)


@cache(
    lambda ds, metric, a, b, opts, resample="segments": (
        ds.fingerprint,
        ds.scores_fingerprint,
        hash(ds.corpus.documents),
        hash(ds.corpus.domains),
        metric,
        options_key(metric, opts),
        a,
        b,
        resample,
    ),
    spinner="Slices: scores and tests…",
)
def slices(dataset: Dataset, metric: str, a: str, b: str, opts: Options, resample: str = "segments") -> dict:
    """The slices of two systems (cached by data, documents, metric options, the pair and the resampling)."""
    from ..analysis.slices import slices as compute

    return compute(dataset.corpus, metric_result(dataset, metric, opts), a, b, resample=resample)

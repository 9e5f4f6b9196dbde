"""Cached scoring for the pages: per-segment statistics are computed once per dataset and options."""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from ..metrics import METRIC_NAMES, make_metric
from ..scoring import MetricResult, score_metric
from .state import Dataset


def metric_options(name: str, opts: dict) -> tuple:
    """The options that matter for one metric, as a hashable key (others do not invalidate its cache)."""
    lc = ("lowercase", bool(opts.get("lowercase")))
    if name == "bleu":
        return (lc, ("tokenize", opts.get("tokenize", "13a")), ("smooth_method", opts.get("smooth_method", "exp")))
    if name == "bleu-c":
        return (
            lc,
            ("char_order", int(opts.get("char_order", 18))),
            ("char_keep_spaces", bool(opts.get("char_keep_spaces"))),
            ("smooth_method", opts.get("smooth_method", "exp")),
        )
    if name == "tbleu":
        return (
            lc,
            ("tokenize", opts.get("tokenize", "13a")),
            ("smooth_method", opts.get("smooth_method", "exp")),
            ("tbleu_epsilon", float(opts.get("tbleu_epsilon", 0.05))),
        )
    if name == "ter":
        return tuple(
            (k, bool(opts.get(k)))
            for k in ("ter_normalized", "ter_no_punct", "ter_asian_support", "ter_case_sensitive")
        )
    if name == "nist":
        return ()
    return (lc,)


@st.cache_resource(max_entries=64, show_spinner=False)
def _metric_result(fingerprint: str, name: str, key: tuple, _dataset: Dataset) -> MetricResult:
    metric = make_metric(name, **dict(key))
    return score_metric(_dataset.corpus, metric)


def metric_result(dataset: Dataset, name: str, opts: dict) -> MetricResult:
    """One metric's results for the dataset (cached by content fingerprint and options)."""
    return _metric_result(dataset.fingerprint, name, metric_options(name, opts), dataset)


def all_results(dataset: Dataset, opts: dict, metrics=METRIC_NAMES) -> dict[str, MetricResult]:
    """Every metric, with a progress bar while anything is computed."""
    out = {}
    bar = None
    for i, name in enumerate(metrics):
        if bar is None and len(metrics) > 1:
            bar = st.progress(0.0, text="Scoring…")
        if bar is not None:
            bar.progress(i / len(metrics), text=f"Scoring {name}…")
        out[name] = metric_result(dataset, name, opts)
    if bar is not None:
        bar.empty()
    return out


class _BoundedCache:
    """A small process-wide LRU keyed by content fingerprints (thread-safe).

    Used where the computation reports progress through Streamlit elements,
    which ``st.cache_*`` cannot replay. Keys contain the data's fingerprint, so a
    session only ever gets results computed from the very data it uploaded.
    """

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key, fn):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = fn()
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._data.clear()


COMPARISONS = _BoundedCache(64)


def comparison(
    dataset: Dataset,
    name: str,
    opts: dict,
    test: str = "bootstrap",
    n: int = 1000,
    seed: int = 12345,
    baseline: str | None = None,
    alpha: float = 0.05,
    progress=None,
):
    """Significance tests of one metric (cached by data, options and test settings)."""
    from ..significance import compare

    key = (dataset.fingerprint, name, metric_options(name, opts), test, int(n), int(seed), baseline, float(alpha))
    result = metric_result(dataset, name, opts)
    return COMPARISONS.get_or_compute(
        key,
        lambda: compare(
            result, test=test, n=int(n), seed=int(seed), baseline=baseline, alpha=float(alpha), progress=progress
        ),
    )


@st.cache_resource(max_entries=16, show_spinner=False)
def _human(fingerprint: str, names: tuple, _dataset: Dataset):
    from ..analysis import HumanScores, read_human

    system, segment, ignored, notes = {}, {}, set(), []
    for name, data in _dataset.human:
        h = read_human(data, name, _dataset.corpus)
        for k, v in h.system.items():
            system.setdefault(k, {}).update(v)
        for k, v in h.segment.items():
            segment.setdefault(k, {}).update(v)
        ignored.update(h.ignored)
        notes += list(h.notes)
    return HumanScores(system, segment, tuple(sorted(ignored)), tuple(dict.fromkeys(notes)))


def human(dataset: Dataset):
    """The dataset's human scores (all uploaded files merged), or None."""
    if not dataset.human:
        return None
    return _human(dataset.fingerprint, tuple(n for n, _ in dataset.human), dataset)


@st.cache_resource(max_entries=16, show_spinner=False)
def _wvc(fingerprint: str, n: int, orders: tuple, m: int, tokenize: str, lowercase: bool, _dataset: Dataset):
    from ..analysis import words_vs_chars

    return words_vs_chars(_dataset.corpus, n, orders, m, tokenize=tokenize, lowercase=lowercase)


def words_vs_chars(dataset: Dataset, n: int, orders: tuple, m: int, opts: dict):
    return _wvc(dataset.fingerprint, int(n), tuple(orders), int(m), opts["tokenize"], bool(opts["lowercase"]), dataset)


@st.cache_resource(max_entries=8, show_spinner=False)
def _sweep(fingerprint: str, tokenize: str, lowercase: bool, _dataset: Dataset, _human):
    from ..analysis import tbleu_sweep

    return tbleu_sweep(_dataset.corpus, human=_human, tokenize=tokenize, lowercase=lowercase)


def tbleu_sweep(dataset: Dataset, opts: dict):
    return _sweep(dataset.fingerprint, opts["tokenize"], bool(opts["lowercase"]), dataset, human(dataset))


@st.cache_resource(max_entries=16, show_spinner=False)
def _ngram_diff(fingerprint: str, a: str, b: str, tokenize: str, lowercase: bool, _dataset: Dataset):
    from ..analysis import ngram_differences

    return ngram_differences(_dataset.corpus, a, b, tokenize=tokenize, lowercase=lowercase)


def ngram_differences(dataset: Dataset, a: str, b: str, opts: dict):
    return _ngram_diff(dataset.fingerprint, a, b, opts["tokenize"], bool(opts["lowercase"]), dataset)


@st.cache_resource(max_entries=32, show_spinner=False)
def _buckets(fingerprint: str, kind: str, metric: str, key: tuple, a: str, b: str, _dataset: Dataset, _opts: dict):
    from ..analysis import frequency_buckets, length_buckets

    if kind == "length":
        return length_buckets(_dataset.corpus, metric_result(_dataset, metric, _opts), a, b)
    return frequency_buckets(_dataset.corpus, a, b, tokenize=_opts["tokenize"], lowercase=bool(_opts["lowercase"]))


def buckets(dataset: Dataset, kind: str, metric: str, a: str, b: str, opts: dict):
    key = (
        metric_options(metric, opts)
        if kind == "length"
        else (("tokenize", opts["tokenize"]), ("lc", opts["lowercase"]))
    )
    return _buckets(dataset.fingerprint, kind, metric, key, a, b, dataset, dict(opts))


@st.cache_resource(max_entries=16, show_spinner=False)
def _human_corr(fingerprint: str, key: tuple, _results, _human):
    from ..analysis import human_correlation

    return human_correlation(_results, _human, n_boot=1000)


def human_corr(dataset: Dataset, opts: dict, results):
    key = tuple((m, metric_options(m, opts)) for m in results)
    return _human_corr(dataset.fingerprint, key, results, human(dataset))

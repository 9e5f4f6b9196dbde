"""Cached scoring for the pages: per-segment statistics are computed once per dataset and options."""

from __future__ import annotations

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

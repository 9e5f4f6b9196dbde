"""Cached computations for the pages.

Every computation here that can take a second or more shows a spinner with what it does while it runs
(``show_spinner``: only on a cache miss); the scoring of several metrics shows a progress bar.

Every cache key holds the fingerprint of everything the result depends on: the
texts (``Dataset.fingerprint``), the human files (``Dataset.human_fingerprint``)
where they are used, and the options that change the result (``Options.key``),
so a corrected file or a changed option never shows an old result, and two
sessions share a result only when all of its inputs are identical.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import streamlit as st

from ..core.options import DEFAULTS, Options
from ..service import comparisons, rankings
from ..service.comparisons import CI_RESAMPLES
from ..service.evaluation import kept_options
from ..service.results import REGISTRY, MetricResult, options_key, score_set
from . import identity, state
from .state import Dataset


def _options_from_key(key: tuple) -> Options:
    return DEFAULTS.replace(**dict(key))


@st.cache_resource(max_entries=64, show_spinner="Scoring…")
def _metric_result(fingerprint: str, set_id: str | None, name: str, key: tuple, _dataset: Dataset) -> MetricResult:
    done = _TOGETHER.pop((fingerprint, set_id, name, key), None)  # scored with others (metric_results)
    if done is None:
        done = _score(_dataset, [name], _options_from_key(key))[0]
    _KNOWN.add((fingerprint, set_id, name, key))
    return done


#: keys of _metric_result computed in this process; results scored together, waiting for _metric_result
_KNOWN: set[tuple] = set()
_TOGETHER: dict[tuple, MetricResult] = {}


def _score(dataset: Dataset, names: list[str], opts: Options) -> list[MetricResult]:
    store = state.store()
    keep_only = kept_options(store, dataset.set_id, dataset.language, identity.visitor())
    return score_set(store, dataset.set_id, dataset.corpus, names, opts, keep_only)


@st.cache_resource(max_entries=16, show_spinner="Reading imported scores…")
def _imported(fingerprint: str, scores_fingerprint: str, _dataset: Dataset) -> dict:
    from ..service.evaluation import file_metrics
    from ..service.results import result_for

    metrics = file_metrics(state.store(), _dataset.evaluation(), _dataset.neural)
    return {s.name: (s, result_for(_dataset.corpus, s)) for s in metrics}


def imported(dataset: Dataset) -> dict:
    """Metrics read from files (imported scores, the annotations' MQM) and computed by neural jobs:
    name -> (ImportedScores, MetricResult)."""
    if not dataset.scores and not dataset.annotations and not dataset.neural:
        return {}
    return _imported(dataset.fingerprint, dataset.scores_fingerprint, dataset)


@st.cache_resource(max_entries=16, show_spinner="Looking for empty, copied and wrong-language outputs…")
def _pitfalls(fingerprint: str, _dataset: Dataset):
    from ..service.results import corpus_pitfalls

    return corpus_pitfalls(_dataset.corpus)


def pitfalls(dataset: Dataset, names):
    """The COMET pitfalls of the set's systems when a neural metric is among ``names``, else None."""
    from ..service.results import neural_names

    return _pitfalls(dataset.fingerprint, dataset) if neural_names(names) else None


@st.cache_resource(max_entries=16, show_spinner="Reading the annotations…")
def _annotations(fingerprint: str, scores_fingerprint: str, _dataset: Dataset) -> list:
    from ..service.inputs import read_annotations

    return [read_annotations(data, name, _dataset.corpus) for name, data in _dataset.annotations]


def annotations(dataset: Dataset) -> list:
    """The dataset's human error annotations (:class:`mtlens.readers.mqm.Annotations`, one per file)."""
    if not dataset.annotations:
        return []
    return _annotations(dataset.fingerprint, dataset.scores_fingerprint, dataset)


def metric_names(dataset: Dataset, sentence: bool = False) -> list[str]:
    """The built-in metrics (those with sentence scores when ``sentence``; none without a reference) and
    the dataset's metrics read from files."""
    from ..service.results import metric_names as names
    from ..service.results import sentence_metrics

    builtin = (sentence_metrics() if sentence else names()) if dataset.corpus.references else ()
    return [*builtin, *imported(dataset)]


def metric_result(dataset: Dataset, name: str, opts: Options) -> MetricResult:
    """One metric's results for the dataset (cached by content fingerprint and that metric's options);
    imported metrics come from their files."""
    if name not in REGISTRY:
        return imported(dataset)[name][1]
    return _metric_result(dataset.fingerprint, dataset.set_id, name, options_key(name, opts), dataset)


#: how many metrics a page computes first, together (the Rankings table's first columns): the cheapest
#: fast ones, BLEU and chrF by default (sacrebleu's two default metrics, the numbers people read first)
FIRST_COLUMNS = 2


def fast_metrics(names) -> list[str]:
    """``names`` without the slow ones (:func:`mtlens.service.rankings.fast`)."""
    return rankings.fast(names)


def metric_groups(names) -> list[list[str]]:
    """The metrics in the order a page computes them: the :data:`FIRST_COLUMNS` cheapest fast ones
    (each metric's measured cost per character; page order among equals) together, then all the
    others together (both cores busy on one job)."""
    fast = fast_metrics(names)
    cheapest = sorted(fast, key=lambda m: REGISTRY[m].cost_per_char if m in REGISTRY else 0.0)[:FIRST_COLUMNS]
    first = [m for m in fast if m in cheapest]
    return [g for g in (first, [n for n in names if n not in first]) if g]


def metric_results(dataset: Dataset, names, opts: Options) -> dict[str, MetricResult]:
    """Several metrics' results (imported ones too): those this process has not scored yet are scored
    together, in one engine run (both cores busy, one set of worker processes), then each is kept in
    :func:`metric_result`'s cache."""
    keys = {n: (dataset.fingerprint, dataset.set_id, n, options_key(n, opts)) for n in names if n in REGISTRY}
    todo = [n for n, k in keys.items() if k not in _KNOWN]
    if len(todo) > 1:
        with st.spinner(f"Scoring {', '.join(todo)}…"):
            for n, result in zip(todo, _score(dataset, todo, opts), strict=True):
                _TOGETHER[keys[n]] = result
    return {n: metric_result(dataset, n, opts) for n in names}


def all_results(dataset: Dataset, opts: Options, metrics=None) -> dict[str, MetricResult]:
    """Every metric (the imported ones too), with a progress bar while anything is computed."""
    metrics = metric_names(dataset) if metrics is None else metrics
    out = {}
    bar = None
    for group in metric_groups(metrics):
        if bar is None and len(metrics) > 1:
            bar = st.progress(0.0, text="Scoring…")
        if bar is not None:
            bar.progress(len(out) / len(metrics), text=f"Scoring {', '.join(group)}…")
        out.update(metric_results(dataset, group, opts))
    if bar is not None:
        bar.empty()
    return {m: out[m] for m in metrics}


class _BoundedCache:
    """A small process-wide LRU keyed by content fingerprints (thread-safe).

    Used where the computation reports progress through Streamlit elements,
    which ``st.cache_*`` cannot replay.
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


def clear() -> None:
    """Forget every cached result of this process (tests and benchmarks start from nothing)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    COMPARISONS.clear()
    _KNOWN.clear()
    _TOGETHER.clear()


def comparison(
    dataset: Dataset,
    name: str,
    opts: Options,
    test: str = rankings.TEST,
    n: int | None = rankings.RESAMPLES,
    seed: int = comparisons.SEED,
    baseline: str | None = None,
    alpha: float = comparisons.ALPHA,
    progress=None,
    resample: str = "segments",
):
    """Significance tests of one metric (cached by data, options and test settings); by default the
    Rankings' test (:mod:`mtlens.service.rankings`). ``resample="documents"``: whole documents."""
    from ..service.comparisons import compare

    documents = dataset.corpus.documents if resample == "documents" else None
    key = (
        dataset.fingerprint,
        dataset.scores_fingerprint,
        name,
        options_key(name, opts),
        test,
        None if n is None else int(n),
        int(seed),
        baseline,
        float(alpha),
        None if documents is None else hash(documents),
    )
    result = metric_result(dataset, name, opts)
    return COMPARISONS.get_or_compute(
        key,
        lambda: compare(
            result,
            test=test,
            n=None if n is None else int(n),
            seed=int(seed),
            baseline=baseline,
            alpha=float(alpha),
            progress=progress,
            documents=documents,
        ),
    )


def can_test(dataset: Dataset) -> bool:
    """Whether significance tests can run: two systems or more, and enough lines."""
    return rankings.can_test(len(dataset.corpus.systems), dataset.corpus.n_lines)


def too_few_lines(dataset: Dataset) -> str:
    return rankings.too_few_lines(dataset.corpus.n_lines)


@st.cache_resource(max_entries=16, show_spinner="Reading the human scores…")
def _human(fingerprint: str, human_fingerprint: str, scores_fingerprint: str, _dataset: Dataset):
    from ..service.analyses import as_human_scores, merge, read_human_files

    parts = [read_human_files(list(_dataset.human), _dataset.corpus)] if _dataset.human else []
    if _dataset.annotations:  # MQM from the annotations is a human score like the uploaded ones
        parts.append(as_human_scores(annotations(_dataset), _dataset.corpus))
    return merge(parts)


def human(dataset: Dataset):
    """The dataset's human scores (all uploaded files and the annotations' MQM merged), or None."""
    if not dataset.human and not dataset.annotations:
        return None
    return _human(dataset.fingerprint, dataset.human_fingerprint, dataset.scores_fingerprint, dataset)


@st.cache_resource(max_entries=16, show_spinner="Scoring every sentence at every order…")
def _wvc(fingerprint: str, n: int, orders: tuple, m: int, tokenize: str, lowercase: bool, _dataset: Dataset):
    from ..service.analyses import words_vs_chars

    return words_vs_chars(_dataset.corpus, n, orders, m, tokenize=tokenize, lowercase=lowercase)


def words_vs_chars(dataset: Dataset, n: int, orders: tuple, m: int, opts: Options):
    return _wvc(dataset.fingerprint, int(n), tuple(orders), int(m), opts.tokenize, opts.lowercase, dataset)


@st.cache_resource(max_entries=8, show_spinner="tBLEU for every epsilon…")
def _sweep(fingerprint: str, human_fingerprint: str, tokenize: str, lowercase: bool, _dataset: Dataset, _human):
    from ..service.analyses import tbleu_sweep

    return tbleu_sweep(_dataset.corpus, human=_human, tokenize=tokenize, lowercase=lowercase)


def tbleu_sweep(dataset: Dataset, opts: Options):
    return _sweep(
        dataset.fingerprint, dataset.human_fingerprint, opts.tokenize, opts.lowercase, dataset, human(dataset)
    )


@st.cache_resource(max_entries=16, show_spinner="Counting the n-grams each system gets right…")
def _ngram_diff(fingerprint: str, a: str, b: str, tokenize: str, lowercase: bool, _dataset: Dataset):
    from ..service.analyses import ngram_differences

    return ngram_differences(_dataset.corpus, a, b, DEFAULTS.replace(tokenize=tokenize, lowercase=lowercase))


def ngram_differences(dataset: Dataset, a: str, b: str, opts: Options):
    return _ngram_diff(dataset.fingerprint, a, b, opts.tokenize, opts.lowercase, dataset)


def text_fingerprint(lines) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:24]


@st.cache_resource(max_entries=32, show_spinner="Buckets and their bootstrap tests…")
def _buckets(
    fingerprint: str, kind: str, metric: str, key: tuple, a: str, b: str, freq_fp: str, _dataset: Dataset, _freq
):
    from ..service.analyses import frequency_buckets, length_buckets

    opts = _options_from_key(key)
    if kind == "length":
        return length_buckets(_dataset.corpus, metric_result(_dataset, metric, opts), a, b, opts)
    lines, source = _freq if _freq is not None else (None, "")
    return frequency_buckets(_dataset.corpus, a, b, opts, lines, source)


def buckets(dataset: Dataset, kind: str, metric: str, a: str, b: str, opts: Options, frequency=None):
    """Length or frequency buckets; ``frequency`` is ``(lines, file name)`` of a frequency corpus or None."""
    if kind == "length":  # the metric's options, and the BLEU tokenizer the lengths are counted with
        base = options_key(metric, opts)
        key = base if "tokenize" in dict(base) else (*base, ("tokenize", opts.tokenize))
    else:
        key = (("tokenize", opts.tokenize), ("lowercase", opts.lowercase))
    freq_fp = dataset.scores_fingerprint + "|" + (text_fingerprint(frequency[0]) + frequency[1] if frequency else "")
    return _buckets(dataset.fingerprint, kind, metric, key, a, b, freq_fp, dataset, frequency)


@st.cache_resource(max_entries=16, show_spinner="Correlations with bootstrap intervals…")
def _human_corr(fingerprint: str, human_fingerprint: str, key: tuple, _results, _human):
    from ..service.analyses import human_correlation

    return human_correlation(_results, _human, n_boot=CI_RESAMPLES)


def human_corr(dataset: Dataset, opts: Options, results):
    key = (dataset.scores_fingerprint, *((m, options_key(m, opts)) for m in results))
    return _human_corr(dataset.fingerprint, dataset.human_fingerprint, key, results, human(dataset))


@st.cache_resource(max_entries=8, show_spinner="Ranking the systems by the human scores…")
def _human_ranks(fingerprint: str, human_fingerprint: str, kind: str, _human):
    from ..service.analyses import human_ranking

    return human_ranking(_human.segment[kind])


def human_ranks(dataset: Dataset, kind: str):
    """WMT-style ranking of the systems by a segment-level human score."""
    return _human_ranks(dataset.fingerprint, dataset.human_fingerprint, kind, human(dataset))


@st.cache_resource(max_entries=8, show_spinner="Permutation tests between metrics…")
def _metric_clusters(fingerprint: str, human_fingerprint: str, key: tuple, level: str, _results, _human):
    from ..service.analyses import metric_clusters

    return metric_clusters(_results, _human, level)


def metric_clusters(dataset: Dataset, opts: Options, results, level: str):
    """Metrics clustered by PERM-BOTH tests of their correlation with one human score type."""
    key = (dataset.scores_fingerprint, *((m, options_key(m, opts)) for m in results))
    return _metric_clusters(dataset.fingerprint, dataset.human_fingerprint, key, level, results, human(dataset))


@st.cache_resource(max_entries=16, show_spinner="Runs over time: scores, intervals, step tests…")
def _history(key: tuple, _dataset: Dataset, family, metrics, baseline, _opts: Options, resample: str) -> dict:
    from ..service.runs import history, history_to_dict

    h = history(
        state.store(),
        _dataset.set_id,
        family,
        metrics,
        baseline,
        visitor=identity.visitor(),
        options=_opts,
        resample=resample,
    )
    return history_to_dict(h)


def history(
    dataset: Dataset,
    family: str | None,
    metrics: list[str],
    baseline: str | None,
    opts: Options,
    resample: str = "segments",
) -> dict:
    """A saved set's history (:func:`mtlens.service.runs.history`, as JSON), cached by its text, its runs,
    the family, metrics, baseline and options."""
    from ..service.runs import runs_key

    text = ",".join(metrics)
    key = (
        dataset.fingerprint,
        dataset.scores_fingerprint,
        dataset.set_id,
        runs_key(state.store(), dataset.set_id),
        family,
        text,
        baseline,
        tuple(options_key(m, opts) for m in metrics if m in REGISTRY),
        resample,
    )
    return _history(key, dataset, family, text, baseline, opts, resample)


@st.cache_resource(max_entries=16, show_spinner="Slices: scores and tests…")
def _slices(key: tuple, _dataset: Dataset, metric: str, a: str, b: str, _opts: Options, resample: str) -> dict:
    from ..service.analyses import slices

    return slices(_dataset.corpus, metric_result(_dataset, metric, _opts), a, b, resample=resample)


def slices(dataset: Dataset, metric: str, a: str, b: str, opts: Options, resample: str = "segments") -> dict:
    """The slices of two systems (cached by data, documents, metric options, the pair and the resampling)."""
    docs = (hash(dataset.corpus.documents), hash(dataset.corpus.domains))
    key = (dataset.fingerprint, dataset.scores_fingerprint, docs, metric, options_key(metric, opts), a, b, resample)
    return _slices(key, dataset, metric, a, b, opts, resample)

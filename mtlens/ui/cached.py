"""Cached computations for the pages (one decorator, :func:`mtlens.ui.cache.cache`).

Every computation here that can take a second or more shows a spinner with what it does while it runs
(``show_spinner``: only on a cache miss); the scoring of several metrics shows a progress bar.

Every cache key holds the fingerprint of everything the result depends on: the texts (``Dataset.fingerprint``), the
human files (``Dataset.human_fingerprint``) where they are used, and the options that change the result
(``Options.key``), so a corrected file or a changed option never shows an old result, and two sessions share a result
only when all of its inputs are identical.
"""

from __future__ import annotations

import streamlit as st

from ..analysis.policy import ALPHA, CI_RESAMPLES, SEED
from ..core.kept import BoundedCache
from ..core.options import Options
from ..service import comparisons, rankings
from ..service.evaluation import kept_options
from ..service.results import REGISTRY, MetricResult, options_key, score_set
from . import identity, state
from .cache import cache
from .cached_checks import check_names, checks
from .state import Dataset


def _result_key(dataset: Dataset, set_id: str | None, name: str, opts: Options) -> tuple:
    """The one key of a metric's results in this process: the text, the set, the metric and its options."""
    return (dataset.fingerprint, set_id, name, options_key(name, opts))


@cache(_result_key, 64, "Scoring…")
def _metric_result(dataset: Dataset, set_id: str | None, name: str, opts: Options) -> MetricResult:
    key = _result_key(dataset, set_id, name, opts)
    done = _TOGETHER.pop(key, None)  # scored with others (metric_results)
    if done is None:
        done = _score(dataset, [name], opts)[0]
    _KNOWN.add(key)
    return done


#: keys of _metric_result computed in this process; results scored together, waiting for _metric_result
_KNOWN: set[tuple] = set()
_TOGETHER: dict[tuple, MetricResult] = {}


def _score(dataset: Dataset, names: list[str], opts: Options) -> list[MetricResult]:
    store = state.store()
    keep_only = kept_options(store, dataset.set_id, dataset.language, identity.visitor())
    return score_set(store, dataset.set_id, dataset.corpus, names, opts, keep_only)


def imported(dataset: Dataset) -> dict:
    """Metrics read from files (imported scores, the annotations' MQM) and computed by neural jobs:
    name -> (ImportedScores, MetricResult)."""
    if not dataset.scores and not dataset.annotations and not dataset.neural:
        return {}
    return _imported(dataset)


@cache(lambda ds: (ds.fingerprint, ds.scores_fingerprint), spinner="Reading imported scores…")
def _imported(dataset: Dataset) -> dict:
    from ..service.evaluation import file_metrics
    from ..service.results import result_for

    metrics = file_metrics(state.store(), dataset.evaluation(), dataset.neural)
    return {s.name: (s, result_for(dataset.corpus, s)) for s in metrics}


def pitfalls(dataset: Dataset, names):
    """The COMET pitfalls of the set's systems when a neural metric is among ``names``, else None."""
    from ..analysis.pitfalls import neural_names

    return _pitfalls(dataset) if neural_names(names) else None


@cache(lambda ds: (ds.fingerprint,), spinner="Looking for empty, copied and wrong-language outputs…")
def _pitfalls(dataset: Dataset):
    from ..service.results import corpus_pitfalls

    return corpus_pitfalls(dataset.corpus)


def mqm_annotations(dataset: Dataset) -> list:
    """The dataset's human error annotations (:class:`mtlens.readers.mqm.Annotations`, one per file)."""
    if not dataset.annotations:
        return []
    return _annotations(dataset)


@cache(lambda ds: (ds.fingerprint, ds.scores_fingerprint), spinner="Reading the annotations…")
def _annotations(dataset: Dataset) -> list:
    from ..service.inputs import mqm_annotations as read

    # MQM annotation files (the Annotations page's); ESA ratings are the esa metric (issue 52)
    return read(dataset.annotations, dataset.corpus)


def metric_names(dataset: Dataset, sentence: bool = False, with_checks: bool = False) -> list[str]:
    """The built-in metrics (those with sentence scores when ``sentence``; none without a reference) and
    the dataset's metrics read from files; ``with_checks``: the translation checks and terms too (the Rankings
    offer them; the pages that read metrics as quality, human correlation among them, do not)."""
    from ..service.results import metric_names as names
    from ..service.results import sentence_metrics

    builtin = (sentence_metrics() if sentence else names()) if dataset.corpus.references else ()
    return [*builtin, *imported(dataset), *(check_names(dataset) if with_checks else ())]


def metric_result(dataset: Dataset, name: str, opts: Options) -> MetricResult:
    """One metric's results for the dataset (cached by content fingerprint and that metric's options);
    imported metrics come from their files."""
    if name not in REGISTRY:
        found = imported(dataset)
        return found[name][1] if name in found else checks(dataset)[name][1]
    return _metric_result(dataset, dataset.set_id, name, opts)


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
    keys = {n: _result_key(dataset, dataset.set_id, n, opts) for n in names if n in REGISTRY}
    todo = [n for n, k in keys.items() if k not in _KNOWN]
    if len(todo) > 1:
        with st.spinner(f"Scoring {', '.join(todo)}…"):
            for n, result in zip(todo, _score(dataset, todo, opts), strict=True):
                _TOGETHER[keys[n]] = result
    return {n: metric_result(dataset, n, opts) for n in names}


def scored(dataset: Dataset, names, opts: Options) -> bool:
    """Whether :func:`metric_results` gives every metric of ``names`` without scoring (built-in ones scored in this
    process, the others read from files; a translation check is not: the checks run the first time they are shown)."""
    if not all(_result_key(dataset, dataset.set_id, n, opts) in _KNOWN for n in names if n in REGISTRY):
        return False
    others = [n for n in names if n not in REGISTRY]
    return not others or set(others) <= set(imported(dataset))


def all_results(dataset: Dataset, opts: Options, metrics=None) -> dict[str, MetricResult]:
    """Every metric (the imported ones too), with a progress bar while anything is computed."""
    metrics = metric_names(dataset) if metrics is None else metrics
    out: dict[str, MetricResult] = {}
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


COMPARISONS = BoundedCache(64)


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
    seed: int = SEED,
    baseline: str | None = None,
    alpha: float = ALPHA,
    progress=None,
    resample: str = "segments",
):
    """Significance tests of one metric (cached by data, options and test settings); by default the
    Rankings' test (:mod:`mtlens.service.rankings`). ``resample="documents"``: whole documents."""
    from ..analysis.significance import compare

    documents = comparisons.resampled_documents(dataset.corpus, resample)
    key = comparison_key(dataset, name, opts, resample, (test, n, seed, baseline, alpha))
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


def comparison_key(dataset: Dataset, name: str, opts: Options, resample: str = "segments", test=None) -> tuple:
    """The one key of :func:`comparison`'s results (``in COMPARISONS``: kept): the texts, the metric and its options,
    what is resampled and the test (test, resamples, seed, baseline, alpha; None: the Rankings')."""
    kind, n, seed, baseline, alpha = test or (rankings.TEST, rankings.RESAMPLES, SEED, None, ALPHA)
    documents = comparisons.resampled_documents(dataset.corpus, resample)
    test_key = (kind, None if n is None else int(n), int(seed), baseline, float(alpha), resample, hash(documents))
    return (dataset.fingerprint, dataset.scores_fingerprint, name, options_key(name, opts), *test_key)


def can_test(dataset: Dataset) -> bool:
    """Whether significance tests can run: two systems or more, and enough lines."""
    return comparisons.can_test(len(dataset.corpus.systems), dataset.corpus.n_lines)


def run_facts(dataset: Dataset) -> dict:
    """Each system's tuned-on families and cost from its run (:func:`mtlens.service.run_facts.run_facts`); none for an
    upload that is not saved."""
    return _run_facts(dataset) if dataset.set_id else {}


@cache(lambda ds: (ds.fingerprint, ds.set_id), spinner="Reading the runs' facts…")
def _run_facts(dataset: Dataset) -> dict:
    from ..service.run_facts import run_facts

    return run_facts(state.store(), state.saved_id(dataset), dataset.corpus)


@cache(lambda ds: (ds.fingerprint, ds.scores_fingerprint), spinner="Checking the references…")
def reference_notes(dataset: Dataset) -> list[str]:
    """Is the reference the problem? (:func:`mtlens.service.references.reference_notes`)"""
    from ..service.references import reference_notes as notes

    store = state.store() if dataset.set_id else None
    return notes(store, dataset.evaluation(), [m for m, _ in imported(dataset).values()])


def too_few_lines(dataset: Dataset) -> str:
    return rankings.too_few_lines(dataset.corpus.n_lines)


def human(dataset: Dataset):
    """The dataset's human scores (all uploaded files and the annotations' MQM merged), or None."""
    if not dataset.human and not dataset.annotations:
        return None
    return _human(dataset)


@cache(lambda ds: (ds.fingerprint, ds.human_fingerprint, ds.scores_fingerprint), spinner="Reading the human scores…")
def _human(dataset: Dataset):
    from ..service.ratings import set_human_scores

    # the uploaded human files, the annotations' MQM and the ESA ratings: human scores alike (issue 52)
    return set_human_scores(dataset.evaluation())


@cache(
    lambda ds, n, orders, m, opts: (ds.fingerprint, int(n), tuple(orders), int(m), opts.tokenize, opts.lowercase),
    spinner="Scoring every sentence at every order…",
)
def words_vs_chars(dataset: Dataset, n: int, orders: tuple, m: int, opts: Options):
    from ..analysis.words_chars import words_vs_chars as compute

    return compute(dataset.corpus, int(n), tuple(orders), int(m), tokenize=opts.tokenize, lowercase=opts.lowercase)


@cache(
    lambda ds, opts: (ds.fingerprint, ds.human_fingerprint, ds.scores_fingerprint, opts.tokenize, opts.lowercase),
    max_entries=8,
    spinner="tBLEU for every epsilon…",
)
def tbleu_sweep(dataset: Dataset, opts: Options):
    from ..analysis.sweep import tbleu_sweep as compute

    return compute(dataset.corpus, human=human(dataset), tokenize=opts.tokenize, lowercase=opts.lowercase)


def _results_key(dataset: Dataset, opts: Options, results, *more) -> tuple:
    """Whose numbers a result about metrics and humans depends on: the texts, the human files, the metrics and
    their options."""
    metrics = tuple((m, options_key(m, opts)) for m in results)
    return (dataset.fingerprint, dataset.human_fingerprint, dataset.scores_fingerprint, metrics, *more)


@cache(_results_key, spinner="Correlations with bootstrap intervals…")
def human_corr(dataset: Dataset, opts: Options, results):
    from ..analysis.human import human_correlation

    return human_correlation(results, human(dataset), n_boot=CI_RESAMPLES)


@cache(_results_key, spinner="Measuring every score source as WMT25 does…")
def meta_rows(dataset: Dataset, opts: Options, results):
    """The meta-evaluation as WMT25 measures it (issue 61): :func:`mtlens.service.meta.meta_of`."""
    from ..service.meta import meta_of

    return meta_of(dataset.evaluation(), results, human(dataset))


@cache(
    lambda ds, kind: (ds.fingerprint, ds.human_fingerprint, ds.scores_fingerprint, kind),
    max_entries=8,
    spinner="Ranking the systems by the human scores…",
)
def human_ranks(dataset: Dataset, kind: str):
    """WMT-style ranking of the systems by a segment-level human score."""
    from ..analysis.autorank import human_ranking

    return human_ranking(human(dataset).segment[kind])


@cache(_results_key, max_entries=8, spinner="Permutation tests between metrics…")
def metric_clusters(dataset: Dataset, opts: Options, results, level: str):
    """Metrics clustered by PERM-BOTH tests of their correlation with one human score type."""
    from ..analysis.human import metric_clusters as compute

    return compute(results, human(dataset), level)


def _history_key(dataset, family, metrics, baseline, opts, resample="segments", skip=0) -> tuple:
    from ..service.runs import runs_key

    return (
        dataset.fingerprint,
        dataset.scores_fingerprint,
        dataset.set_id,
        runs_key(state.store(), dataset.set_id),
        family,
        ",".join(metrics),
        baseline,
        tuple(options_key(m, opts) for m in metrics if m in REGISTRY),
        resample,
        skip,
    )


@cache(_history_key, spinner="Runs over time: scores, intervals, step tests…")
def history(
    dataset: Dataset,
    family: str | None,
    metrics: list[str],
    baseline: str | None,
    opts: Options,
    resample: str = "segments",
    skip: int = 0,
) -> dict:
    """A saved set's history (:func:`mtlens.service.runs.history`, as JSON), cached by its text, its runs,
    the family, metrics, baseline and options: one view of at most :data:`mtlens.service.runs.VIEW_RUNS` runs,
    leaving out the ``skip`` newest."""
    from ..service.runs import VIEW_RUNS, history_to_dict
    from ..service.runs import history as compute

    h = compute(
        state.store(),
        state.saved_id(dataset),
        family,
        ",".join(metrics),
        baseline,
        visitor=identity.visitor(),
        options=opts,
        resample=resample,
        last=VIEW_RUNS,
        skip=skip,
    )
    return history_to_dict(h)


@cache(
    lambda ds, exclude, mean: (ds.fingerprint, ds.scores_fingerprint, tuple(sorted(exclude)), mean),
    spinner="Reading the ESA ratings…",
)
def esa_report(dataset: Dataset, exclude: tuple[str, ...], mean: str) -> dict:
    """The dataset's ESA ratings: system scores, raters' quality (:func:`mtlens.service.ratings.esa_report_of`)."""
    from ..service.ratings import esa_report_of

    return esa_report_of(dataset.evaluation(), exclude, mean)

"""Score a :class:`Corpus` with several metrics: statistics once, everything else from them."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.options import DEFAULTS, Options
from ..metrics import Metric, Signature, make_metric, parse_names, stats_key
from ..readers.scores import ImportedMetric
from ..scores.results import ImportedScores, MetricResult
from .tasks import statistics_many


def parse_metric_list(text: str | Sequence[str]) -> list[str]:
    """``"bleu,chrf"`` -> ``["bleu", "chrf"]``, checking names and removing repeats
    (:func:`mtlens.metrics.parse_names`)."""
    return parse_names(text)


def score_metric(corpus: Corpus, metric: Metric) -> MetricResult:
    """Compute one metric for every system of the corpus."""
    return score_metrics(corpus, [metric])[0]


def score_metrics(corpus: Corpus, metrics: Sequence[Metric]) -> list[MetricResult]:
    """Compute several metrics for every system of the corpus, their blocks shared out together
    (:func:`mtlens.runtime.tasks.statistics_many`)."""
    _check(corpus, metrics, corpus.system_names)
    stats = statistics_many(metrics, corpus.reference_streams(), corpus.system_streams())
    return [
        result_from_stats(corpus, m, dict(zip(corpus.system_names, s, strict=True)))
        for m, s in zip(metrics, stats, strict=True)
    ]


def _check(corpus: Corpus, metrics: Sequence[Metric], systems: Sequence[str]) -> None:
    """Refuse what the metrics cannot score, before any work: no reference, lines past a metric's bounds."""
    if metrics and not corpus.references:
        raise InputError(
            f"{metrics[0].name} needs a reference translation and this set has none (made from human annotations "
            "or for reference-free metrics); add a reference to score BLEU, chrF, TER and the other lexical metrics"
        )
    for m in metrics:
        m.check_lines(corpus.reference_streams(), {s: corpus.systems[s] for s in systems})


def result_from_stats(corpus: Corpus, metric: Metric, stats: dict[str, np.ndarray]) -> MetricResult:
    """A metric's results from per-segment statistics already computed (system -> array)."""
    totals = {n: s.sum(axis=0) for n, s in stats.items()}
    sig = metric.signature(len(corpus.references))
    if corpus.language_pair:  # the language pair belongs to the data: in every signature
        sig = Signature((*sig.fields, ("lang", corpus.language_pair)))
    return MetricResult(
        metric=metric.name,
        signature=sig.format(),
        higher_is_better=metric.higher_is_better,
        stats=stats,
        scores={n: float(metric.score_from_totals(t)) for n, t in totals.items()},
        details={n: metric.details(t) for n, t in totals.items()},
        scorer=metric,
    )


def score(
    corpus: Corpus, metrics: str | Sequence[str] = ("bleu", "chrf"), options: Options | None = None, **changes
) -> dict[str, MetricResult]:
    """Score every system of ``corpus`` with each metric.

    Args:
        corpus: a validated :class:`Corpus`.
        metrics: names (``bleu``, ``bleu-c``, ``chrf``, ``chrf++``) as a list or comma-separated.
        options: metric options (:class:`mtlens.core.options.Options`; default: sacrebleu's defaults).
        **changes: options changed on top of ``options``, e.g. ``tokenize="zh"``.

    Returns:
        metric name -> :class:`MetricResult`, in the order asked.

    Example:
        >>> c = Corpus.build({"ref": ["the cat sat on the mat"]}, {"A": ["the cat sat on a mat"]})
        >>> round(score(c, "bleu", tokenize="none")["bleu"].scores["A"], 4)
        53.7285
    """
    opts = options or DEFAULTS
    if changes:
        opts = Options.from_mapping({**opts.as_dict(), **changes})
    names = parse_metric_list(metrics)
    results = score_metrics(corpus, [make_metric(name, opts) for name in names])
    return dict(zip(names, results, strict=True))


def score_saved(store, set_id: str, corpus: Corpus, name: str, options):
    """One metric's results for a saved set (:func:`score_saved_many`)."""
    return score_saved_many(store, set_id, corpus, [name], options)[0]


def score_saved_many(
    store, set_id: str, corpus: Corpus, names: Sequence[str], options, keep_only: Options | None = None
) -> list[MetricResult]:
    """Several metrics' results for a saved set: stored statistics are reused, only systems without
    them (a system added later, a new option set) are scored, all metrics in one engine run
    (:func:`mtlens.runtime.tasks.statistics_many`), and their statistics are stored. A store that cannot
    take them (full, read-only) only costs the reuse next time.

    ``keep_only``: for a visitor who may not change the set, the set's own options: only statistics
    those options would store are stored (one entry per metric, whoever asks); statistics for other
    options are computed and returned, never stored (docs/security.md, "Bounded storage")."""
    metrics = [make_metric(name, options) for name in names]
    if not corpus.references:
        _check(corpus, metrics, [])
    have = [store.get_stats(set_id, m.name, stats_key(m.name, options)) for m in metrics]
    missing = [[s for s in corpus.system_names if s not in got or got[s].shape[0] != corpus.n_lines] for got in have]
    todo = [k for k, miss in enumerate(missing) if miss]
    systems = [s for s in corpus.system_names if any(s in missing[k] for k in todo)]
    if todo:
        for k in todo:
            _check(corpus, [metrics[k]], missing[k])
        fresh = statistics_many(
            [metrics[k] for k in todo], corpus.reference_streams(), [corpus.systems[s] for s in systems]
        )
        for k, stats in zip(todo, fresh, strict=True):
            new = {s: st for s, st in zip(systems, stats, strict=True) if s in missing[k]}
            key = stats_key(metrics[k].name, options)
            if keep_only is None or key == stats_key(metrics[k].name, keep_only):
                with contextlib.suppress(InputError):
                    store.put_stats(set_id, metrics[k].name, key, new)
            have[k].update(new)
    return [
        result_from_stats(corpus, m, {s: got[s] for s in corpus.system_names})
        for m, got in zip(metrics, have, strict=True)
    ]


def score_set(
    store, set_id: str | None, corpus: Corpus, names: Sequence[str], options, keep_only: Options | None = None
) -> list[MetricResult]:
    """Several metrics' results for a set: a saved set's statistics through the store
    (:func:`score_saved_many`, ``keep_only`` as there; the bundled sample is a saved set too); an upload
    that was not saved is scored."""
    if set_id:
        return score_saved_many(store, set_id, corpus, names, options, keep_only)
    return score_metrics(corpus, [make_metric(name, options) for name in names])


def result_for(corpus: Corpus, scores: ImportedScores):
    """The :class:`~mtlens.scores.results.MetricResult` of imported scores (every system of the corpus)."""
    metric = ImportedMetric(scores)
    result = result_from_stats(corpus, metric, {s: metric.stats_for(s) for s in corpus.system_names})
    for s, used in scores.usage.items():  # what a judge's scores cost, beside the numbers behind them
        if s in result.details:
            result.details[s] = {**result.details[s], **used}
    return result

"""Scores by group of lines: per domain or per document (issue 35).

A group's score is the metric's corpus score over the group's lines: the per-segment statistics of those
lines summed, then the metric's own formula (for BLEU, chrF and TER exactly what sacrebleu gives when it
scores those lines alone, since their corpus scores are functions of summed segment statistics).
Groups are listed in the order of their first line; lines without a label form the group
:data:`NO_LABEL`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..scores.results import MetricResult

#: the group of lines whose document names no domain
NO_LABEL = "(no domain)"
BY = ("domain", "document")


@dataclass(frozen=True)
class Group:
    """One group: its name, its lines (0-based) and every metric's score of every system on them."""

    name: str
    lines: np.ndarray
    scores: dict[str, dict[str, float]]


def labels_for(corpus: Corpus, by: str) -> tuple[str, ...]:
    """Every line's group: its domain or its document id; an InputError when the test set has none."""
    if by not in BY:
        raise InputError(f"--by takes {' or '.join(BY)}, not '{by}'")
    values = corpus.domains if by == "domain" else corpus.documents
    if values is None:
        where = "WMT XML <doc domain=...>" if by == "domain" else "WMT XML <doc id=...> or --docs FILE"
        raise InputError(f"this test set has no {by}s ({where} gives them)")
    return tuple(v or NO_LABEL for v in values)


def group_lines(labels: Sequence[str]) -> list[tuple[str, np.ndarray]]:
    """Each label with its lines (0-based), in the order of first appearance.

    >>> [(g, x.tolist()) for g, x in group_lines(["b", "a", "b"])]
    [('b', [0, 2]), ('a', [1])]
    """
    order: dict[str, int] = {}
    where = np.fromiter((order.setdefault(x, len(order)) for x in labels), dtype=np.int64, count=len(labels))
    by_group = np.argsort(where, kind="stable")
    bounds = np.searchsorted(where[by_group], np.arange(len(order) + 1))
    return [(name, by_group[bounds[k] : bounds[k + 1]]) for name, k in order.items()]


def group_scores(results: Mapping[str, MetricResult], labels: Sequence[str]) -> list[Group]:
    """Every metric's score of every system on each group of lines: the groups' totals in one pass per system
    (``np.add.reduceat`` over the lines in group order) and the metric's formula over all groups at once (issue 51:
    100,000 one-line documents took 628 s, each group converting every system's statistics again)."""
    groups = group_lines(labels)
    if not groups:
        return []
    order = np.concatenate([lines for _, lines in groups])
    starts = np.cumsum([0] + [len(lines) for _, lines in groups[:-1]])
    by_group: dict[str, dict[str, np.ndarray]] = {}
    for metric, r in results.items():
        by_group[metric] = {}
        for s, st in r.stats.items():
            totals = np.add.reduceat(np.asarray(st, dtype=np.float64)[order], starts, axis=0)
            by_group[metric][s] = np.asarray(r.scorer.score_from_totals(totals), dtype=np.float64)
    return [
        Group(name, lines, {m: {s: float(v[g]) for s, v in by_s.items()} for m, by_s in by_group.items()})
        for g, (name, lines) in enumerate(groups)
    ]


def restricted(result: MetricResult, lines) -> MetricResult:
    """A metric's results on some lines only (their statistics and the corpus scores over them): a group
    tested on its own, as if the test set were those lines."""
    import dataclasses

    lines = np.asarray(lines)
    stats = {s: np.asarray(st)[lines] for s, st in result.stats.items()}
    scores = {
        s: float(result.scorer.score_from_totals(np.asarray(st, dtype=np.float64).sum(axis=0)))
        for s, st in stats.items()
    }
    return dataclasses.replace(result, stats=stats, scores=scores, details={})


def group_clusters(result: MetricResult, groups: Sequence[Group], seed: int) -> dict[str, dict[str, int | None]]:
    """Each group's significance clusters of ``result``'s metric (the paired bootstrap over the group's lines,
    Holm over its pairs; :func:`mtlens.analysis.significance.compare`): group -> system -> cluster number
    (1 = best); None for a group of fewer than 30 lines (no test is claimed on them)."""
    from .policy import MIN_TEST_LINES
    from .significance import compare

    out = {}
    for g in groups:
        if len(g.lines) < MIN_TEST_LINES or len(result.stats) < 2:
            out[g.name] = dict.fromkeys(result.stats)
            continue
        cmp = compare(restricted(result, g.lines), seed=seed)
        out[g.name] = {s: k for k, cl in enumerate(cmp.clusters, start=1) for s in cl}
    return out

"""Meta-evaluation of metrics against human judgments, after google-research/mt-metrics-eval's definitions
(its ``stats.Agreement``, ``KendallWithTiesOpt`` and ``PermutationSigDiff``), written anew and vectorised.

- System-level **pairwise accuracy**: over all pairs of systems with a human score, the share where
  ``sign(human_a - human_b) == sign(metric_a - metric_b)`` (two ties agree).
- Segment-level **acc_eq** (Deutsch et al. 2023, "Ties Matter"), grouped by item: per segment, over the
  systems rated there, acc23 = (concordant pairs + pairs tied in both) / pairs, where a metric difference
  of at most epsilon is a metric tie; averaged over segments; ONE epsilon for all segments, the one that
  maximises the average (candidates: 0 and every observed metric difference; the smallest of the thresholds
  reaching the best value, within 1e-12, wins).
  Every pair is used (mt-metrics-eval's ``sample_rate=1``, exact, no sampling).
- **Soft pairwise accuracy** (Thompson et al. 2024): 1 - mean over system pairs of |p_human - p_metric|,
  each p the one-sided paired permutation p-value (sign flips of the per-segment differences, on the
  segments both systems have human scores for) that system a is better than system b.
- **PERM-BOTH** (Deutsch et al. 2021): is metric 2's correlation with humans higher than metric 1's?
  Both metrics' scores are z-normalised; each permutation swaps, score by score with probability 1/2,
  which metric a score belongs to; p = share of permutations whose correlation difference is at least
  the observed one (mt-metrics-eval's definition: no +1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from .correlation import corr, rowwise_pearson
from .policy import CI_RESAMPLES, SEED

#: relative tolerance of "at least the observed value" (sums in another order differ by a few ulps)
TIE = 1e-12


def pairwise_accuracy(metric: Mapping[str, float], human: Mapping[str, float]) -> tuple[float, int]:
    """(accuracy, number of pairs) over the systems that have both scores.

    Example:
        >>> pairwise_accuracy({"a": 3, "b": 2, "c": 1}, {"a": 30, "b": 10, "c": 20})
        (0.6666666666666666, 3)
    """
    names = [s for s in metric if s in human]
    m = np.array([metric[s] for s in names], dtype=np.float64)
    h = np.array([human[s] for s in names], dtype=np.float64)
    i, j = np.triu_indices(len(names), k=1)
    if len(i) == 0:
        return float("nan"), 0
    agree = np.sign(m[i] - m[j]) == np.sign(h[i] - h[j])
    return float(agree.mean()), len(i)


@dataclass(frozen=True)
class AccEq:
    """acc_eq with its tie threshold (metric units) and the numbers behind it."""

    acc: float
    epsilon: float
    items: int
    pairs: int


def acc_eq(metric: np.ndarray, human: np.ndarray) -> AccEq:
    """Tie-calibrated pairwise accuracy grouped by item.

    Args:
        metric: (systems, items) metric scores.
        human: (systems, items) human scores, NaN where a system was not rated on an item.
    """
    m = np.asarray(metric, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    n_sys = m.shape[0]
    i, j = np.triu_indices(n_sys, k=1)
    ok = ~np.isnan(h[i]) & ~np.isnan(h[j])  # (pairs, items)
    pairs_per_item = ok.sum(axis=0)
    used = pairs_per_item > 0
    n_items = int(used.sum())
    if n_items == 0:
        return AccEq(float("nan"), float("nan"), 0, 0)
    dm = (m[i] - m[j])[ok]
    dh = (h[i] - h[j])[ok]
    item = np.broadcast_to(np.arange(m.shape[1]), ok.shape)[ok]
    weight = 1.0 / (pairs_per_item[item] * n_items)
    tie_h = dh == 0
    base = ((np.sign(dm) == np.sign(dh)) & (dm != 0)) | ((dm == 0) & tie_h)  # no tie introduced
    diff = np.abs(dm)
    order = np.argsort(diff, kind="stable")
    diff_sorted = diff[order]
    gain = (weight * (tie_h.astype(np.float64) - base))[order]
    total0 = float((weight * base).sum())
    running = total0 + np.cumsum(gain)
    last = np.r_[diff_sorted[1:] != diff_sorted[:-1], True]  # the last pair of each distinct difference
    thresholds = np.r_[0.0, diff_sorted[last]]
    values = np.r_[total0, running[last]]
    if thresholds.size > 1 and thresholds[1] == 0.0:  # threshold 0 is already the starting point
        thresholds, values = thresholds[1:], values[1:]
    # the smallest threshold reaching the best value (within rounding: sums in another order differ by ulps)
    best = int(np.flatnonzero(values >= np.nanmax(values) - 1e-12)[0])
    return AccEq(float(values[best]), float(thresholds[best]), n_items, int(ok.sum()))


def paired_permutation_p(d: np.ndarray, n: int, rng: np.random.Generator) -> float:
    """One-sided p-value that mean(d) > 0 under sign flips: (#{mean(flipped) >= mean(d)} + 1) / (n + 1)."""
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0:
        return float("nan")
    signs = rng.integers(0, 2, size=(n, d.size)) * 2 - 1
    flipped = (signs * d).mean(axis=1)
    return float((np.sum(flipped >= d.mean() - 1e-12) + 1) / (n + 1))


def soft_pairwise_accuracy(
    metric: np.ndarray, human: np.ndarray, n: int = CI_RESAMPLES, seed: int = SEED
) -> tuple[float, int]:
    """(SPA, number of system pairs); ``metric``/``human`` as in :func:`acc_eq` (systems x items)."""
    m = np.asarray(metric, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    rng = np.random.default_rng(seed)
    gaps = []
    for a in range(m.shape[0]):
        for b in range(a + 1, m.shape[0]):
            both = ~np.isnan(h[a]) & ~np.isnan(h[b])
            if not both.any():
                continue
            p_h = paired_permutation_p(h[a, both] - h[b, both], n, rng)
            p_m = paired_permutation_p(m[a, both] - m[b, both], n, rng)
            gaps.append(abs(p_h - p_m))
    return (1.0 - float(np.mean(gaps)), len(gaps)) if gaps else (float("nan"), 0)


def perm_both(
    human: np.ndarray,
    metric1: np.ndarray,
    metric2: np.ndarray,
    kind: str = "pearson",
    n: int = CI_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """(p-value that metric 2 correlates better than metric 1, observed difference corr2 - corr1).

    ``kind`` is the correlation (:data:`mtlens.analysis.correlation.KINDS`); NaN human scores are left
    out first. p is the share of swap patterns (each score swapped between the two metrics or not) whose
    difference is at least the observed one, the observed pattern included. With few items (2**k
    patterns, no more than ``n``: system-level tests on a handful of systems) every pattern is taken
    once and p is exact (4 systems: multiples of 1/16); otherwise ``n`` patterns are drawn in one block
    from the seeded generator (the same draws, in the same order, as one draw per permutation). Every
    pattern's difference, the observed one included, is computed by the same row-wise arithmetic, and
    "at least" allows 1e-12 (relative) for sums taken in another order, so the observed pattern always
    counts.
    """
    ok = ~np.isnan(np.asarray(human, dtype=np.float64))
    g = np.asarray(human, dtype=np.float64)[ok]

    def z(x):
        x = np.asarray(x, dtype=np.float64)[ok]
        sd = x.std()
        return (x - x.mean()) / sd if sd > 0 else x - x.mean()

    def rowwise(m: np.ndarray) -> np.ndarray:
        if kind == "pearson":
            return rowwise_pearson(np.broadcast_to(g, m.shape), m)
        if kind == "spearman":
            return rowwise_pearson(np.broadcast_to(sps.rankdata(g), m.shape), sps.rankdata(m, axis=1))
        return np.array([corr(kind, g, row) for row in m])

    def diffs(w: np.ndarray) -> np.ndarray:  # w: True keeps a score with its own metric
        return rowwise(np.where(w, s2, s1)) - rowwise(np.where(w, s1, s2))

    s1, s2 = z(metric1), z(metric2)
    delta = corr(kind, g, s2) - corr(kind, g, s1)
    observed = float(diffs(np.ones((1, s1.size), dtype=bool))[0])
    at_least = observed - TIE * max(1.0, abs(observed))
    if s1.size < 63 and 2**s1.size <= n:  # every pattern once: the exact p-value
        k = np.arange(2**s1.size, dtype=np.int64)
        w = ((k[:, None] >> np.arange(s1.size)) & 1).astype(bool)
        return float(np.mean(diffs(w) >= at_least)), float(delta)
    rng = np.random.default_rng(seed)
    count = 0
    block = max(1, min(n, 2_000_000 // max(1, s1.size)))  # bounded memory: a few 16 MB arrays at a time
    for start in range(0, n, block):
        w = rng.integers(0, 2, size=(min(block, n - start), s1.size)).astype(bool)
        count += int(np.sum(diffs(w) >= at_least))
    return count / n, float(delta)


def segment_matrix(
    result, by_system: Mapping[str, Mapping[int, float]], n_lines: int
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(metric scores, human scores with NaN where unrated, systems): systems x lines, for the systems
    that have human scores."""
    systems = [s for s in result.scores if s in by_system]
    m = np.array([result.sentence_scores(s) for s in systems], dtype=np.float64).reshape(len(systems), n_lines)
    h = np.full((len(systems), n_lines), np.nan)
    for k, s in enumerate(systems):
        for line, v in by_system[s].items():
            h[k, line] = v
    return m, h, systems

"""WMT-style rankings: systems ranked by human scores with pairwise tests, rank ranges and clusters (as
the WMT findings tables show them), and an AutoRank-style aggregate of several metrics (WMT24).

Decisions (docs/decisions.md, "Rankings from human scores"):
- a system's human score is the mean of its segment scores; two systems are compared on the segments
  both have scores for, with the Wilcoxon signed-rank test (scipy, two-sided, zero differences dropped
  as ``zero_method='wilcox'``), and only when they share at least 30 such segments;
- Holm's correction over all pairs; "a beats b" means Holm-corrected p < alpha and a's mean higher;
- rank range of a system: (number of systems that beat it) + 1 ... N - (number of systems it beats);
- clusters: systems in score order, split only where every system above beats every system below.
- AutoRank: each chosen metric's system scores rescaled linearly so that the best system gets 1 and
  the worst N (the number of systems; lower-is-better metrics inverted), then averaged over metrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .policy import ALPHA, MIN_TEST_LINES
from .significance import clusters_from_pairs, holm


@dataclass(frozen=True)
class HumanRank:
    system: str
    score: float
    segments: int
    rank_low: int
    rank_high: int
    cluster: int
    wins: int
    losses: int


@dataclass(frozen=True)
class PairTest:
    a: str
    b: str
    segments: int
    p_value: float | None
    p_holm: float | None
    winner: str | None


def rank_ranges(names: list[str], beats: set[tuple[str, str]]) -> dict[str, tuple[int, int, int, int]]:
    """WMT findings' rank range of every system from its significant wins ``(winner, loser)``:
    name -> (beaten-by + 1, N - beats, wins, losses)."""
    out = {}
    for s in names:
        losses = sum(1 for _, loser in beats if loser == s)
        wins = sum(1 for winner, _ in beats if winner == s)
        out[s] = (losses + 1, len(names) - wins, wins, losses)
    return out


def human_ranking(
    by_system: Mapping[str, Mapping[int, float]], alpha: float = ALPHA, min_segments: int = MIN_TEST_LINES
) -> tuple[list[HumanRank], list[PairTest]]:
    """Rank systems by their segment-level human scores (see the module docstring)."""
    from scipy.stats import wilcoxon

    names = sorted(by_system, key=lambda s: -np.mean(list(by_system[s].values())))
    means = {s: float(np.mean(list(by_system[s].values()))) for s in names}
    raw = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = sorted(set(by_system[a]) & set(by_system[b]))
            p = None
            if len(common) >= min_segments:
                d = np.array([by_system[a][k] - by_system[b][k] for k in common])
                p = 1.0 if not np.any(d) else float(wilcoxon(d, zero_method="wilcox").pvalue)
            raw.append((a, b, len(common), p))
    tested = [r[3] for r in raw if r[3] is not None]
    adjusted = iter(holm(tested).tolist())
    pairs = []
    for a, b, n, p in raw:
        ph = next(adjusted) if p is not None else None
        winner = None
        if ph is not None and ph < alpha and means[a] != means[b]:
            winner = a if means[a] > means[b] else b
        pairs.append(PairTest(a, b, n, p, ph, winner))
    beats = {(p.winner, p.b if p.winner == p.a else p.a) for p in pairs if p.winner}
    clusters = clusters_from_pairs(names, lambda x, y: (x, y) in beats)
    cluster_of = {s: k + 1 for k, group in enumerate(clusters) for s in group}
    ranges = rank_ranges(names, beats)
    rows = []
    for s in names:
        lo, hi, wins, losses = ranges[s]
        rows.append(HumanRank(s, means[s], len(by_system[s]), lo, hi, cluster_of[s], wins, losses))
    return rows, pairs


def autorank(scores: Mapping[str, Mapping[str, float]], higher_is_better: Mapping[str, bool]) -> dict[str, dict]:
    """AutoRank-style aggregate: metric -> system -> score in, system -> {metric: rescaled, "autorank"} out.

    Example:
        >>> r = autorank({"m": {"a": 10.0, "b": 5.0, "c": 0.0}}, {"m": True})
        >>> [r[s]["autorank"] for s in "abc"]
        [1.0, 2.0, 3.0]
    """
    systems = sorted(set.intersection(*(set(v) for v in scores.values()))) if scores else []
    n = len(systems)
    out = {s: {} for s in systems}
    for metric, by_sys in scores.items():
        vals = np.array([by_sys[s] for s in systems], dtype=np.float64)
        best, worst = (vals.max(), vals.min()) if higher_is_better[metric] else (vals.min(), vals.max())
        span = best - worst
        for s, v in zip(systems, vals, strict=True):
            out[s][metric] = 1.0 if span == 0 else float(1 + (n - 1) * (best - v) / span)
    for s in systems:
        out[s]["autorank"] = float(np.mean([out[s][m] for m in scores]))
    return out

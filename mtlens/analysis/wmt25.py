"""The measures WMT25's metrics task added to the meta-evaluation (issue 61), written anew and vectorised; each is
tested against its source's own code on the same numbers (tests/analysis/test_wmt25_meta.py, golden values made by
tests/golden/wmt25/make_meta_golden.sh) and written out in docs/meta-evaluation.md.

- **PDP**, the Pearson of pairwise differences (mt-metrics-eval's ``Correlation.Pearson(average_by='item',
  pdp=True)``): on every item, every ordered pair of systems rated there gives a human difference and a metric
  difference; one Pearson over all of them, pooled across items. The differences are symmetric (each pair in both
  orders, and each system with itself), so their mean is 0 and the Pearson is ``sum(dh * dm) / sqrt(sum(dh^2) *
  sum(dm^2))`` over the unordered pairs.
- **Span precision, recall and F1** at the character level (WMT25's ``scoring_esa.py``, ``get_char_f1``): on each
  line, how many major and how many minor spans cover each character, for the human and the metric; a character
  earns min(human, metric) per severity, and half a credit for what is matched in place but not in severity.
  Summed over every rated line, then precision = credit / metric's count, recall = credit / human's count (1 where
  the count is 0), F1 their harmonic mean. Omissions (no place) and ``undecided`` spans are left out, ``critical``
  counts as major.
- **Criticality F1** (WMT25's ``21-metrics_criticality.py``): the catastrophic items are those the humans scored
  below :data:`CRITICAL_BELOW` (ESA's 0-100 scale); the items are ordered by the metric, lowest first and then
  highest first; the first k items are called critical, k = 1, 6, 11, ... (every :data:`CRITICAL_STEP`-th); the F1
  of the best k, in the better of the two orders.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: a human score below this marks a catastrophic item (WMT25: ESA below 10)
CRITICAL_BELOW = 10.0
#: the human scores on ESA's 0-100 scale, where :data:`CRITICAL_BELOW` means something
CRITICAL_SCALES = ("ESA",)
#: the cut-offs tried are every CRITICAL_STEP-th item of the ordering, from the first
CRITICAL_STEP = 5
#: the credit of a character matched in place but not in severity
PARTIAL_CREDIT = 0.5
#: the severities that count as major, and as minor; any other (``undecided``, ``neutral``) is left out
MAJOR, MINOR = ("major", "critical"), ("minor",)


def pdp(metric: np.ndarray, human: np.ndarray) -> tuple[float, int]:
    """(PDP, number of system pairs used) of ``metric`` and ``human`` (systems x items, human NaN where unrated;
    metric NaN where it gave no score, which leaves that system out of the item)."""
    m = np.asarray(metric, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    i, j = np.triu_indices(m.shape[0], k=1)
    dh, dm = h[i] - h[j], m[i] - m[j]
    ok = np.isfinite(dh) & np.isfinite(dm)
    dh, dm = dh[ok], dm[ok]
    den = np.sqrt(np.dot(dh, dh) * np.dot(dm, dm))
    if dh.size < 2 or den == 0:
        return float("nan"), int(dh.size)
    return float(np.dot(dh, dm) / den), int(dh.size)


def _counts(lines: Sequence[Sequence], lengths: np.ndarray, severities: tuple[str, ...]) -> np.ndarray:
    """How many spans of those severities cover each character, all lines end to end (one array)."""
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    starts, ends = [], []
    for k, spans in enumerate(lines):
        n, base = int(lengths[k]), int(offsets[k])
        for s in spans or ():
            if s.start is None or s.end is None or s.severity.lower() not in severities:
                continue
            a, b = min(max(int(s.start), 0), n), min(max(int(s.end), 0), n)  # as a slice of the line
            if a < b:
                starts.append(base + a)
                ends.append(base + b)
    diff = np.zeros(int(offsets[-1]) + 1, dtype=np.int64)
    np.add.at(diff, np.asarray(starts, dtype=np.int64), 1)
    np.add.at(diff, np.asarray(ends, dtype=np.int64), -1)
    return np.cumsum(diff[:-1])


def span_prf(
    gold: Sequence[Sequence], predicted: Sequence[Sequence], lengths: Sequence[int]
) -> tuple[float, float, float]:
    """(precision, recall, F1) of ``predicted`` spans against ``gold`` spans, line k of both marking a line of
    ``lengths[k]`` characters (objects with ``start``, ``end`` (exclusive) and ``severity``)."""
    n = np.asarray(lengths, dtype=np.int64)
    g_maj, g_min = _counts(gold, n, MAJOR), _counts(gold, n, MINOR)
    p_maj, p_min = _counts(predicted, n, MAJOR), _counts(predicted, n, MINOR)
    credit = np.minimum(g_maj, p_maj).sum() + np.minimum(g_min, p_min).sum()
    g_left = np.maximum(0, g_maj - p_maj) + np.maximum(0, g_min - p_min)
    p_left = np.maximum(0, p_maj - g_maj) + np.maximum(0, p_min - g_min)
    tp = float(credit) + float(np.minimum(g_left, p_left).sum()) * PARTIAL_CREDIT
    total_gold, total_pred = int(g_maj.sum() + g_min.sum()), int(p_maj.sum() + p_min.sum())
    p = tp / total_pred if total_pred else 1.0
    r = tp / total_gold if total_gold else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def criticality_f1(metric: np.ndarray, human: np.ndarray, below: float = CRITICAL_BELOW) -> float:
    """The best F1 of calling the first k items critical, the items ordered by ``metric`` (lowest first, then
    highest first: the better of the two), k = 1, 1 + step, ...; the truly critical items are those with ``human``
    below ``below``. Ties keep the items' order (a stable sort, as the source's). NaN without a critical item."""
    m = np.asarray(metric, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    ok = np.isfinite(m) & np.isfinite(h)
    m, critical = m[ok], h[ok] < below
    total = int(critical.sum())
    if m.size < 2 or total == 0:
        return float("nan")
    k = np.arange(1, m.size, CRITICAL_STEP)
    best = 0.0
    for order in (np.argsort(m, kind="stable"), np.argsort(-m, kind="stable")):
        tp = np.cumsum(critical[order])[k - 1]
        f1 = np.where(tp > 0, 2.0 * tp / (k + total), 0.0)  # 2PR/(P+R) = 2tp / (called + truly critical)
        best = max(best, float(f1.max()))
    return best

"""How far human raters agree, one function for every kind of rating (issue 59): :func:`agreement` is the Pearson r
of two series of scores on the items they share (the project's Pearson, :func:`mtlens.analysis.correlation.pearson`),
None where there are too few items or a side is constant. MQM compares every two raters on the segments both rated
(:func:`pairwise`, at least :data:`MIN_PAIRWISE`); ESA compares each rater with the mean of the others on the items they
share (:func:`rater_quality`, at least :data:`MIN_WITH_OTHERS`, as the quality checks of WMT's ESA campaigns read it).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .correlation import pearson

if TYPE_CHECKING:
    from ..readers.esa import ESARatings

#: the fewest segments two MQM raters share for their agreement to be given
MIN_PAIRWISE = 3
#: the fewest items an ESA rater shares with others for their agreement to be given
MIN_WITH_OTHERS = 10


def agreement(x: Sequence[float], y: Sequence[float], min_items: int) -> float | None:
    """Pearson's r of two raters' scores (or a rater's and the others' mean) on the same items, in the same order;
    None below ``min_items`` items or where r is undefined (a constant side).

    >>> round(agreement([1, 2, 3, 4], [2, 4, 6, 9], 3), 4)  # by hand: 11.5 / sqrt(5 * 26.75)
    0.9944
    >>> agreement([1, 2], [1, 2], 3) is None, agreement([1, 1, 1], [1, 2, 3], 3) is None
    (True, True)
    """
    if len(x) < min_items:
        return None
    r = pearson(x, y)
    return None if math.isnan(r) else r


def pairwise(per_rater: Mapping[str, Mapping]) -> list[dict]:
    """Every two raters' agreement on the items both rated (``per_rater``: rater -> item -> score): the items shared,
    :func:`agreement` (at least :data:`MIN_PAIRWISE`), and how often the two gave the very same score."""
    raters = sorted(per_rater)
    out = []
    for i, a in enumerate(raters):
        for b in raters[i + 1 :]:
            shared = sorted(set(per_rater[a]) & set(per_rater[b]))
            x = [per_rater[a][k] for k in shared]
            y = [per_rater[b][k] for k in shared]
            out.append(
                {
                    "rater A": a,
                    "rater B": b,
                    "shared ratings": len(shared),
                    "pearson": agreement(x, y, MIN_PAIRWISE),
                    "same score": float(np.mean(np.array(x) == np.array(y))) if len(shared) >= MIN_PAIRWISE else None,
                }
            )
    return out


#: raters of one item up to which the others' mean is summed item by item (beyond: the item's sum less the rater's)
_SUMMED = 64


def _others_mean(scores: dict[str, float], rater: str, total: float) -> float:
    """The mean of the other raters' scores of an item: summed as they are for a usual item, from the item's sum for
    one that thousands rated (linear work whatever a file holds)."""
    if len(scores) <= _SUMMED:
        rest = [v for k, v in scores.items() if k != rater]
        return sum(rest) / len(rest)
    return (total - scores[rater]) / (len(scores) - 1)


def rater_quality(esa: ESARatings) -> list[dict]:
    """Per rater: items rated; attention checks (a damaged copy of an item the rater also rated in its original:
    passed when the damaged copy's score is lower than the original's), passed and the pass rate; repeated items
    and the mean absolute difference between the two scores; agreement with the other raters (Pearson r of the
    rater's scores with the mean of the others' on the items they share: :func:`agreement`, at least
    :data:`MIN_WITH_OTHERS` items)."""

    own = {(r.rater, r.system, r.line): r.score for r in esa.ratings}
    by_item: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for r in esa.ratings:
        by_item[(r.system, r.line)][r.rater] = r.score
    # one pass over each list, grouped by rater (issue 58, G1: every list was scanned once per rater: 117 CPU-seconds
    # for a visitor's file of 500,000 rows and 83,334 raters)
    items_of: dict[str, list] = defaultdict(list)
    for key, scores in by_item.items():
        for who in scores:
            items_of[who].append(key)
    controls_of: dict[str, list] = defaultdict(list)
    for c in esa.controls:
        controls_of[c.rater].append(c)
    count = Counter(r.rater for r in esa.ratings)
    total = {key: math.fsum(scores.values()) for key, scores in by_item.items() if len(scores) > _SUMMED}
    out = []
    raters = sorted(set(count) | set(controls_of))
    for rater in raters:
        checks = [c for c in controls_of[rater] if c.kind == "attention"]
        judged = [(c.score, own[(rater, c.system, c.line)]) for c in checks if (rater, c.system, c.line) in own]
        passed = sum(1 for bad, orig in judged if bad < orig)
        dups = [c for c in controls_of[rater] if c.kind == "duplicate"]
        dup_pairs = [(d.score, own[(rater, d.system, d.line)]) for d in dups if (rater, d.system, d.line) in own]
        mine, others = [], []
        for key in items_of[rater]:
            scores = by_item[key]
            if len(scores) > 1:
                mine.append(scores[rater])
                others.append(_others_mean(scores, rater, total.get(key, 0.0)))
        with_others = agreement(mine, others, MIN_WITH_OTHERS)
        out.append(
            {
                "rater": rater,
                "items": count[rater],
                "attention_checks": len(judged),
                "passed": passed,
                "pass_rate": passed / len(judged) if judged else None,
                "repeated_items": len(dup_pairs),
                "repeat_mean_abs_difference": (
                    float(np.mean([abs(a - b) for a, b in dup_pairs])) if dup_pairs else None
                ),
                "shared_items": len(mine),
                "agreement_r": with_others,
            }
        )
    return out

"""Summaries of human error annotations (MQM): error counts, document scores, rater agreement, where a
metric disagrees with the raters, and how xCOMET's spans overlap the raters' spans.

Definitions (docs/decisions.md, "Annotations"):
- *errors per 100 segments*: the errors a system received in a category and severity, times 100, over
  the number of (segment, rater) ratings of that system (a segment rated twice counts twice).
- *document score*: the mean MQM score of a system's rated segments in that document.
- *rater agreement*: for each pair of raters, over the (system, segment) pairs both rated, the Pearson
  correlation of their segment scores and the share of pairs with the same score; None where they share
  fewer than 3 ratings (no agreement can be measured: WMT21 TED has one rater per segment).
- *disagreement of a metric with MQM*: over a system's rated lines, the absolute difference of the two
  percentile ranks (0 = same place, 1 = opposite ends); the lines with the largest first.
- *span overlap* (as the WMT23 quality-estimation span task measures it): character-level precision,
  recall and F1 of the predicted spans against the union of the raters' spans, summed over all rated
  lines of all systems (micro average).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping

import numpy as np
from scipy.stats import rankdata

from ..readers.mqm import Annotations, mqm_scores, rater_score
from .human import HumanScores


def error_counts(ann: Annotations) -> list[dict]:
    """One row per (system, category, severity): the count, and the count per 100 rated segments."""
    ratings = Counter()
    counts = Counter()
    for (system, _), seg in ann.segments.items():
        ratings[system] += len(seg.raters)
        for e in seg.errors:
            counts[(system, e.category, e.severity)] += 1
    return [
        {
            "system": s,
            "category": c,
            "severity": v,
            "errors": n,
            "per 100 segments": 100.0 * n / ratings[s] if ratings[s] else math.nan,
        }
        for (s, c, v), n in sorted(counts.items())
    ]


def category_table(categories: Mapping, rated: Mapping, systems) -> list[dict]:
    """A metric's named errors (an LLM judge's: ``categories`` system -> ``(category, severity)`` -> count, over
    ``rated`` lines of each system) side by side for ``systems``: one row per (category, severity) any of them
    received, with each system's count and its count per 100 rated lines (the same rate as :func:`error_counts`);
    the most frequent first."""
    keys = sorted({k for s in systems for k in categories.get(s, {})})
    rows = []
    for category, severity in keys:
        row = {"category": category, "severity": severity}
        for s in systems:
            n = categories.get(s, {}).get((category, severity), 0)
            row[f"{s}: errors"] = n
            row[f"{s}: per 100 segments"] = 100.0 * n / rated[s] if rated.get(s) else math.nan
        rows.append(row)
    rows.sort(key=lambda r: (-sum(r[f"{s}: errors"] for s in systems), r["category"], r["severity"]))
    return rows


def document_scores(ann: Annotations, weights=None) -> list[dict]:
    """One row per (system, document): its mean MQM over the rated segments, and how many there are."""
    scores = mqm_scores(ann, weights)
    acc = defaultdict(list)
    for system, values in scores.items():
        for seg_id, value in zip(ann.seg_ids, values, strict=True):
            if value is not None:
                acc[(system, ann.segments[(system, seg_id)].doc)].append(value)
    return [{"system": s, "document": d, "mqm": float(np.mean(v)), "segments": len(v)} for (s, d), v in acc.items()]


def rater_agreement(ann: Annotations, weights=None) -> list[dict]:
    """Pairwise agreement of raters on the (system, segment) pairs both rated (:func:`mtlens.analysis.raters.pairwise`,
    on each rater's MQM score of each segment)."""
    from .raters import pairwise

    per_rater: dict[str, dict] = defaultdict(dict)
    for key, seg in ann.segments.items():
        for r in seg.raters:
            per_rater[r][key] = rater_score(seg, r, weights)
    return pairwise(per_rater)


def disagreements(ann: Annotations, system: str, metric_scores, weights=None, top: int = 20) -> list[dict]:
    """The rated lines of ``system`` where a metric's sentence scores and MQM disagree most (percentile
    ranks; higher is better for both: pass an error metric's scores negated)."""
    mqm = mqm_scores(ann, weights)[system]
    lines = [i for i, v in enumerate(mqm) if v is not None and math.isfinite(float(metric_scores[i]))]
    if len(lines) < 2:
        return []
    m = np.array([float(metric_scores[i]) for i in lines])
    h = np.array([mqm[i] for i in lines])
    pm, ph = (rankdata(m) - 1) / (len(lines) - 1), (rankdata(h) - 1) / (len(lines) - 1)
    gap = np.abs(pm - ph)
    order = np.argsort(-gap, kind="stable")[:top]
    return [{"line": lines[k] + 1, "metric": m[k], "mqm": h[k], "disagreement": float(gap[k])} for k in order.tolist()]


def span_overlap(ann: Annotations, predicted: dict[str, list[list]]) -> dict:
    """Character-level precision, recall and F1 of predicted spans (system -> per line, objects with
    ``start`` and ``end``) against the union of the raters' spans, micro-averaged over rated lines."""
    tp = fp = fn = 0
    for system, per_line in predicted.items():
        for i, seg_id in enumerate(ann.seg_ids):
            seg = ann.segments.get((system, seg_id))
            if seg is None or i >= len(per_line):
                continue
            gold = {c for e in seg.errors if e.start is not None for c in range(e.start, e.end)}
            pred = {c for sp in per_line[i] for c in range(sp.start, sp.end)}
            tp += len(gold & pred)
            fp += len(pred - gold)
            fn += len(gold - pred)
    p = tp / (tp + fp) if tp + fp else math.nan
    r = tp / (tp + fn) if tp + fn else math.nan
    f = 2 * p * r / (p + r) if tp else 0.0
    return {"precision": p, "recall": r, "f1": f, "characters": tp + fp + fn}


def as_human_scores(anns, corpus, weights: Mapping | None = None):
    """MQM as a human score type (``MQM``, then ``MQM-2``...) for everything human scores feed (human
    correlation, meta-evaluation, WMT-style ranking): segment scores on the rated lines, and the system
    score as the mean of its rated segments."""
    system: dict = {}
    segment: dict = {}
    for k, ann in enumerate(anns):
        kind = "MQM" if k == 0 else f"MQM-{k + 1}"
        scores = mqm_scores(ann, weights)
        for s in corpus.system_names:
            values = scores.get(s, [])
            rated = {i: v for i, v in enumerate(values) if v is not None}
            if rated:
                segment.setdefault(kind, {})[s] = rated
                system.setdefault(kind, {})[s] = sum(rated.values()) / len(rated)
    return HumanScores(system, segment)

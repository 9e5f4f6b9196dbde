"""Which judge to trust, measured as WMT25 measures it (issue 61): one row per score source and human score type,
with every measure the field reports: system pairwise accuracy and soft pairwise accuracy (SPA), segment acc_eq,
the Pearson of pairwise differences (PDP), span precision, recall and F1, and criticality F1
(:mod:`mtlens.analysis.meta`, :mod:`mtlens.analysis.wmt25`). Two more rows a meeting needs beside the metrics:

- the **sentinel** (``sentinel:length``): a "metric" that sees only the candidate, its length in characters
  (longer scores higher). It knows nothing of the source or the reference; where it scores like the real metrics,
  the meta-evaluation measures something else than quality (Perrella et al. 2024's sentinel metrics, without a
  trained model: none may be downloaded).
- the **human ceiling** (``human:TYPE (second of 2 raters)``): where two raters (or two waves) rated the same items, the
  second rating measured against the first, on those items only: how well one human agrees with another, the
  most a metric can be expected to reach.

The human side of the span F1 is an item's first rating (in file order) where it was rated more than once, as
WMT25's development set keeps the first rating of each item; its score is the human score of the item as
everywhere else (the raters' mean).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .human import HumanScores, is_itself
from .meta import acc_eq, pairwise_accuracy, segment_matrix, soft_pairwise_accuracy
from .policy import CI_RESAMPLES, SEED
from .wmt25 import CRITICAL_BELOW, CRITICAL_SCALES, criticality_f1, pdp, span_prf

#: the sentinel's name
SENTINEL = "sentinel:length"
#: the roles of a row
METRIC, SENTINEL_ROLE, CEILING = "metric", "sentinel", "human ceiling"
#: the keys of a row, in the order a table shows them
MEASURES = ("pairwise_accuracy", "spa", "acc_eq", "pdp", "span_precision", "span_recall", "span_f1", "criticality_f1")


@dataclass(frozen=True)
class Rating:
    """One rating of one item: its score and the spans it marked (``[start, end)`` into the system's line)."""

    score: float
    spans: tuple = ()


@dataclass(frozen=True)
class Ratings:
    """One human score type's ratings item by item: ``first`` the first rating of every rated item, ``second``
    the second rating of the items rated at least twice (system -> line -> :class:`Rating`)."""

    kind: str
    first: dict[str, dict[int, Rating]]
    second: dict[str, dict[int, Rating]] = field(default_factory=dict)


@dataclass(frozen=True)
class MetaRow:
    """One score source against one human score type. A measure is None where it does not apply (no spans, no
    segment-level human scores, a human scale without a critical threshold) and NaN where it is undefined."""

    metric: str
    human: str
    role: str
    systems: int
    items: int
    pairwise_accuracy: float | None = None
    spa: float | None = None
    acc_eq: float | None = None
    acc_eq_epsilon: float | None = None
    pdp: float | None = None
    span_precision: float | None = None
    span_recall: float | None = None
    span_f1: float | None = None
    criticality_f1: float | None = None


class Plain:
    """Segment scores (and spans) as the measures read a metric's result: ``scores``, ``sentence_scores``,
    ``higher_is_better``, ``spans``."""

    def __init__(self, seg: Mapping[str, np.ndarray], spans: Mapping[str, list] | None = None, higher: bool = True):
        self._seg = {s: np.asarray(v, dtype=np.float64) for s, v in seg.items()}
        self._spans = dict(spans or {})
        self.higher_is_better = higher
        with np.errstate(invalid="ignore"):
            self.scores = {
                s: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for s, v in self._seg.items()
            }

    def sentence_scores(self, system: str) -> np.ndarray:
        return self._seg[system]

    def spans(self, system: str):
        return self._spans.get(system)


def sentinel(systems: Mapping[str, Sequence[str]]) -> Plain:
    """The candidate-only sentinel: each line's length in characters."""
    return Plain({s: np.array([len(t) for t in lines], dtype=np.float64) for s, lines in systems.items()})


def meta_row(
    name: str, role: str, r, kind: str, human: HumanScores, systems: Mapping[str, Sequence[str]], ratings=None,
    n_boot: int = CI_RESAMPLES, seed: int = SEED,
) -> MetaRow:  # fmt: skip
    """Every measure of one score source ``r`` against the human score type ``kind``; ``systems`` the candidates'
    lines (for the span F1's line lengths), ``ratings`` the :class:`Ratings` of that type (for the span F1)."""
    out: dict = {}
    by_sys = human.system.get(kind)
    if by_sys:
        names = [s for s in r.scores if s in by_sys and np.isfinite(r.scores[s])]
        out["pairwise_accuracy"] = pairwise_accuracy({s: r.scores[s] for s in names}, by_sys)[0]
    seg = human.segment.get(kind)
    n_sys = len(by_sys or {})
    items = 0
    if seg:
        n_lines = len(next(iter(systems.values())))
        m, h, names = segment_matrix(r, seg, n_lines)
        h = np.where(np.isfinite(m), h, np.nan)  # a line the source gave no score is left out, for it alone
        n_sys = len(names)
        rated = np.isfinite(h)
        items = int(rated.sum())
        eq = acc_eq(np.where(rated, m, 0.0), h)
        sign = 1.0 if r.higher_is_better else -1.0
        out.update(acc_eq=eq.acc, acc_eq_epsilon=eq.epsilon, pdp=pdp(m, h)[0])
        out["spa"] = soft_pairwise_accuracy(sign * m, h, n=n_boot, seed=seed)[0]
        if kind.split("-", 1)[0].upper() in CRITICAL_SCALES:  # segment-major order: line, then system
            out["criticality_f1"] = criticality_f1(m.T[rated.T], h.T[rated.T], CRITICAL_BELOW)
        marked = {s: r.spans(s) for s in names}
        if ratings is not None and any(v is not None for v in marked.values()):
            gold, pred, lengths = [], [], []
            for line, k in zip(*np.nonzero(rated.T), strict=True):
                s = names[k]
                first = ratings.first.get(s, {}).get(int(line))
                if first is None:
                    continue
                gold.append(first.spans)
                pred.append(marked[s][line] if marked[s] is not None else ())
                lengths.append(len(systems[s][line]))
            if gold:
                out["span_precision"], out["span_recall"], out["span_f1"] = span_prf(gold, pred, lengths)
    return MetaRow(name, kind, role, n_sys, items, **out)


def ceiling_of(ratings: Ratings, n: int) -> tuple[Plain, HumanScores] | None:
    """The second ratings as a score source, and the first ratings of the same items as the human side; None
    where no item was rated twice (``n`` the set's lines)."""
    if not any(ratings.second.values()):
        return None
    seg, spans, first_seg, first_sys = {}, {}, {}, {}
    for s, lines in ratings.second.items():
        if not lines:
            continue
        v = np.full(n, np.nan)
        marks: list = [()] * n
        for line, rating in lines.items():
            v[line] = rating.score
            marks[line] = rating.spans
        seg[s], spans[s] = v, marks
        first_seg[s] = {line: ratings.first[s][line].score for line in lines}
        first_sys[s] = float(np.mean(list(first_seg[s].values())))
    return Plain(seg, spans), HumanScores({ratings.kind: first_sys}, {ratings.kind: first_seg})


def meta_evaluation(
    results: Mapping, human: HumanScores, systems: Mapping[str, Sequence[str]],
    ratings: Mapping[str, Ratings] | None = None, n_boot: int = CI_RESAMPLES, seed: int = SEED,
) -> list[MetaRow]:  # fmt: skip
    """Every score source of ``results`` against every human score type, then the sentinel's row, then the human
    ceiling's where an item was rated twice; by human score type."""
    ratings = dict(ratings or {})
    rows = []
    kinds = list(dict.fromkeys([*human.segment, *human.system]))
    n_lines = len(next(iter(systems.values())))
    for kind in kinds:
        for name, r in results.items():
            if not is_itself(name, kind):
                rows.append(meta_row(name, METRIC, r, kind, human, systems, ratings.get(kind), n_boot, seed))
        rows.append(meta_row(SENTINEL, SENTINEL_ROLE, sentinel(systems), kind, human, systems, None, n_boot, seed))
        if kind in ratings and (pair := ceiling_of(ratings[kind], n_lines)) is not None:
            second, first = pair
            label = f"human:{kind} (second of 2 raters)"
            rows.append(meta_row(label, CEILING, second, kind, first, systems, ratings[kind], n_boot, seed))
    return rows


def to_dict(rows: Sequence[MetaRow]) -> list[dict]:
    """The rows for ``analyze --format json`` (``meta_evaluation``)."""
    return [dataclasses.asdict(r) for r in rows]

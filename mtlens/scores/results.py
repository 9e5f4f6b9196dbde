"""One result for every source of scores (issue 59): a computed metric's statistics and scores
(:class:`MetricResult`), and a source's segment scores with what came with them (:class:`ImportedScores`: a file, a
checkpoint, an LLM judge, human ratings). The analyses, the exports and the faces read these types without importing
the floors that make them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .spans import Span


class Scorer(Protocol):
    """What a result needs of the metric that computed it (:class:`mtlens.metrics.base.Metric` is one)."""

    name: str
    higher_is_better: bool

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray: ...

    def __getattr__(self, name: str) -> Any: ...


@dataclass(frozen=True)
class MetricResult:
    """One metric's results for every system of a corpus.

    Attributes:
        metric: the metric's name (``bleu``, ``chrf``, ...).
        signature: its reproducibility signature.
        higher_is_better: False for error rates.
        stats: system -> per-segment statistics, shape (n_lines, n_stats).
        scores: system -> corpus score (0-100).
        details: system -> numbers behind the score (precisions, brevity penalty, ...).
        scorer: the metric object that computed them (:class:`mtlens.metrics.base.Metric`: for sentence scores and
            resampling).
    """

    metric: str
    signature: str
    higher_is_better: bool
    stats: dict[str, np.ndarray]
    scores: dict[str, float]
    details: dict[str, dict]
    scorer: Scorer = field(repr=False)

    def sentence_scores(self, system: str) -> np.ndarray:
        """One score per line of ``system`` (BLEU-family scores use effective order)."""
        return self.scorer.sentence_scores(self.stats[system])

    def spans(self, system: str) -> list[list[Span]] | None:
        """The spans its source marked on each line of ``system`` (a check's failures, a glossary's missed terms,
        xCOMET's or a judge's errors), or None for a source that marks none."""
        imported = getattr(self.scorer, "imported", None)
        found = imported.spans.get(system) if imported is not None else None
        return found or None


@dataclass(frozen=True)
class ImportedScores:
    """One metric's segment scores from a file.

    Attributes:
        name: the metric's name (``comet``, ``metricx``, ``xcomet``...).
        higher_is_better: False for MetricX (an error score).
        scores: system -> one float per line.
        source: the file it came from.
        spans: system -> per line, xCOMET error spans (empty when the file has none).
        notes: what was done with the file (ignored systems, repaired offsets).
        model: for scores mtlens computed with a registered checkpoint (:mod:`mtlens.neural.models`), the
            signature's model fields (name, digest, kind); empty for a file.
        weights: system -> a weight per line, for a system score that is not the plain mean of the scored
            lines (ESA's mean of per-domain means: :func:`mtlens.readers.esa_set.domain_weights`); None: the mean.
        mean: what the system score is the mean of, for the signature (``segments`` or ``domains``).
        categories: system -> ``(category, severity)`` -> the errors named there, placed or not (an LLM judge's);
            empty for a source without categories.
        rated: system -> the lines whose errors ``categories`` counts.
        usage: system -> what its scores cost where a paid model made them (an LLM judge's ``prompt_tokens``,
            ``completion_tokens``, ``cost_usd``: None without prices); the score tables and JSON show it.
        reference_scores: reference -> its segment scores, where a reference-free metric scored the references as
            systems (an LLM judge's): what tells whether the reference is the problem.
        scale: the system score is ``scale`` times the (weighted) mean of the segment scores: 100 for a check (a line
            fails (1) or passes (0); the system score is the percent of lines failing) and for a term success rate.
    """

    name: str
    higher_is_better: bool
    scores: dict[str, np.ndarray]
    source: str
    spans: dict[str, list[list[Span]]] = field(default_factory=dict, repr=False)
    notes: tuple[str, ...] = ()
    model: tuple[tuple[str, str], ...] = ()
    weights: dict[str, np.ndarray] | None = field(default=None, repr=False)
    mean: str = "segments"
    categories: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict, repr=False)
    rated: dict[str, int] = field(default_factory=dict, repr=False)
    usage: dict[str, dict] = field(default_factory=dict, repr=False)
    reference_scores: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    scale: float = 1.0

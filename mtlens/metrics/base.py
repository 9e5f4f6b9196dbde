"""The metric interface and signatures (after sacrebleu's ``metrics/base.py``).

A metric turns each segment into a row of sufficient statistics (an int64 or
float64 row); a corpus score is a function of the column sums. Statistics are
2-D numpy arrays of shape (n_segments, n_stats), and :meth:`Metric.score_from_totals`
is vectorised over any leading axes, so corpus scores, sentence scores and
resampled scores all come from the same arrays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..version import __version__


@dataclass(frozen=True)
class Signature:
    """A reproducibility signature: ordered ``key:value`` fields joined by ``|``.

    The fields and their order follow sacrebleu's signatures (``nrefs`` first,
    ``version`` last); ``version`` names mtlens, e.g. ``version:mtlens-0.1.0``.
    """

    fields: tuple[tuple[str, str], ...]

    def format(self) -> str:
        pairs = [f"{k}:{v}" for k, v in self.fields]
        pairs.append(f"version:mtlens-{__version__}")
        return "|".join(pairs)

    def __str__(self) -> str:
        return self.format()


class Metric(ABC):
    """Base class of every metric.

    Subclasses define :attr:`name` (the key used on the command line and in
    exports), :meth:`statistics`, :meth:`score_from_totals`, :meth:`signature`
    and :meth:`details`.
    """

    name: str = ""
    #: larger is better (False for error rates such as TER)
    higher_is_better: bool = True

    @abstractmethod
    def statistics(
        self, references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]]
    ) -> list[np.ndarray]:
        """Per-segment statistics of each hypothesis stream.

        Args:
            references: reference *streams*: ``references[k][i]`` is line ``i`` of
                reference ``k`` (every stream as long as the hypotheses).
            hypotheses: system streams: ``hypotheses[s][i]`` is line ``i`` of system ``s``.

        Returns:
            One array of shape (n_segments, n_stats) per hypothesis stream.
        """

    @abstractmethod
    def score_from_totals(self, totals: np.ndarray) -> np.ndarray:
        """Scores from summed statistics, vectorised over leading axes (..., n_stats) -> (...)."""

    @abstractmethod
    def signature(self, n_refs: int) -> Signature:
        """The signature of this metric's settings for ``n_refs`` references."""

    def details(self, totals: np.ndarray) -> dict:
        """Extra, human-readable numbers behind a corpus score (JSON-serialisable)."""
        return {}

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """One score per segment (the corpus formula applied to each row)."""
        return self.score_from_totals(stats)

    def corpus_score(self, stats: np.ndarray) -> float:
        """The corpus score of one system's statistics."""
        return float(self.score_from_totals(stats.sum(axis=0)))

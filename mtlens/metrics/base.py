"""The metric interface and signatures (after sacrebleu's ``metrics/base.py``).

A metric turns each segment into a row of sufficient statistics (an int64 or
float64 row); a corpus score is a function of the column sums. Statistics are
2-D numpy arrays of shape (n_segments, n_stats), and :meth:`Metric.score_from_totals`
is vectorised over any leading axes, so corpus scores, sentence scores and
resampled scores all come from the same arrays.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..version import __version__

#: characters (summed over all streams) per block of segments scored at once
BLOCK_CHARS = 200_000


def line_chars(streams: Sequence[Sequence[str]]) -> np.ndarray:
    """Characters of each line summed over all streams (streams of equal length)."""
    n = len(streams[0]) if streams else 0
    chars = np.zeros(n, dtype=np.int64)
    for s in streams:
        chars += np.fromiter(map(len, s), dtype=np.int64, count=n)
    return chars


def segment_blocks(streams: Sequence[Sequence[str]], max_chars: int, chars: np.ndarray | None = None) -> list[int]:
    """Boundaries ``[0, b1, ..., n]`` of consecutive segment blocks of at most ``max_chars``
    characters over all streams, each line counting one more per stream (a single longer segment
    forms a block of its own). ``chars``: :func:`line_chars` of the streams, if already known."""
    if not streams:
        return [0]
    n = len(streams[0])
    cost = (line_chars(streams) if chars is None else chars) + len(streams)
    bounds = [0]
    acc = 0
    for i, c in enumerate(cost.tolist()):
        if acc and acc + c > max_chars:
            bounds.append(i)
            acc = 0
        acc += c
    bounds.append(n)
    return bounds


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

    #: the key used on the command line, in JSON, CSV and the store
    name: str = ""
    #: the display name in every page and export ("chrF++"); ``latex``: the same for LaTeX tables
    label: str = ""
    latex: str = ""
    #: larger is better (False for error rates such as TER)
    higher_is_better: bool = True
    #: a meaningful score per line (False for NIST, whose information weights are corpus-wide)
    sentence_level: bool = True
    #: worth computing after the others in a page (the Rankings page shows the fast columns first)
    slow: bool = False
    #: the module of its compiled kernel (compiled by the dashboard's warm-up, :mod:`mtlens.runtime.kernels`)
    kernel: str | None = None
    #: most of its work is one compiled call that releases the interpreter lock (its kernel's): a threaded process
    #: (the dashboard's server) shares a job with it between its own threads, below the pool's threshold
    #: (:func:`mtlens.runtime.engine.map_tasks`)
    releases_gil: bool = False
    #: modules its scoring imports on first use, loaded ahead by the dashboard's worker (:func:`mtlens.runtime.engine.start_pool`)
    modules: tuple[str, ...] = ()
    #: decimals shown in pages and human-read exports (sacrebleu prints BLEU, chrF and TER with one);
    #: CSV and JSON keep full precision (:func:`mtlens.exports.numbers.decimals`)
    decimals: int = 1
    #: the range of its scores (None: unbounded on that side)
    score_range: tuple[float | None, float | None] = (0.0, 100.0)
    #: constructor parameter -> the :class:`~mtlens.core.options.Options` field it is built from
    #: (:meth:`from_options`); the constructor's defaults are those fields' defaults
    #: (:data:`mtlens.core.options.DEFAULTS`), so each option and its default are written once
    params: dict[str, str] = {}
    #: the Options fields it reads (its results' cache key: :func:`mtlens.metrics.options_key`); by default
    #: the fields of :attr:`params`
    option_fields: tuple[str, ...] = ()
    #: of those, the fields that change only the score computed from the statistics (smoothing), never
    #: the statistics: stored statistics are keyed without them (:func:`mtlens.metrics.stats_key`), so
    #: changing one re-scores nothing
    score_only_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "params" in vars(cls) and "option_fields" not in vars(cls):
            cls.option_fields = tuple(cls.params.values())

    def kernel_needed(self, pairs: int) -> bool:
        """Whether a job of ``pairs`` (hypothesis line, reference line) pairs needs the compiled kernel,
        which is then prepared before scoring (:mod:`mtlens.runtime.engine`); otherwise the metric loads it
        itself if the data turns out to need it."""
        return self.kernel is not None

    def check_lines(self, references: Sequence[Sequence[str]], systems: dict[str, Sequence[str]]) -> None:
        """Refuse, in one sentence (:class:`~mtlens.core.errors.InputError`), lines this metric cannot score
        within its bounds (docs/security.md); called before any statistics are computed. Most metrics
        take time and memory linear in a line's length and accept every line."""
        return None

    @classmethod
    def from_options(cls, options) -> Metric:
        """Build the metric from :class:`~mtlens.core.options.Options`: each constructor parameter of
        :attr:`params` from its field."""
        if not cls.params:
            raise NotImplementedError(f"{cls.__name__} is not built from options")
        return cls(**{param: getattr(options, name) for param, name in cls.params.items()})

    #: statistics computed block by block (False: the whole corpus at once, e.g. NIST's weights)
    blockwise: bool = True
    #: the relative cost of a character of text (shares work between processes; word BLEU is 1, measured
    #: on en-de in one process: bleu-c 1.5, chrF++ 1.3, NIST 1.2, TER 2.5, chrF and tBLEU about 1)
    cost_per_char: float = 1.0
    #: (name, options) when built by :func:`mtlens.metrics.make_metric` (a helper process rebuilds it)
    spec: tuple[str, dict] | None = None

    def statistics(self, references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Per-segment statistics of each hypothesis stream.

        The corpus is processed in blocks of consecutive segments (about
        :data:`BLOCK_CHARS` characters over all streams each), so that memory
        stays bounded however long the corpus is; segments are independent, so
        the result does not depend on the blocking (nor on which process scores
        which block: :func:`mtlens.runtime.tasks.statistics_many` shares them out).

        Args:
            references: reference *streams*: ``references[k][i]`` is line ``i`` of
                reference ``k`` (every stream as long as the hypotheses).
            hypotheses: system streams: ``hypotheses[s][i]`` is line ``i`` of system ``s``.

        Returns:
            One array of shape (n_segments, n_stats) per hypothesis stream.
        """
        streams = [*references, *hypotheses]
        n = len(streams[0]) if streams else 0
        if any(len(s) != n for s in streams):
            raise ValueError("all reference and hypothesis streams must have the same number of lines")
        if not self.blockwise:
            return self.block_statistics(references, hypotheses)
        bounds = segment_blocks(streams, BLOCK_CHARS)
        parts = [
            self.block_statistics([r[a:b] for r in references], [h[a:b] for h in hypotheses])
            for a, b in itertools.pairwise(bounds)
        ]
        if len(parts) == 1:
            return parts[0]
        return [np.concatenate([p[i] for p in parts]) for i in range(len(hypotheses))]

    @abstractmethod
    def block_statistics(
        self, references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]]
    ) -> list[np.ndarray]:
        """:meth:`statistics` for one block of segments (all streams at once)."""

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

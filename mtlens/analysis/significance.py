"""Significance tests over per-segment statistics: paired bootstrap and approximate randomisation.

Paired bootstrap resampling (Koehn, 2004) and paired approximate randomisation
(Riezler & Maxwell, 2005), for all pairs of systems (or each system against a
baseline), on any metric's statistics arrays. Nothing is re-tokenized: a
resample is a matrix of segment counts, and all resamples of a system are one
matrix product ``counts @ stats`` followed by the metric's vectorised
``score_from_totals`` (no Python loop per resample).

Decisions (see README):
- p-values count resamples *at least* as extreme as the observed difference
  (``>=``), so a system compared with itself gets p = 1; with
  ``sacrebleu_compatible=True`` the strict ``>`` and sacrebleu's own formulas,
  generator calls and seed handling are used instead.
- Paired bootstrap p-value: ``(#{k: |d_k - mean(d)| >= |d_obs|} + 1) / (n + 1)``
  with ``d_k`` the signed difference in resample k.
- Approximate randomisation: each segment's statistics are swapped between the
  two systems with probability 1/2; ``p = (#{k: |d_k| >= |d_obs|} + 1) / (n + 1)``.
- 95% intervals: the 2.5 and 97.5 percentiles of the bootstrap scores, reported
  as mean +- half-width.
- Holm's step-down correction over all pairs compared for a metric.
- Clusters: systems in score order; a boundary between two adjacent ranks only
  where every system above it is significantly better (Holm-corrected p < alpha)
  than every system below it. Members of a cluster cannot be told apart by
  that rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ..core.errors import InputError
from ..runtime.scoring import MetricResult
from ..version import __version__
from .policy import (
    ALPHA,
    CI_RESAMPLES,
    DEFAULT_SAMPLES,
    MAX_DRAWS,
    MIN_TEST_LINES,
    SEED,
    check_test_settings,
    resample_count,
)

#: resamples x segments per matrix product (bounds memory)
_CHUNK_CELLS = 20_000_000

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class SystemCI:
    """A system's score with its bootstrap confidence interval (95%)."""

    score: float
    mean: float
    ci: float
    low: float
    high: float


@dataclass(frozen=True)
class PairResult:
    """One paired test. ``delta = score(a) - score(b)``."""

    a: str
    b: str
    metric: str
    delta: float
    p_value: float
    p_holm: float
    significant: bool
    #: the smallest |delta| this test set detects with 80% power at Holm's strictest level
    #: (:func:`mtlens.analysis.power.min_detectable_delta`, from the bootstrap's standard error of the delta)
    min_detectable_delta: float = math.nan
    #: the bootstrap's standard deviation of the resampled deltas (the delta's standard error)
    se: float = math.nan


@dataclass(frozen=True)
class Comparison:
    """All tests for one metric."""

    metric: str
    test: str
    n: int
    seed: int | None
    alpha: float
    sacrebleu_compatible: bool
    metric_signature: str
    systems: dict[str, SystemCI]
    pairs: list[PairResult]
    clusters: list[list[str]]
    ranking: list[str] = field(default_factory=list)
    #: sentences about the test's power to find anything (the resamples for the number of pairs)
    notes: tuple[str, ...] = ()
    #: what is resampled: ``segments`` (sacrebleu's way) or ``documents`` (whole documents, issue 35)
    resample: str = "segments"

    @property
    def signature(self) -> str:
        mode = "sacrebleu" if self.sacrebleu_compatible else "mtlens"
        seed = "none" if self.seed is None else str(self.seed)
        unit = "" if self.resample == "segments" else f"|resample:{self.resample}"
        return (
            f"test:{self.test}|n:{self.n}|seed:{seed}|alpha:{self.alpha}|correction:holm{unit}|mode:{mode}"
            f"|version:mtlens-{__version__}"
        )

    def p_matrix(self, adjusted: bool = True) -> tuple[list[str], np.ndarray]:
        """Systems in rank order and the symmetric matrix of (Holm) p-values (NaN on the diagonal
        and for pairs not tested)."""
        names = self.ranking
        pos = {n: i for i, n in enumerate(names)}
        m = np.full((len(names), len(names)), np.nan)
        for p in self.pairs:
            v = p.p_holm if adjusted else p.p_value
            m[pos[p.a], pos[p.b]] = m[pos[p.b], pos[p.a]] = v
        return names, m


# --------------------------------------------------------------------------- resampling
def bootstrap_indices(n_segments: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Segment indices of each bootstrap resample (sacrebleu's call: ``rng.choice`` with replacement)."""
    return rng.choice(n_segments, size=(n_samples, n_segments), replace=True)


def index_counts(idx: np.ndarray, n_segments: int) -> np.ndarray:
    """How often each segment is drawn in each resample: (n_samples, n_segments) float64."""
    rows = idx.shape[0]
    flat = (idx + (np.arange(rows) * n_segments)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n_segments).reshape(rows, n_segments).astype(np.float64)


def resampled_totals(stats: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Totals of every resample: ``counts @ stats`` (exact for integer statistics below 2**53)."""
    return counts @ np.asarray(stats, dtype=np.float64)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values.

    Example:
        >>> [round(float(x), 3) for x in holm([0.01, 0.04, 0.03])]
        [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def clusters_from_pairs(ranking: Sequence[str], significant: Callable[[str, str], bool]) -> list[list[str]]:
    """Split ``ranking`` (best first) where everything above is significantly better than everything below."""
    out: list[list[str]] = []
    current: list[str] = []
    for i, name in enumerate(ranking):
        current.append(name)
        above, below = ranking[: i + 1], ranking[i + 1 :]
        if below and all(significant(a, b) for a in above for b in below):
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _sacrebleu_ci(scores: np.ndarray) -> tuple[float, float, float, float]:
    s = np.sort(scores)
    n = len(s)
    lo_i = n // 40
    lo, hi = s[lo_i], s[n - lo_i - 1]
    return float(s.mean()), float(0.5 * (hi - lo)), float(lo), float(hi)


def _percentile_ci(scores: np.ndarray) -> tuple[float, float, float, float]:
    lo, hi = np.percentile(scores, [2.5, 97.5])
    return float(scores.mean()), float(0.5 * (hi - lo)), float(lo), float(hi)


def _chunks(n_samples: int, n_segments: int):
    step = max(1, _CHUNK_CELLS // max(n_segments, 1))
    for a in range(0, n_samples, step):
        yield a, min(n_samples, a + step)


def _unit_counts(idx: np.ndarray, n_units: int, units: np.ndarray | None) -> np.ndarray:
    """How often each segment is drawn in each resample of ``idx`` (drawn units: segments, or documents when
    ``units`` gives each segment's document number; a document drawn k times counts each of its segments k
    times)."""
    counts = index_counts(idx, n_units)
    return counts if units is None else counts[:, units]


def _bootstrap_scores(
    result: MetricResult, names, idx, compat: bool, progress, label, units: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every system's score in each resample. ``idx``: the drawn units of each resample (segments, or
    documents when ``units`` gives each segment's document number): a segment counts as often as its
    unit was drawn."""
    n_units = idx.shape[1]
    n_seg = n_units if units is None else len(units)
    scorer = result.scorer
    out = {n: np.empty(idx.shape[0]) for n in names}
    if not names:
        return out
    k = result.stats[names[0]].shape[1]
    # every system's statistics side by side: one matrix product per chunk serves all systems
    dtype = np.float32 if compat else np.float64  # sacrebleu sums float32 statistics
    stacked = np.hstack([np.asarray(result.stats[name], dtype=dtype) for name in names])
    for a, b in _chunks(idx.shape[0], n_seg):
        totals_all = (_unit_counts(idx[a:b], n_units, units).astype(dtype) @ stacked).astype(np.float64)
        for j, name in enumerate(names):
            out[name][a:b] = scorer.score_from_totals(totals_all[:, j * k : (j + 1) * k])
        if progress:
            progress(b / idx.shape[0], f"{label}: bootstrap {b}/{idx.shape[0]}")
    return out


# --------------------------------------------------------------------------- p-values
def bootstrap_p_value(d: np.ndarray, observed: float) -> float:
    """Two-sided paired bootstrap p-value from the resampled differences ``d``:
    ``p = (#{k: |d_k - mean(d)| >= |observed|} + 1) / (n + 1)`` (so identical systems get p = 1)."""
    d = np.asarray(d, dtype=np.float64)
    c = int(np.sum(np.abs(d - d.mean()) >= abs(observed)))
    return (c + 1) / (len(d) + 1)


def _bootstrap_pair_p(result: MetricResult, pairs, boot: dict[str, np.ndarray], n: int, compat: bool) -> list[float]:
    """Paired bootstrap (Koehn 2004) for each pair from the systems' resampled scores."""
    out = []
    for a, b in pairs:
        observed = result.scores[a] - result.scores[b]
        if compat:  # sacrebleu: |d| centred, strict >, a = system, b = baseline
            d = np.abs(boot[a] - boot[b])
            out.append((int(np.sum((d - d.mean()) > abs(observed))) + 1) / (n + 1))
        else:
            out.append(bootstrap_p_value(boot[a] - boot[b], observed))
    return out


def _ar_pair_p(
    result: MetricResult,
    pairs,
    n,
    n_seg,
    seed,
    baseline,
    compat: bool,
    progress,
    units: np.ndarray | None = None,
    n_units: int | None = None,
) -> list[float]:
    """Paired approximate randomisation (Riezler & Maxwell 2005): each segment's statistics are
    swapped between the two systems with probability 1/2 (the same swaps for every pair);
    ``p = (#{k: |d_k| >= |d_obs|} + 1) / (n + 1)`` (sacrebleu-compatible: strict ``>``)."""
    scorer = result.scorer
    rng = np.random.default_rng(seed)
    sel = rng.integers(2, size=(n, n_units or n_seg), dtype=bool)
    if units is not None:
        sel = sel[:, units]  # a document's segments are swapped together
    prepared = []
    for a, b in pairs:
        # sacrebleu swaps with the baseline as its first system
        first, second = (b, a) if (compat and baseline is not None) else (a, b)
        sa, sb = result.stats[first].astype(np.float64), result.stats[second].astype(np.float64)
        prepared.append(
            (sa - sb, sb.sum(axis=0), sa.sum(axis=0) + sb.sum(axis=0), abs(result.scores[a] - result.scores[b]))
        )
    counts = [0] * len(pairs)
    k = prepared[0][0].shape[1] if prepared else 0
    # every pair's differences side by side: one matrix product per chunk serves all the pairs
    diffs = np.hstack([p[0] for p in prepared]) if prepared else np.zeros((n_seg, 0))
    for lo, hi in _chunks(n, n_seg):
        shuffled = sel[lo:hi].astype(np.float64) @ diffs  # the same swaps for every pair
        for i, (_, col_second, col_both, observed) in enumerate(prepared):
            shuf_a = shuffled[:, i * k : (i + 1) * k] + col_second  # the first system's totals
            d = np.abs(scorer.score_from_totals(shuf_a) - scorer.score_from_totals(col_both - shuf_a))
            counts[i] += int(np.sum(d > observed)) if compat else int(np.sum(d >= observed))
        if progress:
            progress(hi / n, f"{result.metric}: randomisation {hi}/{n} trials")
    return [(c + 1) / (n + 1) for c in counts]


def compare(
    result: MetricResult,
    test: str = "bootstrap",
    n: int | None = None,
    seed: int | None = SEED,
    baseline: str | None = None,
    alpha: float = ALPHA,
    sacrebleu_compatible: bool = False,
    n_ci: int = CI_RESAMPLES,
    progress: Progress | None = None,
    documents: Sequence[str] | None = None,
) -> Comparison:
    """Paired tests between systems of one metric.

    Args:
        result: a metric's results (its per-segment statistics are resampled).
        test: ``"bootstrap"`` or ``"ar"`` (approximate randomisation).
        n: resamples / trials (default: 1000 / 10000, raised to :func:`resamples_needed` for the number
            of pairs; a number given is kept, with a note when it is too few for any pair to be significant).
        seed: the generator's seed (0 is a seed; None draws from the OS, not reproducible).
        baseline: compare each system with this one only; default: all pairs.
        alpha: significance level (after Holm's correction).
        sacrebleu_compatible: reproduce sacrebleu's sampling calls, float32 sums,
            p-value and interval formulas (and its "seed 0 means random").
        n_ci: bootstrap resamples for the confidence intervals when ``test="ar"``.
        progress: optional callback ``(fraction, message)``.
        documents: every segment's document id: whole documents are resampled (bootstrap) or swapped
            (randomisation) instead of segments, since the segments of one document are correlated
            (a cluster bootstrap; docs/decisions.md, "Documents and domains"). With one segment per
            document the result is the segment-level one, bit for bit.

    Returns:
        A :class:`Comparison`.

    Example:
        >>> from mtlens import Corpus, score
        >>> c = Corpus.build({"r": ["a b c d", "e f g h"] * 15}, {"A": ["a b c d", "e f g x"] * 15, "B": ["a x c d", "e f g x"] * 15})
        >>> cmp = compare(score(c, "bleu", tokenize="none")["bleu"], n=200)
        >>> cmp.ranking, cmp.pairs[0].delta > 0
        (['A', 'B'], True)
    """
    if test not in DEFAULT_SAMPLES:
        raise InputError(f"unknown test '{test}'; choose bootstrap or ar")
    check_test_settings(DEFAULT_SAMPLES[test] if n is None else int(n), seed, alpha)
    names = list(result.scores)
    if baseline is not None and baseline not in names:
        raise InputError(f"baseline '{baseline}' is not one of the systems: {', '.join(names)}")
    ranking = sorted(names, key=lambda s: result.scores[s], reverse=result.higher_is_better)
    n_seg = len(next(iter(result.stats.values())))
    n_pairs = len(names) * (len(names) - 1) // 2 if baseline is None else len(names) - 1
    n, notes = resample_count(test, None if n is None else int(n), n_pairs, n_seg, alpha)
    _require_lines(n_seg)
    if max(n, n_ci) * n_seg > MAX_DRAWS:
        raise InputError(
            f"--n {n} resamples of {n_seg} lines would draw {n * n_seg:,} segment indices; "
            f"the limit is {MAX_DRAWS:,}: use at most --n {MAX_DRAWS // n_seg}"
        )
    rng_seed = (seed if seed else None) if sacrebleu_compatible else seed
    if documents is not None and sacrebleu_compatible:
        raise InputError("sacrebleu resamples segments only: leave out --sacrebleu-compatible to resample documents")
    units, n_units = document_units(documents, n_seg)

    if baseline is None:
        pairs = list(combinations(ranking, 2))
    else:
        pairs = [(s, baseline) for s in ranking if s != baseline]

    # bootstrap scores: the intervals, and the paired bootstrap test itself
    n_boot = n if test == "bootstrap" else n_ci
    boot_idx = bootstrap_indices(n_units, n_boot, np.random.default_rng(rng_seed))
    boot = _bootstrap_scores(
        result, names, boot_idx, sacrebleu_compatible, progress if test == "bootstrap" else None, result.metric, units
    )
    ci_fn = _sacrebleu_ci if sacrebleu_compatible else _percentile_ci
    systems = {}
    for s in names:
        mean, half, lo, hi = ci_fn(boot[s])
        systems[s] = SystemCI(result.scores[s], mean, half, lo, hi)

    if test == "bootstrap":
        raw = _bootstrap_pair_p(result, pairs, boot, n, sacrebleu_compatible)
    else:
        raw = _ar_pair_p(result, pairs, n, n_seg, rng_seed, baseline, sacrebleu_compatible, progress, units, n_units)
    adjusted = holm(raw)
    from .power import min_detectable_delta

    ses = [float(np.std(boot[a] - boot[b], ddof=1)) for a, b in pairs]
    pair_results = [
        PairResult(
            a,
            b,
            result.metric,
            result.scores[a] - result.scores[b],
            float(p),
            float(ph),
            bool(ph < alpha),
            min_detectable_delta(se, alpha, len(pairs)),
            se,
        )
        for (a, b), p, ph, se in zip(pairs, raw, adjusted, ses, strict=True)
    ]
    if units is not None and not sacrebleu_compatible:
        notes += _wider_note(result, names, systems, n_seg, n_boot, rng_seed)
    sig = {frozenset((p.a, p.b)): p.significant for p in pair_results}

    def better(x: str, y: str) -> bool:
        return sig.get(frozenset((x, y)), False)

    clusters = clusters_from_pairs(ranking, better) if baseline is None else []
    return Comparison(
        metric=result.metric,
        test=test,
        n=n,
        seed=seed,
        alpha=alpha,
        sacrebleu_compatible=sacrebleu_compatible,
        metric_signature=result.signature,
        systems=systems,
        pairs=pair_results,
        clusters=clusters,
        ranking=ranking,
        notes=tuple(notes),
        resample="segments" if units is None else "documents",
    )


def _require_lines(n_seg: int) -> None:
    """No test is claimed on fewer than MIN_TEST_LINES lines (docs/decisions.md, "Significance")."""
    if n_seg < MIN_TEST_LINES:
        raise InputError(
            f"significance tests need at least {MIN_TEST_LINES} lines; this test set has {n_seg} "
            "(a resampling test over a handful of lines has no variance to measure)"
        )


def document_units(documents: Sequence[str] | None, n_seg: int) -> tuple[np.ndarray | None, int]:
    """What a resample draws: ``(None, n_seg)`` for segments, or every segment's document as a number and
    the number of documents (numbered in order of appearance, so one segment per document in order gives
    the segments' own numbers); at least MIN_TEST_LINES documents."""
    if documents is None:
        return None, n_seg
    if len(documents) != n_seg:
        raise InputError(f"the document ids have {len(documents)} lines, the test set {n_seg}")
    order = {d: k for k, d in enumerate(dict.fromkeys(documents))}
    if len(order) < MIN_TEST_LINES:
        raise InputError(
            f"document-level tests need at least {MIN_TEST_LINES} documents; this test set has {len(order)}"
        )
    return np.fromiter((order[d] for d in documents), dtype=np.int64, count=n_seg), len(order)


#: the document-level interval is called "much wider" from this ratio of widths on
WIDER = 1.5


def _wider_note(result: MetricResult, names, systems, n_seg: int, n_boot: int, seed) -> list[str]:
    """A sentence when the document-level intervals are much wider than the segment-level ones (the
    segments of a document are correlated: a segment-level test would be too optimistic here)."""
    idx = bootstrap_indices(n_seg, n_boot, np.random.default_rng(seed))
    seg = _bootstrap_scores(result, names, idx, False, None, result.metric)
    ratios = []
    for s in names:
        _, half, _, _ = _percentile_ci(seg[s])
        if half > 0:
            ratios.append(systems[s].ci / half)
    if not ratios:
        return []
    ratio = float(np.median(ratios))
    if ratio < WIDER:
        return [f"document-level intervals are {ratio:.1f} times as wide as segment-level ones"]
    return [
        f"document-level intervals are {ratio:.1f} times as wide as segment-level ones: the segments of a "
        "document are correlated, and a segment-level test would claim more than this test set supports"
    ]


@dataclass(frozen=True)
class PairedDelta:
    """One paired bootstrap comparison of ``a`` with ``b``: ``delta = score(a) - score(b)``, its two-sided
    p-value (:func:`bootstrap_p_value`) and the standard deviation ``se`` of the resampled deltas (the
    standard error of the delta, which the power estimate uses)."""

    a: str
    b: str
    delta: float
    p_value: float
    se: float


def paired_deltas(
    result: MetricResult,
    pairs: Sequence[tuple[str, str]],
    n: int,
    seed: int | None = SEED,
    systems=None,
    documents: Sequence[str] | None = None,
) -> tuple[list[PairedDelta], dict[str, SystemCI]]:
    """The paired bootstrap for chosen pairs only (the release gate's one pair, a history's consecutive
    runs), with every system's 95% interval from the same resamples: one draw of ``n`` resamples of the
    segments, as :func:`compare` draws them (same seed, same resamples). ``systems``: the systems to give
    intervals for (default: those in ``pairs``). No correction is applied here: the caller knows its family
    of tests. ``documents``: resample whole documents (as :func:`compare`)."""
    check_test_settings(n, seed)
    names = list(dict.fromkeys([*(systems or []), *(x for pair in pairs for x in pair)]))
    n_seg = len(next(iter(result.stats.values())))
    _require_lines(n_seg)
    if n * n_seg > MAX_DRAWS:
        raise InputError(f"{n:,} resamples of {n_seg:,} lines exceed the limit of {MAX_DRAWS:,} drawn segments")
    units, n_units = document_units(documents, n_seg)
    idx = bootstrap_indices(n_units, n, np.random.default_rng(seed))
    boot = _bootstrap_scores(result, names, idx, False, None, result.metric, units)
    cis = {s: SystemCI(result.scores[s], *_percentile_ci(boot[s])) for s in names}
    out = []
    for a, b in pairs:
        d = boot[a] - boot[b]
        observed = result.scores[a] - result.scores[b]
        out.append(PairedDelta(a, b, observed, bootstrap_p_value(d, observed), float(np.std(d, ddof=1))))
    return out, cis


def paired_bootstrap_p(
    stats_a: np.ndarray,
    stats_b: np.ndarray,
    score_fn: Callable[[np.ndarray], np.ndarray],
    n: int = DEFAULT_SAMPLES["bootstrap"],
    seed: int | None = SEED,
    documents: Sequence[str] | None = None,
) -> tuple[float, float, float]:
    """Paired bootstrap on any per-segment statistics with a vectorised ``score_fn`` (totals -> score).

    Returns (score_a, score_b, p) with the same two-sided rule as :func:`compare`
    (``|d_k - mean(d)| >= |d_obs|``, so identical inputs give p = 1). ``documents``: every segment's
    document id: whole documents are drawn (as :func:`compare` draws them).
    """
    n_seg = len(stats_a)
    if n_seg == 0:
        return float("nan"), float("nan"), float("nan")
    sa = float(score_fn(stats_a.sum(axis=0)))
    sb = float(score_fn(stats_b.sum(axis=0)))
    units, n_units = document_units(documents, n_seg)
    idx = bootstrap_indices(n_units, n, np.random.default_rng(seed))
    d = np.empty(n)
    for lo, hi in _chunks(n, n_seg):
        counts = _unit_counts(idx[lo:hi], n_units, units)
        d[lo:hi] = score_fn(resampled_totals(stats_a, counts)) - score_fn(resampled_totals(stats_b, counts))
    return sa, sb, bootstrap_p_value(d, sa - sb)


def pair_power(
    result: MetricResult,
    a: str,
    b: str,
    alpha: float = ALPHA,
    n: int = CI_RESAMPLES,
    seed: int | None = None,
    documents=None,
):
    """The smallest |B - A| this test set detects for two systems with 80% power at ``alpha`` (one test:
    the Compare two systems page's question), from the paired bootstrap's standard error of their delta
    (:func:`mtlens.analysis.power.min_detectable_delta`)."""
    from .power import min_detectable_delta

    (pd,), _ = paired_deltas(result, [(b, a)], n, SEED if seed is None else seed, documents=documents)
    return min_detectable_delta(pd.se, alpha)

"""Resampling over per-segment statistics: bootstrap draws (of segments, or of whole documents), every system's
score in every resample as one matrix product per chunk, percentile intervals, and the paired bootstrap of chosen
pairs (the release gate's, a history's steps, the buckets and slices of two systems). The tests of all pairs with
Holm's correction and clusters are :mod:`mtlens.analysis.significance`; the settings, :mod:`mtlens.analysis.policy`.

- Paired bootstrap p-value: ``(#{k: |d_k - mean(d)| >= |d_obs|} + 1) / (n + 1)`` with ``d_k`` the signed
  difference in resample k (so identical systems get p = 1).
- 95% intervals: the 2.5 and 97.5 percentiles of the bootstrap scores, reported as mean +- half-width.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from ..scores.results import MetricResult
from .policy import DEFAULT_SAMPLES, MAX_DRAWS, MIN_TEST_LINES, SEED, check_test_settings

#: cells of one chunk's arrays: resamples x segments (the draw counts) and resamples x systems' statistics (the
#: product): 32 MB each in float64. Measured (2 cores, issue 51): 300 systems, 1,000 lines, chrF, 11,959 resamples
#: peaked at 1,278 MB with 20 million cells and one bound; 367 MB now; 14 systems x 3,000 lines took 0.34 s
#: instead of 0.42-0.59 s (smaller products stay in the cache)
CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class SystemCI:
    """A system's score with its bootstrap confidence interval (95%)."""

    score: float
    mean: float
    ci: float
    low: float
    high: float


@dataclass(frozen=True)
class Draws:
    """The drawn units of ``n_samples`` bootstrap resamples of ``n_units`` units, made chunk by chunk when they are
    read (issue 51: 1,000 resamples of 100,000 documents held 800 MB of indices at once; the test's memory is now
    its chunk's). Every pass over the chunks starts the generator again from ``seed``, so every pass, and every
    chunking, reads the same resamples as sacrebleu's one call ``rng.choice(n, size=(n_samples, n))``: numpy's
    generator continues its stream across calls (a test holds the chunked draws equal to the one call)."""

    n_units: int
    n_samples: int
    seed: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_samples, self.n_units)

    def chunks(self, width: int = 0, n_segments: int | None = None):
        """``(a, b, idx)``: resamples ``[a, b)`` and their drawn units, within :func:`chunks`' bounds."""
        rng = np.random.default_rng(self.seed)
        for a, b in chunks(self.n_samples, self.n_units if n_segments is None else n_segments, width):
            yield a, b, rng.choice(self.n_units, size=(b - a, self.n_units), replace=True)


def bootstrap_indices(n_segments: int, n_samples: int, seed: int | None) -> Draws:
    """The units drawn in each bootstrap resample (sacrebleu's call: ``rng.choice`` with replacement, from
    ``default_rng(seed)``), read chunk by chunk; ``seed`` None: a seed drawn from the OS once, so that every pass
    reads the same resamples."""
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(2, np.uint64)[0])
    return Draws(n_segments, n_samples, seed)


def index_counts(idx: np.ndarray, n_segments: int) -> np.ndarray:
    """How often each segment is drawn in each resample: (n_samples, n_segments) float64."""
    rows = idx.shape[0]
    flat = (idx + (np.arange(rows) * n_segments)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n_segments).reshape(rows, n_segments).astype(np.float64)


def resampled_totals(stats: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Totals of every resample: ``counts @ stats`` (exact for integer statistics below 2**53)."""
    return counts @ np.asarray(stats, dtype=np.float64)


def sacrebleu_ci(scores: np.ndarray) -> tuple[float, float, float, float]:
    s = np.sort(scores)
    n = len(s)
    lo_i = n // 40
    lo, hi = s[lo_i], s[n - lo_i - 1]
    return float(s.mean()), float(0.5 * (hi - lo)), float(lo), float(hi)


def percentile_ci(scores: np.ndarray) -> tuple[float, float, float, float]:
    lo, hi = np.percentile(scores, [2.5, 97.5])
    return float(scores.mean()), float(0.5 * (hi - lo)), float(lo), float(hi)


def chunks(n_samples: int, n_segments: int, width: int = 0, multiple: int = 1):
    """Resamples ``[a, b)`` at a time, so that neither the draw counts (resamples x segments) nor the product's
    result (resamples x ``width``: every system's statistics side by side) exceed :data:`CHUNK_CELLS` cells
    (issue 51: with 300 systems one chunk's totals took 500 MB); every chunk but the last a whole ``multiple``."""
    step = max(1, CHUNK_CELLS // max(n_segments, width, 1))
    step = max(multiple, step - step % multiple)
    for a in range(0, n_samples, step):
        yield a, min(n_samples, a + step)


def unit_counts(idx: np.ndarray, n_units: int, units: np.ndarray | None) -> np.ndarray:
    """How often each segment is drawn in each resample of ``idx`` (drawn units: segments, or documents when
    ``units`` gives each segment's document number; a document drawn k times counts each of its segments k
    times)."""
    counts = index_counts(idx, n_units)
    return counts if units is None else counts[:, units]


def bootstrap_scores(
    result: MetricResult, names, idx, compat: bool, progress, label, units: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every system's score in each resample. ``idx``: the drawn units of each resample (:class:`Draws` of segments,
    or of documents when ``units`` gives each segment's document number): a segment counts as often as its
    unit was drawn."""
    n_units = idx.n_units
    n_seg = n_units if units is None else len(units)
    scorer = result.scorer
    out = {n: np.empty(idx.n_samples) for n in names}
    if not names:
        return out
    k = result.stats[names[0]].shape[1]
    # every system's statistics side by side: one matrix product per chunk serves all systems
    dtype = np.float32 if compat else np.float64  # sacrebleu sums float32 statistics
    stacked = np.hstack([np.asarray(result.stats[name], dtype=dtype) for name in names])
    for a, b, drawn in idx.chunks(stacked.shape[1], n_seg):
        counts = unit_counts(drawn, n_units, units).astype(dtype, copy=False)
        totals_all = (counts @ stacked).astype(np.float64, copy=False)  # no copy unless sacrebleu's float32
        for j, name in enumerate(names):
            out[name][a:b] = scorer.score_from_totals(totals_all[:, j * k : (j + 1) * k])
        if progress:
            progress(b / idx.n_samples, f"{label}: bootstrap {b}/{idx.n_samples}")
    return out


def bootstrap_p_value(d: np.ndarray, observed: float) -> float:
    """Two-sided paired bootstrap p-value from the resampled differences ``d``:
    ``p = (#{k: |d_k - mean(d)| >= |observed|} + 1) / (n + 1)`` (so identical systems get p = 1). NaN when the
    observed difference is not a number (a system without scores): no test is made (issue 58)."""
    if not math.isfinite(observed):
        return float("nan")
    d = np.asarray(d, dtype=np.float64)
    c = int(np.sum(np.abs(d - d.mean()) >= abs(observed)))
    return (c + 1) / (len(d) + 1)


def require_lines(n_seg: int) -> None:
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
    require_lines(n_seg)
    if n * n_seg > MAX_DRAWS:
        raise InputError(f"{n:,} resamples of {n_seg:,} lines exceed the limit of {MAX_DRAWS:,} drawn segments")
    units, n_units = document_units(documents, n_seg)
    idx = bootstrap_indices(n_units, n, seed)
    boot = bootstrap_scores(result, names, idx, False, None, result.metric, units)
    cis = {s: SystemCI(result.scores[s], *percentile_ci(boot[s])) for s in names}
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
    idx = bootstrap_indices(n_units, n, seed)
    d = np.empty(n)
    for lo, hi, drawn in idx.chunks(0, n_seg):
        counts = unit_counts(drawn, n_units, units)
        d[lo:hi] = score_fn(resampled_totals(stats_a, counts)) - score_fn(resampled_totals(stats_b, counts))
    return sa, sb, bootstrap_p_value(d, sa - sb)


def bootstrap_pair_p(result: MetricResult, pairs, boot: dict[str, np.ndarray], n: int, compat: bool) -> list[float]:
    """Paired bootstrap (Koehn 2004) for each pair from the systems' resampled scores."""
    out = []
    for a, b in pairs:
        observed = result.scores[a] - result.scores[b]
        if not math.isfinite(observed):  # a system without scores: no test
            out.append(float("nan"))
        elif compat:  # sacrebleu: |d| centred, strict >, a = system, b = baseline
            d = np.abs(boot[a] - boot[b])
            out.append((int(np.sum((d - d.mean()) > abs(observed))) + 1) / (n + 1))
        else:
            out.append(bootstrap_p_value(boot[a] - boot[b], observed))
    return out


def ar_pair_p(
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
    # sacrebleu swaps with the baseline as its first system
    firsts = [(b, a) if (compat and baseline is not None) else (a, b) for a, b in pairs]
    stats = {name: result.stats[name].astype(np.float64) for pair in firsts for name in pair}
    totals = {name: st.sum(axis=0) for name, st in stats.items()}
    both = [totals[f] + totals[g] for f, g in firsts]  # a pair's totals, however they are swapped
    observed = [abs(result.scores[a] - result.scores[b]) for a, b in pairs]
    counts = [0] * len(pairs)
    # one matrix product per chunk serves all the pairs. Its column blocks are each pair's differences; or, with
    # whole-number statistics (BLEU's and chrF's counts), one block per *system* (8 systems: 8 blocks, not 28), a
    # pair's swapped totals the difference of two blocks: the same numbers exactly, as sums of whole numbers are
    # exact in float64 (issue 62)
    if _by_system(stats, len(pairs)):
        pos = {name: i for i, name in enumerate(stats)}
        blocks, terms = list(stats.values()), [(pos[f], pos[g]) for f, g in firsts]
    else:
        blocks, terms = [stats[f] - stats[g] for f, g in firsts], [(i, None) for i in range(len(pairs))]
    k = blocks[0].shape[1] if blocks else 0
    diffs = np.hstack(blocks) if blocks else np.zeros((n_seg, 0))
    for lo, hi in chunks(n, n_seg, diffs.shape[1], multiple=32):
        # the swaps drawn chunk by chunk (issue 51: 10,000 trials of 100,000 documents were 2 GB at once); numpy
        # draws 32 booleans from each 32-bit word and drops a call's unused ones, so chunks of whole multiples of 32
        # trials continue one call's stream exactly (a test holds them equal)
        sel = rng.integers(2, size=(hi - lo, n_units or n_seg), dtype=bool)
        if units is not None:
            sel = sel[:, units]  # a document's segments are swapped together
        shuffled = sel.astype(np.float64) @ diffs  # the same swaps for every pair
        for i, ((f, g), (_, second)) in enumerate(zip(terms, firsts, strict=True)):
            swapped = shuffled[:, f * k : (f + 1) * k]
            if g is not None:
                swapped = swapped - shuffled[:, g * k : (g + 1) * k]
            shuf_a = swapped + totals[second]  # the first system's totals
            d = np.abs(scorer.score_from_totals(shuf_a) - scorer.score_from_totals(both[i] - shuf_a))
            counts[i] += int(np.sum(d > observed[i])) if compat else int(np.sum(d >= observed[i]))
        if progress:
            progress(hi / n, f"{result.metric}: randomisation {hi}/{n} trials")
    return [(c + 1) / (n + 1) if math.isfinite(o) else float("nan") for c, o in zip(counts, observed, strict=True)]


def _by_system(stats: dict[str, np.ndarray], n_pairs: int) -> bool:
    """Whether one product column block per system serves every pair exactly: fewer systems than pairs, and
    whole-number statistics whose every sum is exact in float64."""
    return len(stats) < n_pairs and all(
        np.array_equal(st, np.round(st)) and float(np.abs(st).sum()) < 2**52 for st in stats.values()
    )

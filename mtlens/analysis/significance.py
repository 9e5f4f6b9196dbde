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
from ..scores.results import MetricResult
from ..version import __version__
from .check_gate import is_check, mcnemar
from .policy import (
    ALPHA,
    CI_RESAMPLES,
    DEFAULT_SAMPLES,
    MAX_DRAWS,
    MCNEMAR,
    SEED,
    check_test_settings,
    resample_count,
)
from .resampling import (
    SystemCI,
    ar_pair_p,
    bootstrap_indices,
    bootstrap_pair_p,
    bootstrap_scores,
    document_units,
    paired_deltas,
    percentile_ci,
    require_lines,
    sacrebleu_ci,
)

Progress = Callable[[float, str], None]


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
        test = f"{self.test}|ci:bootstrap" if self.test == MCNEMAR else self.test  # the intervals are resampled
        return (
            f"test:{test}|n:{self.n}|seed:{seed}|alpha:{self.alpha}|correction:holm{unit}|mode:{mode}"
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


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values. A NaN is a test that was not made (a system without scores: issue 58):
    it stays NaN and is not counted in the family, so ``m`` is the number of tests made.

    Example:
        >>> [round(float(x), 3) for x in holm([0.01, 0.04, 0.03])]
        [0.03, 0.06, 0.06]
        >>> [round(float(x), 3) for x in holm([0.01, float("nan"), 0.03])]
        [0.02, nan, 0.03]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(len(p), np.nan)
    made = np.flatnonzero(~np.isnan(p))
    m = len(made)
    if m == 0:
        return out
    order = made[np.argsort(p[made], kind="stable")]
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
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


# --------------------------------------------------------------------------- p-values


def scored_systems(result: MetricResult) -> tuple[list[str], list[str]]:
    """``(scored, unscored)`` systems of a metric: a system whose score is not a number has no scored line (a run
    no human rated, a system a judge never scored); no test is made with it (issue 58)."""
    scored = [s for s, v in result.scores.items() if math.isfinite(v)]
    return scored, [s for s in result.scores if s not in set(scored)]


def untested_note(metric: str, systems: Sequence[str]) -> str:
    """The sentence said where a metric has no score for ``systems``: they are not tested."""
    return f"{missing_sentence(metric, systems)}: not tested (no test is made without scores)"


def missing_sentence(metric: str, systems: Sequence[str]) -> str:
    """``esa has no ratings of A, B``: what a metric lacks."""
    return f"{metric} has {missing_what(metric)} of {', '.join(systems)}"


def missing_what(metric: str) -> str:
    """What a system without scores of ``metric`` lacks: ``no ratings`` (a human metric) or ``no scores``."""
    from .families import HUMAN, family_of

    return "no ratings" if family_of(metric) == HUMAN else "no scores"


@dataclass(frozen=True)
class _Plan:
    """What a :func:`compare` draws, decided and checked before anything is drawn."""

    ranking: list[str]
    pairs: list[tuple[str, str]]
    n_seg: int
    n: int
    notes: tuple[str, ...]
    rng_seed: int | None
    units: np.ndarray | None
    n_units: int


def _plan(result, test, n, seed, baseline, alpha, sacrebleu_compatible, n_ci, documents) -> _Plan:
    """The settings checked (bounds, lines, memory, what sacrebleu can do), the ranking, the pairs (all, or each
    system with ``baseline``) and the resamples drawn (:func:`mtlens.analysis.policy.resample_count`)."""
    if test not in DEFAULT_SAMPLES:
        raise InputError(f"unknown test '{test}'; choose bootstrap or ar")
    check_test_settings(DEFAULT_SAMPLES[test] if n is None else int(n), seed, alpha)
    names = list(result.scores)
    if baseline is not None and baseline not in names:
        raise InputError(f"baseline '{baseline}' is not one of the systems: {', '.join(names)}")
    scored, unscored = scored_systems(result)
    # a system without any score (unrated by humans, unscored by a judge) is ranked last and never tested
    ranking = [*sorted(scored, key=lambda s: result.scores[s], reverse=result.higher_is_better), *unscored]
    n_seg = len(next(iter(result.stats.values())))
    if baseline is None:
        pairs = list(combinations(ranking[: len(scored)], 2))
    else:
        pairs = [] if baseline in unscored else [(s, baseline) for s in ranking[: len(scored)] if s != baseline]
    n, notes = resample_count(test, None if n is None else int(n), max(len(pairs), 1), n_seg, alpha)
    if not pairs:
        notes = []
    if unscored:
        notes = [*notes, untested_note(result.metric, unscored)]
    require_lines(n_seg)
    if max(n, n_ci) * n_seg > MAX_DRAWS:
        raise InputError(
            f"--n {n} resamples of {n_seg} lines would draw {n * n_seg:,} segment indices; "
            f"the limit is {MAX_DRAWS:,}: use at most --n {MAX_DRAWS // n_seg}"
        )
    if documents is not None and sacrebleu_compatible:
        raise InputError("sacrebleu resamples segments only: leave out --sacrebleu-compatible to resample documents")
    units, n_units = document_units(documents, n_seg)
    rng_seed = (seed if seed else None) if sacrebleu_compatible else seed  # sacrebleu: seed 0 means random
    return _Plan(ranking, pairs, n_seg, n, tuple(notes), rng_seed, units, n_units)


def _pair_results(result, pairs, raw, boot, alpha) -> list[PairResult]:
    """Each pair's test: Holm's correction over the pairs, significance at ``alpha``, and the smallest delta the
    test set detects (from the bootstrap's standard error of the pair's delta)."""
    from .power import min_detectable_delta

    adjusted = holm(raw)
    ses = [float(np.std(boot[a] - boot[b], ddof=1)) for a, b in pairs]
    return [
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
        test: ``"bootstrap"`` or ``"ar"``; a check always has McNemar's exact test (:mod:`.check_gate`).
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
    plan = _plan(result, test, n, seed, baseline, alpha, sacrebleu_compatible, n_ci, documents)
    names, n, units = list(result.scores), plan.n, plan.units
    # bootstrap scores: the intervals, and the paired bootstrap test itself
    n_boot = n if test == "bootstrap" else n_ci
    boot_idx = bootstrap_indices(plan.n_units, n_boot, plan.rng_seed)
    boot = bootstrap_scores(
        result, names, boot_idx, sacrebleu_compatible, progress if test == "bootstrap" else None, result.metric, units
    )
    ci_fn = sacrebleu_ci if sacrebleu_compatible else percentile_ci
    systems = {s: SystemCI(result.scores[s], *ci_fn(boot[s])) for s in names}
    if test == "bootstrap":
        raw = bootstrap_pair_p(result, plan.pairs, boot, n, sacrebleu_compatible)
    else:
        raw = ar_pair_p(
            result,
            plan.pairs,
            n,
            plan.n_seg,
            plan.rng_seed,
            baseline,
            sacrebleu_compatible,
            progress,
            units,
            plan.n_units,
        )
    if is_check(result.metric) and not sacrebleu_compatible:  # a line passes or fails: McNemar's exact test
        raw = [mcnemar(result.sentence_scores(a), result.sentence_scores(b))[0] for a, b in plan.pairs]
        test = MCNEMAR
    pair_results = _pair_results(result, plan.pairs, raw, boot, alpha)
    notes = list(plan.notes)
    if units is not None and not sacrebleu_compatible:
        notes += _wider_note(result, names, systems, plan.n_seg, n_boot, plan.rng_seed)
    sig = {frozenset((p.a, p.b)): p.significant for p in pair_results}
    tested = [s for s in plan.ranking if math.isfinite(result.scores[s])]  # an unscored system is in no cluster
    clusters = clusters_from_pairs(tested, lambda x, y: sig.get(frozenset((x, y)), False)) if baseline is None else []
    ranking = plan.ranking
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


#: the document-level interval is called "much wider" from this ratio of widths on
WIDER = 1.5


def _wider_note(result: MetricResult, names, systems, n_seg: int, n_boot: int, seed) -> list[str]:
    """A sentence when the document-level intervals are much wider than the segment-level ones (the
    segments of a document are correlated: a segment-level test would be too optimistic here)."""
    idx = bootstrap_indices(n_seg, n_boot, seed)
    seg = bootstrap_scores(result, names, idx, False, None, result.metric)
    ratios = []
    for s in names:
        _, half, _, _ = percentile_ci(seg[s])
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

"""The statistics policy: the one place where mtlens's significance settings and their wording live.

Every test of the product reads these: the Rankings' and Significance page's clusters, ``compare``, the
release gate, history's steps, the buckets and slices of two systems, the human correlation and the HTML
report. A page or a command never writes a level, a seed or a resample count of its own; what it prints about
a test (the count drawn, the level, the correction, the p-value's definition) comes from here or from the
result the test returned (docs/decisions.md, "Significance").

- :data:`ALPHA`: the significance level, applied to Holm-corrected p-values.
- :data:`SEED`: the generator's default seed (0 is a seed; ``None`` draws from the OS, not reproducible).
- :func:`resample_count`: how many resamples (or trials) a test draws: the test's default (1,000 bootstrap
  resamples, 10,000 randomisation trials), raised to :func:`resamples_needed` so that a pair can be
  significant after Holm's correction over all the pairs, and capped so that resamples x segments stays
  within :data:`MAX_DRAWS` (memory). A number the user gives is kept, with a sentence when it is too few.
- :data:`MIN_TEST_LINES`: no test on fewer lines (or documents) than this.

Example:
    >>> resample_count("bootstrap", None, pairs=28, n_seg=1000)[0]  # 8 systems: 28 pairs
    1119
    >>> test_wording("bootstrap", 1119)
    'paired bootstrap, 1,119 resamples, Holm-corrected p < 0.05'
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..core.errors import InputError

#: the significance level (of Holm-corrected p-values) everywhere a test is run or described
ALPHA = 0.05
#: the levels a page offers to choose from, the default first
ALPHA_CHOICES = (ALPHA, 0.01, 0.1)
#: the default seed of every resampling test
SEED = 12345
#: the multiple-comparison correction applied over a family of tests (all pairs of a metric, the buckets, ...)
CORRECTION = "holm"
#: the power at which the smallest detectable delta is given (:mod:`mtlens.analysis.power`)
POWER = 0.8
#: each test's default number of resamples (bootstrap) or trials (approximate randomisation)
DEFAULT_SAMPLES = {"bootstrap": 1000, "ar": 10000}
#: bootstrap resamples of a confidence interval that is not itself a test (95% intervals beside an AR test,
#: the intervals of correlations with humans), and the permutations of a correlation test
CI_RESAMPLES = 1000
#: fewer lines than this and no test is run: a resampling test over a handful of segments has
#: (almost) no variance to measure, and its p-value is an artefact (docs/decisions.md, "Significance")
MIN_TEST_LINES = 30
#: at most this many resamples / trials
MAX_SAMPLES = 100_000
#: at most resamples x segments drawn per test (memory: about 8 bytes each)
MAX_DRAWS = 200_000_000
MAX_SEED = 2**63 - 1

#: the test of a translation check (issue 60: a line passes or fails; :mod:`mtlens.analysis.check_gate`)
MCNEMAR = "mcnemar-exact"

#: what a test's p-value is, written next to every p-value shown
P_DEFINITIONS = {
    "bootstrap": "two-sided paired bootstrap (Koehn 2004): p = (#{resamples k with |d_k - mean(d)| >= |d|} + 1) "
    "/ (n + 1), d the observed difference, d_k the difference in resample k",
    "ar": "paired approximate randomisation (Riezler & Maxwell 2005): p = (#{trials k with |d_k| >= |d|} + 1) "
    "/ (n + 1), each segment's statistics swapped between the two systems with probability 1/2",
    MCNEMAR: "exact McNemar test on the lines where exactly one of the two fails (b for A, c for B): p = min(1, 2 "
    "P[X <= min(b, c)]), X ~ Binomial(b + c, 1/2); 1 when no line tells them apart",
}
TEST_NAMES = {"bootstrap": "paired bootstrap", "ar": "approximate randomisation", MCNEMAR: "McNemar's exact test"}
UNITS = {"bootstrap": "resamples", "ar": "trials"}


#: the smallest level a test can be asked for: the smallest p-value :data:`MAX_SAMPLES` resamples can give
MIN_ALPHA = 1 / (MAX_SAMPLES + 1)


def check_alpha(alpha: float) -> None:
    """A significance level a resampling test can reach: at least :data:`MIN_ALPHA` (below it no p-value of at
    most :data:`MAX_SAMPLES` resamples can be smaller, and the power estimate's normal quantiles run out of
    floating point: ``--alpha 1e-300`` was an internal error, issue 51) and below 1."""
    if not (isinstance(alpha, int | float) and MIN_ALPHA <= alpha < 1):
        raise InputError(
            f"--alpha must be between 0 and 1, at least {MIN_ALPHA:.1e} (the smallest p-value {MAX_SAMPLES:,} "
            f"resamples can give), not {alpha}"
        )


def check_test_settings(n: int, seed: int | None, alpha: float = ALPHA) -> None:
    """Bounds of the test settings, each message naming its command-line option."""
    if not 1 <= n <= MAX_SAMPLES:
        raise InputError(f"--n must be between 1 and {MAX_SAMPLES:,}, not {n}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise InputError(f"--seed must be between 0 and 2**63 - 1, not {seed}")
    check_alpha(alpha)


def resamples_needed(pairs: int, alpha: float = ALPHA) -> int:
    """The fewest resamples (or trials) with which a pair can be significant after Holm's correction
    over ``pairs`` pairs, with room: the smallest p-value a test of ``n`` resamples gives is
    ``1 / (n + 1)``, Holm multiplies the smallest by ``pairs``, and this asks for that product to be at
    most ``alpha / 2``. For 91 pairs (14 systems) at alpha 0.05: 3,639; with 1,000 the smallest
    Holm-corrected p is 91/1001 = 0.091 and no pair can ever be significant.

    >>> resamples_needed(91), resamples_needed(1), resamples_needed(6)
    (3639, 39, 239)
    """
    return max(1, math.ceil(2 * pairs / alpha) - 1)


def resample_count(test: str, n: int | None, pairs: int, n_seg: int, alpha: float = ALPHA) -> tuple[int, list[str]]:
    """The resamples (trials) a test of ``pairs`` pairs over ``n_seg`` drawn units draws, and what to say about
    them. By default the test's default raised to :func:`resamples_needed`, within :data:`MAX_SAMPLES` and
    :data:`MAX_DRAWS` (never below the default); a number the user gave is kept, with a sentence when it is
    too few for any pair to be significant.

    >>> resample_count("bootstrap", None, 1, 500)
    (1000, [])
    >>> resample_count("bootstrap", None, 91, 2_000_000)[0]  # capped by memory: 100 resamples of 2M lines
    1000
    """
    if test not in DEFAULT_SAMPLES:
        raise InputError(f"unknown test '{test}'; choose bootstrap or ar")
    needed = resamples_needed(pairs, alpha)
    default = DEFAULT_SAMPLES[test]
    if n is None:
        most = min(MAX_SAMPLES, MAX_DRAWS // max(n_seg, 1))
        n = min(max(default, needed), max(default, most))
        notes = (
            [f"{n:,} {UNITS[test]}, chosen for {pairs} pairs so that a pair can be significant after Holm's correction"]
            if n > default
            else []
        )
    else:
        notes = []
    smallest = min(1.0, pairs / (n + 1))
    if smallest >= alpha:
        notes.append(
            f"with {pairs} pairs, {n:,} {UNITS[test]} cannot make any pair significant: the smallest Holm-corrected "
            f"p they can give is {pairs}/({n:,} + 1) = {smallest:.3f}, not below alpha {alpha:g}; use at least "
            f"{needed:,} {UNITS[test]} (--n)"
        )
    return n, notes


def default_resamples(pairs: int, n_seg: int, alpha: float = ALPHA) -> int:
    """The paired bootstrap's resamples for a family of ``pairs`` tests over ``n_seg`` units (the gate's
    metrics, a history's steps, the buckets and slices of two systems): :func:`resample_count`'s rule."""
    return resample_count("bootstrap", None, max(pairs, 1), n_seg, alpha)[0]


def counts_text(counts: Iterable[int], unit: str = "resamples") -> str:
    """The resample counts of several tests in a few words: one count, or the range.

    >>> counts_text([1000, 1000]), counts_text([1000, 3639])
    ('1,000 resamples', '1,000 to 3,639 resamples')
    """
    values = sorted(set(int(c) for c in counts))
    if not values:
        return f"no {unit}"
    if len(values) == 1:
        return f"{values[0]:,} {unit}"
    return f"{values[0]:,} to {values[-1]:,} {unit}"


def test_wording(test: str, n: int | Iterable[int], alpha: float = ALPHA) -> str:
    """How a test is described under a table or chart: the test, the count it drew, the correction and level.

    >>> test_wording("ar", 10000, 0.01)
    'approximate randomisation, 10,000 trials, Holm-corrected p < 0.01'
    """
    if test == MCNEMAR:  # exact: nothing drawn
        return f"{TEST_NAMES[test]}, Holm-corrected p < {alpha:g}"
    counts = [n] if isinstance(n, int) else list(n)
    return f"{TEST_NAMES[test]}, {counts_text(counts, UNITS[test])}, Holm-corrected p < {alpha:g}"

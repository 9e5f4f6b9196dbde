"""Power: the smallest difference a test set can detect.

Until the documents issue's resampling estimate lands, the estimate is the paired bootstrap's own
(docs/decisions.md, "The release gate"): the resampled deltas of two systems have a standard deviation
``se`` (the standard error of the delta); under the normal approximation of that distribution, a
two-sided test at level ``alpha`` finds a true difference ``delta`` with probability ``power`` when
``|delta| >= (z(1 - alpha/2) + z(power)) * se``. With several tests corrected by Holm, the strictest
level, ``alpha / tests`` (the level the smallest p-value must meet), is used: the figure is the
difference that is detected whatever the other tests give.

>>> round(min_detectable_delta(1.0, 0.05), 4)  # 1.96 + 0.8416
2.8016
>>> round(min_detectable_delta(1.0, 0.05, tests=2), 4)  # 2.2414 + 0.8416
3.083
"""

from __future__ import annotations

import math
from statistics import NormalDist

from .policy import POWER


def min_detectable_delta(se: float, alpha: float, tests: int = 1, power: float = POWER) -> float:
    """The smallest |delta| detected with probability ``power`` by a two-sided test at ``alpha / tests``
    when the delta's standard error is ``se`` (NaN when ``se`` is not finite, or 0: two identical outputs
    resample to a delta of 0 every time, which says nothing of what the test set could detect; issue 51)."""
    if not math.isfinite(se) or se <= 0:
        return math.nan
    z = NormalDist()
    return (z.inv_cdf(1 - alpha / (2 * max(tests, 1))) + z.inv_cdf(power)) * se


def segments_needed(
    se: float, n_segments: int, delta: float, alpha: float, tests: int = 1, power: float = POWER
) -> int | None:
    """How many segments (of the same kind) a test set needs so that ``|delta|`` is detected with ``power``:
    the standard error falls as ``1 / sqrt(n)``, so ``n * (min_detectable_delta / delta) ** 2`` (None for a
    zero delta or an unknown standard error).

    >>> segments_needed(1.0, 1000, 2.8016, 0.05)  # the delta detectable now: the lines there are
    1000
    >>> segments_needed(1.0, 1000, 1.4008, 0.05)  # half that delta: four times the lines
    4000
    """
    mdd = min_detectable_delta(se, alpha, tests, power)
    if not math.isfinite(mdd) or not delta:
        return None
    return max(1, math.ceil(n_segments * (mdd / abs(delta)) ** 2 - 1e-9))

"""Judges that vote (issue 61): a judge asked ``samples`` times per segment, at its temperature, and the answers'
scores aggregated into the segment's score (docs/decisions.md, "Judges that vote").

- **Temperature**: a judge registered without one asks its first sample at 0 and the others at
  :data:`SAMPLE_TEMPERATURE` (what mtlens always did: its cached answers stay valid); with ``--temperature T`` every
  sample is asked at T. A re-ask of an unparsed answer is 0.1 warmer, at most 1 (or T, where T is above 1).
- **Aggregation** (:data:`mtlens.scores.sources.JUDGE_AGGREGATES`):
  - ``mean``: the mean of the parsed samples (the default, as before).
  - ``median``: their median.
  - ``gemba-v2``: GEMBA-MQM V2's (Junczys-Dowmunt 2025, WMT25): answers further than two standard deviations
    (the population's, ddof 0) from the samples' mean are dropped, then the reciprocal-rank weighted average of
    the rest: ranked from the most lenient score (rank 1, weight 1) to the harshest (rank n, weight 1/n), so that
    one harsh outlier does not dominate. **Decision**: the paper's abstract and its author's description name the
    average and its purpose, not the order of the ranks; this order is the one that serves the stated purpose.
    With fewer than three samples nothing can lie beyond two standard deviations, and none is dropped.
- Every answer is cached under its sample's index (and the temperature, where one is set), so raising the samples
  asks only the new ones, and a judge at another temperature never reads another's answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: the temperature of every sample but the first, for a judge registered without a temperature
SAMPLE_TEMPERATURE = 1.0
#: how far from the samples' mean an answer is an outlier (GEMBA-MQM V2), in standard deviations
OUTLIER_SIGMAS = 2.0


def ask_temperature(temperature: float | None, sample: int, reask: int = 0) -> float:
    """The temperature a sample is asked at: the judge's (or 0 for the first sample and :data:`SAMPLE_TEMPERATURE`
    for the others), then 0.1 warmer at each re-ask of an unparsed answer, up to 1 (or the judge's own temperature,
    where it is above 1: a registered 1.5 is asked at 1.5, never cooled to 1).

    >>> [ask_temperature(None, 0, k) for k in (0, 1, 12)], ask_temperature(None, 3), ask_temperature(0.7, 0, 2)
    ([0.0, 0.1, 1.0], 1.0, 0.9)
    >>> [ask_temperature(1.5, 0, k) for k in (0, 1)]
    [1.5, 1.5]
    """
    if temperature is not None:
        base = float(temperature)
    else:
        base = 0.0 if sample == 0 else SAMPLE_TEMPERATURE
    return round(min(max(1.0, base), base + 0.1 * reask), 2)


def kept(values: Sequence[float]) -> np.ndarray:
    """The samples GEMBA-MQM V2 keeps: those within :data:`OUTLIER_SIGMAS` standard deviations of the mean."""
    v = np.asarray(values, dtype=np.float64)
    sd = float(v.std()) if v.size else 0.0
    if sd == 0.0:
        return v
    return v[np.abs(v - v.mean()) <= OUTLIER_SIGMAS * sd + 1e-12 * sd]


def rrwa(values: Sequence[float]) -> float:
    """The reciprocal-rank weighted average: the highest value weighs 1, the next 1/2, ... the lowest 1/n."""
    v = np.sort(np.asarray(values, dtype=np.float64))[::-1]
    w = 1.0 / np.arange(1, v.size + 1)
    return float(np.dot(w, v) / w.sum())


def aggregate(values: Sequence[float], how: str = "mean") -> float:
    """One segment's score from its parsed samples (NaN without any).

    >>> aggregate([0, -1, -5, 0, -1], "gemba-v2")  # 0, 0, -1, -1, -5 weighted 1, 1/2, ..., 1/5
    -0.6934306569343066
    >>> aggregate([0, -1, -5, 0, -1, 0, -25], "gemba-v2")  # -25 is 20.4 from the mean, beyond 2 x 8.50
    -0.5238095238095238
    """
    if len(values) == 0:
        return math.nan
    if how == "median":
        return float(np.median(values))
    if how == "gemba-v2":
        return rrwa(kept(values))
    return float(np.mean(values))


def signature(samples: int, temperature: float | None, how: str) -> tuple[tuple[str, str], ...]:
    """What a judge's signature says of its votes."""
    if temperature is not None:
        t = f"{temperature:g}"
    else:  # the defaults of ask_temperature
        t = "0" if samples == 1 else f"0, then {SAMPLE_TEMPERATURE:g}"
    return (("samples", str(samples)), ("temperature", t), ("aggregate", how))

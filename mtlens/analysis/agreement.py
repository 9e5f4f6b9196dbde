"""What a metric delta means to humans: the estimated accuracy with which human judges agree with the
metric's decision between two systems, from Kocmi, Zouhar, Federmann and Post (2024), "Navigating the
Metrics Maze: Reconciling Score Magnitudes and Accuracies" (ACL).

The paper fits, per metric, ``accuracy(delta) = a * sigmoid(b * delta)`` to WMT system pairs (human
judgments vs the metric's decision); its own package, ``mt-thresholds``, holds the published (a, b) and
the formula, and is reused here. Decisions (docs/decisions.md, "What a delta means to humans"):
- the estimate is for the size of the difference (``|delta|``), as the paper reports it, between 0 and 1;
- BLEU and chrF deltas are on mtlens's 0-100 scale (the paper's); COMET-family scores (0-1 in mtlens)
  are multiplied by 100, the scale of the paper's COMET fits;
- a metric without a published fit gets None (shown as "no published fit"): TER, NIST, character BLEU,
  tBLEU, chrF++, and an imported COMET whose model version is unknown. A computed model is matched by
  its registered name as the package's command line normalises names (``wmt22-comet-da`` -> comet22,
  ``wmt22-cometkiwi-da`` -> cometkiwi22, ``xcomet-xl`` -> xcometxl).

>>> round(human_agreement("bleu", 1.0), 5)
0.63989
>>> human_agreement("ter", 1.0) is None
True
"""

from __future__ import annotations

import math
import re

import mt_thresholds

from ..scores.sources import COMET, MODEL, source_of

#: mtlens metric -> (the package's metric, factor from mtlens's scale to the paper's)
_FIXED = {"bleu": ("bleu", 1.0), "chrf": ("chrf", 1.0)}
_YEAR = re.compile(r"\d+")


def _normalised(name: str) -> str | None:
    """A COMET model's name as mt-thresholds' own command line normalises it."""
    n = name.lower().removeprefix("unbabel/").strip().replace("-", "")
    if n not in mt_thresholds.METRICS and "comet" in n:  # mt-thresholds' own normalisation of a COMET model's name
        n = n.replace("da", "").replace("wmt", "")
        m = _YEAR.match(n)
        if m:
            n = n[: m.start()] + n[m.end() :] + m.group()
        if "qe" in n:
            n = n.replace("qe", "") + "qe"
    return n if n in mt_thresholds.METRICS else None


def fit_for(metric: str) -> tuple[str, float] | None:
    """The published fit a metric uses, and the factor to the paper's scale; None without one."""
    if metric in _FIXED:
        return _FIXED[metric]
    source = source_of(metric)
    if source.kind == MODEL and source.family == COMET:  # a registered COMET checkpoint, by its name
        key = _normalised(source.registered)
        return (key, 100.0) if key else None
    return None


def human_agreement(metric: str, delta: float) -> float | None:
    """Estimated accuracy (0-1) of humans agreeing with a metric delta of this size; None without a fit, and
    None for no difference at all (identical outputs: there is nothing for humans to agree with, and the fit's
    value at zero, 0.44, read as if it meant something; issue 51)."""
    fit = fit_for(metric)
    if fit is None or delta is None or not math.isfinite(delta) or delta == 0:
        return None
    key, factor = fit
    return mt_thresholds.accuracy(abs(delta) * factor, key) / 100.0

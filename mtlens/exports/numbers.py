"""How numbers are shown to people, one rule for every page and every human-read export (the HTML report,
LaTeX, the CSV and Excel tables people read, the quick view, the command line's tables): how many decimals,
what an absent value reads, and which direction a metric goes. Machine-read exports (JSON, the CSV of
scores) keep full precision.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from ..core.amounts import MONEY_DECIMALS
from ..metrics import REGISTRY

#: decimals of p-values, correlations, accuracies and other statistics between -1 and 1 (COMET's scores too)
UNIT_DECIMALS = 3
#: decimals of any other number without a rule (imported scores beyond 0-1, AutoRank, deltas of unknown metrics)
OTHER_DECIMALS = 2
#: decimals of a model's confidence in an error span it marks (xCOMET's), as a span's title says it
CONFIDENCE_DECIMALS = 2


def column_decimals(table, places: dict | None = None) -> dict:
    """The decimals of each column of ``table`` (a pandas DataFrame) whose values are all floats, by
    :func:`decimals`; ``places`` gives those of columns the rule cannot name. Other columns are left out."""
    out = {}
    for c in table.columns:
        column = list(table[c])
        if any(isinstance(v, str) for v in column):  # text (with gaps as NaN or None): not a number column
            continue
        values = [v for v in column if v is not None and not (isinstance(v, float | np.floating) and np.isnan(v))]
        if values and all(isinstance(v, float | np.floating) for v in values):
            d = (places or {}).get(c)
            out[c] = decimals(str(c), values) if d is None else d
    return out


def decimals(name: str, values: Iterable[float] = ()) -> int:
    """How many decimals a number is shown with, in every page and human-read export (one rule for all).

    ``name`` is a metric key or a column heading: a registered metric's own :attr:`Metric.decimals` (a
    heading "bleu 95% CI ±" or "delta bleu" counts as BLEU); p-values (a heading "p" or starting with "p "),
    and numbers that all lie between -1 and 1 (correlations, accuracies, COMET) get
    :data:`UNIT_DECIMALS`; money (a heading that names a cost or US$) :data:`mtlens.core.amounts.MONEY_DECIMALS`; a
    span's ``confidence`` :data:`CONFIDENCE_DECIMALS`; everything else :data:`OTHER_DECIMALS`.

    >>> decimals("chrf"), decimals("nist"), decimals("p (Holm)"), decimals("comet:wmt22", [0.81, 0.79])
    (1, 2, 3, 3)
    >>> decimals("cost (US$)", [0.0042]), decimals("confidence", [0.8])
    (4, 2)
    """
    low = name.lower()
    if "cost" in low or "us$" in low or "usd" in low:
        return MONEY_DECIMALS
    if low == "confidence":
        return CONFIDENCE_DECIMALS
    words = name.replace("(", " ").split()
    for w in words:
        if w in REGISTRY:
            return REGISTRY[w].decimals
    if words and words[0].lower() in ("p", "p-value", "p_value"):
        return UNIT_DECIMALS
    finite = [float(v) for v in values if v is not None and v == v and abs(float(v)) != float("inf")]
    if finite and all(-1.0 <= v <= 1.0 for v in finite):
        return UNIT_DECIMALS
    return OTHER_DECIMALS


def hover_format(name: str, values: Iterable[float] = ()) -> str:
    """The d3 format of a number in a chart's hover label, with :func:`decimals`'s places, so a chart never
    shows more or fewer decimals than the table beside it (``%{y:.1f}``).

    >>> hover_format("bleu"), hover_format("p"), hover_format("comet:x", [0.8])
    ('.1f', '.3f', '.3f')
    """
    return f".{decimals(name, values)}f"


#: error bars in every chart: a mid grey that shows on the light and the dark theme alike (plotly's default is
#: the trace's own colour on light, near-black on dark, where it vanished: issue 51)
ERROR_BAR_COLOUR = "#8c8c8c"

#: what an absent or undefined number reads (never "None" or "nan")
ABSENT = "-"


def shown(value, places: int) -> str:
    """``value`` with ``places`` decimals; :data:`ABSENT` for None, NaN and infinities.

    >>> shown(26.5439, 1), shown(None, 3), shown(float("nan"), 2), shown(0.0625, 3)
    ('26.5', '-', '-', '0.062')
    """
    if value is None or isinstance(value, str):
        return ABSENT if value is None else value
    v = float(value)
    return f"{v:.{places}f}" if math.isfinite(v) else ABSENT


def share(value) -> str:
    """A share as a whole percent (how often humans agree with a difference, a rater's pass rate, a test's power);
    :data:`ABSENT` for None and NaN.

    >>> share(0.8462), share(None)
    ('85%', '-')
    """
    if value is None or not math.isfinite(float(value)):
        return ABSENT
    return f"{float(value):.0%}"


def lower_is_better(metrics: Sequence[str]) -> list[str]:
    """The registered metrics among ``metrics`` whose lower scores are better (TER), in their order."""
    return [m for m in metrics if m in REGISTRY and not REGISTRY[m].higher_is_better]


def direction_note(metrics: Sequence[str]) -> str:
    """ "Lower is better for TER." when a lower-is-better metric is among ``metrics``, else "".

    >>> direction_note(["bleu", "ter"]), direction_note(["bleu", "chrf"])
    ('Lower is better for TER.', '')
    """
    low = [REGISTRY[m].label or m for m in lower_is_better(metrics)]
    return f"Lower is better for {' and '.join(low)}." if low else ""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun, singular for one (issue 58: "1 segments", "the 1 metrics").

    >>> counted(1, "line"), counted(1_002, "line"), counted(1, "metric"), counted(2, "analysis", "analyses")
    ('1 line', '1,002 lines', '1 metric', '2 analyses')
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"

"""The translation checks in a comparison of two systems (issue 60; docs/checks.md, "Statistics and the gate").

- The paired test on a check is the **exact McNemar test**: ``b`` lines fail only for the first system, ``c`` only
  for the second; under the null hypothesis (both fail as often) each such line is a fair coin, and
  ``p = min(1, 2 * P[X <= min(b, c)])`` for ``X ~ Binomial(b + c, 1/2)``, the two-sided exact binomial p-value (scipy's
  ``binomtest``); ``p = 1`` when no line tells them apart. Lines where both fail or both pass say nothing about which
  fails more. Exact, with no resampling and no seed.
- **Limits**: ``--max-check-failures placeholders=0,numbers=0.5`` (the most percent of lines a check may fail, for the
  candidate) and ``--min-term-success P`` (the least term success rate, percent).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..core.errors import InputError
from ..scores.results import MetricResult
from ..scores.sources import CHECK_KIND, CHECK_PREFIX, source_of
from .policy import MCNEMAR, P_DEFINITIONS

#: the name of the test, in the gate's and the comparisons' signatures (its definition: policy.P_DEFINITIONS)
TEST = MCNEMAR
#: how many failing lines a Markdown verdict lists per check
SHOWN_LINES = 10


def is_check(name: str) -> bool:
    """Whether a metric is a translation check (its lines pass or fail)."""
    return source_of(name).kind == CHECK_KIND


def mcnemar(fails_a: np.ndarray, fails_b: np.ndarray) -> tuple[float, int, int]:
    """``(p, b, c)``: the exact McNemar test of two systems' per-line failures (1 fails, 0 passes; NaN lines left
    out); the definition is the module's docstring.

    >>> mcnemar(np.array([1, 1, 1, 1, 1, 0]), np.array([0, 0, 0, 0, 0, 0]))  # 5 to 0: 2 * 0.5**5
    (0.0625, 5, 0)
    """
    from scipy.stats import binomtest

    a, b_ = np.asarray(fails_a, dtype=np.float64), np.asarray(fails_b, dtype=np.float64)
    both = np.isfinite(a) & np.isfinite(b_)
    b = int(np.sum((a[both] > 0) & (b_[both] == 0)))
    c = int(np.sum((a[both] == 0) & (b_[both] > 0)))
    if b + c == 0:
        return 1.0, b, c
    return float(min(1.0, binomtest(min(b, c), b + c, 0.5).pvalue)), b, c


def parse_limits(max_check_failures: str | None, min_term_success: float | None) -> dict[str, float]:
    """``metric name -> limit`` (percent): ``check:NAME`` -> most failing lines, ``term`` -> least success; one
    sentence for a bad one.

    >>> parse_limits("placeholders=0, numbers=0.5", 90)
    {'check:placeholders': 0.0, 'check:numbers': 0.5, 'term': 90.0}
    """
    from ..checks import CHECKS

    out: dict[str, float] = {}
    for item in (max_check_failures or "").split(","):
        if not item.strip():
            continue
        name, eq, value = item.partition("=")
        name = name.strip().lower().removeprefix(CHECK_PREFIX)
        if not eq or name not in CHECKS:
            raise InputError(
                f"--max-check-failures takes CHECK=PERCENT pairs of the checks {', '.join(CHECKS)}, not '{item.strip()}'"
            )
        out[CHECK_PREFIX + name] = _percent(value, f"--max-check-failures {name}")
    if min_term_success is not None:
        out["term"] = _percent(str(min_term_success), "--min-term-success")
    return out


def _percent(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (0 <= v <= 100):
        raise InputError(f"{what} is a percentage between 0 and 100, not '{text.strip()}'")
    return v


def over_limit(name: str, value: float, limits: Mapping[str, float]) -> bool:
    """Whether the candidate's score breaks its limit (a check above its most, the terms below their least)."""
    if name not in limits or not math.isfinite(value):
        return False
    return value < limits[name] if name == "term" else value > limits[name]


def limit_sentence(name: str, value: float, limit: float) -> str:
    """One sentence for a broken limit."""
    if name == "term":
        return f"term: the candidate's term success rate is {value:.2f}%, below the least allowed ({limit:g}%)"
    return f"{name}: {value:.2f}% of the candidate's lines fail, above the most allowed ({limit:g}%)"


def failing_lines(r: MetricResult, system: str, shown: int = SHOWN_LINES) -> list[tuple[int, str]]:
    """The first ``shown`` lines where ``system`` fails a check: ``(1-based line, what failed)``."""
    fails = r.sentence_scores(system)
    spans = r.spans(system) or [[] for _ in fails]
    out = []
    for i, (f, marked) in enumerate(zip(fails, spans, strict=True)):
        if f > 0:
            out.append((i + 1, "; ".join(s.text for s in marked) or "fails"))
            if len(out) == shown:
                break
    return out


def exact_steps(r: MetricResult, deltas: list, notes: list[str]) -> list:
    """Paired comparisons (:class:`~mtlens.analysis.resampling.PairedDelta`) with a check's p-values made by
    McNemar's exact test (the intervals stay resampled), the sentence that says so added to ``notes`` once; another
    metric's as they are."""
    if not is_check(r.metric):
        return deltas
    import dataclasses

    said = f"a check's step is tested with {P_DEFINITIONS[MCNEMAR]}"
    notes += [] if said in notes else [said]
    return [dataclasses.replace(d, p_value=mcnemar(r.sentence_scores(d.a), r.sentence_scores(d.b))[0]) for d in deltas]

"""Correlation coefficients, Cohen's kappa and percentile bootstrap intervals (scipy underneath).

Every coefficient is NaN where it is undefined (fewer than 2 points, or a
constant side), never an exception: a dashboard shows "n/a" instead.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

KINDS = ("pearson", "spearman", "kendall")


def grades(scores: np.ndarray) -> np.ndarray:
    """Scores 0-100 to grades 0..9 (100 falls in grade 9)."""
    return np.minimum(np.floor(np.asarray(scores, dtype=np.float64) / 10.0), 9).astype(np.int64)


def cohen_kappa(a: np.ndarray, b: np.ndarray, n_classes: int = 10) -> float:
    """Cohen's kappa of two judges' integer grades (NaN when chance agreement is 1).

    Example:
        >>> round(cohen_kappa(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 1]), 3), 4)
        0.6364
    """
    a, b = np.asarray(a), np.asarray(b)
    if len(a) == 0:
        return float("nan")
    table = np.zeros((n_classes, n_classes))
    np.add.at(table, (a, b), 1)
    table /= len(a)
    p_o = np.trace(table)
    p_e = float(table.sum(axis=1) @ table.sum(axis=0))
    return float("nan") if p_e == 1 else float((p_o - p_e) / (1 - p_e))


def corr(kind: str, x, y) -> float:
    """Pearson's r, Spearman's rho or Kendall's tau-b (scipy), NaN when undefined."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    if kind == "pearson":
        return float(sps.pearsonr(x, y).statistic)
    if kind == "spearman":
        return float(sps.spearmanr(x, y).statistic)
    if kind == "kendall":
        return float(sps.kendalltau(x, y).statistic)
    raise ValueError(f"unknown correlation {kind!r}")


def pearson(x, y) -> float:
    """Pearson's r, NaN when it is undefined (fewer than 2 points or a constant side)."""
    return corr("pearson", x, y)


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair of two (k, n) arrays (NaN where a row is constant)."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def rowwise_kendall_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair of two (k, n) arrays, from the signs of all pairs."""
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    num = (sx * sy).sum(axis=(1, 2))
    den = np.sqrt((sx != 0).sum(axis=(1, 2)) * (sy != 0).sum(axis=(1, 2)).astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def bootstrap_ci(x, y, kind: str, n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    """Percentile 95% interval of a correlation over resamples of the items (vectorised; Kendall's
    tau-b by pair signs for up to 60 items, scipy per resample above). NaN for fewer than 3 items."""
    n = len(x)
    if n < 3 or n_boot <= 0:
        return (float("nan"), float("nan"))
    idx = rng.integers(0, n, size=(n_boot, n))
    xs, ys = np.asarray(x, dtype=np.float64)[idx], np.asarray(y, dtype=np.float64)[idx]
    if kind == "pearson":
        vals = rowwise_pearson(xs, ys)
    elif kind == "spearman":
        vals = rowwise_pearson(sps.rankdata(xs, axis=1), sps.rankdata(ys, axis=1))
    elif n <= 60:
        vals = rowwise_kendall_b(xs, ys)
    else:
        vals = np.array([corr("kendall", a, b) for a, b in zip(xs, ys, strict=True)])
    vals = vals[~np.isnan(vals)]
    if len(vals) == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return (float(lo), float(hi))

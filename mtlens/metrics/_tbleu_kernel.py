"""Compiled affix distance for tolerant BLEU (numba); see :mod:`mtlens.metrics.tbleu`."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit("(int64[::1], int64, int64, int64[::1], int64, int64)", cache=True)
def _lev(a, a0, a1, b, b0, b1):
    n, m = a1 - a0, b1 - b0
    if n == 0:
        return m
    if m == 0:
        return n
    prev = np.arange(m + 1)
    cur = np.empty(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        ai = a[a0 + i - 1]
        for j in range(1, m + 1):
            c = prev[j - 1] + (0 if ai == b[b0 + j - 1] else 1)
            d = prev[j] + 1
            if d < c:
                c = d
            d = cur[j - 1] + 1
            if d < c:
                c = d
            cur[j] = c
        for j in range(m + 1):
            prev[j] = cur[j]
    return prev[m]


@njit("(int64[::1], int64, int64[::1], int64)", cache=True)
def _affix_distance(r, nr, t, nt):
    if nr == nt:
        same = True
        for k in range(nr):
            if r[k] != t[k]:
                same = False
                break
        if same:
            return 0.0
    best, bi, bj = 0, 0, 0
    for i in range(nt):
        for j in range(nr):
            k = 0
            while i + k < nt and j + k < nr and t[i + k] == r[j + k]:
                k += 1
            if k > best:
                best, bi, bj = k, i, j
    if best == 0:
        return 1.0
    d = _lev(r, 0, bj, t, 0, bi) + _lev(r, bj + best, nr, t, bi + best, nt)
    v = d / best
    return v if v < 1.0 else 1.0


@njit("(int64[:, ::1], int64[::1], int64[:, ::1])", cache=True)
def affix_distances(chars, lens, pairs):
    out = np.empty(pairs.shape[0])
    for k in range(pairs.shape[0]):
        t, r = pairs[k, 0], pairs[k, 1]
        out[k] = _affix_distance(chars[r], lens[r], chars[t], lens[t])
    return out

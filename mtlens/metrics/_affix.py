"""The affix distance of tolerant BLEU, written once, in the subset of Python that numba compiles.

:func:`affix_distances` is compiled by numba (:mod:`._tbleu_kernel` wraps this very function) for
many word pairs; fewer are computed by the vectorised :mod:`._affix_numpy` (no compiler to load,
docs/decisions.md "tBLEU, only where a word can be replaced"). Run uncompiled, this loop is the tests'
reference for both.
"""

from __future__ import annotations

import numpy as np


def affix_distances(chars, lens, pairs):
    """AD(r, t) for each row ``(t, r)`` of ``pairs`` (word ids into ``chars``/``lens``; see tbleu.py).

    ``chars[w]`` holds word ``w``'s code points (padded), ``lens[w]`` its length.
    """
    out = np.empty(len(pairs))
    for k in range(len(pairs)):
        t = chars[pairs[k][0]]
        r = chars[pairs[k][1]]
        nt = lens[pairs[k][0]]
        nr = lens[pairs[k][1]]
        same = nr == nt
        if same:
            for q in range(nr):
                if r[q] != t[q]:
                    same = False
                    break
        if same:
            out[k] = 0.0
            continue
        # the longest common substring S: the first found scanning t from the left, then r
        best, bi, bj = 0, 0, 0
        for i in range(nt):
            for j in range(nr):
                q = 0
                while i + q < nt and j + q < nr and t[i + q] == r[j + q]:
                    q += 1
                if q > best:
                    best, bi, bj = q, i, j
        if best == 0:
            out[k] = 1.0
            continue
        # Levenshtein distance of the prefixes, then of the suffixes (two rolling rows)
        d = 0
        for part in range(2):
            a0, a1, b0, b1 = (0, bj, 0, bi) if part == 0 else (bj + best, nr, bi + best, nt)
            n, m = a1 - a0, b1 - b0
            if n == 0 or m == 0:
                d += n + m
                continue
            prev = np.arange(m + 1)
            cur = np.empty(m + 1, dtype=np.int64)
            for x in range(1, n + 1):
                cur[0] = x
                ax = r[a0 + x - 1]
                for y in range(1, m + 1):
                    c = prev[y - 1] + (0 if ax == t[b0 + y - 1] else 1)
                    e = prev[y] + 1
                    if e < c:
                        c = e
                    e = cur[y - 1] + 1
                    if e < c:
                        c = e
                    cur[y] = c
                for y in range(m + 1):
                    prev[y] = cur[y]
            d += prev[m]
        v = d / best
        out[k] = v if v < 1.0 else 1.0
    return out

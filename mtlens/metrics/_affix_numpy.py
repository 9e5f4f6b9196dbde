"""The affix distance of tolerant BLEU for many word pairs at once, in numpy (no compiler to load).

The same definition as :func:`._affix.affix_distances` (docs/decisions.md, "tBLEU"), computed for a
block of word pairs together, each step one array operation over the block:

- the longest common substring S: the lengths of the common runs ending at each (i, j) of the two
  words, diagonal by diagonal (``run[i, j] = (t[i] == r[j]) * (run[i-1, j-1] + 1)``); the first
  maximum in row-major order (smallest end in t, then in r) has the smallest start, which is the
  substring the scan from the left finds first;
- Levenshtein distance of all prefixes of r and t in one table, row by row, read at (|r_p|, |t_p|);
  the suffixes likewise on the reversed words. A row's left-to-right dependency
  ``cur[y] = min(tmp[y], cur[y-1] + 1)`` is ``min over z <= y of tmp[z] + (y - z)``, a running
  minimum of ``tmp - y`` (``np.minimum.accumulate``).

Pairs are grouped by length, so a block pads its words to a length close to their own.
"""

from __future__ import annotations

import numpy as np

CELLS = 1 << 21  # a block's tables hold at most about this many cells (pairs x width x width): bounded memory


def affix_distances(chars: np.ndarray, lens: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """AD(r, t) for each row ``(t, r)`` of ``pairs`` (word ids into ``chars``/``lens``, as the kernel);
    ``chars`` is padded with values below zero (never equal to a character)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    out = np.empty(len(pairs))
    if not len(pairs):
        return out
    width = np.maximum(lens[pairs[:, 0]], lens[pairs[:, 1]])
    order = np.argsort(width, kind="stable")
    start = 0
    while start < len(order):
        w = int(width[order[min(start + 511, len(order) - 1)]])  # the widest of the next 512 pairs (sorted by width)
        idx = order[start : start + max(1, min(512, CELLS // max(w * w, 1)))]
        out[idx] = _block(chars, lens, pairs[idx], int(width[idx].max()))
        start += len(idx)
    return out


def _block(chars, lens, pairs, w):
    P = len(pairs)
    rows = np.arange(P)
    nt, nr = lens[pairs[:, 0]], lens[pairs[:, 1]]
    t = np.full((P, w), -1, dtype=np.int64)
    r = np.full((P, w), -2, dtype=np.int64)
    width = min(w, chars.shape[1])
    t[:, :width] = chars[pairs[:, 0], :width]
    r[:, :width] = chars[pairs[:, 1], :width]
    t[np.arange(w)[None, :] >= nt[:, None]] = -1  # padding never matches
    r[np.arange(w)[None, :] >= nr[:, None]] = -2
    eq = t[:, :, None] == r[:, None, :]  # P x i (t) x j (r)
    run = np.zeros((P, w, w), dtype=np.int32)
    run[:, 0, :] = eq[:, 0, :]
    run[:, :, 0] = eq[:, :, 0]
    for i in range(1, w):
        run[:, i, 1:] = np.where(eq[:, i, 1:], run[:, i - 1, :-1] + 1, 0)
    flat = run.reshape(P, -1)
    end = flat.argmax(axis=1)
    best = flat[rows, end].astype(np.int64)
    bi = end // w - best + 1  # start of S in t
    bj = end % w - best + 1  # start of S in r
    d = _levenshtein_at(r, t, eq, bj, bi)
    # the suffixes: the same on the reversed words (each reversed within its own length)
    k = np.arange(w)[None, :]
    t_rev = np.where(k < nt[:, None], np.take_along_axis(t, np.clip(nt[:, None] - 1 - k, 0, w - 1), 1), -1)
    r_rev = np.where(k < nr[:, None], np.take_along_axis(r, np.clip(nr[:, None] - 1 - k, 0, w - 1), 1), -2)
    eq_rev = t_rev[:, :, None] == r_rev[:, None, :]
    d += _levenshtein_at(r_rev, t_rev, eq_rev, nr - bj - best, nt - bi - best)
    safe = np.maximum(best, 1)
    ad = np.minimum(d / safe, 1.0)
    ad[best == 0] = 1.0
    same = (nt == nr) & (best == nt)
    ad[same] = 0.0
    return ad


def _levenshtein_at(r, t, eq, x_at, y_at):
    """Lev(r[:x_at], t[:y_at]) for each pair (row), from one prefix table per pair, computed only as
    far as the longest prefix asked for."""
    P = len(r)
    xs, ys = int(x_at.max()), int(y_at.max())
    y = np.arange(ys + 1, dtype=np.int32)
    prev = np.broadcast_to(y, (P, ys + 1)).copy()
    out = prev[np.arange(P), y_at].astype(np.int64)  # where x_at == 0
    tmp = np.empty_like(prev)
    for x in range(1, xs + 1):
        tmp[:, 0] = x
        np.minimum(prev[:, :-1] + ~eq[:, :ys, x - 1], prev[:, 1:] + 1, out=tmp[:, 1:])  # eq[p, y-1, x-1]
        tmp -= y
        cur = np.minimum.accumulate(tmp, axis=1)
        cur += y
        hit = np.flatnonzero(x_at == x)
        if len(hit):
            out[hit] = cur[hit, y_at[hit]]
        prev = cur
    return out

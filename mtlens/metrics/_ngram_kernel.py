"""Compiled clipped n-gram counts (numba): what :func:`mtlens.core.ngrams.clipped_matches` computes, segment
by segment, with a small hash table instead of whole-corpus sorts.

For each segment and each order n, every n-gram of the segment's streams (references first, then the
systems) gets a number in the segment: the n-gram starting at position p is the pair (number of the
(n-1)-gram at p, token at p + n - 1), looked up in an open-addressing hash table of the exact pairs
(keys are compared whole, so a collision costs a probe and decides nothing; a generation stamp per
slot empties the table for the next order without clearing it). Each number's count per stream is
kept as it is found; the counts then give every clipped count: against each reference (chrF) or
against the largest count over the references (BLEU). An n-gram found in no reference or in no system
cannot start a longer match, so its position is dropped from the next orders, as the numpy engine
does. docs/decisions.md, "The n-gram engine".

Every function is compiled with ``nogil`` (:mod:`._numba`; the ahead-of-time build's wrappers likewise): a call
releases the interpreter lock, so threads of a process can share a job (docs/decisions.md, "The engine").
"""

from __future__ import annotations

import numpy as np

from ._numba import njit

#: the functions the ahead-of-time module holds (:mod:`._compiled`)
AOT_EXPORTS = ("clipped_counts",)

#: Fibonacci hashing's multiplier (2**64 / golden ratio, as a signed 64-bit number)
_MIX = -7046029254386353131


@njit(
    "int64[:, :, :, ::1](int64[::1], int64[:, ::1], int64[:, ::1], int64, int64, int64, boolean, int64[:, :, :, ::1])",
    cache=True,
)
def clipped_counts(tokens, offsets, lengths, n_refs, vocab, max_order, pairwise, out):
    """Add each system's clipped n-gram matches to ``out``.

    Args:
        tokens: all streams' tokens (ids below ``vocab``).
        offsets, lengths: (streams, segments): where each stream's segment starts in ``tokens`` and
            how many tokens it has; the first ``n_refs`` streams are the references.
        max_order: the highest n.
        pairwise: clip against each reference separately (``out``: systems x references x segments x
            orders), or against the largest count over the references (``out``: systems x 1 x ...).
    """
    S, n_seg = lengths.shape
    R = n_refs
    H = S - R
    most = 1
    for i in range(n_seg):
        tot = 0
        for s in range(S):
            tot += lengths[s, i]
        most = max(most, tot)
    cap = 16
    while cap < 2 * most:
        cap *= 2
    keys = np.empty(cap, dtype=np.int64)
    vals = np.empty(cap, dtype=np.int64)
    stamp = np.zeros(cap, dtype=np.int64)
    gen = 0
    ids = np.empty(most, dtype=np.int64)
    start = np.empty(S + 1, dtype=np.int64)
    cnt = np.empty(most * S, dtype=np.int64)  # cnt[id * S + stream]
    alive = np.empty(most, dtype=np.bool_)
    acc = np.zeros(H * R, dtype=np.int64)
    for i in range(n_seg):
        tot = 0
        for s in range(S):
            start[s] = tot
            tot += lengths[s, i]
        start[S] = tot
        if tot == 0:
            continue
        size = 16
        while size < 2 * tot:
            size *= 2
        mask = size - 1
        for p in range(tot):
            ids[p] = 0  # every position starts alive, after the "0-gram" 0
        for n in range(1, max_order + 1):
            # number this order's n-grams (and count each number per stream)
            gen += 1
            nid = 0
            for s in range(S):
                off, b, length = offsets[s, i], start[s], lengths[s, i]
                last = length - n + 1
                for p in range(max(last, 0)):
                    prev = ids[b + p]
                    if prev < 0:
                        continue
                    key = prev * vocab + tokens[off + p + n - 1]
                    h = ((key * _MIX) >> 32) & mask
                    while True:
                        if stamp[h] != gen:
                            stamp[h] = gen
                            keys[h] = key
                            vals[h] = nid
                            v = nid
                            for x in range(nid * S, nid * S + S):
                                cnt[x] = 0
                            nid += 1
                            break
                        if keys[h] == key:
                            v = vals[h]
                            break
                        h = (h + 1) & mask
                    ids[b + p] = v
                    cnt[v * S + s] += 1
                for p in range(max(last, 0), length):
                    ids[b + p] = -1
            if nid == 0:
                break
            # clipped counts, and which numbers occur in a reference and in a system (can grow)
            for x in range(H * R):
                acc[x] = 0
            for k in range(nid):
                row = k * S
                ref_max = 0
                for r in range(R):
                    ref_max = max(ref_max, cnt[row + r])
                hyp_any = False
                for hh in range(H):
                    c = cnt[row + R + hh]
                    if c > 0:
                        hyp_any = True
                        if ref_max > 0:
                            if pairwise:
                                for r in range(R):
                                    acc[hh * R + r] += min(c, cnt[row + r])
                            else:
                                acc[hh * R] += min(c, ref_max)
                alive[k] = hyp_any and ref_max > 0
            for hh in range(H):
                if pairwise:
                    for r in range(R):
                        out[hh, r, i, n - 1] += acc[hh * R + r]
                else:
                    out[hh, 0, i, n - 1] += acc[hh * R]
            if n < max_order:  # a position whose n-gram cannot grow starts no longer match
                for p in range(tot):
                    v = ids[p]
                    if v >= 0 and not alive[v]:
                        ids[p] = -1
    return out

"""The compiled loops of :mod:`mtlens.checks.candidates`: which lines the repetition and untranslated checks must look
at, for every line of a system in one pass over its code points (that module says what they compute).

They live beside the metrics' kernels because they are built the same way (:mod:`._compiled`): numba's, or compiled
ahead of time into an extension module that loads without numba. The dashboard's server computes the translation
checks of every set it shows; with numba's loops it imported numba and LLVM for them alone (about 70 MB of the
server's memory, docs/speed.md). So each function has one explicit signature, which numba's ahead-of-time compiler
can build.

Every function is compiled with ``nogil`` (:mod:`._numba`; the ahead-of-time build's wrappers likewise): a call
releases the interpreter lock, so threads of a process can share a job (docs/decisions.md, "The engine").
"""

from __future__ import annotations

import numpy as np

from ._numba import njit

#: the functions the ahead-of-time module holds (:mod:`._compiled`)
AOT_EXPORTS = ("loops", "copies")


@njit("int64(uint32[::1], int64, int64, boolean[::1], int32[::1], int8[::1], uint32[::1], uint64[::1])", cache=True)
def hashes(cps, lo, hi, space, fstart, flen, fdata, out):  # pragma: no cover - compiled
    """The hashes of the space-separated words of ``cps[lo:hi]`` (case-folded) into ``out``: their number, or -1 when
    the line has a code point outside the BMP (its folding is not read here)."""
    n = 0
    i = lo
    while i < hi:
        while i < hi and cps[i] < 0x10000 and space[cps[i]]:
            i += 1
        if i >= hi:
            break
        h = np.uint64(0xCBF29CE484222325)
        while i < hi and not (cps[i] < 0x10000 and space[cps[i]]):
            c = cps[i]
            if c >= 0x10000:
                return -1
            for k in range(fstart[c], fstart[c] + flen[c]):
                h = (h ^ np.uint64(fdata[k])) * np.uint64(0x100000001B3)
            i += 1
        out[n] = h
        n += 1
    return n


@njit(
    "uint8[::1](uint32[::1], int64[::1], uint8[::1], int32[::1], int8[::1], uint32[::1], int64, int64, int64)",
    cache=True,
)
def loops(cps, offsets, kind, fstart, flen, fdata, max_n, word_repeats, loop_repeats):  # pragma: no cover
    """Per line: 1 when its tokens (of its case-folded text) repeat an n-gram back to back (a token
    ``word_repeats`` times, 2 to ``max_n`` tokens ``loop_repeats`` times), or it has a code point outside the BMP."""
    m = offsets.shape[0] - 1
    out = np.zeros(m, dtype=np.uint8)
    longest = 1
    for k in range(m):
        longest = max(longest, offsets[k + 1] - offsets[k])
    toks = np.empty(3 * longest + 1, dtype=np.uint64)
    for k in range(m):
        lo, hi = offsets[k], offsets[k + 1]
        t = 0
        open_word = False
        h = np.uint64(0)
        astral = False
        for i in range(lo, hi):
            c = cps[i]
            if c >= 0x10000:
                astral = True
                break
            for j in range(fstart[c], fstart[c] + flen[c]):
                f = fdata[j]
                kf = kind[f] if f < 0x10000 else 2
                if kf == 1:
                    if not open_word:
                        h = np.uint64(0xCBF29CE484222325)
                        open_word = True
                    h = (h ^ np.uint64(f)) * np.uint64(0x100000001B3)
                    continue
                if open_word:
                    toks[t] = h
                    t += 1
                    open_word = False
                if kf == 2 or kf == 3:
                    toks[t] = (np.uint64(0x84222325CBF29CE4) ^ np.uint64(f)) * np.uint64(0x100000001B3)
                    t += 1
        if astral:
            out[k] = 1
            continue
        if open_word:
            toks[t] = h
            t += 1
        for n in range(1, max_n + 1):
            need = (word_repeats if n == 1 else loop_repeats) - 1
            run = 0
            for i in range(t - n):
                if toks[i] == toks[i + n]:
                    run += 1
                    if run >= need * n:
                        out[k] = 1
                        break
                else:
                    run = 0
            if out[k]:
                break
    return out


@njit(
    "uint8[::1](uint32[::1], int64[::1], uint32[::1], int64[::1], boolean[::1], int32[::1], int8[::1], uint32[::1])",
    cache=True,
)
def copies(out_cps, out_offsets, src_cps, src_offsets, space, fstart, flen, fdata):  # pragma: no cover - compiled
    m = out_offsets.shape[0] - 1
    res = np.zeros(m, dtype=np.uint8)
    longest = 1
    for k in range(m):
        longest = max(longest, out_offsets[k + 1] - out_offsets[k] + 1, src_offsets[k + 1] - src_offsets[k] + 1)
    mine = np.empty(longest, dtype=np.uint64)
    theirs = np.empty(longest, dtype=np.uint64)
    for k in range(m):
        n = hashes(out_cps, out_offsets[k], out_offsets[k + 1], space, fstart, flen, fdata, mine)
        if n < 0:
            res[k] = 1
            continue
        if n == 0:
            continue
        s = hashes(src_cps, src_offsets[k], src_offsets[k + 1], space, fstart, flen, fdata, theirs)
        if s < 0:
            res[k] = 1
            continue
        a = mine[:n]
        b = theirs[:s]
        a.sort()
        b.sort()
        distinct = 0
        shared = 0
        j = 0
        for i in range(n):
            if i > 0 and a[i] == a[i - 1]:
                continue
            distinct += 1
            while j < s and b[j] < a[i]:
                j += 1
            if j < s and b[j] == a[i]:
                shared += 1
        if 2 * shared >= distinct:
            res[k] = 1
    return res

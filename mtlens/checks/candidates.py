"""Which lines the costly checks need to look at, for every line at once (issue 60: the checks over 8 systems x 100,000
lines as fast as BLEU). Two conditions of docs/checks.md are cheap to state and costly in Python one line at a
time; here they are computed for all lines of a system in one compiled pass over their code points:

- ``repetition`` looks at a line only when its tokens (words, marks, CJK characters of its case-folded text, as
  :mod:`.lines` cuts them) repeat an n-gram back to back often enough to be a loop, or it has a code point outside
  the Basic Multilingual Plane;
- ``untranslated`` looks at an output only when at least half of its distinct space-separated tokens (case-folded)
  are tokens of its source line.

Tokens and words are hashed (64-bit FNV-1a over their case-folded code points); two different ones with one hash
only make a line looked at for nothing, never a line passed over. The tables (each code point's token kind by the
check's own regular expressions, whether ``str.split`` splits on it, its ``str.casefold``) are Python's own, read
once per process; the exact
rules then run on the lines found (:mod:`.lines`), so the verdicts are the same as without this module
(tests/checks/test_candidates.py compares them on real lines).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from ..metrics._numba import njit
from .lines import CJK as CJK_CHARS
from .lines import LOOP_REPEATS, MAX_LOOP_N, WORD_REPEATS

#: a code point's kind as the loop check's tokens have them (``_TOKEN`` of :mod:`.lines`)
OTHER, ALNUM, MARK, CJK = 0, 1, 2, 3
_CJK = re.compile(CJK_CHARS)
_ALNUM = re.compile(r"[^\W_]")
_MARK = re.compile(r"[^\w\s]")


@functools.lru_cache(maxsize=1)
def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every code point of the Basic Multilingual Plane: its token kind (as the loop check's regular expression
    has it), whether ``str.split`` splits on it, and its case folding as a slice of one array (``start``,
    ``length``, ``data``). About 0.3 s, once per process."""
    kind = np.empty(0x10000, dtype=np.uint8)
    space = np.empty(0x10000, dtype=np.bool_)
    start = np.empty(0x10000, dtype=np.int32)
    length = np.empty(0x10000, dtype=np.int8)
    data: list[int] = []
    for cp in range(0x10000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:  # a lone surrogate: a mark of its own
            kind[cp], space[cp], start[cp], length[cp] = MARK, False, len(data), 1
            data.append(cp)
            continue
        kind[cp] = CJK if _CJK.match(ch) else ALNUM if _ALNUM.match(ch) else MARK if _MARK.match(ch) else OTHER
        space[cp] = ch.isspace()
        folded = ch.casefold()
        start[cp], length[cp] = len(data), len(folded)
        data.extend(ord(c) for c in folded)
    return kind, space, start, length, np.array(data, dtype=np.uint32)


@njit(cache=True)
def _hashes(cps, lo, hi, space, fstart, flen, fdata, out):  # pragma: no cover - compiled
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


@njit(cache=True)
def _loops(cps, offsets, kind, fstart, flen, fdata, max_n, word_repeats, loop_repeats):  # pragma: no cover
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


@njit(cache=True)
def _copies(out_cps, out_offsets, src_cps, src_offsets, space, fstart, flen, fdata):  # pragma: no cover - compiled
    m = out_offsets.shape[0] - 1
    res = np.zeros(m, dtype=np.uint8)
    longest = 1
    for k in range(m):
        longest = max(longest, out_offsets[k + 1] - out_offsets[k] + 1, src_offsets[k + 1] - src_offsets[k] + 1)
    mine = np.empty(longest, dtype=np.uint64)
    theirs = np.empty(longest, dtype=np.uint64)
    for k in range(m):
        n = _hashes(out_cps, out_offsets[k], out_offsets[k + 1], space, fstart, flen, fdata, mine)
        if n < 0:
            res[k] = 1
            continue
        if n == 0:
            continue
        s = _hashes(src_cps, src_offsets[k], src_offsets[k + 1], space, fstart, flen, fdata, theirs)
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


def _code_points(lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lines], out=offsets[1:])
    text = "".join(lines).encode("utf-32-le", errors="surrogatepass")
    return np.frombuffer(text, dtype=np.uint32), offsets


def may_loop(lines: Sequence[str]) -> np.ndarray:
    """Per line, whether :func:`mtlens.checks.lines.check_repetition` must look at it (the module's first rule)."""
    if not lines:
        return np.zeros(0, dtype=bool)
    cps, offsets = _code_points(lines)
    kind, _, fstart, flen, fdata = tables()
    return _loops(cps, offsets, kind, fstart, flen, fdata, MAX_LOOP_N, WORD_REPEATS, LOOP_REPEATS).astype(bool)


def may_be_copies(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """Per line, whether :func:`mtlens.checks.lines.check_untranslated` must look at the output (the second rule)."""
    if not outputs:
        return np.zeros(0, dtype=bool)
    out_cps, out_offsets = _code_points(outputs)
    src_cps, src_offsets = _code_points(sources)
    _, space, fstart, flen, fdata = tables()
    return _copies(out_cps, out_offsets, src_cps, src_offsets, space, fstart, flen, fdata).astype(bool)

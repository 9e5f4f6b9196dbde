"""Compiled TER kernel (numba): tercom's greedy shifts and beam edit distance, as sacrebleu 2.6.0 does them.

This is a port of ``sacrebleu/metrics/lib_ter.py`` to integer arrays, keeping
every rule that can change a number: the beam around the pseudo-diagonal
(width 25, widened for very unequal lengths), the order and strictness of the
operation comparisons (substitution/match, then deletion, then insertion, each
taken only if strictly cheaper; cells outside the beam are "infinite"), the
enumeration order of shift candidates and their ranking (gain, length, earliest
start, earliest target), the error-span and alignment filters, the limit of 1000
evaluated candidates per segment (when it is reached the pending shift is not
applied), shifts of 1..10 words over a distance of at most 50.

Speed comes from compiled loops and from how a candidate shift's distance is found
(docs/decisions.md, "TER"):

- **bit-parallel, without the beam** first (references of at most :data:`MAX_BITS` words): one
  64-bit word per row up to 62 reference words, two beyond (Hyyrö's bit-vector algorithm for the
  Levenshtein distance, 2003; the two-limb sum and shift carry by hand), from the first row where
  the candidate differs from the current hypothesis on. Without the beam a distance
  can only be smaller; below :func:`_exact_below` (the cheapest any path through a cell the beam
  leaves out can be) it is the beam's too. A candidate whose gain is not positive or below the best
  one's even so cannot be the shift taken, and needs nothing more.
- otherwise **with the beam, over the rows where it differs**: the rows of a common prefix are the
  current hypothesis's, and from the first word of a common suffix on the cheapest path to the last
  cell is the current hypothesis's too (a backward table, :func:`rest_costs`, brought up to date only
  when a round needs it), so the distance is the minimum over that row of the two.

No matrix of operations is kept: a round keeps its matrix of costs, and the backtrace finds the
operation of each cell on its path from the costs around it (:func:`_op_at`).

Words are integer ids. Operation codes: 0 match, 1 substitution, 2 insertion
(a reference word the hypothesis lacks), 3 deletion (a hypothesis word not in
the reference), 4 undefined.

Every function is compiled with ``nogil`` (:mod:`._numba`; the ahead-of-time build's wrappers likewise): a call
releases the interpreter lock, so threads of a process can share a job (docs/decisions.md, "The engine").
"""

from __future__ import annotations

import math

import numpy as np

from ._numba import njit

INF = 10**16
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000

OP_NOP, OP_SUB, OP_INS, OP_DEL, OP_UNDEF = 0, 1, 2, 3, 4

#: the functions the ahead-of-time module holds (:mod:`._compiled`): what ``metrics/ter.py`` calls
AOT_EXPORTS = ("ter_many", "ter_pair", "trace_ops", "edit_distance_rows", "_perform_shift")


@njit("(int64, int64)", cache=True)
def _beam(n_h, n_r):
    ratio = n_r / n_h if n_h > 0 else 1.0
    if ratio / 2 > BEAM_WIDTH:
        beam = int(math.ceil(ratio / 2 + BEAM_WIDTH))
    else:
        beam = BEAM_WIDTH
    return ratio, beam


@njit("(int64, int64, int64, float64, int64)", cache=True)
def _span(i, n_h, n_r, ratio, beam):
    """The cells of row ``i`` (1 .. ``n_h``) the beam computes: ``min_j <= j < max_j`` (the last row whole)."""
    pseudo = int(math.floor(i * ratio))
    min_j = max(0, pseudo - beam)
    max_j = n_r + 1 if i == n_h else min(n_r + 1, pseudo + beam)
    return min_j, max_j


@njit("(int64, int64, float64, int64, int64[:, ::1], int64)", cache=True, inline="always")
def _start_row(i, n_h, ratio, beam, table, row):
    """Row ``i``'s cells outside the beam set "infinite" in ``table[row]`` (one cell per reference word
    and one more); returns the span the caller computes (:func:`_span`)."""
    n_r = table.shape[1] - 1
    min_j, max_j = _span(i, n_h, n_r, ratio, beam)
    for j in range(min(min_j, n_r + 1)):
        table[row, j] = INF
    for j in range(max_j, n_r + 1):
        table[row, j] = INF
    return min_j, max_j


@njit(
    "(int64, int64, int64[::1], int64[:, ::1], int64, int64[:, ::1], int64, int64, float64, int64)",
    cache=True,
    inline="always",
)
def _row_costs(i, h_word, ref, src, s, dst, d, n_h, ratio, beam):
    """Fill row ``i`` (costs in ``dst[d]``) from row ``i - 1`` (``src[s]``): the cheapest of the three
    moves, "infinite" outside the beam and wherever only such cells lead (anything from INF up is INF).
    Which move a cell took is found again, for the cells on the path only, by :func:`_op_at`. (Rows
    are passed as a table and an index: a row taken out as an array of its own costs two atomic
    reference-count updates, a fifth of the kernel's time when it did.)"""
    min_j, max_j = _start_row(i, n_h, ratio, beam, dst, d)
    first = min_j
    if first == 0 and first < max_j:
        dst[d, 0] = min(src[s, 0] + 1, INF)
        first = 1
    left = dst[d, first - 1] if first > 0 else INF
    for j in range(first, max_j):
        c = src[s, j - 1] + (0 if h_word == ref[j - 1] else 1)
        e = src[s, j] + 1
        if e < c:
            c = e
        e = left + 1
        if e < c:
            c = e
        if c > INF:
            c = INF
        dst[d, j] = c
        left = c


@njit("(int64[::1], int64[::1], int64[:, ::1], int64)", cache=True)
def _fill_costs(hyp, ref, costs, first):
    """Rows ``first + 1 .. n_h`` of ``costs`` (rows up to ``first`` are already those of ``hyp``)."""
    n_h, n_r = hyp.shape[0], ref.shape[0]
    ratio, beam = _beam(n_h, n_r)
    for i in range(first + 1, n_h + 1):
        _row_costs(i, hyp[i - 1], ref, costs, i - 1, costs, i, n_h, ratio, beam)


@njit("(int64[::1], int64[::1])", cache=True)
def edit_distance_rows(hyp, ref):
    """Beam edit distance with every row kept: the cost matrix."""
    n_h, n_r = hyp.shape[0], ref.shape[0]
    costs = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    for j in range(n_r + 1):
        costs[0, j] = j
    _fill_costs(hyp, ref, costs, 0)
    return costs


@njit("(int64[:, ::1], int64[::1], int64[::1], int64, int64, float64, int64)", cache=True, inline="always")
def _op_at(costs, hyp, ref, i, j, ratio, beam):
    """The operation sacrebleu records for cell (i, j) of ``costs``: from the costs of the three cells
    before it, in sacrebleu's order and strictness (substitution or match, then deletion, then
    insertion, each taken only if strictly cheaper than the best so far, which starts "infinite");
    insertion all along row 0, deletion at column 0, undefined outside the beam."""
    if i == 0:
        return OP_INS
    min_j, max_j = _span(i, hyp.shape[0], ref.shape[0], ratio, beam)
    if j < min_j or j >= max_j:
        return OP_UNDEF
    if j == 0:
        return OP_DEL
    best = INF
    op = OP_UNDEF
    c = costs[i - 1, j - 1] + (0 if hyp[i - 1] == ref[j - 1] else 1)
    if best > c:
        best = c
        op = OP_NOP if hyp[i - 1] == ref[j - 1] else OP_SUB
    c = costs[i - 1, j] + 1
    if best > c:
        best = c
        op = OP_DEL
    c = costs[i, j - 1] + 1
    if best > c:
        op = OP_INS
    return op


@njit("(int64[::1], int64[::1], int64[:, ::1], int64)", cache=True)
def _fill_rest(hyp, ref, rest, last):
    """Rows ``last - 1 .. 0`` of ``rest`` (rows from ``last`` on are already those of ``hyp``).

    Cells outside the beam stay "infinite" (INF) and a move from them costs INF or more, so the moves
    need no range checks: any value from INF up is clamped to INF."""
    n_h, n_r = hyp.shape[0], ref.shape[0]
    ratio, beam = _beam(n_h, n_r)
    for i in range(last - 1, -1, -1):
        lo, hi = (0, n_r + 1) if i == 0 else _span(i, n_h, n_r, ratio, beam)
        w = hyp[i]  # the word of row i + 1
        for j in range(hi - 1, lo - 1, -1):
            c = rest[i + 1, j] + 1  # deletion -> (i + 1, j)
            if j < n_r:
                d = rest[i, j + 1] + 1  # insertion: (i, j) -> (i, j + 1)
                if d < c:
                    c = d
                d = rest[i + 1, j + 1] + (0 if w == ref[j] else 1)  # substitution or match -> (i + 1, j + 1)
                if d < c:
                    c = d
            rest[i, j] = c if c < INF else INF


@njit("(int64, int64)", cache=True)
def _rest_table(n_h, n_r):
    """:func:`rest_costs`'s table with only its last row (insertions to the end), the same for every
    hypothesis of ``n_h`` words; the rest "infinite"."""
    rest = np.full((n_h + 1, n_r + 1), INF, dtype=np.int64)
    ratio, beam = _beam(n_h, n_r)
    lo, _ = _span(n_h, n_h, n_r, ratio, beam)
    for j in range(lo, n_r + 1):
        rest[n_h, j] = n_r - j
    return rest


@njit("(int64[::1], int64[::1])", cache=True)
def rest_costs(hyp, ref):
    """``rest[i, j]``: the cheapest path from cell (i, j) to the last cell through the cells the beam
    computes (others "infinite"), the mirror of :func:`edit_distance_rows`. Every path to the last
    cell crosses row i, so the distance is ``min_j costs[i, j] + rest[i, j]`` for any i: a hypothesis
    that equals ``hyp`` from word i on needs its own rows only up to row i."""
    rest = _rest_table(hyp.shape[0], ref.shape[0])
    _fill_rest(hyp, ref, rest, hyp.shape[0])
    return rest


@njit("(int64[::1], int64[::1], int64[:, ::1], int64[:, ::1], int64, int64, int64[:, ::1])", cache=True)
def edit_distance_between(hyp, ref, costs, rest, start, stop, buf):
    """Beam edit distance of ``hyp``, equal to the hypothesis of ``costs`` (its rows up to ``start``)
    and of ``rest`` (its words from ``stop`` on): rows ``start + 1 .. stop`` only, in the two rows of
    ``buf`` by turns."""
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    ratio, beam = _beam(n_h, n_r)
    for j in range(n_r + 1):
        buf[0, j] = costs[start, j]
    for i in range(start + 1, stop + 1):
        s = (i - start - 1) & 1
        _row_costs(i, hyp[i - 1], ref, buf, s, buf, 1 - s, n_h, ratio, beam)
    last = (stop - start) & 1
    best = INF
    for j in range(n_r + 1):
        c = buf[last, j] + rest[stop, j]
        if c < best:
            best = c
    return best


@njit("(int64[:, ::1], int64[::1], int64[::1])", cache=True)
def trace_ops(costs, hyp, ref):
    """Backtrace the operations from (n_h, n_r) to (0, 0), in order (sacrebleu's ``trace``), given the
    cost matrix of :func:`edit_distance_rows`."""
    n_h, n_r = hyp.shape[0], ref.shape[0]
    ratio, beam = _beam(n_h, n_r)
    out = np.empty(n_h + n_r, dtype=np.int8)
    k = 0
    i, j = n_h, n_r
    while i > 0 or j > 0:
        op = _op_at(costs, hyp, ref, i, j, ratio, beam)
        out[k] = op
        k += 1
        if op == OP_NOP or op == OP_SUB:
            i -= 1
            j -= 1
        elif op == OP_INS:
            j -= 1
        elif op == OP_DEL:
            i -= 1
        else:
            return out[:0]  # undefined cell (cannot happen on a complete last row)
    return out[:k][::-1].copy()


@njit("(int64[::1], int64, int64, int64, int64[::1])", cache=True)
def _perform_shift(words, start, length, target, out):
    n = words.shape[0]
    k = 0
    if target < start:
        for x in range(target):
            out[k] = words[x]
            k += 1
        for x in range(start, start + length):
            out[k] = words[x]
            k += 1
        for x in range(target, start):
            out[k] = words[x]
            k += 1
        for x in range(start + length, n):
            out[k] = words[x]
            k += 1
    elif target > start + length:
        for x in range(start):
            out[k] = words[x]
            k += 1
        for x in range(start + length, target):
            out[k] = words[x]
            k += 1
        for x in range(start, start + length):
            out[k] = words[x]
            k += 1
        for x in range(target, n):
            out[k] = words[x]
            k += 1
    else:
        for x in range(start):
            out[k] = words[x]
            k += 1
        for x in range(start + length, min(length + target, n)):
            out[k] = words[x]
            k += 1
        for x in range(start, start + length):
            out[k] = words[x]
            k += 1
        for x in range(length + target, n):
            out[k] = words[x]
            k += 1


#: bits of one limb of the bit-parallel rows: a 64-bit word, kept below the sign bit (a sum of two limbs
#: and a carry stays below 2**63)
LIMB = 62
#: references of at most this many words are also aligned bit-parallel: one limb per row up to ``LIMB``
#: words, two limbs (bits ``LIMB`` on in the second, the carries between them done by hand) up to twice that
MAX_BITS = 2 * LIMB


@njit("(int64, int64)", cache=True)
def _exact_below(n_h, n_r):
    """An edit distance without the beam below this value is also the beam's distance (for any
    hypothesis of ``n_h`` words against ``n_r`` reference words).

    A path through cell (i, j) costs at least ``|j - i|`` to reach it and ``|(n_r - j) - (n_h - i)|``
    from it on; the smallest such bound over the cells the beam leaves out (rows 1 .. n_h - 1) is
    returned (INF when it leaves none out). A cheaper path than that never enters a left-out cell, so
    the cheapest path without the beam is one the beam computes too."""
    ratio, beam = _beam(n_h, n_r)
    delta = n_r - n_h
    lo, hi = min(0, delta), max(0, delta)  # |x| + |x - delta| is smallest (|delta|) between lo and hi
    best = INF
    for i in range(1, n_h):
        min_j, max_j = _span(i, n_h, n_r, ratio, beam)
        if max_j <= n_r:  # cells j >= max_j are left out: x = j - i >= max_j - i
            x = max(max_j - i, lo)
            best = min(best, abs(x) + abs(x - delta))
        if min_j > 0:  # cells j < min_j are left out: x = j - i <= min_j - 1 - i
            x = min(min_j - 1 - i, hi)
            best = min(best, abs(x) + abs(x - delta))
    return best


@njit("(int64[::1], int64[::1], int64[::1], int64[::1])", cache=True)
def _match_bits(hyp, ref, eq, eq1):
    """``eq[i]``: bit ``j`` set where reference word ``j`` equals hypothesis word ``i``, for ``j`` below
    :data:`LIMB`; ``eq1[i]``: bit ``j - LIMB`` for the words from ``LIMB`` on (``len(ref)`` at most
    :data:`MAX_BITS`)."""
    for i in range(hyp.shape[0]):
        m = 0
        m1 = 0
        for j in range(ref.shape[0]):
            if hyp[i] == ref[j]:
                if j < LIMB:
                    m |= 1 << j
                else:
                    m1 |= 1 << (j - LIMB)
        eq[i] = m
        eq1[i] = m1


@njit("(int64, int64, int64, int64, int64)", cache=True, inline="always")
def _bit_row(e, pv, mv, score, n_r):
    """One row of :func:`_bit_rows` from the one before it (bits above ``n_r`` kept clear)."""
    full = (1 << n_r) - 1
    high = 1 << (n_r - 1)
    x = e | mv
    d0 = ((((x & pv) + pv) ^ pv) | x) & full
    hp = (mv | ~(d0 | pv)) & full
    hn = d0 & pv
    if hp & high:
        score += 1
    elif hn & high:
        score -= 1
    hp = ((hp << 1) | 1) & full
    hn = (hn << 1) & full
    return (hn | ~(d0 | hp)) & full, hp & d0, score


@njit(
    "(int64, int64, int64, int64, int64, int64, int64, int64)",
    cache=True,
    inline="always",
)
def _bit_row2(e, e1, pv, pv1, mv, mv1, score, n_r):
    """:func:`_bit_row` for a reference of ``LIMB`` + 1 .. :data:`MAX_BITS` words, its bits in two limbs (``e``,
    ``pv``, ``mv``: bits 0 .. LIMB - 1; ``e1``, ``pv1``, ``mv1``: the rest): the same operations on the
    two-limb number, the sum's carry and the shifted-out bits passed from the low limb to the high one."""
    full = (1 << LIMB) - 1
    full1 = (1 << (n_r - LIMB)) - 1
    high1 = 1 << (n_r - LIMB - 1)
    x = e | mv
    x1 = e1 | mv1
    low = (x & pv) + pv  # below 2**63: bit LIMB is the carry
    high = (x1 & pv1) + pv1 + (low >> LIMB)
    d0 = ((low ^ pv) | x) & full
    d01 = ((high ^ pv1) | x1) & full1
    hp = (mv | ~(d0 | pv)) & full
    hp1 = (mv1 | ~(d01 | pv1)) & full1
    hn = d0 & pv
    hn1 = d01 & pv1
    if hp1 & high1:
        score += 1
    elif hn1 & high1:
        score -= 1
    hp1 = ((hp1 << 1) | (hp >> (LIMB - 1))) & full1
    hp = ((hp << 1) | 1) & full
    hn1 = ((hn1 << 1) | (hn >> (LIMB - 1))) & full1
    hn = (hn << 1) & full
    return (hn | ~(d0 | hp)) & full, (hn1 | ~(d01 | hp1)) & full1, hp & d0, hp1 & d01, score


@njit(
    "(int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1], int64[::1])",
    cache=True,
)
def _bit_rows(eq, eq1, n_r, pv, pv1, mv, mv1, score):
    """The unrestricted edit distance's rows of the hypothesis of ``eq`` (and ``eq1``, :func:`_match_bits`),
    bit-parallel (Hyyrö 2003, as rapidfuzz computes Levenshtein): row ``i`` as the bits of its
    differences between neighbouring cells (``pv[i]``: +1, ``mv[i]``: -1; ``pv1``, ``mv1``: the second
    limb's, zero up to ``LIMB`` reference words) and its last cell ``score[i]``."""
    if n_r <= LIMB:
        pv[0], pv1[0], mv[0], mv1[0], score[0] = (1 << n_r) - 1, 0, 0, 0, n_r
        for i in range(eq.shape[0]):
            pv[i + 1], mv[i + 1], score[i + 1] = _bit_row(eq[i], pv[i], mv[i], score[i], n_r)
            pv1[i + 1], mv1[i + 1] = 0, 0
        return
    pv[0], pv1[0], mv[0], mv1[0], score[0] = (1 << LIMB) - 1, (1 << (n_r - LIMB)) - 1, 0, 0, n_r
    for i in range(eq.shape[0]):
        pv[i + 1], pv1[i + 1], mv[i + 1], mv1[i + 1], score[i + 1] = _bit_row2(
            eq[i], eq1[i], pv[i], pv1[i], mv[i], mv1[i], score[i], n_r
        )


@njit("(int64[::1], int64[::1], int64, int64, int64)", cache=True)
def _changed(words, shifted, start, length, target):
    """``(first, last)``: ``shifted`` (``words`` after the shift) equals ``words`` before word ``first``
    and from word ``last`` on (after the moved block or its target, less the words that happen to be
    equal), so its cost rows up to ``first`` and its backward rows from ``last`` on are those of
    ``words``."""
    first = min(start, target)
    last = max(start + length, target)
    if start <= target <= start + length:
        last = min(length + target, words.shape[0])
    while last > first and shifted[last - 1] == words[last - 1]:
        last -= 1
    return first, last


@njit(
    "(int64[::1], int64[::1], int64[::1], int64[::1], int64, int64[:, ::1], int64[:, ::1], int64, int64, int64,"
    " int64[:, ::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1],"
    " int64[::1])",
    cache=True,
)
def _shift_round(
    words, eq, eq1, ref, checked, costs, rest, first, rest_from, exact_below, buf, cand, cand_eq, cand_eq1, pv, pv1,
    mv, mv1, score
):  # fmt: skip
    """One round of ``lib_ter._shift``: the best shift of ``words`` (or gain 0).

    ``costs`` (:func:`edit_distance_rows`) is brought up to date for ``words``: it holds the table of the
    hypothesis before the last shift, whose rows up to ``first`` are still right (:func:`_changed`).
    ``rest`` (:func:`rest_costs`) is right for ``words`` from row ``rest_from`` on, and is brought up
    to date only when a candidate needs it. A candidate's distance is first computed bit-parallel
    without the beam (``eq``, ``eq1``: :func:`_match_bits` of ``words``; ``pv``, ``pv1``, ``mv``, ``mv1``,
    ``score``: room for :func:`_bit_rows`), which is the beam's when below ``exact_below`` (:func:`_exact_below`);
    otherwise, if the candidate can still be the one taken, over its changed rows with the beam
    (:func:`edit_distance_between`, ``buf`` its two rows).

    Returns (gain, start_h, length, idx, checked, pre_score, rest_from).
    """
    n_h, n_r = words.shape[0], ref.shape[0]
    _fill_costs(words, ref, costs, first)
    pre_score = costs[n_h, n_r]
    bits = n_r <= MAX_BITS
    if bits:
        _bit_rows(eq, eq1, n_r, pv, pv1, mv, mv1, score)
    trace = trace_ops(costs, words, ref)
    # alignment of the flipped trace: insertions and deletions swap roles
    align = np.full(n_r, -2, dtype=np.int64)
    ref_err = np.zeros(n_r, dtype=np.int64)
    hyp_err = np.zeros(n_h, dtype=np.int64)
    ph, pr = -1, -1
    for t in range(trace.shape[0]):
        op = trace[t]
        if op == OP_NOP or op == OP_SUB:
            ph += 1
            pr += 1
            align[pr] = ph
            if op == OP_SUB:
                hyp_err[ph] = 1
                ref_err[pr] = 1
        elif op == OP_DEL:  # flipped to an insertion: the hypothesis advances
            ph += 1
            hyp_err[ph] = 1
        else:  # OP_INS flipped to a deletion: the reference advances
            pr += 1
            align[pr] = ph
            ref_err[pr] = 1
    hyp_cum = np.zeros(n_h + 1, dtype=np.int64)
    for x in range(n_h):
        hyp_cum[x + 1] = hyp_cum[x] + hyp_err[x]
    ref_cum = np.zeros(n_r + 1, dtype=np.int64)
    for x in range(n_r):
        ref_cum[x + 1] = ref_cum[x] + ref_err[x]

    have_best = False
    b_gain, b_len, b_neg_start, b_neg_idx = 0, 0, 0, 0
    slack = pre_score - score[n_h] if bits else INF  # the beam's distance of ``words`` less the unrestricted one
    stop = False
    for start_h in range(n_h):
        if stop:
            break
        matches, matches1 = eq[start_h], eq1[start_h]  # with ``bits``: the reference words equal to this one
        for start_r in range(n_r):
            if stop:
                break
            if bits:
                left = matches >> start_r if start_r < LIMB else matches1 >> (start_r - LIMB)
                if left == 0 and (start_r >= LIMB or matches1 == 0):
                    break  # no equal reference word from here on
                if not left & 1:
                    continue
            if abs(start_r - start_h) > MAX_SHIFT_DIST:
                continue
            length = 0
            while words[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                # --- the body of lib_ter._shift for candidate (start_h, start_r, length)
                skip = False
                if (
                    hyp_cum[start_h + length] - hyp_cum[start_h] == 0
                    or ref_cum[start_r + length] - ref_cum[start_r] == 0
                    or start_h <= align[start_r] < start_h + length
                ):
                    skip = True
                if not skip:
                    prev_idx = -1
                    for offset in range(-1, length):
                        pos = start_r + offset
                        if pos == -1:
                            idx = 0
                        elif 0 <= pos < n_r and align[pos] != -2:
                            idx = align[pos] + 1
                        else:
                            break
                        if idx == prev_idx:
                            continue
                        prev_idx = idx
                        # the candidate (lib_ter._perform_shift), written only where it differs from
                        # ``words``: positions ``first`` .. ``last`` - 1 (:func:`_changed`), here and
                        # not in a function of its own (passing arrays costs atomic reference counts)
                        if idx < start_h:
                            first, k = idx, idx
                            for x in range(start_h, start_h + length):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                            for x in range(idx, start_h):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                        elif idx > start_h + length:
                            first, k = start_h, start_h
                            for x in range(start_h + length, idx):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                            for x in range(start_h, start_h + length):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                        else:
                            first, k = start_h, start_h
                            for x in range(start_h + length, min(length + idx, n_h)):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                            for x in range(start_h, start_h + length):
                                cand[k], cand_eq[k], cand_eq1[k], k = words[x], eq[x], eq1[x], k + 1
                        last = k
                        while last > first and cand[last - 1] == words[last - 1]:
                            last -= 1
                        checked += 1
                        # moving ``length`` words costs at most ``2 * length`` edits between ``words`` and the
                        # candidate, so the candidate's distance is at least ``words``' without the beam less that
                        # (``slack``: how far the beam's distance of ``words`` is above it)
                        if have_best and slack + 2 * length < b_gain:
                            continue
                        found = False
                        if bits and n_r <= LIMB:
                            p_, m_, dist = pv[first], mv[first], score[first]
                            for x in range(first, last):
                                p_, m_, dist = _bit_row(cand_eq[x], p_, m_, dist, n_r)
                            for x in range(last, n_h):
                                p_, m_, dist = _bit_row(eq[x], p_, m_, dist, n_r)
                        elif bits:
                            p_, p1, m_, m1, dist = pv[first], pv1[first], mv[first], mv1[first], score[first]
                            for x in range(first, last):
                                p_, p1, m_, m1, dist = _bit_row2(cand_eq[x], cand_eq1[x], p_, p1, m_, m1, dist, n_r)
                            for x in range(last, n_h):
                                p_, p1, m_, m1, dist = _bit_row2(eq[x], eq1[x], p_, p1, m_, m1, dist, n_r)
                        if bits:
                            found = dist < exact_below
                            # without the beam the distance can only be smaller: a candidate whose gain
                            # even so is not positive, or below the best's, cannot be the shift taken
                            if not found and (pre_score - dist <= 0 or (have_best and pre_score - dist < b_gain)):
                                continue
                        if not found:
                            if rest_from > 0:
                                _fill_rest(words, ref, rest, rest_from)
                                rest_from = 0
                            dist = edit_distance_between(cand, ref, costs, rest, first, last, buf)
                        gain = pre_score - dist
                        better = False
                        if not have_best:
                            better = True
                        elif gain != b_gain:
                            better = gain > b_gain
                        elif length != b_len:
                            better = length > b_len
                        elif -start_h != b_neg_start:
                            better = -start_h > b_neg_start
                        elif -idx != b_neg_idx:
                            better = -idx > b_neg_idx
                        if better:
                            have_best = True
                            b_gain, b_len, b_neg_start, b_neg_idx = gain, length, -start_h, -idx
                    if checked >= MAX_SHIFT_CANDIDATES:
                        stop = True
                        break
                # --- end of body
                if n_h == start_h + length or n_r == start_r + length:
                    break
    if not have_best:
        return 0, 0, 0, 0, checked, pre_score, rest_from
    return b_gain, -b_neg_start, b_len, -b_neg_idx, checked, pre_score, rest_from


@njit("(int64[::1], int64[::1], int64[:, ::1])", cache=True)
def ter_pair(hyp, ref, shifts_out):
    """TER edits of one hypothesis against one reference (``lib_ter.translation_edit_rate``).

    Args:
        hyp, ref: int64 word ids.
        shifts_out: int64 array (k, 3) receiving the applied shifts (start, length, target)
            in order; pass shape (0, 3) when they are not needed.

    Returns:
        (total_edits, n_shifts, shifted_hypothesis)
    """
    n_h, n_r = hyp.shape[0], ref.shape[0]
    if n_r == 0:
        return n_h, 0, hyp.copy()
    words = hyp.copy()
    cand = np.empty(n_h, dtype=np.int64)
    eq = np.zeros(n_h, dtype=np.int64)
    eq1 = np.zeros(n_h, dtype=np.int64)
    cand_eq = np.zeros(n_h, dtype=np.int64)
    cand_eq1 = np.zeros(n_h, dtype=np.int64)
    if n_r <= MAX_BITS:
        _match_bits(words, ref, eq, eq1)
    pv = np.empty(n_h + 1, dtype=np.int64)
    pv1 = np.empty(n_h + 1, dtype=np.int64)
    mv = np.empty(n_h + 1, dtype=np.int64)
    mv1 = np.empty(n_h + 1, dtype=np.int64)
    score = np.empty(n_h + 1, dtype=np.int64)
    buf = np.empty((2, n_r + 1), dtype=np.int64)
    costs = edit_distance_rows(words, ref)
    rest = _rest_table(n_h, n_r)
    exact_below = _exact_below(n_h, n_r)
    first, rest_from = n_h, n_h  # all of ``costs`` is that of ``words``, ``rest`` only its last row
    shifts = 0
    checked = 0
    while True:
        # pre_score: the edit distance of ``words`` as they are now
        gain, start, length, idx, checked, pre_score, rest_from = _shift_round(
            words, eq, eq1, ref, checked, costs, rest, first, rest_from, exact_below, buf, cand, cand_eq, cand_eq1, pv,
            pv1, mv, mv1, score,
        )  # fmt: skip
        if checked >= MAX_SHIFT_CANDIDATES:
            break
        if gain <= 0:
            break
        if shifts < shifts_out.shape[0]:
            shifts_out[shifts, 0] = start
            shifts_out[shifts, 1] = length
            shifts_out[shifts, 2] = idx
        _perform_shift(words, start, length, idx, cand)
        first, last = _changed(words, cand, start, length, idx)
        words[:] = cand
        _perform_shift(eq, start, length, idx, cand_eq)
        eq[:] = cand_eq
        _perform_shift(eq1, start, length, idx, cand_eq1)
        eq1[:] = cand_eq1
        rest_from = max(rest_from, last)  # rows from ``last`` on depend on words that did not move
        shifts += 1
    # the loop ends without shifting ``words`` after the round that measured them (no gain, or the
    # candidate limit reached: sacrebleu then drops the pending shift), so their distance is known
    return shifts + pre_score, shifts, words


@njit("(int64[::1], int64[::1], int64[::1], int64[::1], int64[:, ::1])", cache=True)
def ter_many(hyp_flat, hyp_off, ref_flat, ref_off, pairs):
    """Edits of many (hypothesis, reference) pairs: ``pairs[k] = (hyp index, ref index)``."""
    out = np.empty(pairs.shape[0], dtype=np.int64)
    none = np.empty((0, 3), dtype=np.int64)
    for k in range(pairs.shape[0]):
        h, r = pairs[k, 0], pairs[k, 1]
        hyp = hyp_flat[hyp_off[h] : hyp_off[h + 1]]
        ref = ref_flat[ref_off[r] : ref_off[r + 1]]
        edits, _, _ = ter_pair(hyp, ref, none)
        out[k] = edits
    return out

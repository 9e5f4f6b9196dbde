"""Segment-aware n-gram identifiers for many token streams at once.

Every metric that counts n-grams (word BLEU, character BLEU, chrF) reduces to
the same question: for each segment, how many n-grams of the hypothesis also
occur in a reference, clipped by the reference count. sacrebleu answers it with
one ``Counter`` per segment, per reference and per system. Here all streams
(references and systems) are flattened into one integer array and each
n-gram *in its segment* gets one integer id, order by order:

    id_1(i)   = rank(segment(i) * V + token(i))
    id_n(i)   = rank(id_{n-1}(i) * V + token(i + n - 1))

where ``rank`` numbers the distinct keys in increasing order (one sort). Because
the segment index is part of the first key, equal ids mean "the same n-gram in
the same segment", and ids increase with the segment. Clipped counts are then
array operations over ids, shared by every system: one dense table of counts
(streams x ids) per order. References are processed once, however many systems
are scored. The ids are exact (no hashing, no collisions).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

_INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Streams:
    """Integer token streams that share their segments.

    Attributes:
        tokens: int64, all streams concatenated, stream by stream, segment by segment.
        lengths: int64 array of shape (n_streams, n_segments): tokens per segment.
        vocab_size: an upper bound (exclusive) of the token ids.
    """

    tokens: np.ndarray
    lengths: np.ndarray
    vocab_size: int

    @property
    def n_streams(self) -> int:
        return self.lengths.shape[0]

    @property
    def n_segments(self) -> int:
        return self.lengths.shape[1]


def word_streams(streams: Sequence[Sequence[Sequence[str]]]) -> Streams:
    """Build :class:`Streams` from tokenized segments (``streams[s][i]`` is a token list).

    Token strings get ids from one vocabulary shared by all streams.
    """
    # a token seen for the first time gets the next free id: the dictionary's size (all in C)
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__
    parts: list[np.ndarray] = []
    lengths = []
    for segments in streams:
        lens = np.fromiter(map(len, segments), dtype=np.int64, count=len(segments))
        lengths.append(lens)
        flat = chain.from_iterable(segments)
        parts.append(np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=int(lens.sum())))
    return _make(parts, lengths, max(len(vocab), 1))


_space: np.ndarray | None = None


def space_table() -> np.ndarray:
    """``table[c]``: code point ``c`` is white space as ``str.isspace`` (and so ``str.split``) sees it.
    None lies above U+3000 (tests/metrics/test_chrf.py checks every code point)."""
    global _space
    if _space is None:
        table = np.zeros(0x110000, dtype=bool)
        table[[c for c in range(0x3001) if chr(c).isspace()]] = True
        _space = table
    return _space


def char_streams(streams: Sequence[Sequence[str]], drop_space: bool = False) -> Streams:
    """Build :class:`Streams` whose tokens are the characters of each segment (dense ids: the
    rank of each code point among those that occur). With ``drop_space``, white space is left out
    (each segment as ``"".join(segment.split())``, done on a stream's code points at once)."""
    parts, lengths = [], []
    for segments in streams:
        lens = np.fromiter(map(len, segments), dtype=np.int64, count=len(segments))
        joined = "".join(segments)
        points = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        if drop_space:
            keep = ~space_table()[points]
            kept = np.zeros(len(points) + 1, dtype=np.int64)
            np.cumsum(keep, out=kept[1:])
            ends = np.cumsum(lens)
            lens = kept[ends] - kept[ends - lens]
            points = points[keep]
        lengths.append(lens)
        parts.append(points)
    out = _make(parts, lengths, 0x110000)
    if not len(out.tokens):
        return out
    present = np.bincount(out.tokens) > 0  # up to the largest code point that occurs, not all 0x110000
    dense = np.cumsum(present) - 1
    return Streams(tokens=dense[out.tokens], lengths=out.lengths, vocab_size=int(dense[-1]) + 1)


def _make(parts: list[np.ndarray], lengths: list[np.ndarray], vocab_size: int) -> Streams:
    lens = np.vstack(lengths) if lengths else np.zeros((0, 0), dtype=np.int64)
    tokens = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return Streams(tokens=tokens, lengths=lens, vocab_size=int(vocab_size))


@dataclass(frozen=True)
class OrderIds:
    """The n-gram ids of one order.

    Attributes:
        order: n.
        ids: id of the n-gram starting at each position that has one, all streams
            concatenated in stream order.
        bounds: ``ids[bounds[s]:bounds[s + 1]]`` are the ids of stream ``s``.
        n_ids: number of distinct (segment, n-gram) pairs.
        segment_of_id: the segment each id belongs to.
        global_ids, n_global, prefix_global_ids: see :func:`iter_ngram_ids` (``with_global``).
    """

    order: int
    ids: np.ndarray
    bounds: np.ndarray
    n_ids: int
    segment_of_id: np.ndarray
    global_ids: np.ndarray | None = None
    n_global: int = 0
    prefix_global_ids: np.ndarray | None = None

    def counts(self, stream: int) -> np.ndarray:
        """Occurrences of every id in one stream (length ``n_ids``)."""
        return np.bincount(self.ids[self.bounds[stream] : self.bounds[stream + 1]], minlength=self.n_ids)


def _check_keys(total: int, n_seg: int, vocab_size: int) -> None:
    """n-gram keys ``id * V + token`` (ids below ``total + n_seg``) must fit in int64."""
    if total and (total + n_seg) > _INT64_MAX // max(vocab_size, 1):
        raise OverflowError("corpus too large for 64-bit n-gram keys")


def _sort_with(
    key: np.ndarray, payload: np.ndarray, key_bits: int | None = None, pay_bits: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``key`` sorted, ``payload`` (non-negative ints) in the same order, and the flags of the
    first of each run of equal keys. (key, payload) are packed in one int64 when they fit, so
    one plain sort replaces an argsort. ``key_bits`` / ``pay_bits``: known bounds (bits of the
    largest value; a negative key needs ``key_bits=None``), else measured here."""
    if key_bits is None:
        key_bits = int(key.max()).bit_length() if int(key.min()) >= 0 else 64
    if pay_bits is None:
        pay_bits = max(1, int(payload.max()).bit_length())
    if key_bits + pay_bits <= 63:  # numpy's stable sort (timsort for int64) uses the runs already in order
        both = np.sort((key << pay_bits) | payload, kind="stable")
        key, payload = both >> pay_bits, both & ((1 << pay_bits) - 1)
    else:
        order = np.argsort(key)
        key, payload = key[order], payload[order]
    new = np.empty(len(key), dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    return key, payload, new


def rank(key: np.ndarray) -> tuple[np.ndarray, int]:
    """Number the distinct values of ``key`` 0, 1, ... in increasing order.

    Returns ``(codes, n)``: ``codes[i]`` is the rank of ``key[i]`` among the ``n`` distinct values
    (``np.unique(key, return_inverse=True)``, with one unstable sort instead of a stable one).

    Example:
        >>> rank(np.array([30, 10, 30, 20]))
        (array([2, 0, 2, 1]), 3)
    """
    if not len(key):
        return np.zeros(0, dtype=np.int64), 0
    _, order, new = _sort_with(key, np.arange(len(key), dtype=np.int64), pay_bits=(len(key) - 1).bit_length())
    ranks = np.cumsum(new, dtype=np.int64) - 1
    codes = np.empty(len(key), dtype=np.int64)
    codes[order] = ranks
    return codes, int(ranks[-1]) + 1


def iter_ngram_ids(streams: Streams, max_order: int, with_global: bool = False) -> Iterator[OrderIds]:
    """Yield :class:`OrderIds` for n = 1 .. ``max_order``.

    With ``with_global``, each :class:`OrderIds` also carries ``global_ids``: ids of the
    n-grams regardless of their segment (the same positions), and ``prefix_global_ids``,
    the global id of each n-gram's (n-1)-word prefix (-1 for unigrams).
    """
    lens = streams.lengths.ravel()
    n_seg = streams.n_segments
    total = int(lens.sum())
    V = streams.vocab_size
    _check_keys(total, n_seg, V)
    seg = np.repeat(np.tile(np.arange(n_seg, dtype=np.int64), streams.n_streams), lens)
    starts = np.cumsum(lens) - lens
    remaining = np.repeat(starts + lens, lens) - np.arange(total, dtype=np.int64)
    stream_offsets = np.concatenate(([0], np.cumsum(streams.lengths.sum(axis=1))))
    tokens = streams.tokens
    idx = np.arange(total, dtype=np.int64)
    codes = gcodes = None
    for n in range(1, max_order + 1):
        if n == 1:
            key = seg * V + tokens
            gkey = tokens if with_global else None
            prefix = np.full(total, -1, dtype=np.int64) if with_global else None
        else:
            keep = remaining[idx] >= n
            idx = idx[keep]
            key = codes[keep] * V + tokens[idx + (n - 1)]
            if with_global:
                prefix = gcodes[keep]
                gkey = prefix * V + tokens[idx + (n - 1)]
        codes, n_ids = rank(key)
        seg_of_id = np.empty(n_ids, dtype=np.int64)
        seg_of_id[codes] = seg[idx]
        extra = {}
        if with_global:
            gcodes, n_global = rank(gkey)
            extra = {"global_ids": gcodes, "n_global": n_global, "prefix_global_ids": prefix}
        yield OrderIds(
            order=n,
            ids=codes,
            bounds=np.searchsorted(idx, stream_offsets),
            n_ids=n_ids,
            segment_of_id=seg_of_id,
            **extra,
        )


def clipped_matches(
    streams: Streams,
    refs: Sequence[int],
    hyps: Sequence[int],
    max_order: int,
    *,
    pairwise: bool,
) -> np.ndarray:
    """Clipped n-gram matches per segment and order.

    Args:
        streams: all streams.
        refs: indices of the reference streams.
        hyps: indices of the hypothesis streams.
        max_order: highest n.
        pairwise: if False (BLEU), clip by the maximum count over all references
            and return shape (len(hyps), n_segments, max_order); if True (chrF),
            clip against each reference separately and return shape
            (len(hyps), len(refs), n_segments, max_order).

    How: the positions of all streams are sorted by (segment, n-gram) order after order; equal
    neighbours share an id, ids increase with the segment, and a table of counts (streams x ids)
    gives every clipped count at once (``minimum``), summed per segment over contiguous id ranges.
    Sorting by (id of the (n-1)-gram, next token) only reorders positions inside runs that the
    previous order already sorted, which keeps the sorts cheap. Positions whose n-gram is absent
    from every reference or from every system cannot start a longer match and are dropped before
    the next order (n-gram totals come from the lengths, not from these positions).
    """
    n_seg, S = streams.n_segments, streams.n_streams
    R, H = len(refs), len(hyps)
    out = np.zeros((H, R, n_seg, max_order) if pairwise else (H, n_seg, max_order), dtype=np.int64)
    lens = streams.lengths.ravel()
    total = int(lens.sum())
    V = streams.vocab_size
    if not (R and H and total):
        return out
    _check_keys(total, n_seg, V)
    slot = np.full(S, -1, dtype=np.int64)  # references first, then systems; other streams unused
    slot[list(refs)] = np.arange(R)
    slot[list(hyps)] = R + np.arange(H)
    pos_slot = np.repeat(np.repeat(slot, n_seg), lens)
    pos_seg = np.repeat(np.tile(np.arange(n_seg, dtype=np.int64), S), lens)
    pos_end = np.repeat(np.cumsum(lens), lens)  # end of each position's segment
    tokens = streams.tokens
    idx = np.flatnonzero(pos_slot >= 0)
    codes = pos_seg[idx]  # the "0-gram" of a position is its segment
    # bounds of keys (ids below len(idx) + n_seg, times V) and positions, for the packed sort
    key_bits = max(1, len(idx) + n_seg).bit_length() + max(1, V - 1).bit_length()
    pos_bits = max(1, (total - 1).bit_length())
    for n in range(1, max_order + 1):
        # positions stay in sorted order, so each sort only reorders inside runs of equal ids
        _, idx, new = _sort_with(codes * V + tokens[idx + (n - 1)], idx, key_bits, pos_bits)
        codes = np.cumsum(new) - 1
        n_ids = int(codes[-1]) + 1
        seg_of_id = pos_seg[idx[new]]
        first = np.flatnonzero(np.concatenate(([True], seg_of_id[1:] != seg_of_id[:-1])))
        segs = seg_of_id[first]
        table = np.bincount(pos_slot[idx] * n_ids + codes, minlength=(R + H) * n_ids).reshape(R + H, n_ids)
        ref_t, hyp_t = table[:R], table[R:]
        if pairwise:
            out[:, :, segs, n - 1] = np.add.reduceat(np.minimum(hyp_t[:, None, :], ref_t[None, :, :]), first, axis=2)
            live = ref_t.any(axis=0)
        else:
            ref_max = ref_t.max(axis=0)
            out[:, segs, n - 1] = np.add.reduceat(np.minimum(hyp_t, ref_max), first, axis=1)
            live = ref_max > 0
        if n == max_order:
            break
        live &= hyp_t.any(axis=0)
        keep = live[codes] & (pos_end[idx] - idx > n)
        idx, codes = idx[keep], codes[keep]
        if not len(idx):
            break
    return out


def ngram_counts(tokens: Sequence[str], n: int) -> dict[tuple[str, ...], int]:
    """How often each n-gram occurs in one token list (the per-sentence views and analyses).

    Example:
        >>> ngram_counts(["a", "b", "a", "b"], 2)
        {('a', 'b'): 2, ('b', 'a'): 1}
    """
    out: dict[tuple[str, ...], int] = {}
    for i in range(len(tokens) - n + 1):
        g = tuple(tokens[i : i + n])
        out[g] = out.get(g, 0) + 1
    return out


def ngram_totals(lengths: np.ndarray, max_order: int) -> np.ndarray:
    """Number of n-grams per segment for n = 1..max_order: ``max(len - n + 1, 0)``.

    Returns an array of shape ``lengths.shape + (max_order,)``.
    """
    n = np.arange(1, max_order + 1, dtype=np.int64)
    return np.maximum(lengths[..., None] - n + 1, 0)

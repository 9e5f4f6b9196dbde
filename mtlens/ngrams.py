"""Segment-aware n-gram identifiers for many token streams at once.

Every metric that counts n-grams (word BLEU, character BLEU, chrF) reduces to
the same question: for each segment, how many n-grams of the hypothesis also
occur in a reference, clipped by the reference count. sacrebleu answers it with
one ``Counter`` per segment, per reference and per system. Here all streams
(references and systems) are flattened into one integer array and each
n-gram *in its segment* gets one integer id, order by order:

    id_1(i)   = factorize(segment(i) * V + token(i))
    id_n(i)   = factorize(id_{n-1}(i) * V + token(i + n - 1))

Because the segment index is part of the first key, equal ids mean "the same
n-gram in the same segment", so clipped counts are plain ``bincount`` and
``minimum`` operations over ids, shared by every system. References are
processed once, however many systems are scored. The ids are exact (hash-table
factorization, no hashing collisions).
"""

from __future__ import annotations

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
    import pandas as pd  # lazy: keeps `python -m mtlens --help` fast

    vocab: dict[str, int] = {}
    parts: list[np.ndarray] = []
    lengths = []
    for segments in streams:
        lengths.append(np.fromiter(map(len, segments), dtype=np.int64, count=len(segments)))
        flat = list(chain.from_iterable(segments))
        if not flat:
            parts.append(np.zeros(0, dtype=np.int64))
            continue
        codes, uniques = pd.factorize(np.array(flat, dtype=object), sort=False)
        setdefault = vocab.setdefault
        gmap = np.fromiter((setdefault(u, len(vocab)) for u in uniques), dtype=np.int64, count=len(uniques))
        parts.append(gmap[codes])
    return _make(parts, lengths, max(len(vocab), 1))


def char_streams(streams: Sequence[Sequence[str]]) -> Streams:
    """Build :class:`Streams` whose tokens are the Unicode code points of each segment."""
    parts, lengths = [], []
    for segments in streams:
        lengths.append(np.fromiter(map(len, segments), dtype=np.int64, count=len(segments)))
        joined = "".join(segments)
        parts.append(np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64))
    return _make(parts, lengths, 0x110000)


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


def iter_ngram_ids(streams: Streams, max_order: int, with_global: bool = False) -> Iterator[OrderIds]:
    """Yield :class:`OrderIds` for n = 1 .. ``max_order``.

    With ``with_global``, each :class:`OrderIds` also carries ``global_ids``: ids of the
    n-grams regardless of their segment (the same positions), and ``prefix_global_ids``,
    the global id of each n-gram's (n-1)-word prefix (-1 for unigrams).
    """
    import pandas as pd  # lazy: keeps `python -m mtlens --help` fast

    lens = streams.lengths.ravel()
    n_seg = streams.n_segments
    total = int(lens.sum())
    V = streams.vocab_size
    if total and (total + n_seg) > _INT64_MAX // max(V, 1):
        raise OverflowError("corpus too large for 64-bit n-gram keys")
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
        codes, uniques = pd.factorize(key, sort=False)
        codes = codes.astype(np.int64, copy=False)
        n_ids = len(uniques)
        seg_of_id = np.empty(n_ids, dtype=np.int64)
        seg_of_id[codes] = seg[idx]
        extra = {}
        if with_global:
            gcodes, guniq = pd.factorize(gkey, sort=False)
            gcodes = gcodes.astype(np.int64, copy=False)
            extra = {"global_ids": gcodes, "n_global": len(guniq), "prefix_global_ids": prefix}
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
    """
    n_seg = streams.n_segments
    if pairwise:
        out = np.zeros((len(hyps), len(refs), n_seg, max_order), dtype=np.int64)
    else:
        out = np.zeros((len(hyps), n_seg, max_order), dtype=np.int64)
    for order in iter_ngram_ids(streams, max_order):
        k = order.order - 1
        ref_counts = [order.counts(r) for r in refs]
        if not pairwise:
            ref_max = np.maximum.reduce(ref_counts) if len(ref_counts) > 1 else ref_counts[0]
        for h_i, h in enumerate(hyps):
            hc = order.counts(h)
            nz = np.flatnonzero(hc)
            seg = order.segment_of_id[nz]
            if pairwise:
                for r_i, rc in enumerate(ref_counts):
                    m = np.minimum(hc[nz], rc[nz])
                    out[h_i, r_i, :, k] = np.bincount(seg, weights=m, minlength=n_seg)
            else:
                m = np.minimum(hc[nz], ref_max[nz])
                out[h_i, :, k] = np.bincount(seg, weights=m, minlength=n_seg)
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

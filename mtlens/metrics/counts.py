"""Clipped n-gram matches for the metrics that count n-grams (word BLEU, character BLEU, chrF, chrF++):
the compiled kernel when it is at hand, numpy's sorts otherwise; the same numbers either way.

:func:`mtlens.core.ngrams.clipped_matches` sorts every position of a block's streams order after order;
:mod:`._ngram_kernel` numbers each segment's n-grams in a small hash table instead, 2 to 7 times faster
(docs/decisions.md, "The n-gram engine"). The kernel is used when it loads in a millisecond (built ahead
of time, :mod:`._compiled`) or is loaded already; a job larger than :data:`KERNEL_PAIRS` prepares it
first (:meth:`NgramKernel.kernel_needed`: built once per installation, or numba's), a smaller one does
not wait for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import ngrams
from . import _compiled

#: the module of the compiled counts
KERNEL = "mtlens.metrics._ngram_kernel"
#: (system line, reference line) pairs above which a job prepares the kernel before scoring
KERNEL_PAIRS = 100_000
#: the kernel's keys are (n-gram number in the segment, token): they must fit in 63 bits
_KEY_LIMIT = 2**62


class NgramKernel:
    """What a metric counting clipped n-grams declares about the kernel (a mixin of its class)."""

    kernel = KERNEL

    def kernel_needed(self, pairs: int) -> bool:
        return pairs > KERNEL_PAIRS


def clipped_matches(
    streams: ngrams.Streams, refs: Sequence[int], hyps: Sequence[int], max_order: int, *, pairwise: bool
) -> np.ndarray:
    """:func:`mtlens.core.ngrams.clipped_matches` (same arguments, same result), computed by the compiled
    kernel when it is at hand."""
    refs, hyps = list(refs), list(hyps)
    R, H = len(refs), len(hyps)
    if not (R and H and len(streams.tokens)) or not _compiled.ready(KERNEL):
        return ngrams.clipped_matches(streams, refs, hyps, max_order, pairwise=pairwise)
    lens = streams.lengths
    starts = (np.cumsum(lens.ravel()) - lens.ravel()).reshape(lens.shape)
    chosen = refs + hyps
    lengths = np.ascontiguousarray(lens[chosen], dtype=np.int64)
    most = int(lengths.sum(axis=0).max())
    if (most + 1) * max(streams.vocab_size, 1) >= _KEY_LIMIT:  # a pathological segment: numpy's keys
        return ngrams.clipped_matches(streams, refs, hyps, max_order, pairwise=pairwise)
    out = np.zeros((H, R if pairwise else 1, streams.n_segments, max_order), dtype=np.int64)
    _compiled.load(KERNEL).clipped_counts(
        np.ascontiguousarray(streams.tokens, dtype=np.int64),
        np.ascontiguousarray(starts[chosen], dtype=np.int64),
        lengths,
        R,
        max(streams.vocab_size, 1),
        max_order,
        pairwise,
        out,
    )
    return out if pairwise else out[:, 0]

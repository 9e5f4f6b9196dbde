"""tBLEU's affix distances (docs/decisions.md, "tBLEU"): the definition is :mod:`._affix`'s, written once; this
module decides who computes them (the shortcuts, numpy's vectorised blocks for a little work, the compiled kernel for
much) and refuses words too long to compare. :mod:`.tbleu` matches the words with them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import InputError
from ..core.limits import max_tbleu_word_chars
from . import _compiled

KERNEL = "mtlens.metrics._tbleu_kernel"


#: numpy computes affix distances (:mod:`._affix_numpy`) until a process has spent this much work on
#: them (the sum over pairs of the two words' lengths multiplied; about 0.1 microsecond each); beyond
#: it, or when the compiled kernel is at hand anyway (loaded, or built ahead of time), the compiled
#: kernel computes them, several times faster per pair
#: but loading numba costs a process about a second (docs/decisions.md, "tBLEU, only where a word can be
#: replaced")
NUMPY_WORK = 10_000_000
_numpy_work_done = 0


def affix_distances(words: Sequence[str], pairs: np.ndarray) -> np.ndarray:
    """AD(r, t) for each row ``(t, r)`` of ``pairs`` (indices into ``words``, distinct words).

    Exact shortcuts first: a word and itself are at 0; words whose length difference is at least the
    shorter length (the affixes' edit distance is at least the length difference, |S| at most the
    shorter length) are at 1. The rest are computed.
    """
    global _numpy_work_done
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    lt, lr = lens[pairs[:, 0]], lens[pairs[:, 1]]
    out = np.where(pairs[:, 0] == pairs[:, 1], 0.0, 1.0)
    todo = np.flatnonzero((pairs[:, 0] != pairs[:, 1]) & (np.abs(lt - lr) < np.minimum(lt, lr)))
    if not len(todo):
        return out
    longest = int(np.maximum(lt[todo], lr[todo]).max())
    if longest > max_tbleu_word_chars():
        raise too_long(longest, "this set")
    work = int((lt[todo] * lr[todo]).sum())
    compiled = _numpy_work_done + work > NUMPY_WORK or _compiled.ready(KERNEL)
    if not compiled:
        from ._affix_numpy import affix_distances as vectorised

        _numpy_work_done += work
    # words of similar width together: one long word does not widen every other word's row of characters
    bucket = np.maximum(lt[todo], lr[todo]).astype(np.int64).clip(1)
    bucket = np.floor(np.log2(bucket)).astype(np.int64)
    for b in np.unique(bucket):
        these = todo[bucket == b]
        used, local = np.unique(pairs[these], return_inverse=True)
        chars, lens = _char_matrix([words[w] for w in used])
        local = np.ascontiguousarray(local.reshape(-1, 2), dtype=np.int64)
        if compiled:
            out[these] = _compiled.load(KERNEL).affix_distances(chars, lens, local)
        else:
            out[these] = vectorised(chars, lens, local)
    return out


def too_long(chars: int, where: str) -> InputError:
    return InputError(
        f"tolerant BLEU compares words of up to {max_tbleu_word_chars():,} characters with words of similar "
        f"length (MTLENS_MAX_TBLEU_WORD_CHARS); {where} has a {chars:,}-character word to compare: choose "
        "other metrics, or shorten or remove that line"
    )


def affix_distance(reference_word: str, hypothesis_word: str) -> float:
    """The affix distance AD(r, t) (docs/decisions.md, "tBLEU").

    Example:
        >>> affix_distance("zapomenout", "vzpomenou") == 3 / 7
        True
    """
    return float(affix_distances([hypothesis_word, reference_word], np.array([[0, 1]]))[0])


def _char_matrix(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    width = int(lens.max(initial=1)) or 1
    chars = np.full((len(words), width), -1, dtype=np.int64)  # padding: never a character
    for i, w in enumerate(words):
        if w:
            chars[i, : len(w)] = np.frombuffer(w.encode("utf-32-le"), dtype=np.uint32)
    return chars, lens

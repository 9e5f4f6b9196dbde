"""The compiled loop of :mod:`mtlens.checks.langid_batch`: py3langid's identification of many lines at once.

It lives beside the metrics' kernels because it is built the same way (:mod:`._compiled`): numba's, or compiled
ahead of time into an extension module that loads without numba. A ``score -l`` process identifies the
references' language (issue 50) and imported numba for it alone (0.35 s of a 1.2 s BLEU + chrF process on WMT22
en-de). So the loop is serial with one explicit signature, which numba's ahead-of-time compiler can build (it
builds no parallel loop); the checks over many systems run it in the engine's worker processes, side by side.

Every function is compiled with ``nogil`` (:mod:`._numba`; the ahead-of-time build's wrappers likewise): a call
releases the interpreter lock, so threads of a process can share a job (docs/decisions.md, "The engine").
"""

from __future__ import annotations

import numpy as np

from ._numba import njit

#: the functions the ahead-of-time module holds (:mod:`._compiled`)
AOT_EXPORTS = ("classify",)


@njit(
    "Tuple((int64[::1], float32[::1]))(uint8[::1], int64[::1], uint32[::1], int64[::1], int64[::1], float32[:, ::1],"
    " float32[::1], int64[:, ::1])",
    cache=True,
)
def classify(data, offsets, nextmove, rowbase, output, ptc, pc, alias):  # pragma: no cover - compiled
    """The best language (a column of ``pc``) and its probability for each line ``data[offsets[k]:offsets[k + 1]]``
    (:func:`mtlens.checks.langid_batch.classify_many` says what it computes)."""
    n = offsets.shape[0] - 1
    n_classes = pc.shape[0]
    best = np.empty(n, dtype=np.int64)
    prob = np.empty(n, dtype=np.float32)
    for k in range(n):
        start, end = offsets[k], offsets[k + 1]
        feats = np.empty(end - start, dtype=np.int64)
        m = 0
        state = 0
        for p in range(start, end):
            state = nextmove[rowbase[state] + data[p]]
            f = output[state]
            if f >= 0:
                feats[m] = f
                m += 1
        scores = np.zeros(n_classes, dtype=np.float32)
        if m > 0:
            found = np.sort(feats[:m])
            for j in range(n_classes):
                scores[j] = pc[j]
            i = 0
            while i < m:
                f = found[i]
                c = 1
                while i + c < m and found[i + c] == f:
                    c += 1
                w = np.float32(np.log1p(np.float32(c)))
                for j in range(n_classes):
                    scores[j] += w * ptc[f, j]
                i += c
        size = end - start
        scale = np.float32(1.0 / np.sqrt(size if size > 0 else 1))
        top = scores[0] * scale
        for j in range(n_classes):
            scores[j] = scores[j] * scale
            if scores[j] > top:
                top = scores[j]
        total = np.float32(0.0)
        for j in range(n_classes):
            scores[j] = np.exp(scores[j] - top)
            total += scores[j]
        for j in range(n_classes):
            scores[j] = scores[j] / total
        for a in range(alias.shape[0]):
            scores[alias[a, 0]] += scores[alias[a, 1]]
            scores[alias[a, 1]] = 0.0
        b = 0
        for j in range(1, n_classes):
            if scores[j] > scores[b]:
                b = j
        best[k] = b
        prob[k] = scores[b]
    return best, prob

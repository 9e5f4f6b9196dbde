"""py3langid's identification of many lines at once (issue 60: ``check:language`` over 8 systems x 100,000 lines).

py3langid identifies one line at a time, about 60 microseconds each, nearly all of it Python: a walk over the
line's bytes through its tokeniser's automaton, then a naive Bayes score per language. Here the same model
(:func:`.langid_model.identifier`: the same arrays) is walked for every line in one compiled loop: the same
bytes (upper-case lines lowered, NFC, UTF-8), the same automaton and features, ``log1p`` of each feature's count
times its row of the model plus the priors, scaled by one over the square root of the byte count, a softmax, and
the aliased columns folded as py3langid folds them. The numbers are py3langid's up to float32 rounding (its sums
run in another order): tests/checks/test_langid_batch.py holds the language equal and the probability within
1e-5 on real lines of every language pair of the bundled data.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence

import numpy as np
from numba import prange

from ..metrics._numba import njit
from .langid_model import identifier


@njit(cache=True, parallel=True)
def _classify(data, offsets, nextmove, rowbase, output, ptc, pc, alias):  # pragma: no cover - compiled
    n = offsets.shape[0] - 1
    n_classes = pc.shape[0]
    best = np.empty(n, dtype=np.int64)
    prob = np.empty(n, dtype=np.float32)
    for k in prange(n):
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


def prepared() -> None:
    """Read the model's arrays now (a process about to fork workers shares them)."""
    _model()


@functools.lru_cache(maxsize=1)
def _model():
    """The identifier's arrays as the compiled loop reads them (float32 rows: about 57 MB, kept once per process)."""
    ident = identifier()
    alias = np.array(ident._alias_pairs or np.empty((0, 2)), dtype=np.int64).reshape(-1, 2)
    return (
        np.asarray(ident.tk_nextmove, dtype=np.uint32),
        np.asarray(ident._rowbase, dtype=np.int64),
        np.asarray(ident.tk_output, dtype=np.int64),
        np.ascontiguousarray(ident.nb_ptc, dtype=np.float32),
        np.asarray(ident.nb_pc, dtype=np.float32),
        alias,
        list(ident.nb_classes),
    )


def _encode(text: str) -> bytes:
    """The bytes py3langid scores for a line (its ``_encode``)."""
    if text.isupper():
        text = text.lower()
    return unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")


def classify_many(texts: Sequence[str]) -> list[tuple[str, float]]:
    """``(language, probability)`` of each text, as py3langid's ``classify`` with normalised probabilities."""
    if not texts:
        return []
    nextmove, rowbase, output, ptc, pc, alias, classes = _model()
    encoded = [_encode(t) for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    best, prob = _classify(data, offsets, nextmove, rowbase, output, ptc, pc, alias)
    return [(classes[b], float(p)) for b, p in zip(best.tolist(), prob.tolist(), strict=True)]

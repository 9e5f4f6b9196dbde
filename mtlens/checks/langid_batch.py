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

from ..metrics import _compiled
from .langid_model import identifier, loop_arrays

#: the compiled loop's module (built ahead of time like the metrics' kernels: :mod:`mtlens.runtime.kernels`)
KERNEL = "mtlens.metrics._langid_kernel"


def prepared() -> None:
    """Read the model's arrays now (a process about to fork workers shares them)."""
    _model()


@functools.lru_cache(maxsize=1)
def _model():
    """The identifier's arrays as the compiled loop reads them (float32 rows: about 57 MB): mapped from the kernels'
    cache folder, where they are kept in that form (:func:`.langid_model.loop_arrays`), so a process reads them in
    milliseconds and the processes of one machine share their pages."""
    return loop_arrays(_arrays_for_the_loop)


def _arrays_for_the_loop():
    """The arrays of py3langid's identifier in the form and types the compiled loop reads."""
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
    data = np.frombuffer(bytearray(b"".join(encoded)), dtype=np.uint8)  # writable: the kernel's signature
    best, prob = _compiled.load(KERNEL).classify(data, offsets, nextmove, rowbase, output, ptc, pc, alias)
    return [(classes[b], float(p)) for b, p in zip(best.tolist(), prob.tolist(), strict=True)]

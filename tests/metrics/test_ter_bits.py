"""TER's bit-parallel rows with two limbs (references of 63 to 124 words, mtlens/metrics/_ter_kernel.py).

Oracles: a plain Levenshtein table written here (every row's last cell), and sacrebleu 2.6.0's own TER
(``lib_ter.translation_edit_rate``) on random lines with few distinct words (many equal words: many shift
candidates, ties between them), at reference lengths on both sides of each limb's edge.
"""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics.lib_ter import translation_edit_rate

from mtlens.metrics import _ter_kernel as K


def levenshtein_last_column(hyp, ref) -> list[int]:
    """D[i][len(ref)] for every row i of the unrestricted edit-distance table (unit costs)."""
    prev = list(range(len(ref) + 1))
    out = [prev[-1]]
    for i, h in enumerate(hyp, 1):
        row = [i]
        for j, r in enumerate(ref, 1):
            row.append(min(prev[j - 1] + (h != r), prev[j] + 1, row[j - 1] + 1))
        prev = row
        out.append(row[-1])
    return out


@pytest.mark.parametrize("n_r", [1, 61, 62, 63, 64, 100, 123, 124])
def test_bit_rows_equal_the_plain_table_on_each_side_of_the_limbs(n_r):
    rng = np.random.default_rng(n_r)
    for _ in range(20):
        n_h = int(rng.integers(0, 140))
        vocab = int(rng.integers(2, 12))
        hyp = rng.integers(0, vocab, n_h).astype(np.int64)
        ref = rng.integers(0, vocab, n_r).astype(np.int64)
        eq, eq1 = np.zeros(n_h, np.int64), np.zeros(n_h, np.int64)
        K._match_bits(hyp, ref, eq, eq1)
        pv, pv1, mv, mv1, score = (np.empty(n_h + 1, np.int64) for _ in range(5))
        K._bit_rows(eq, eq1, n_r, pv, pv1, mv, mv1, score)
        assert score.tolist() == levenshtein_last_column(hyp.tolist(), ref.tolist())
        # every limb stays below the sign bit (the sums cannot overflow)
        assert min(pv.min(), pv1.min(), mv.min(), mv1.min()) >= 0
        assert max(pv.max(), pv1.max(), mv.max(), mv1.max()) < 2**K.LIMB


@pytest.mark.parametrize("n_r", [62, 63, 90, 124, 125])
def test_ter_pair_equals_sacrebleus_ter_around_and_beyond_two_limbs(n_r):
    rng = np.random.default_rng(1000 + n_r)
    none = np.empty((0, 3), dtype=np.int64)
    for case in range(4):
        vocab = [f"w{k}" for k in range(int(rng.integers(3, 25)))]
        ref = [vocab[k] for k in rng.integers(0, len(vocab), n_r)]
        n_h = int(rng.integers(n_r // 2, n_r + 20))
        if case % 2:  # a shuffled copy of the reference with a few words changed: long, profitable shifts
            hyp = [ref[k] for k in rng.permutation(n_r)[: min(n_h, n_r)]]
            for k in rng.integers(0, len(hyp), 5):
                hyp[k] = vocab[int(rng.integers(0, len(vocab)))]
        else:
            hyp = [vocab[k] for k in rng.integers(0, len(vocab), n_h)]
        ids = {w: k for k, w in enumerate(vocab)}
        h = np.array([ids[w] for w in hyp], dtype=np.int64)
        r = np.array([ids[w] for w in ref], dtype=np.int64)
        edits, _, _ = K.ter_pair(h, r, none)
        assert edits == translation_edit_rate(hyp, ref)[0], (n_r, case)

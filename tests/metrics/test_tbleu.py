"""Tolerant BLEU: the paper's Figure 1, the affix distance, and epsilon 0 == word BLEU on real data."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.metrics import BLEU, TBLEU
from mtlens.metrics.tbleu_affix import affix_distance


def test_affix_distance_spec_examples():
    assert affix_distance("zapomenout", "vzpomenou") == pytest.approx(3 / 7)
    assert affix_distance("novým", "novém") == pytest.approx(1 / 3)
    assert affix_distance("červeným", "červeném") == pytest.approx(1 / 6)
    assert affix_distance("autem", "auto") == pytest.approx(2 / 3)
    assert affix_distance("dům", "dům") == 0.0
    assert affix_distance("abc", "xyz") == 1.0  # no common substring
    assert affix_distance("abcdef", "abxxxxxxxxxxxxx") == 1.0  # capped at 1


def test_paper_figure_1_with_epsilon_1():
    m = TBLEU(epsilon=1.0, tokenize="none", smooth_method="none", max_ngram_order=2)
    st = m.statistics([["Jedu novým červeným autem"]], [["Jedu s novém červeném auto"]])[0]
    counts = st[0, 2:4]
    assert counts[0] == pytest.approx(17 / 6)  # 1 + 2/3 + 5/6 + 1/3 (docs/decisions.md: the paper's 11/6 misses "Jedu")
    assert counts[1] == pytest.approx(4 / 3)  # 3/4 + 7/12
    p = m.details(st.sum(axis=0))["precisions"]
    assert p == pytest.approx([100 * 17 / 30, 100 / 3])
    corr = m.corrections("Jedu s novém červeném auto", ["Jedu novým červeným autem"])[0]
    weights = {c.hyp_word: round(c.weight, 6) for c in corr if c.replaced}
    assert weights == {"Jedu": 1.0, "novém": round(2 / 3, 6), "červeném": round(5 / 6, 6), "auto": round(1 / 3, 6)}


def test_clipping_keeps_the_highest_weighted_occurrences():
    m = TBLEU(epsilon=1.0, tokenize="none", smooth_method="none", max_ngram_order=1)
    st = m.statistics([["a b"]], [["a abc"]])[0]
    # 'a' exact (weight 1); 'abc' matched to 'b' (AD: S='b', prefix 'a' vs '' -> 1, suffix 'c' vs '' -> 1: 2/1 -> 1)
    assert st[0, 2] == pytest.approx(1.0)


def test_epsilon_zero_equals_bleu_on_real_data(excerpts):
    for name, (refs, systems) in excerpts.items():
        hyps = list(systems.values())
        t = TBLEU(epsilon=0.0).statistics(refs, hyps)
        b = BLEU().statistics(refs, hyps)
        for hyp, st, bs in zip(hyps, t, b, strict=True):
            np.testing.assert_array_equal(st, bs.astype(np.float64), err_msg=name)
            want = SacreBLEU().corpus_score(hyp, refs).score
            assert TBLEU(epsilon=0.0).corpus_score(st) == pytest.approx(want, abs=1e-9)


def test_larger_epsilon_raises_the_corpus_score_but_not_every_segment(sample):
    # The matching does not depend on epsilon. A hypothesis word that also occurs in the reference
    # but was matched (at lower total cost) to a similar word keeps weight 1 at epsilon 0 and is
    # replaced with weight < 1 at a larger epsilon: single segments can lose credit.
    refs, systems = sample
    hyp = next(iter(systems.values()))
    m = TBLEU()
    low, high = m.sweep_statistics(refs, [hyp], [0.0, 0.3])
    assert m.corpus_score(high[0]) > m.corpus_score(low[0])
    assert high[0][:, 2:6].sum() > low[0][:, 2:6].sum()


def test_signature_and_validation():
    assert "eps:0.05" in TBLEU().signature(1).format()
    with pytest.raises(ValueError, match="between 0 and 1"):
        TBLEU(epsilon=2)


def test_huge_segments_are_not_matched_and_equal_bleu():
    from mtlens.metrics import tbleu

    hyp = " ".join(f"slovo{i % 300}x" for i in range(1200))
    ref = " ".join(f"slovo{i % 300}" for i in range(1100))
    m = TBLEU(epsilon=0.5, tokenize="none")
    st = m.statistics([[ref]], [[hyp]])[0]
    assert tbleu.MAX_PAIRS < 1200 * 1100
    b = BLEU(tokenize="none").statistics([[ref]], [[hyp]])[0]
    np.testing.assert_array_equal(st, b.astype(float))  # left unmatched: exactly word BLEU


# --------------------------------------------------------------------------- only where a word can be replaced
def _exhaustive(m: TBLEU, refs, hyp_lines, eps: float) -> np.ndarray:
    """tBLEU statistics with every segment matched against every reference and its credits computed:
    the definition, without the shortcut (BLEU's rows where no different word is within eps)."""
    from mtlens.core.ngrams import ngram_counts

    N = m.max_ngram_order
    refs_tok = [[m.tokens(x) for x in r] for r in refs]
    hyp_tok = [m.tokens(x) for x in hyp_lines]
    matchings = m._matchings(hyp_tok, refs_tok)
    bleu = BLEU().statistics(refs, [hyp_lines])[0].astype(np.float64)
    for i, hyp in enumerate(hyp_tok):
        counts = [[ngram_counts(r[i], n) for n in range(1, N + 1)] for r in refs_tok]
        bleu[i, 2 : 2 + N] = m._sentence_credits(hyp, i, eps, matchings, refs_tok, counts)
    return bleu


@pytest.mark.parametrize("eps", [0.05, 0.1, 0.2])
def test_the_shortcut_equals_matching_every_segment_on_real_data(excerpts, eps):
    m = TBLEU(epsilon=eps)
    differ = 0
    for name, (refs, systems) in excerpts.items():
        hyps = list(systems.values())[:3]
        fast = m.statistics(refs, hyps)
        for hyp, st in zip(hyps, fast, strict=True):
            want = _exhaustive(m, refs, hyp, eps)
            np.testing.assert_array_equal(st, want, err_msg=f"{name} eps {eps}")
            differ += int((want != BLEU().statistics(refs, [hyp])[0]).any(axis=1).sum())
    if eps >= 0.1:
        assert differ > 0  # the data has segments where tBLEU is not BLEU: the comparison means something


def test_a_sweep_equals_one_epsilon_at_a_time(sample):
    refs, systems = sample
    hyps = list(systems.values())
    epsilons = [0.0, 0.05, 0.3, 1.0]
    swept = TBLEU().sweep_statistics(refs, hyps, epsilons)
    for e_i, eps in enumerate(epsilons):
        one = TBLEU(epsilon=eps).statistics(refs, hyps)
        for a, b in zip(swept[e_i], one, strict=True):
            np.testing.assert_array_equal(a, b)


def test_only_long_words_of_similar_length_are_candidates():
    # at epsilon 0.05 a different word needs at least 20 characters (AD >= 1/|S|) and a length difference
    # of at most 5% of the shorter word: "Zusammenarbeitsvertrag" vs "Zusammenarbeitsverträge"
    # (22 and 23 characters, S = "Zusammenarbeitsvertr", 20 characters, affixes "ag" / "äge": 2 edits,
    # AD = 2/20 = 0.1) is a candidate by length but not within 0.05; one letter changed in 21-letter
    # words is (1/20 = 0.05)
    m = TBLEU(epsilon=0.05, tokenize="none")
    refs_tok = [[["Zusammenarbeitsvertrag", "kurz"], ["Donaudampfschifffahrts", "b"]]]
    hyp_tok = [["Zusammenarbeitsverträge", "kurz"], ["Donaudampfschifffahrtz", "b"]]
    assert affix_distance("Zusammenarbeitsvertrag", "Zusammenarbeitsverträge") == pytest.approx(0.1)
    assert affix_distance("Donaudampfschifffahrts", "Donaudampfschifffahrtz") == pytest.approx(1 / 21)
    assert m._replaceable(hyp_tok, refs_tok, 0.05) == [(0, 1)]
    assert m._replaceable(hyp_tok, refs_tok, 0.1) == [(0, 0), (0, 1)]
    assert m._replaceable(hyp_tok, refs_tok, 0.0) == []


def test_affix_distances_numpy_compiled_plain_python_and_shortcuts_agree_on_real_words(excerpts, monkeypatch):
    """Three computations of one definition on real words: the plain-Python loop (``_affix``, the
    kernel's source, run uncompiled), the same compiled by numba, and the vectorised numpy blocks
    (every pair computed, no shortcut), then :func:`tbleu_affix.affix_distances` on either path."""
    from mtlens.metrics import _affix, _affix_numpy, tbleu_affix
    from mtlens.metrics._tbleu_kernel import affix_distances as compiled

    words = sorted(
        {
            w
            for refs, systems in excerpts.values()
            for lines in (*refs, *systems.values())
            for x in lines[:40]
            for w in x.split()
        }
    )
    stems: dict[str, list[int]] = {}
    for n, w in enumerate(words):
        stems.setdefault(w[:3], []).append(n)
    near = [[a, b] for group in stems.values() for a in group[:6] for b in group[:6]]  # shared stems
    rng = np.random.default_rng(7)
    pairs = np.vstack(
        [rng.integers(0, len(words), size=(3000, 2)), np.column_stack([np.arange(200), np.arange(1, 201)]), near]
    ).astype(np.int64)
    chars, lens = tbleu_affix._char_matrix(words)
    want = _affix.affix_distances(chars.tolist(), lens.tolist(), pairs.tolist())
    assert 0 < (want < 1).sum() < len(want) and (want[want < 1] > 0).sum() > 100  # near and far pairs
    np.testing.assert_array_equal(compiled(chars, lens, pairs), want)
    np.testing.assert_array_equal(_affix_numpy.affix_distances(chars, lens, pairs), want)
    monkeypatch.setattr(_affix_numpy, "CELLS", 1)  # one pair per block: the block edges are right
    np.testing.assert_array_equal(_affix_numpy.affix_distances(chars, lens, pairs[:300]), want[:300])
    monkeypatch.setattr(tbleu_affix, "_numpy_work_done", 0)
    monkeypatch.setattr(tbleu_affix, "NUMPY_WORK", 10**12)  # numpy, after the shortcuts
    kernel = tbleu_affix.KERNEL
    monkeypatch.setattr(tbleu_affix, "KERNEL", "not-loaded")  # neither loaded nor built: numpy
    np.testing.assert_array_equal(tbleu_affix.affix_distances(words, pairs), want)
    monkeypatch.setattr(tbleu_affix, "KERNEL", kernel)
    monkeypatch.setattr(tbleu_affix, "NUMPY_WORK", -1)  # compiled (ahead of time or numba's), after the shortcuts
    np.testing.assert_array_equal(tbleu_affix.affix_distances(words, pairs), want)


def test_linear_sum_assignment_is_scipys_without_scipy_optimize():
    """tBLEU's matching loads scipy's compiled assignment module on its own: in a fresh interpreter
    neither ``scipy.optimize`` nor numba is imported by a tBLEU score (a small one), and the function
    gives scipy.optimize.linear_sum_assignment's answer (ties included: integer costs)."""
    import subprocess
    import sys

    code = (
        "import sys, json, numpy as np\n"
        "from mtlens.metrics.tbleu import TBLEU, _linear_sum_assignment\n"
        "refs = [['the Zusammenarbeitsvertrag was signed yesterday in Berlin']]\n"
        "hyp = [['the Zusammenarbeitsverträge were signed yesterday in Berlin']]\n"
        "assert TBLEU(epsilon=0.2).statistics(refs, hyp)[0][0, 2] > 5\n"
        "rng = np.random.default_rng(3)\n"
        "costs = [rng.integers(0, 3, size=(5, 7)).astype(float) for _ in range(50)]\n"
        "got = [[a.tolist() for a in _linear_sum_assignment()(c)] for c in costs]\n"
        "print(json.dumps({'loaded': [m for m in ('scipy.optimize', 'numba') if m in sys.modules], 'got': got}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert result["loaded"] == []
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(3)
    want = [
        [a.tolist() for a in linear_sum_assignment(rng.integers(0, 3, size=(5, 7)).astype(float))] for _ in range(50)
    ]
    assert result["got"] == want

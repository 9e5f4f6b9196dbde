"""NIST: hand-calculated example, NLTK's corpus_nist with one reference, the documented multi-reference difference."""

from __future__ import annotations

import math

import pytest
from nltk.translate.nist_score import corpus_nist

from mtlens.metrics.nist import NIST


def test_hand_calculation():
    m = NIST()
    st = m.statistics([["the cat sat on the mat"]], [["the cat sat on the mat"]])[0]
    # unigrams: 'the' twice with log2(6/2), four words with log2(6/1); bigrams 'the cat', 'the mat': log2(2/1)
    uni = (2 * math.log2(3) + 4 * math.log2(6)) / 6
    assert m.corpus_score(st) == pytest.approx(uni + 2 / 5, abs=1e-12)


def test_brevity_factor_halves_at_two_thirds():
    m = NIST()
    # hypothesis 4 words, reference 6: ratio 2/3 -> factor exp(-beta ln^2(2/3)) = 0.5
    st = m.statistics([["a b c d e f"]], [["a b c d"]])[0]
    info = 4 * math.log2(6) / 4  # unigram information; higher orders carry log2(1) = 0
    assert m.corpus_score(st) == pytest.approx(info * 0.5, abs=1e-12)


def nltk_nist(m: NIST, ref: list[str], hyp: list[str]) -> float:
    """NLTK's corpus_nist with one reference, up to the largest order the hypothesis has n-grams of.

    mteval (and mtlens) divide an order's information by max(1, hypothesis n-grams), so an order without
    hypothesis n-grams adds 0; NLTK divides by zero there. Leaving such empty top orders out of NLTK's
    sum gives the same quantity, so systems without 5-grams (unsegmented Chinese) are checked too.
    """
    toks = [m.tokens(h) for h in hyp]
    n = max(k for k in range(1, 6) if any(len(t) >= k for t in toks))
    return corpus_nist([[m.tokens(r)] for r in ref], toks, n=n)


def test_equals_nltk_with_one_reference_on_real_data(excerpts):
    m = NIST()
    checked_without_5grams = 0
    for name, (refs, systems) in excerpts.items():
        for sys_name, hyp in systems.items():
            st = m.statistics([refs[0]], [hyp])[0]
            if st[:, 5:10].sum(axis=0).min() == 0:
                checked_without_5grams += 1
            assert m.corpus_score(st) == pytest.approx(nltk_nist(m, refs[0], hyp), rel=1e-12), (name, sys_name)
    assert checked_without_5grams >= 1  # en-zh HappyNewYear: no 5-gram in the whole output


def test_several_references_by_hand():
    """mteval-v13a with two references, computed by hand.

    References "a b c" and "a c d"; hypothesis "a c b a".
    Information weights over all reference n-grams (6 words): info(a) = info(c) = log2(6/2), info(b) = log2(6/1),
    info("a c") = log2(count(a) / count(a c)) = log2(2/1) = 1.
    Matches are clipped by the largest count in any one reference: "a" twice in the hypothesis, at most once per
    reference -> 1 match. Unigrams: (log2 3 + log2 3 + log2 6) / 4 hypothesis unigrams; bigrams: "a c" matches
    (from the second reference; "c b", "b a" do not) -> 1 / 3; trigrams 0/2, 4-grams 0/1, 5-grams 0/max(0, 1).
    Length 4 against the average reference length 3: no penalty.
    """
    m = NIST()
    st = m.statistics([["a b c"], ["a c d"]], [["a c b a"]])[0]
    expected = (2 * math.log2(3) + math.log2(6)) / 4 + 1 / 3
    assert m.corpus_score(st) == pytest.approx(expected, abs=1e-12)


def test_several_references_penalty_uses_the_average_length():
    """Hypothesis "a b" against references of 3 and 5 words (average 4): ratio 1/2,
    factor exp(-beta ln^2(0.5)) with beta = -ln 0.5 / ln^2 1.5."""
    m = NIST()
    st = m.statistics([["a b c"], ["a b x y z"]], [["a b"]])[0]
    beta = -math.log(0.5) / math.log(1.5) ** 2
    # 8 reference words: info(a) = info(b) = log2(8/2) = 2; info("a b") = log2(2/2) = 0
    info = (2 + 2) / 2
    assert m.corpus_score(st) == pytest.approx(info * math.exp(-beta * math.log(0.5) ** 2), abs=1e-12)

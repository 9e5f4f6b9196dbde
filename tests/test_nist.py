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


def test_equals_nltk_with_one_reference_on_real_data(excerpts):
    m = NIST()
    for name, (refs, systems) in excerpts.items():
        for hyp in systems.values():
            st = m.statistics([refs[0]], [hyp])[0]
            if st[:, 5:10].sum(axis=0).min() == 0:
                # no 5-gram in the whole system output (Chinese unsegmented: 13a gives few tokens):
                # NLTK divides by zero there, mteval (and mtlens) count max(1, 0)
                with pytest.raises(ZeroDivisionError):
                    corpus_nist([[m.tokens(r)] for r in refs[0]], [m.tokens(h) for h in hyp], n=5)
                continue
            theirs = corpus_nist([[m.tokens(r)] for r in refs[0]], [m.tokens(h) for h in hyp], n=5)
            assert m.corpus_score(st) == pytest.approx(theirs, rel=1e-12), name


def test_several_references_differ_from_nltk_as_documented(sample):
    refs, systems = sample
    m = NIST()
    hyp = next(iter(systems.values()))
    ours = m.corpus_score(m.statistics(refs, [hyp])[0])
    theirs = corpus_nist([[m.tokens(r[i]) for r in refs] for i in range(len(hyp))], [m.tokens(h) for h in hyp], n=5)
    # NLTK keeps one best reference per segment and order: fewer matched n-grams, lower score
    assert ours > theirs

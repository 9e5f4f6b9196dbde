"""Character BLEU (Denoual & Lepage 2005): equals sacrebleu BLEU(tokenize='char', max_ngram_order=M)."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.metrics import CharBLEU

from ..golden.cases import CHAR_BLEU_ORDERS, EXCERPTS, char_bleu_id
from ..golden.make_sacrebleu_golden import excerpt_golden


@pytest.mark.parametrize("order", CHAR_BLEU_ORDERS)
def test_parity_with_sacrebleu_char_tokenizer(excerpts, order):
    """sacrebleu's ``tokenize="char"`` BLEU of every system of every excerpt: its score, n-gram counts and
    totals, stored by tests/golden/make_sacrebleu_golden.py (sacrebleu counts n-grams in pure Python:
    14 CPU-seconds for order 25 alone)."""
    assert set(excerpts) == set(EXCERPTS)
    for name, (refs, systems) in excerpts.items():
        gold = excerpt_golden(char_bleu_id(name, order))
        assert set(gold) == set(systems)
        m = CharBLEU(order)
        stats = m.statistics(refs, list(systems.values()))
        for sys_name, st in zip(systems, stats, strict=True):
            want = gold[sys_name]
            assert m.corpus_score(st) == pytest.approx(want["score"], abs=1e-9), (name, sys_name, order)
            d = m.details(st.sum(axis=0))
            assert d["counts"] == want["counts"] and d["totals"] == want["totals"]


def test_lowercase_parity(sample):
    refs, systems = sample
    hyp = next(iter(systems.values()))
    m = CharBLEU(18, lowercase=True)
    want = SacreBLEU(tokenize="char", max_ngram_order=18, lowercase=True).corpus_score(hyp, refs).score
    assert m.corpus_score(m.statistics(refs, [hyp])[0]) == pytest.approx(want, abs=1e-9)


def test_whitespace_is_removed_by_default_so_segmentation_does_not_matter():
    m = CharBLEU(4)
    spaced, unspaced = m.statistics([["東京 に 行く"]], [["東京に行く"], ["東京 に 行く"]])
    np.testing.assert_array_equal(spaced, unspaced)
    assert m.corpus_score(spaced) == pytest.approx(100.0, abs=1e-9)


def test_keep_spaces_counts_one_space_per_whitespace_run():
    m = CharBLEU(4, keep_spaces=True)
    assert m.chars("  a \t b  ") == "a b"
    st = m.statistics([["ab cd"]], [["abcd"]])[0]
    # hand count: hyp "abcd" 4 chars, ref "ab cd" 5 chars; unigrams 4/4, bigrams ab, cd = 2/3,
    # trigrams 0/2, 4-grams 0/1; exp smoothing: 1/(2*2), 1/(4*1); BP = exp(1 - 5/4)
    import math

    p = [1.0, 2 / 3, 1 / 4, 1 / 4]
    expected = 100 * math.exp(1 - 5 / 4) * math.exp(sum(math.log(x) for x in p) / 4)
    assert m.corpus_score(st) == pytest.approx(expected, abs=1e-9)


def test_sentence_shorter_than_order_scores_zero_without_effective_order():
    m = CharBLEU(18, smooth_method="none")
    st = m.statistics([["short"]], [["short"]])[0]
    assert m.corpus_score(st) == 0.0  # no 18-grams at all (the paper's Table 4 remark)
    assert m.sentence_scores(st)[0] == pytest.approx(100.0, abs=1e-9)  # sentence view uses effective order


def test_signature_names_order_and_spaces():
    sig = CharBLEU(18).signature(2).format()
    assert sig.startswith("nrefs:2|case:mixed|eff:no|tok:char|smooth:exp|order:18|space:no|version:mtlens-")

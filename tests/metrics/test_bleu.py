"""Word BLEU: worked examples, NLTK's smoothing methods, and sacrebleu parity on real data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.metrics import BLEU, bleu_from_totals

CAT_REFS = ["The cat is on the mat.", "There is a cat on the mat."]
CAT_HYP = "the the the mat on the the."


def ours(hyp, refs, **kw):
    m = BLEU(**kw)
    st = m.statistics([[r] for r in refs], [[hyp]])[0]
    return m.corpus_score(st)


@pytest.mark.parametrize(
    ("smooth", "expected", "nltk_method"),
    [("exp", 13.134549, "method3"), ("floor", 6.985342, "method1"), ("add-k", 22.839451, "method2")],
)
def test_spec_cat_example_against_spec_and_nltk(smooth, expected, nltk_method):
    got = ours(CAT_HYP, CAT_REFS, tokenize="none", smooth_method=smooth)
    assert got == pytest.approx(expected, abs=1e-6)
    fn = getattr(SmoothingFunction(), nltk_method)
    nltk = 100 * sentence_bleu([r.split() for r in CAT_REFS], CAT_HYP.split(), smoothing_function=fn)
    assert got == pytest.approx(nltk, abs=1e-9)


ORE_REFS = [
    "Orejuela appeared calm as he was led to the American plane which will take him to Miami, Florida.",
    "Orejuela appeared calm while being escorted to the plane that would take him to Miami, Florida.",
    "Orejuela appeared calm as he was being led to the American plane that was to carry him to Miami in Florida.",
    "Orejuela seemed quite calm as he was being led to the American plane that would take him to Miami in Florida.",
]
ORE_HYP = "Appeared calm when he was taken to the American plane, which will to Miami, Florida."


def test_lecture_notes_orejuela_example():
    m = BLEU(lowercase=True)
    st = m.statistics([[r] for r in ORE_REFS], [[ORE_HYP]])[0]
    d = m.details(st.sum(axis=0))
    assert d["counts"] == [15, 10, 5, 3]
    assert d["totals"] == [18, 17, 16, 15]
    # hand calculation: c = 18, closest reference length 18 (ref 2 has 18 tokens) -> BP = 1
    expected = 100 * math.exp((math.log(15 / 18) + math.log(10 / 17) + math.log(5 / 16) + math.log(3 / 15)) / 4)
    assert m.corpus_score(st) == pytest.approx(expected, abs=1e-9)
    assert round(m.corpus_score(st), 2) == 41.84


def test_lecture_notes_saudi_example():
    ref = "SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"
    hyp = "THIS WEEK THE SAUDIS denied information published in the new york times"
    m = BLEU(tokenize="none", lowercase=True)
    st = m.statistics([[ref]], [[hyp]])[0]
    d = m.details(st.sum(axis=0))
    assert [round(p, 1) for p in d["precisions"]] == [83.3, 54.5, 30.0, 11.1]
    assert round(d["bp"], 3) == 0.920
    assert round(m.corpus_score(st), 2) == 32.28


def test_nltk_corpus_bleu_differs_only_by_short_segment_denominators():
    # NLTK's corpus_bleu counts max(1, n-grams) in an order's denominator, i.e. adds 1 for every
    # segment shorter than n (docs/decisions.md, "Word BLEU"); with every segment at least 4 tokens long they agree.
    refs = [["the cat sat on the mat today", "a dog ran in the park"]]
    hyps = ["the cat sat on a mat today", "the dog ran in a park"]
    m = BLEU(tokenize="none", smooth_method="none")
    st = m.statistics([list(r) for r in refs], [hyps])[0]
    nltk = corpus_bleu([[r.split()] for r in refs[0]], [h.split() for h in hyps])
    assert m.corpus_score(st) == pytest.approx(100 * nltk, abs=1e-9)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lowercase": True},
        {"tokenize": "intl"},
        {"tokenize": "none"},
        {"tokenize": "char"},
        {"tokenize": "zh"},
        {"smooth_method": "floor"},
        {"smooth_method": "floor", "smooth_value": 0.3},
        {"smooth_method": "add-k"},
        {"smooth_method": "add-k", "smooth_value": 2},
        {"smooth_method": "none"},
        {"max_ngram_order": 2},
        {"max_ngram_order": 6},
        {"effective_order": True},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default",
)
def test_parity_with_sacrebleu_on_bundled_real_data(excerpts, options):
    for name, (refs, systems) in excerpts.items():
        m = BLEU(**options)
        stats = m.statistics(refs, list(systems.values()))
        for (sys_name, hyp), st in zip(systems.items(), stats, strict=True):
            ref = SacreBLEU(**options).corpus_score(hyp, refs)
            assert m.corpus_score(st) == pytest.approx(ref.score, abs=1e-9), (name, sys_name)
            d = m.details(st.sum(axis=0))
            assert (d["sys_len"], d["ref_len"]) == (ref.sys_len, ref.ref_len)
            if options.get("smooth_method") != "add-k":
                assert d["counts"] == ref.counts and d["totals"] == ref.totals
            assert d["precisions"] == pytest.approx(ref.precisions, abs=1e-9)
            assert d["bp"] == pytest.approx(ref.bp, abs=1e-12)


def test_signature_equals_sacrebleus_apart_from_version(sample):
    refs, systems = sample
    for options in [
        {},
        {"lowercase": True, "tokenize": "intl"},
        {"smooth_method": "floor"},
        {"smooth_method": "add-k"},
    ]:
        sb = SacreBLEU(**options)
        sb.corpus_score(next(iter(systems.values())), refs)
        theirs = str(sb.get_signature()).replace(f"version:{sacrebleu.__version__}", "")
        mine = BLEU(**options).signature(len(refs)).format()
        assert mine.startswith(theirs), (mine, theirs)


def test_sentence_scores_equal_sacrebleu_sentence_bleu_with_effective_order(excerpts):
    for refs, systems in excerpts.values():
        m = BLEU()
        hyp = next(iter(systems.values()))
        st = m.statistics(refs, [hyp])[0]
        got = m.sentence_scores(st)
        sb = SacreBLEU(effective_order=True)
        want = [sb.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyp)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_edge_cases_follow_sacrebleu():
    cases = [("", ["a b c"]), ("a b c", [""]), ("", [""]), ("x y", ["a b c d e"]), ("a", ["a"]), ("a b", ["a b"])]
    for hyp, refs in cases:
        for smooth in ["exp", "floor", "add-k", "none"]:
            for eff in [False, True]:
                want = SacreBLEU(smooth_method=smooth, effective_order=eff, tokenize="none").corpus_score(
                    [hyp], [[r] for r in refs]
                )
                assert ours(hyp, refs, tokenize="none", smooth_method=smooth, effective_order=eff) == pytest.approx(
                    want.score, abs=1e-9
                ), (hyp, refs, smooth, eff)


def test_vectorised_totals_equal_row_by_row():
    rng = np.random.default_rng(0)
    totals = np.zeros((50, 10), dtype=np.int64)
    totals[:, 0] = rng.integers(0, 30, 50)
    totals[:, 1] = rng.integers(1, 30, 50)
    totals[:, 6:] = np.maximum(totals[:, [0]] - np.arange(4), 0)
    totals[:, 2:6] = rng.integers(0, 3, (50, 4)) * (totals[:, 6:] > 0)
    for smooth in ["exp", "floor", "add-k", "none"]:
        batch = bleu_from_totals(totals, 4, smooth)
        for row, score in zip(totals, batch, strict=True):
            want = SacreBLEU.compute_bleu(
                list(row[2:6]), list(row[6:]), int(row[0]), int(row[1]), smooth_method=smooth
            ).score
            assert score == pytest.approx(want, abs=1e-9)


def test_invalid_options_are_clear():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        BLEU(tokenize="moses")
    with pytest.raises(ValueError, match="smoothing"):
        BLEU(smooth_method="magic")


def test_ja_mecab_tokenizer_parity_on_real_japanese():
    from ..conftest import TESTDATA, read

    src = read(TESTDATA / "ja-en" / "src.txt")  # real Japanese sentences
    hyp = src[1:] + src[:1]
    m = BLEU(tokenize="ja-mecab")
    st = m.statistics([src], [[*src[:25], *hyp[25:]]])[0]
    want = SacreBLEU(tokenize="ja-mecab").corpus_score([*src[:25], *hyp[25:]], [src])
    assert m.corpus_score(st) == pytest.approx(want.score, abs=1e-9)
    assert m.signature(1).format().startswith("nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.996-IPA|smooth:exp|")

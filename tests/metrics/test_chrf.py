"""chrF / chrF++: sacrebleu parity (including best-reference choice) and hand-checked values."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.metrics import CHRF
from mtlens.metrics.chrf import chrf_from_totals, split_punctuation

from ..golden.cases import CHRF_OPTION_SETS, EXCERPTS, chrf_excerpt_id, stats_digest
from ..golden.make_sacrebleu_golden import excerpt_golden


def test_hand_calculation_single_order():
    # hyp "ab", ref "abc", char order 2: unigrams P=2/2 R=2/3, bigrams P=1/1 R=1/2
    # avg P = 1, avg R = (2/3 + 1/2)/2 = 7/12; F2 = 5 * P * R / (4P + R)
    m = CHRF(char_order=2)
    st = m.statistics([["abc"]], [["ab"]])[0]
    p, r = 1.0, 7 / 12
    assert m.corpus_score(st) == pytest.approx(100 * 5 * p * r / (4 * p + r), abs=1e-12)


@pytest.mark.parametrize(
    "options", CHRF_OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_parity_with_sacrebleu_on_bundled_real_data(excerpts, options):
    """sacrebleu's chrF of every system of every excerpt, and its per-segment statistics (best reference per
    segment) exactly, by their digest (:func:`tests.golden.cases.stats_digest`): stored by
    tests/golden/make_sacrebleu_golden.py."""
    assert set(excerpts) == set(EXCERPTS)
    for name, (refs, systems) in excerpts.items():
        gold = excerpt_golden(chrf_excerpt_id(name, options))
        assert set(gold) == set(systems)
        m = CHRF(**options)
        stats = m.statistics(refs, list(systems.values()))
        for sys_name, st in zip(systems, stats, strict=True):
            assert m.corpus_score(st) == pytest.approx(gold[sys_name]["score"], abs=1e-9), (name, sys_name)
            assert stats_digest(st) == gold[sys_name]["lines"], (name, sys_name)


def test_per_segment_statistics_equal_sacrebleus_on_one_excerpt(sample):
    """The digest above compares exact counts; here sacrebleu itself, on the sample's first system, so a
    difference shows as numbers (chrF++ with two references)."""
    refs, systems = sample
    hyp = next(iter(systems.values()))
    m = CHRF(word_order=2)
    st = m.statistics(refs, [hyp])[0]
    np.testing.assert_array_equal(st, np.array(SacreCHRF(word_order=2)._extract_corpus_statistics(hyp, refs)))


def test_sentence_scores_equal_sacrebleu(excerpts):
    for refs, systems in excerpts.values():
        for word_order in (0, 2):
            m = CHRF(word_order=word_order)
            hyp = list(systems.values())[-1]
            got = m.sentence_scores(m.statistics(refs, [hyp])[0])
            sb = SacreCHRF(word_order=word_order)
            want = [sb.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyp)]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_signature_equals_sacrebleus_apart_from_version(sample):
    refs, systems = sample
    for options in [{}, {"word_order": 2}, {"lowercase": True}]:
        sb = SacreCHRF(**options)
        sb.corpus_score(next(iter(systems.values())), refs)
        theirs = str(sb.get_signature()).replace(f"version:{sacrebleu.__version__}", "")
        assert CHRF(**options).signature(len(refs)).format().startswith(theirs)


def test_split_punctuation_matches_sacrebleu_on_real_lines(excerpts):
    sb = SacreCHRF(word_order=2)
    for refs, systems in excerpts.values():
        for line in refs[0] + next(iter(systems.values())):
            assert split_punctuation(line) == sb._remove_punctuation(line)


def test_edge_cases():
    for hyp, ref in [("", "abc"), ("abc", ""), ("", ""), ("a", "a"), ("xyz", "abc")]:
        m = CHRF(word_order=2)
        want = SacreCHRF(word_order=2).corpus_score([hyp], [[ref]]).score
        assert m.corpus_score(m.statistics([[ref]], [[hyp]])[0]) == pytest.approx(want, abs=1e-12)


def test_vectorised_over_leading_axes():
    t = np.array([[4, 4, 4, 3, 3, 2], [4, 5, 3, 3, 4, 1]])
    both = chrf_from_totals(t)
    assert both.shape == (2,)
    assert both[1] == pytest.approx(float(chrf_from_totals(t[1])))


def test_characters_without_white_space_are_those_of_split_and_join():
    """chrF and character BLEU drop white space from whole streams at once (mtlens.core.ngrams.char_streams
    with drop_space); that equals "".join(line.split()) line by line, for every white space character
    Python knows (the table is checked against str.isspace on every code point) and after lowercasing
    (which can change a line's length: "İ" lowercases to two characters)."""
    import random

    from mtlens.core.ngrams import char_streams, space_table

    table = space_table()
    assert [c for c in range(0x110000) if chr(c).isspace()] == list(np.flatnonzero(table))
    spaces = [chr(c) for c in np.flatnonzero(table)]
    alphabet = [*spaces, "a", "B", "ß", "İ", "Σ", "中", "\U0001f600", "\u0301", "-", "'"]
    rng = random.Random(11)
    streams = [["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))) for _ in range(50)] for _ in range(3)]
    for lower in (False, True):
        cased = [[x.lower() for x in s] if lower else s for s in streams]
        got = char_streams(cased, drop_space=True)
        want = char_streams([["".join(x.split()) for x in s] for s in cased])
        np.testing.assert_array_equal(got.lengths, want.lengths)
        np.testing.assert_array_equal(got.tokens, want.tokens)
        assert got.vocab_size == want.vocab_size
    m = CHRF(lowercase=True)
    assert m.chars("İ a\u3000b") == "i̇ab"  # the method the per-line views use: the same characters

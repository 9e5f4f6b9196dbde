"""Property-based tests (hypothesis) over random Unicode text, for every metric: no exception,
scores in range, identical hypothesis and reference score the maximum, and sacrebleu parity on
arbitrary input (not only on clean news text)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.metrics import TER as SacreTER

from mtlens.metrics import make_metric, metric_names, sentence_metrics

# words from several scripts, punctuation, emoji, zero-width and no-break spaces, right-to-left text
PIECES = st.sampled_from(
    list("abcdeXYZ.,;!?'\"-()&<>")
    + list("éüßčřž")
    + list("日本語中文")
    + list("שלוםمرحبا")
    + ["😀", "👍🏽", "\u200b", "\u00a0", "\u202e", "\t", " ", "&amp;", "ǅ", "İ"]
)
ANY_CHAR = st.characters(exclude_categories=("Cs",), exclude_characters="\n\r")
WORD = st.one_of(st.lists(PIECES, min_size=1, max_size=8).map("".join), st.text(ANY_CHAR, min_size=1, max_size=6))
LINE = st.lists(WORD, min_size=0, max_size=12).map(" ".join)
CORPUS = st.integers(1, 4).flatmap(
    lambda n: st.tuples(st.lists(LINE, min_size=n, max_size=n), st.lists(LINE, min_size=n, max_size=n))
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", metric_names())
@SETTINGS
@given(data=CORPUS)
def test_scores_in_range_and_no_exception(name, data):
    refs, hyps = data
    m = make_metric(name, char_order=6)
    st_ = m.statistics([refs], [hyps])[0]
    corpus = m.corpus_score(st_)
    sent = m.sentence_scores(st_)
    assert len(sent) == len(hyps)
    low, high = m.score_range  # what the metric declares
    for v in [corpus, *sent]:
        assert math.isfinite(v)
        assert low is None or v >= low
        assert high is None or v <= high + 1e-9


@pytest.mark.parametrize("name", sentence_metrics())
@SETTINGS
@given(lines=st.lists(LINE, min_size=1, max_size=4))
def test_identical_hypothesis_scores_the_maximum(name, lines):
    m = make_metric(name, char_order=6)
    st_ = m.statistics([lines], [lines])[0]
    sent = m.sentence_scores(st_)
    for line, v in zip(lines, sent, strict=True):
        empty = not line.split() if name not in ("bleu-c", "chrf", "chrf++") else not "".join(line.split())
        if not m.higher_is_better:  # an error rate: no error
            assert v == 0.0
        elif not empty and (name != "bleu" or m.tokens(line)) and (name != "tbleu" or m.tokens(line)):
            assert v == pytest.approx(100.0, abs=1e-9), line


@SETTINGS
@given(data=CORPUS)
def test_random_unicode_parity_with_sacrebleu(data):
    refs, hyps = data
    for ours, theirs in [
        (make_metric("bleu"), SacreBLEU()),
        (make_metric("chrf++"), SacreCHRF(word_order=2)),
        (make_metric("bleu-c", char_order=6), SacreBLEU(tokenize="char", max_ngram_order=6)),
        (make_metric("ter"), SacreTER()),
    ]:
        got = ours.corpus_score(ours.statistics([refs], [hyps])[0])
        want = theirs.corpus_score(hyps, [refs]).score
        assert got == pytest.approx(want, abs=1e-9)


@SETTINGS
@given(data=CORPUS)
def test_ter_alignment_invariant_on_random_text(data):
    from mtlens.metrics.ter import TER, ter_alignment

    refs, hyps = data
    m = TER()
    stats = m.statistics([refs], [hyps])[0]
    for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        a = ter_alignment(h, [r], m)
        c = a.counts
        assert c["shift"] + c["substitution"] + c["insertion"] + c["deletion"] == a.edits == stats[i, 0]
        assert np.isfinite(a.ref_length)

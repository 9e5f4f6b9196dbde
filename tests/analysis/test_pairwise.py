"""Two-system analyses (n-grams, buckets with tests) and the sentence table, checked by invariants that
can fail: sums against BLEU's own counts, line counts, self-comparison, a clearly worse system, tiny buckets."""

from __future__ import annotations

import numpy as np
import pytest

from mtlens import Corpus, score
from mtlens.analysis.pairwise import frequency_buckets, length_buckets, ngram_differences, word_fmeasure
from mtlens.analysis.policy import MIN_TEST_LINES
from mtlens.analysis.sentences import sentence_table
from mtlens.core.options import DEFAULTS
from mtlens.metrics import BLEU

from ..conftest import SAMPLE, TESTDATA, pair_files


@pytest.fixture(scope="module")
def sample_corpus():
    refs, systems = pair_files(SAMPLE)
    return Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)


def test_ngram_matches_sum_to_bleu_counts_per_order(sample_corpus):
    """Per order, the matched n-grams summed over the corpus are BLEU's clipped matches (multi-reference)."""
    bleu = score(sample_corpus, "bleu")["bleu"]
    diff = ngram_differences(sample_corpus, "UEdin", "HuaweiTSC")
    for system, col in (("UEdin", "matched_a"), ("HuaweiTSC", "matched_b")):
        correct = bleu.stats[system][:, 2:6].sum(axis=0)  # [hyp_len, ref_len, correct_1..4, total_1..4]
        for n in range(1, 5):
            assert diff.loc[diff["n"] == n, col].sum() == correct[n - 1], (system, n)


def test_ngram_differences_with_zh_tokenizer_follow_the_options():
    refs, systems = pair_files(TESTDATA / "en-zh")
    c = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    a, b = c.system_names[:2]
    opts = DEFAULTS.replace(tokenize="zh")
    bleu = score(c, "bleu", opts)["bleu"]
    diff = ngram_differences(c, a, b, opts)
    assert diff.loc[diff["n"] == 1, "matched_a"].sum() == bleu.stats[a][:, 2].sum()


def test_length_buckets_cover_every_line_and_self_comparison_gives_p_1(sample_corpus):
    bleu = score(sample_corpus, "bleu")["bleu"]
    res = length_buckets(sample_corpus, bleu, "UEdin", "UEdin")
    assert sum(r.lines for r in res.rows) == sample_corpus.n_lines
    lengths = [len(BLEU().tokens(x)) for x in sample_corpus.references["ref"]]
    assert res.rows[0].lines == sum(1 for n in lengths if n <= 10)
    for r in res.rows:
        assert r.delta == 0
        if r.tested:
            assert r.p_value == 1.0 and not r.significant
        else:
            assert r.lines < MIN_TEST_LINES and r.p_holm is None and not r.significant


def test_too_few_lines_get_no_test_and_are_never_significant(sample_corpus):
    """A bucket of a handful of lines: an empty system against a good one would give a tiny p; no test runs."""
    refs = sample_corpus.references
    c = Corpus.build({"ref": refs["ref"][:40]}, {"good": refs["ref"][:40], "empty": [""] * 40})
    res = length_buckets(c, score(c, "chrf")["chrf"], "good", "empty", min_lines=30)
    small = [r for r in res.rows if r.lines < 30]
    assert small, "the excerpt must have a small bucket for this test"
    for r in small:
        assert r.p_value is None and r.p_holm is None and r.significant is False
    for r in res.rows:
        if r.lines >= 30:
            assert r.p_value < 0.05


def test_a_clearly_worse_system_is_significantly_worse_on_real_data(sample_corpus):
    """Drop the last third of every line of a real system: every tested bucket must show it."""
    a = sample_corpus.systems["VolcTrans-GLAT"]
    worse = [" ".join(x.split()[: max(1, 2 * len(x.split()) // 3)]) for x in a]
    c = Corpus.build(dict(sample_corpus.references), {"A": a, "worse": worse})
    res = length_buckets(c, score(c, "bleu")["bleu"], "A", "worse")
    tested = [r for r in res.rows if r.tested]
    assert tested
    for r in tested:
        assert r.delta < 0 and r.p_value < 0.05
    assert any(r.significant for r in tested)


def test_holm_is_applied_over_the_tested_buckets(sample_corpus):
    bleu = score(sample_corpus, "bleu")["bleu"]
    res = length_buckets(sample_corpus, bleu, "UEdin", "HuaweiTSC")
    tested = sorted((r for r in res.rows if r.tested), key=lambda r: r.p_value)
    m = len(tested)
    running = 0.0
    for k, r in enumerate(tested):  # Holm's step-down by hand
        running = max(running, min(1.0, (m - k) * r.p_value))
        assert r.p_holm == pytest.approx(running, abs=1e-15)
        assert r.significant == (r.p_holm < 0.05)


def test_frequency_buckets_without_corpus_have_no_unseen_bucket(sample_corpus):
    res = frequency_buckets(sample_corpus, "UEdin", "HuaweiTSC")
    assert res.frequency_source == "references"
    assert all(not r.bucket.startswith("0 (") for r in res.rows)
    # every reference word of the first reference is in exactly one bucket
    tok = BLEU()
    n_words = sum(len(tok.tokens(x)) for x in sample_corpus.references["ref"])
    assert sum(r.words for r in res.rows) == n_words
    assert all(r.lines <= sample_corpus.n_lines for r in res.rows)


def test_frequency_buckets_with_a_corpus_count_unseen_words(sample_corpus):
    corpus_lines = sample_corpus.references["ref2"][:50]  # words of ref2's first 50 lines only
    res = frequency_buckets(sample_corpus, "UEdin", "HuaweiTSC", frequency_corpus=corpus_lines, frequency_source="x")
    known = {w for x in corpus_lines for w in BLEU().tokens(x)}
    unseen_by_hand = sum(1 for x in sample_corpus.references["ref"] for w in BLEU().tokens(x) if w not in known)
    unseen = next(r for r in res.rows if r.bucket.startswith("0 ("))
    assert unseen.words == unseen_by_hand > 0


def test_word_fmeasure_by_hand():
    # 3 matched of 4 hypothesis and 5 reference words: F = 2 * 3 / (4 + 5)
    assert float(word_fmeasure(np.array([3, 4, 5]))) == pytest.approx(200 * 3 / 9)
    assert float(word_fmeasure(np.array([0, 0, 0]))) == 0.0


def test_sentence_table_sorts_and_filters(sample_corpus):
    ter = score(sample_corpus, "ter")["ter"]
    t = sentence_table(sample_corpus, ter, "UEdin", "HuaweiTSC", "B better than A first")
    d = t["B - A"].to_numpy()
    assert (np.diff(d) >= 0).all()  # TER: lower is better, so B better = most negative first
    t = sentence_table(sample_corpus, ter, "UEdin", "HuaweiTSC", "largest |B - A|")
    assert (np.diff(np.abs(t["B - A"].to_numpy())) <= 0).all()
    q = "the"
    t = sentence_table(sample_corpus, ter, "UEdin", None, "line order", query=q.upper())
    expect = [
        i + 1
        for i in range(sample_corpus.n_lines)
        if q in sample_corpus.systems["UEdin"][i].lower()
        or any(q in r[i].lower() for r in sample_corpus.reference_streams())
    ]
    assert t["line"].tolist() == expect
    with pytest.raises(ValueError):
        sentence_table(sample_corpus, ter, "UEdin", None, "largest |B - A|")

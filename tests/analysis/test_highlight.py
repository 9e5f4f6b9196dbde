"""N-gram match data: per-sentence matched counts equal BLEU's statistics on real data."""

from __future__ import annotations

from mtlens.analysis.highlight import ngram_matches
from mtlens.metrics import BLEU, CharBLEU


def test_clipping_marks_the_first_occurrences():
    m = ngram_matches("the the the mat", ["the mat", "the the cat"], BLEU(tokenize="none"))
    uni = m.hyp[1]
    # "the" appears at most twice in a reference (ref 2): first two occurrences matched
    assert [s.matched for s in uni] == [True, True, False, True]
    assert uni[0].references == (0, 1) and uni[1].references == (1,) and uni[3].references == (0,)
    assert [s.start for s in m.missed(1, 1)] == [2]  # "cat" in reference 2
    assert m.hyp_token_matched(2) == [True, True, True, True]  # "the the" (ref 2) and "the mat" (ref 1)


def test_counts_equal_bleu_statistics_on_every_sentence_of_real_data(excerpts):
    for refs, systems in excerpts.values():
        for metric in (BLEU(), CharBLEU(6)):
            hyp = next(iter(systems.values()))
            stats = metric.statistics(refs, [hyp])[0]
            N = metric.max_ngram_order
            for i, line in enumerate(hyp):
                m = ngram_matches(line, [r[i] for r in refs], metric)
                assert [m.correct(n) for n in range(1, N + 1)] == list(stats[i, 2 : 2 + N])
                assert [len(m.hyp[n]) for n in range(1, N + 1)] == list(stats[i, 2 + N :])


def test_reference_coverage_is_symmetric_to_hypothesis_matches():
    m = ngram_matches("a b c", ["c b a b"], BLEU(tokenize="none"))
    assert sum(s.matched for s in m.refs[1][0]) == m.correct(1) == 3
    assert [s.matched for s in m.refs[2][0]] == [
        False,
        False,
        True,
    ]  # of "c b", "b a", "a b" only "a b" is in the hypothesis

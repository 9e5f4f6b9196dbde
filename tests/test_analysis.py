"""Analyses checked against independent computations (sacrebleu sentence scores, scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from scipy import stats as sps

from mtlens import Corpus, score
from mtlens.analysis import (
    cohen_kappa,
    grades,
    human_correlation,
    parse_orders,
    read_human,
    tbleu_sweep,
    words_vs_chars,
)
from mtlens.errors import InputError

from .conftest import SAMPLE, TESTDATA, pair_files


def _kappa_by_hand(a, b, k=10):
    n = len(a)
    agree = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    chance = sum((sum(1 for x in a if x == c) / n) * (sum(1 for y in b if y == c) / n) for c in range(k))
    return (agree - chance) / (1 - chance)


def test_grades_and_kappa():
    assert list(grades(np.array([0, 9.99, 10, 43.5, 99.9, 100]))) == [0, 0, 1, 4, 9, 9]
    a, b = [0, 1, 2, 2, 5, 9], [0, 1, 2, 1, 5, 8]
    assert cohen_kappa(np.array(a), np.array(b)) == pytest.approx(_kappa_by_hand(a, b))


def test_words_vs_chars_against_sacrebleu_sentence_scores():
    refs, systems = pair_files(SAMPLE)
    name = "UEdin"
    corpus = Corpus.build({"r": refs[0][:80]}, {name: systems[name][:80]})
    res = words_vs_chars(corpus, 4, (5, 18), ranking_char_order=18)
    hyp, ref = systems[name][:80], refs[0][:80]

    def sb(**kw):
        return [
            SacreBLEU(smooth_method="none", **kw).sentence_score(h, [r]).score for h, r in zip(hyp, ref, strict=True)
        ]

    w4, w3 = np.array(sb()), np.array(sb(max_ngram_order=3))
    for row in res.rows[name]:
        c = np.array(sb(tokenize="char", max_ngram_order=row["char_order"]))
        assert row["pearson"] == pytest.approx(sps.pearsonr(w4, c).statistic, abs=1e-9)
        assert row["kappa"] == pytest.approx(_kappa_by_hand(list(grades(w4)), list(grades(c))), abs=1e-9)
        assert row["analogical"] == pytest.approx(np.mean(c <= w3), abs=1e-12)
    np.testing.assert_allclose(res.sentences[name][0], w4, atol=1e-9)


def test_best_orders_and_ranking(sample):
    refs, systems = sample
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    res = words_vs_chars(corpus, 4, range(1, 31))
    for b in res.best.values():
        assert all(v is None or 1 <= v <= 30 for v in b.values())
    pooled = {r["char_order"]: r for r in res.pooled}
    assert res.best["all"]["pearson"] == max(pooled, key=lambda m: pooled[m]["pearson"])
    first90 = min(m for m, r in pooled.items() if r["analogical"] >= 0.9)
    assert res.best["all"]["analogical"] == first90
    corpus_bleu = score(corpus, "bleu")["bleu"].scores
    for r in res.ranking:
        assert r["bleu_w"] == pytest.approx(corpus_bleu[r["system"]], abs=1e-9)


def test_parse_orders():
    assert parse_orders("1-3,18") == (1, 2, 3, 18)
    with pytest.raises(InputError):
        parse_orders("a-b")


def _sample_results():
    refs, systems = pair_files(SAMPLE)
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    return corpus, score(corpus, "bleu,chrf,ter")


def test_system_level_human_correlation_equals_scipy():
    corpus, results = _sample_results()
    human = read_human((SAMPLE / "human.tsv").read_bytes(), "human.tsv", corpus)
    assert human.ignored == ("ref", "ref2")
    out = human_correlation(results, human, n_boot=200)
    rows = {(r["metric"], r["level"], r["human"]): r for r in out["human_correlation"]}
    names = list(results["bleu"].scores)
    mqm = [human.system["MQM"][s] for s in names]
    x = [results["chrf"].scores[s] for s in names]
    r = rows[("chrf", "system", "MQM")]
    assert r["n"] == 4
    assert r["pearson"] == pytest.approx(sps.pearsonr(x, mqm).statistic)
    assert r["kendall"] == pytest.approx(sps.kendalltau(x, mqm).statistic)
    assert any("not uploaded were ignored" in n for n in out["notes"])


def test_segment_level_human_correlation_and_missing_systems():
    refs, systems = pair_files(TESTDATA / "ja-en")
    corpus = Corpus.build({"ref": refs[0]}, {**systems, "extra": systems["Illini"]})
    results = score(corpus, "bleu,chrf")
    human = read_human((TESTDATA / "ja-en" / "human_seg.tsv").read_bytes(), "human_seg.tsv", corpus)
    out = human_correlation(results, human, n_boot=100)
    seg = next(
        r
        for r in out["human_correlation"]
        if r["level"] == "segment" and r["human"] == "DA_z" and r["metric"] == "chrf"
    )
    xs, ys = [], []
    for s, lines in human.segment["DA_z"].items():
        sent = results["chrf"].sentence_scores(s)
        for line, v in lines.items():
            xs.append(sent[line])
            ys.append(v)
    assert seg["n"] == len(xs)
    assert seg["spearman"] == pytest.approx(sps.spearmanr(xs, ys).statistic)
    lo, hi = seg["pearson_ci"]
    assert lo <= seg["pearson"] <= hi
    assert out["missing"]["segment:DA_z"] == ["extra"]


def test_human_file_errors():
    corpus, _ = _sample_results()
    with pytest.raises(InputError, match="neither a TSV"):
        read_human(b"hello\nworld\n", "h.txt", corpus)
    with pytest.raises(InputError, match="one system"):
        read_human(b"0.5\n" * 200, "h.txt", corpus)
    with pytest.raises(InputError, match="refers to line 999"):
        read_human(b"system\tline\tmetric\tscore\nUEdin\t999\tMQM\t1\n", "h.tsv", corpus)
    with pytest.raises(InputError, match="no score for any"):
        read_human(b"system\tmetric\tscore\nnobody\tDA\t1\n", "h.tsv", corpus)


def test_tbleu_sweep_starts_at_bleu():
    corpus, results = _sample_results()
    sweep = tbleu_sweep(corpus, epsilons=[0.0, 0.5])
    for s, vals in sweep["scores"].items():
        assert vals[0] == pytest.approx(results["bleu"].scores[s], abs=1e-9)
        assert vals[1] >= vals[0]
    assert not math.isnan(vals[0])


def test_vectorised_bootstrap_correlations_equal_scipy_per_resample():
    from mtlens.analysis import _rowwise_kendall_b, _rowwise_pearson

    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(30, 12)).astype(float)  # ties included
    y = x + rng.normal(size=(30, 12))
    p = _rowwise_pearson(x, y)
    k = _rowwise_kendall_b(x, y)
    for i in range(30):
        assert p[i] == pytest.approx(sps.pearsonr(x[i], y[i]).statistic)
        assert k[i] == pytest.approx(sps.kendalltau(x[i], y[i]).statistic)

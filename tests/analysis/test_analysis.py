"""Analyses checked against independent computations (sacrebleu sentence scores, scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from scipy import stats as sps

from mtlens import Corpus, score
from mtlens.analysis.correlation import bootstrap_ci, cohen_kappa, grades, rowwise_kendall_b, rowwise_pearson
from mtlens.analysis.human import human_correlation, read_human, segment_pairs
from mtlens.analysis.sweep import tbleu_sweep
from mtlens.analysis.words_chars import parse_orders, words_vs_chars
from mtlens.core.errors import InputError

from ..conftest import SAMPLE, TESTDATA, pair_files


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
        c = np.array(sb(tokenize="char", max_ngram_order=row.char_order))
        assert row.pearson == pytest.approx(sps.pearsonr(w4, c).statistic, abs=1e-9)
        assert row.kappa == pytest.approx(_kappa_by_hand(list(grades(w4)), list(grades(c))), abs=1e-9)
        assert row.analogical == pytest.approx(np.mean(c <= w3), abs=1e-12)
    np.testing.assert_allclose(res.sentences[name][0], w4, atol=1e-9)


def test_best_orders_equal_an_independent_sweep_with_sacrebleu():
    """Best M per criterion recomputed from sacrebleu's own sentence scores for M = 1..30 (60 lines)."""
    refs, systems = pair_files(SAMPLE)
    name = "HuaweiTSC"
    hyp, ref = systems[name][:60], refs[0][:60]
    corpus = Corpus.build({"r": ref}, {name: hyp})
    res = words_vs_chars(corpus, 4, range(1, 31))

    def sb(**kw):
        return np.array(
            [SacreBLEU(smooth_method="none", **kw).sentence_score(h, [r]).score for h, r in zip(hyp, ref, strict=True)]
        )

    w4, w3 = sb(), sb(max_ngram_order=3)
    r, k, analog = {}, {}, {}
    for m in range(1, 31):
        c = sb(tokenize="char", max_ngram_order=m)
        r[m] = sps.pearsonr(w4, c).statistic if np.ptp(c) > 0 else float("nan")
        k[m] = _kappa_by_hand(list(grades(w4)), list(grades(c)))
        analog[m] = np.mean(c <= w3)
    best = res.best[name]
    finite = [m for m in r if not math.isnan(r[m])]
    assert best.pearson == max(finite, key=lambda m: (round(r[m], 12), -m))
    assert best.kappa == max(k, key=lambda m: (round(k[m], 12), -m))
    assert best.analogical == min((m for m in analog if analog[m] >= 0.9), default=None)


def test_ranking_uses_corpus_bleu(sample):
    refs, systems = sample
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    res = words_vs_chars(corpus, 4, (18,))
    corpus_bleu = score(corpus, "bleu")["bleu"].scores
    for r in res.ranking:
        assert r.bleu_w == pytest.approx(corpus_bleu[r.system], abs=1e-9)
    assert [r.rank_w for r in res.ranking] == [1, 2, 3, 4]
    assert sorted(r.rank_c for r in res.ranking) == [1, 2, 3, 4]


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
    rows = {(r.metric, r.level, r.human): r for r in out.rows}
    names = list(results["bleu"].scores)
    mqm = [human.system["MQM"][s] for s in names]
    x = [results["chrf"].scores[s] for s in names]
    r = rows[("chrf", "system", "MQM")]
    assert r.n == 4
    assert r.pearson == pytest.approx(sps.pearsonr(x, mqm).statistic)
    assert r.kendall == pytest.approx(sps.kendalltau(x, mqm).statistic)
    # the sample's human file rates the two human references too: they were uploaded, as references
    assert any(n.startswith("human scores of ref, ref2 were not used: uploaded as reference(s)") for n in out.notes)
    assert not any("not uploaded" in n for n in out.notes)


def test_human_scores_of_unknown_systems_are_named_as_not_uploaded():
    corpus, _ = _sample_results()
    data = b"system\tmetric\tscore\nUEdin\tDA\t0.1\nNobody\tDA\t0.2\nref\tDA\t0.3\n"
    human = read_human(data, "h.tsv", corpus)
    assert human.notes == (
        "human scores of ref were not used: uploaded as reference(s), not as systems (upload a reference as a "
        "system file too to rank it against the systems)",
        "human scores of 1 system(s) not uploaded were ignored: Nobody",
    )


def test_segment_level_human_correlation_and_missing_systems():
    refs, systems = pair_files(TESTDATA / "ja-en")
    corpus = Corpus.build({"ref": refs[0]}, {**systems, "extra": systems["Illini"]})
    results = score(corpus, "bleu,chrf")
    human = read_human((TESTDATA / "ja-en" / "human_seg.tsv").read_bytes(), "human_seg.tsv", corpus)
    out = human_correlation(results, human, n_boot=100)
    seg = next(r for r in out.rows if r.level == "segment" and r.human == "DA_z" and r.metric == "chrf")
    xs, ys = [], []  # the pairing by hand: every rated (system, line) with its sentence chrF
    for s, lines in human.segment["DA_z"].items():
        sent = results["chrf"].sentence_scores(s)
        for line, v in lines.items():
            xs.append(sent[line])
            ys.append(v)
    px, py = segment_pairs(results["chrf"], human.segment["DA_z"])
    np.testing.assert_array_equal(px, xs)
    np.testing.assert_array_equal(py, ys)
    assert seg.n == len(xs) == 121  # awk -F"\t" '$3=="DA_z"' human_seg.tsv | wc -l
    assert seg.spearman == pytest.approx(sps.spearmanr(xs, ys).statistic)
    assert out.missing["segment:DA_z"] == ["extra"]


def test_human_file_errors():
    corpus, _ = _sample_results()
    with pytest.raises(InputError, match="no header with 'system' and 'score'"):
        read_human(b"hello\nworld\n", "h.txt", corpus)
    with pytest.raises(InputError, match="one system"):
        read_human(b"0.5\n" * 200, "h.txt", corpus)
    with pytest.raises(InputError, match="refers to line 999"):
        read_human(b"system\tline\tmetric\tscore\nUEdin\t999\tMQM\t1\n", "h.tsv", corpus)
    with pytest.raises(InputError, match="no score for any"):
        read_human(b"system\tmetric\tscore\nnobody\tDA\t1\n", "h.tsv", corpus)


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e400", "NaN"])
def test_non_finite_human_scores_are_refused(bad):
    corpus, _ = _sample_results()
    data = f"system\tmetric\tscore\nUEdin\tDA\t1\nOnline-W\tDA\t{bad}\n".encode()
    with pytest.raises(InputError, match=f"line 3 of 'h.tsv': the score '{bad}' is not a finite number"):
        read_human(data, "h.tsv", corpus)


def test_repeated_human_rows_are_refused_not_overwritten():
    corpus, _ = _sample_results()
    data = b"system\tmetric\tscore\nUEdin\tDA\t1\nOnline-W\tDA\t2\nUEdin\tDA\t3\n"
    with pytest.raises(InputError, match="scores system 'UEdin', DA twice \\(lines 2 and 4\\)"):
        read_human(data, "h.tsv", corpus)
    seg = b"system\tline\tmetric\tscore\nUEdin\t5\tDA\t1\nUEdin\t5\tDA\t2\n"
    with pytest.raises(InputError, match="line 5 twice"):
        read_human(seg, "h.tsv", corpus)


def test_a_quote_never_merges_rows():
    """A field starting with a double quote is text, not the start of a quoted multi-line field."""
    corpus, _ = _sample_results()
    data = b'system\tmetric\tscore\tnote\nUEdin\tDA\t1\t"odd\nOnline-W\tDA\t2\tok\n'
    h = read_human(data, "h.tsv", corpus)
    assert h.system["DA"] == {"UEdin": 1.0, "Online-W": 2.0}


def test_tbleu_sweep_starts_at_bleu():
    corpus, results = _sample_results()
    sweep = tbleu_sweep(corpus, epsilons=[0.0, 0.5])
    for s, vals in sweep.scores.items():
        assert vals[0] == pytest.approx(results["bleu"].scores[s], abs=1e-9)
        assert vals[1] >= vals[0]
    assert not math.isnan(vals[0])


def test_vectorised_bootstrap_correlations_equal_scipy_per_resample():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(30, 12)).astype(float)  # ties included
    y = x + rng.normal(size=(30, 12))
    p = rowwise_pearson(x, y)
    k = rowwise_kendall_b(x, y)
    for i in range(30):
        assert p[i] == pytest.approx(sps.pearsonr(x[i], y[i]).statistic)
        assert k[i] == pytest.approx(sps.kendalltau(x[i], y[i]).statistic)


@pytest.mark.parametrize(
    ("kind", "n"),
    [("pearson", 40), ("spearman", 40), ("spearman", 400), ("kendall", 40), ("kendall", 80), ("kendall", 2100)],
)
def test_bootstrap_interval_equals_a_scipy_loop_over_the_same_resamples(kind, n):
    """The interval is the 2.5/97.5 percentile of the statistic over item resamples: recomputed here with a
    plain loop over scipy on the very index draws the seeded generator makes."""
    gen = np.random.default_rng(3)
    x = np.round(gen.normal(size=n), 1)  # ties, as metric scores have
    y = x + np.round(gen.normal(size=n), 1)
    lo, hi = bootstrap_ci(x, y, kind, 300, np.random.default_rng(11))
    idx = np.random.default_rng(11).integers(0, n, size=(300, n))
    fn = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}[kind]
    vals = np.array([fn(x[i], y[i]).statistic for i in idx])
    assert (lo, hi) == pytest.approx(tuple(np.percentile(vals, [2.5, 97.5])), abs=1e-12)
    assert lo < hi


def test_correlation_rows_do_not_depend_on_the_other_metrics_and_merge_back():
    """The page shows the fast metrics' rows first: a metric's row (intervals included) is the same alone
    or with others, and merging the parts gives the one-call table, row for row."""
    from mtlens.analysis.human import human_correlation, merge_correlations

    corpus, results = _sample_results()
    human = read_human((SAMPLE / "human.tsv").read_bytes(), "human.tsv", corpus)
    whole = human_correlation(results, human, n_boot=200)
    parts = [human_correlation({"ter": results["ter"]}, human, n_boot=200)]
    parts.append(human_correlation({m: results[m] for m in ("bleu", "chrf")}, human, n_boot=200))
    assert merge_correlations(parts, list(results)).rows == whole.rows

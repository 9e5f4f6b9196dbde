"""Meta-evaluation: pairwise accuracy, acc_eq, soft pairwise accuracy and PERM-BOTH, checked against
plain-loop transcriptions of mt-metrics-eval's definitions (stats.Agreement; tau_optimization with
acc_23, grouped by item, every pair) and on the WMT21 en-de MQM data."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from mtlens import Corpus, score
from mtlens.analysis.human import human_correlation, read_human_files
from mtlens.analysis.meta import acc_eq, pairwise_accuracy, perm_both, segment_matrix, soft_pairwise_accuracy

from ..conftest import SAMPLE, SHARED, TESTDATA, pair_files


def agreement_by_loop(metric: dict, human: dict) -> float:
    """stats.Agreement: every pair of systems; sign equality, two ties agree."""
    agree = n = 0
    for a, b in itertools.combinations([s for s in metric if s in human], 2):
        agree += np.sign(human[a] - human[b]) == np.sign(metric[a] - metric[b])
        n += 1
    return agree / n


def acc_eq_by_loop(metric: np.ndarray, human: np.ndarray) -> tuple[float, float]:
    """Tie-calibrated accuracy by brute force: every candidate threshold (0 and each observed metric
    difference), every item, every pair of rated systems; the first best threshold in increasing order."""
    items = []
    for col in range(metric.shape[1]):
        rated = [k for k in range(metric.shape[0]) if not math.isnan(human[k, col])]
        pairs = [
            (metric[a, col], metric[b, col], human[a, col], human[b, col]) for a, b in itertools.combinations(rated, 2)
        ]
        if pairs:
            items.append(pairs)
    candidates = sorted({0.0} | {abs(m1 - m2) for pairs in items for m1, m2, _, _ in pairs})
    # every (item, pair) as one row; each item weighs 1 / its number of pairs (numpy only for speed: the
    # same brute force over every candidate threshold, item and pair)
    flat = np.array([(m1 - m2, h1 - h2, 1.0 / len(pairs)) for pairs in items for m1, m2, h1, h2 in pairs])
    dm, dh, weight = flat[:, 0], flat[:, 1], flat[:, 2]
    best = (-1.0, None)
    for eps in candidates:
        good = np.where(np.abs(dm) <= eps, dh == 0, dm * dh > 0)  # a metric tie agrees with a human tie
        value = float(np.sum(good * weight)) / len(items)
        if value > best[0] + 1e-12:
            best = (value, eps)
    return best


def test_pairwise_accuracy_by_hand():
    metric = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    human = {"a": 30.0, "b": 10.0, "c": 20.0, "d": 20.0}
    # pairs: ab + , ac + , ad + , bc - , bd - , cd tie/tie agree -> 4 / 6
    assert pairwise_accuracy(metric, human) == (4 / 6, 6) == (agreement_by_loop(metric, human), 6)


def test_acc_eq_by_hand_and_against_the_loop():
    # one item, three systems: metric 0.50, 0.52, 0.90; human 1, 1, 3.
    # eps 0: pairs (1,2) disc? m 0.50<0.52, h tie -> 0; (1,3) con 1; (2,3) con 1 -> 2/3
    # eps 0.02: (1,2) becomes a tie, humans tie -> 1 -> 3/3
    m = np.array([[0.50], [0.52], [0.90]])
    h = np.array([[1.0], [1.0], [3.0]])
    res = acc_eq(m, h)
    assert res.acc == pytest.approx(1.0) and res.epsilon == pytest.approx(0.02)
    rng = np.random.default_rng(4)
    for _ in range(20):
        m = np.round(rng.normal(size=(5, 12)), 1)  # rounding makes ties
        h = rng.integers(0, 4, size=(5, 12)).astype(float)
        h[rng.random(h.shape) < 0.2] = np.nan
        got = acc_eq(m, h)
        want = acc_eq_by_loop(m, h)
        assert got.acc == pytest.approx(want[0], abs=1e-12) and got.epsilon == pytest.approx(want[1], abs=1e-12)


def test_soft_pairwise_accuracy_is_one_for_the_humans_themselves_and_lower_for_noise():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(4, 60)) + np.arange(4)[:, None] * 0.3
    spa_self, pairs = soft_pairwise_accuracy(h, h, n=500, seed=1)
    assert pairs == 6 and spa_self == pytest.approx(1.0, abs=0.05)  # same data, independent draws
    noise = rng.normal(size=h.shape)
    assert soft_pairwise_accuracy(noise, h, n=500, seed=1)[0] < spa_self - 0.2


def test_perm_both_prefers_the_better_metric():
    rng = np.random.default_rng(2)
    h = rng.normal(size=300)
    good = h + rng.normal(scale=0.5, size=300)
    bad = h + rng.normal(scale=3.0, size=300)
    p, delta = perm_both(h, bad, good, "pearson", n=300, seed=3)
    assert delta > 0 and p < 0.05
    p_rev, delta_rev = perm_both(h, good, bad, "pearson", n=300, seed=3)
    assert delta_rev == pytest.approx(-delta) and p_rev > 0.9


@pytest.mark.parametrize("kind", ["pearson", "spearman"])
def test_perm_both_equals_a_scipy_loop_over_the_same_permutations(kind):
    """Deutsch et al.'s PERM-BOTH recomputed plainly: one permutation at a time from the same seeded
    generator, scipy's coefficient for each, p = share with a difference at least the observed one."""
    rng = np.random.default_rng(4)
    h = rng.normal(size=250)
    h[::17] = np.nan  # unrated items are left out first
    m1 = h + rng.normal(scale=1.0, size=250)
    m2 = h + rng.normal(scale=1.1, size=250)
    p, delta = perm_both(h, m1, m2, kind, n=400, seed=9)

    fn = {"pearson": sps.pearsonr, "spearman": sps.spearmanr}[kind]
    ok = ~np.isnan(h)
    g = h[ok]
    z1, z2 = ((v[ok] - v[ok].mean()) / v[ok].std() for v in (m1, m2))
    observed = fn(g, z2).statistic - fn(g, z1).statistic
    gen = np.random.default_rng(9)
    count = 0
    for _ in range(400):
        w = gen.integers(0, 2, size=g.size).astype(bool)
        count += fn(g, np.where(w, z2, z1)).statistic - fn(g, np.where(w, z1, z2)).statistic >= observed
    assert delta == pytest.approx(observed, abs=1e-12)
    assert p == count / 400 and 0 < p < 1


def test_human_correlation_rows_carry_the_meta_evaluation():
    refs, systems = pair_files(TESTDATA / "ja-en")
    corpus = Corpus.build({"ref": refs[0]}, systems)
    human = read_human_files(
        [(n, (TESTDATA / "ja-en" / n).read_bytes()) for n in ("human.tsv", "human_seg.tsv")], corpus
    )
    results = score(corpus, "bleu,chrf")
    rows = human_correlation(results, human, n_boot=50).rows
    sys_row = next(r for r in rows if r.level == "system" and r.metric == "chrf" and r.human == "DA_z")
    by = human.system["DA_z"]
    assert sys_row.pairwise_accuracy == agreement_by_loop({s: results["chrf"].scores[s] for s in by}, by)
    seg_row = next(r for r in rows if r.level == "segment" and r.metric == "chrf" and r.human == "DA_z")
    m, h, _ = segment_matrix(results["chrf"], human.segment["DA_z"], corpus.n_lines)
    assert (seg_row.acc_eq, seg_row.acc_eq_epsilon) == pytest.approx(acc_eq_by_loop(m, h), abs=1e-12)
    assert seg_row.soft_pairwise_accuracy == pytest.approx(soft_pairwise_accuracy(m, h, n=50, seed=12345)[0])
    assert 0 <= seg_row.soft_pairwise_accuracy <= 1 and sys_row.soft_pairwise_accuracy is None


@pytest.mark.shared
def test_wmt21_en_de_mqm_pairwise_accuracy_and_acc_eq():
    """WMT21 en-de, MQM (527 rated lines x 8 systems): system-level pairwise accuracy and item-grouped
    acc_eq of BLEU and chrF equal the transcriptions of mt-metrics-eval's definitions."""
    folder = SHARED / "wmt" / "en-de"
    refs, systems = pair_files(folder)
    corpus = Corpus.build({f"ref{k}": r for k, r in enumerate(refs)}, systems)
    human = read_human_files([(n, (folder / n).read_bytes()) for n in ("human.tsv", "human_seg.tsv")], corpus)
    results = score(corpus, "bleu,chrf")
    rows = human_correlation(results, human, n_boot=20).rows
    for metric in ("bleu", "chrf"):
        sys_row = next(r for r in rows if r.level == "system" and r.metric == metric and r.human == "MQM")
        by = human.system["MQM"]
        assert sys_row.pairwise_accuracy == pytest.approx(agreement_by_loop(results[metric].scores, by), abs=1e-15)
        seg_row = next(r for r in rows if r.level == "segment" and r.metric == metric and r.human == "MQM")
        m, h, names = segment_matrix(results[metric], human.segment["MQM"], corpus.n_lines)
        assert len(names) == 8 and int((~np.isnan(h)).any(axis=0).sum()) == 527
        want = acc_eq_by_loop(m, h)
        assert (seg_row.acc_eq, seg_row.acc_eq_epsilon) == pytest.approx(want, abs=1e-12), metric
        assert 0.3 < seg_row.acc_eq < 0.8


def _exact_perm_both(h, m1, m2):
    """PERM-BOTH by enumeration, written plainly: every swap pattern of k items once (itertools), scipy's
    Pearson for each, p = share with a difference at least the observed one (within 1e-12)."""
    z1, z2 = ((v - v.mean()) / v.std() for v in (np.asarray(m1, float), np.asarray(m2, float)))
    observed = sps.pearsonr(h, z2).statistic - sps.pearsonr(h, z1).statistic
    hits = total = 0
    for keep in itertools.product([True, False], repeat=len(h)):
        w = np.array(keep)
        d = sps.pearsonr(h, np.where(w, z2, z1)).statistic - sps.pearsonr(h, np.where(w, z1, z2)).statistic
        hits += d >= observed - 1e-12 * max(1.0, abs(observed))
        total += 1
    return hits / total


@pytest.mark.parametrize("k", [3, 4, 5])
def test_perm_both_is_exact_on_a_handful_of_systems(k):
    """With 2**k patterns (no more than n) every pattern is taken once: p equals the enumeration, and the
    observed pattern always counts (p >= 1 / 2**k)."""
    rng = np.random.default_rng(k)
    for _ in range(20):
        h = rng.normal(size=k)
        m1, m2 = h + rng.normal(scale=0.5, size=k), h + rng.normal(scale=0.5, size=k)
        p, _ = perm_both(h, m1, m2, "pearson", n=1000, seed=1)
        assert p == _exact_perm_both(h, m1, m2)
        assert p >= 1 / 2**k


def test_perm_both_on_the_samples_four_systems_equals_the_enumeration_for_every_metric_pair(sample):
    """The Human correlation page's system-level test on the bundled sample (4 systems, 16 patterns): for
    every pair of metrics (either order) p is the exact enumeration's; bleu-c vs chrF read 0.000 before
    (the unswapped pattern's difference fell one float step below the observed one)."""
    refs, systems = sample
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    human = read_human_files([(n, (SAMPLE / n).read_bytes()) for n in ("human.tsv",)], corpus)
    kind = next(iter(human.system))
    names = [s for s in corpus.system_names if s in human.system[kind]]
    h = np.array([human.system[kind][s] for s in names])
    results = score(corpus, "bleu,bleu-c,chrf,chrf++,ter")
    vec = {m: np.array([(1 if r.higher_is_better else -1) * r.scores[s] for s in names]) for m, r in results.items()}
    for a, b in itertools.permutations(vec, 2):
        p, _ = perm_both(h, vec[a], vec[b], "pearson", n=1000)
        assert p == _exact_perm_both(h, vec[a], vec[b]), (a, b)
        assert p >= 1 / 16

"""Significance tests: sacrebleu-compatible p-values, invariants, Holm, clusters, seeds."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.significance import PairedTest

from mtlens import Corpus, score
from mtlens.analysis.resampling import index_counts
from mtlens.analysis.significance import clusters_from_pairs, compare, holm


def _corpus(refs, systems):
    return Corpus.build({f"ref{i}": r for i, r in enumerate(refs)}, systems)


def _sacrebleu_pvalues(refs, systems, baseline, test, n, metric="bleu"):
    named = [(baseline, systems[baseline])] + [(k, v) for k, v in systems.items() if k != baseline]
    metrics = {"BLEU": SacreBLEU()} if metric == "bleu" else {"chrF2": SacreCHRF()}
    pt = PairedTest(named, metrics, references=refs, test_type=test, n_samples=n)
    _, res = pt()
    key = next(k for k in res if k != "System")
    return {name: r for name, r in zip(res["System"], res[key], strict=True)}


@pytest.mark.parametrize(("test", "n"), [("ar", 2000), ("bs", 1000)])
@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_sacrebleu_compatible_pvalues_equal_sacrebleu(sample, test, n, metric):
    refs, systems = sample
    baseline = "UEdin"
    theirs = _sacrebleu_pvalues(refs, systems, baseline, test, n, metric)
    res = score(_corpus(refs, systems), metric)[metric]
    ours = compare(res, "ar" if test == "ar" else "bootstrap", n=n, baseline=baseline, sacrebleu_compatible=True)
    for p in ours.pairs:
        assert p.b == baseline
        assert p.p_value == pytest.approx(theirs[p.a].p_value, abs=1e-12), p
    if test == "bs":  # intervals too (sacrebleu's n//40 rule, float32 sums)
        for name, ci in ours.systems.items():
            assert ci.mean == pytest.approx(theirs[name].mean, abs=1e-4)
            assert ci.ci == pytest.approx(theirs[name].ci, abs=1e-4)


def test_default_mode_agrees_with_sacrebleu_within_sampling_error(sample):
    refs, systems = sample
    theirs = _sacrebleu_pvalues(refs, systems, "UEdin", "ar", 10000)
    res = score(_corpus(refs, systems), "bleu")["bleu"]
    ours = compare(res, "ar", n=10000, seed=7, baseline="UEdin")
    for p in ours.pairs:
        q = theirs[p.a].p_value
        # binomial standard error of a p-value estimated from 10,000 trials, 5 sigmas
        assert abs(p.p_value - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-4) / 10000) + 1e-3


@pytest.mark.parametrize("test", ["bootstrap", "ar"])
def test_a_system_compared_with_itself_is_never_significant(sample, test):
    refs, systems = sample
    twin = {"A": systems["UEdin"], "A-copy": systems["UEdin"], "B": systems["Online-W"]}
    res = score(_corpus(refs, twin), "bleu,chrf")
    for r in res.values():
        cmp = compare(r, test, n=500)
        same = next(p for p in cmp.pairs if {p.a, p.b} == {"A", "A-copy"})
        assert same.p_value == 1.0 and not same.significant
        other = next(p for p in cmp.pairs if {p.a, p.b} == {"A", "B"})
        assert other.p_value == pytest.approx(_p_by_loop(r, other.a, other.b, test, 500), abs=1e-15)
        assert any(set(c) >= {"A", "A-copy"} for c in cmp.clusters)


def _p_by_loop(r, a, b, test, n, seed=12345):
    """The p-value recomputed one resample at a time (plain loops over the segment statistics)."""
    sa, sb = r.stats[a], r.stats[b]
    n_seg = len(sa)
    observed = r.scores[a] - r.scores[b]
    if test == "bootstrap":
        idx = np.random.default_rng(seed).choice(n_seg, size=(n, n_seg), replace=True)
        d = np.array(
            [float(r.scorer.score_from_totals(sa[i].sum(0)) - r.scorer.score_from_totals(sb[i].sum(0))) for i in idx]
        )
        return (np.sum(np.abs(d - d.mean()) >= abs(observed)) + 1) / (n + 1)
    sel = np.random.default_rng(seed).integers(2, size=(n, n_seg), dtype=bool)
    c = 0
    for row in sel:
        xa = np.where(row[:, None], sa, sb).sum(0)
        xb = np.where(row[:, None], sb, sa).sum(0)
        c += abs(float(r.scorer.score_from_totals(xa) - r.scorer.score_from_totals(xb))) >= abs(observed)
    return (c + 1) / (n + 1)


def test_seed_gives_identical_results_and_zero_is_a_seed(sample):
    refs, systems = sample
    r = score(_corpus(refs, systems), "bleu")["bleu"]
    a, b = compare(r, "bootstrap", n=300, seed=0), compare(r, "bootstrap", n=300, seed=0)
    assert a.pairs == b.pairs and a.systems == b.systems
    c = compare(r, "bootstrap", n=300, seed=1)
    assert [p.p_value for p in a.pairs] != [p.p_value for p in c.pairs] or a.systems != c.systems
    assert "seed:0" in a.signature


def test_resampling_is_a_matrix_product_equal_to_a_python_loop(sample):
    refs, systems = sample
    r = score(_corpus(refs, systems), "bleu")["bleu"]
    stats = r.stats["UEdin"]
    idx = np.random.default_rng(3).choice(len(stats), size=(20, len(stats)))
    totals = index_counts(idx, len(stats)) @ stats.astype(np.float64)
    for k in range(20):
        np.testing.assert_array_equal(totals[k], stats[idx[k]].sum(axis=0))
        assert r.scorer.score_from_totals(totals[k]) == pytest.approx(
            SacreBLEU.compute_bleu(
                list(totals[k][2:6]), list(totals[k][6:]), int(totals[k][0]), int(totals[k][1])
            ).score,
            abs=1e-9,
        )


def test_holm_hand_calculation():
    # sorted p: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> monotone 0.06)
    np.testing.assert_allclose(holm([0.04, 0.01, 0.03]), [0.06, 0.03, 0.06])
    np.testing.assert_allclose(holm([0.5, 0.9]), [1.0, 1.0])


def test_clusters_rule():
    sig = {("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")}
    clusters = clusters_from_pairs(["A", "B", "C", "D"], lambda x, y: (x, y) in sig)
    assert clusters == [["A", "B"], ["C"], ["D"]]
    # no boundary where one system above is not better than one below
    sig.discard(("B", "C"))
    assert clusters_from_pairs(["A", "B", "C", "D"], lambda x, y: (x, y) in sig) == [["A", "B", "C"], ["D"]]


def test_all_pairs_and_baseline_counts(sample):
    refs, systems = sample
    r = score(_corpus(refs, systems), "chrf")["chrf"]
    assert len(compare(r, "bootstrap", n=100).pairs) == 6
    base = compare(r, "ar", n=100, baseline="UEdin")
    assert len(base.pairs) == 3 and all(p.b == "UEdin" for p in base.pairs)
    assert base.clusters == []


def test_ter_sacrebleu_compatible_ar_pvalues(sample):
    from sacrebleu.metrics import TER as SacreTER

    refs, systems = sample
    refs = [r[:80] for r in refs]
    systems = {k: v[:80] for k, v in systems.items()}
    named = [("UEdin", systems["UEdin"])] + [(k, v) for k, v in systems.items() if k != "UEdin"]
    _, res = PairedTest(named, {"TER": SacreTER()}, references=refs, test_type="ar", n_samples=1000)()
    theirs = dict(zip(res["System"], res["TER"], strict=True))
    ours = compare(
        score(_corpus(refs, systems), "ter")["ter"], "ar", n=1000, baseline="UEdin", sacrebleu_compatible=True
    )
    for p in ours.pairs:
        assert p.p_value == pytest.approx(theirs[p.a].p_value, abs=1e-12)
    assert ours.ranking[0] == min(ours.systems, key=lambda s: ours.systems[s].score)  # lower TER ranks first


def test_no_test_on_too_few_lines_and_bounded_draws(sample):
    from mtlens.analysis.policy import MIN_TEST_LINES
    from mtlens.core.errors import InputError

    refs, systems = sample
    small = {k: v[: MIN_TEST_LINES - 1] for k, v in systems.items()}
    r = score(_corpus([x[: MIN_TEST_LINES - 1] for x in refs], small), "bleu")["bleu"]
    with pytest.raises(
        InputError, match=f"need at least {MIN_TEST_LINES} lines; this test set has {MIN_TEST_LINES - 1}"
    ):
        compare(r, "bootstrap", n=100)
    full = score(_corpus(refs, systems), "bleu")["bleu"]
    with pytest.raises(InputError, match="--n 100000 resamples of 200 lines would draw 20,000,000"):
        import mtlens.analysis.significance as sig

        old = sig.MAX_DRAWS
        sig.MAX_DRAWS = 10_000_000
        try:
            compare(full, "bootstrap", n=100_000)
        finally:
            sig.MAX_DRAWS = old


def _fourteen_systems():
    """14 systems that differ clearly (each a fraction more of the reference's words kept): 91 pairs."""
    from mtlens import Corpus

    rng = np.random.default_rng(4)
    refs = [" ".join(f"w{k}" for k in rng.integers(0, 300, 20)) for _ in range(300)]
    systems = {}
    for s in range(14):
        keep = 0.3 + 0.05 * s
        systems[f"S{s:02d}"] = [" ".join(w if rng.random() < keep else "x" for w in line.split()) for line in refs]
    return Corpus.build({"ref": refs}, systems)


def test_with_many_pairs_the_default_resamples_can_find_a_difference():
    """Issue 37, item 2: 14 systems are 91 pairs; with 1,000 resamples the smallest Holm-corrected p is
    91/1001 = 0.091 > 0.05, so one cluster by construction. By default the resamples are raised so that
    91 x 1/(n + 1) <= alpha / 2 (3,639), and said; a number given is kept, with the sentence why it can
    find nothing."""
    from mtlens.analysis.policy import resamples_needed
    from mtlens.analysis.significance import compare
    from mtlens.runtime.scoring import score

    result = score(_fourteen_systems(), "chrf")["chrf"]
    auto = compare(result)
    assert auto.n == resamples_needed(91, 0.05) == 3639
    assert len(auto.clusters) > 1 and any(p.significant for p in auto.pairs)
    assert auto.notes == (
        "3,639 resamples, chosen for 91 pairs so that a pair can be significant after Holm's correction",
    )
    assert min(p.p_holm for p in auto.pairs) == pytest.approx(91 / 3640)  # the floor, reached: 1/(n+1) x 91
    few = compare(result, n=1000)
    assert not any(p.significant for p in few.pairs) and len(few.clusters) == 1
    assert min(p.p_holm for p in few.pairs) == pytest.approx(91 / 1001)
    assert "1,000 resamples cannot make any pair significant" in few.notes[0] and "3,639" in few.notes[0]


def test_two_systems_keep_the_default_and_say_nothing():
    from mtlens.analysis.significance import compare
    from mtlens.runtime.scoring import score

    c = _fourteen_systems()
    two = type(c).build(dict(c.references), {k: c.systems[k] for k in ("S00", "S13")})
    cmp = compare(score(two, "chrf")["chrf"])
    assert cmp.n == 1000 and cmp.notes == ()


def test_the_command_line_says_when_resamples_cannot_find_anything(tmp_path):
    import subprocess
    import sys

    from ..conftest import ROOT

    c = _fourteen_systems()
    (tmp_path / "ref.txt").write_text("\n".join(c.references["ref"]) + "\n", encoding="utf-8")
    files = []
    for name, lines in c.systems.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(tmp_path / f"{name}.txt"))
    args = ["compare", "--ref", str(tmp_path / "ref.txt"), "--sys", *files, "--metrics", "chrf", "--n", "1000"]
    r = subprocess.run(
        [sys.executable, "-m", "mtlens", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "note: with 91 pairs, 1,000 resamples cannot make any pair significant" in r.stdout


def test_a_chunk_stays_within_its_cells_whatever_the_number_of_systems():
    """Issue 51: with many systems one chunk's product (resamples x every system's statistics) was unbounded
    (300 systems: 1.3 GB). Each chunk now bounds both of its arrays, and a comparison of 200 systems stays within
    the draws themselves and a few chunks (numpy's allocations, as tracemalloc counts them)."""
    import tracemalloc

    from mtlens import Corpus
    from mtlens.analysis.resampling import CHUNK_CELLS, chunks
    from mtlens.runtime.scoring import score

    for n, segs, width in [(11959, 1000, 5400), (3639, 3000, 252), (5, 10, 10**9)]:
        spans = list(chunks(n, segs, width))
        assert spans[0][0] == 0 and spans[-1][1] == n
        assert all((b - a) * max(segs, width) <= CHUNK_CELLS or b - a == 1 for a, b in spans)
    rng = np.random.default_rng(1)
    refs = [" ".join(f"w{k}" for k in rng.integers(0, 300, 12)) for _ in range(500)]
    systems = {
        f"S{s:03d}": [" ".join(w if rng.random() < 0.3 + s / 400 else "x" for w in x.split()) for x in refs]
        for s in range(200)
    }
    result = score(Corpus.build({"ref": refs}, systems), "bleu")["bleu"]
    tracemalloc.start()
    cmp = compare(result, baseline="S000")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    draws = cmp.n * 500 * 8  # the resamples' drawn segment indices, int64
    assert peak < 2 * draws + 8 * CHUNK_CELLS * 8, (peak / 2**20, cmp.n)


def test_chunked_draws_are_sacrebleus_one_call():
    """Issue 51: the draws are made chunk by chunk. numpy's generator continues its stream across calls, so
    every chunking reads exactly the resamples of sacrebleu's one call ``default_rng(seed).choice(n, size=(n_samples,
    n))``; the randomisation's swaps are drawn in whole multiples of 32 trials for the same reason (numpy drops a
    call's unused bits of a 32-bit word). Checked here against the one calls, for sizes that do not divide."""
    from mtlens.analysis import resampling
    from mtlens.analysis.resampling import bootstrap_indices

    for n_units, n, width in [(1001, 37, 0), (7, 9, 10**6), (33, 1000, 5)]:
        one = np.random.default_rng(5).choice(n_units, size=(n, n_units), replace=True)
        draws = bootstrap_indices(n_units, n, 5)
        for cells in (40, 1000, 10**7):
            old = resampling.CHUNK_CELLS
            resampling.CHUNK_CELLS = cells
            try:
                parts = [idx for _, _, idx in draws.chunks(width)]
            finally:
                resampling.CHUNK_CELLS = old
            assert np.array_equal(np.vstack(parts), one)
    # approximate randomisation: the p-values of a small cell bound equal those of one chunk, and both equal a
    # plain count over the one call's swaps (written here from the definition)
    from mtlens import Corpus
    from mtlens.runtime.scoring import score

    rng = np.random.default_rng(3)
    refs = [" ".join(f"w{k}" for k in rng.integers(0, 50, 9)) for _ in range(61)]
    hyp = {
        s: [" ".join(w if rng.random() < p else "x" for w in r.split()) for r in refs]
        for s, p in [("A", 0.7), ("B", 0.6)]
    }
    result = score(Corpus.build({"ref": refs}, hyp), "chrf")["chrf"]
    got = []
    for cells in (61 * 3, 10**7):
        old = resampling.CHUNK_CELLS
        resampling.CHUNK_CELLS = cells
        try:
            got.append(compare(result, test="ar", n=101, seed=9).pairs[0].p_value)
        finally:
            resampling.CHUNK_CELLS = old
    sel = np.random.default_rng(9).integers(2, size=(101, 61), dtype=bool)
    a, b = result.stats["A"].astype(float), result.stats["B"].astype(float)
    sa = np.where(sel[:, :, None], b, a).sum(axis=1)
    sb = np.where(sel[:, :, None], a, b).sum(axis=1)
    d = np.abs(result.scorer.score_from_totals(sa) - result.scorer.score_from_totals(sb))
    observed = abs(result.scores["A"] - result.scores["B"])
    expected = (int(np.sum(d >= observed)) + 1) / 102
    assert got[0] == got[1] == pytest.approx(expected, abs=1e-12)


def test_a_document_level_test_does_not_hold_all_its_draws():
    """Issue 51: ``compare --resample documents`` over 100,000 one-line documents took 2.6 GB: the resamples'
    drawn documents (int64) and the randomisation's swaps were made at once. Here 2,000 resamples of 20,000
    one-line documents would hold 320 MB of draws; the test's peak (tracemalloc: numpy's allocations) stays
    within a few chunks."""
    import tracemalloc

    from mtlens import Corpus
    from mtlens.analysis.resampling import CHUNK_CELLS
    from mtlens.runtime.scoring import score

    rng = np.random.default_rng(2)
    refs = [" ".join(f"w{k}" for k in rng.integers(0, 300, 6)) for _ in range(20_000)]
    hyp = {
        s: [" ".join(w if rng.random() < p else "x" for w in r.split()) for r in refs]
        for s, p in [("A", 0.7), ("B", 0.6)]
    }
    docs = [f"d{k}" for k in range(20_000)]
    result = score(Corpus.build({"ref": refs}, hyp), "bleu")["bleu"]
    held = 2000 * 20_000 * 8
    for test in ("bootstrap", "ar"):
        tracemalloc.start()
        compare(result, test=test, n=2000, documents=docs, n_ci=2000)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < min(held, 6 * CHUNK_CELLS * 8), (test, peak / 2**20)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
@pytest.mark.parametrize("compat", [False, True])
def test_one_product_block_per_system_gives_the_p_values_of_one_block_per_pair(sample, metric, compat, monkeypatch):
    """Issue 62: with whole-number statistics, the randomisation's swapped totals of a pair are the difference of
    two systems' blocks of one product instead of a block of their differences: exactly the same p-values over all
    pairs (both readings of "at least as large") as the per-pair product gives."""
    from mtlens.analysis import resampling

    refs, systems = sample
    r = score(_corpus(refs, systems), metric)[metric]
    assert resampling._by_system({s: r.stats[s] for s in r.scores}, 6)
    blocks = compare(r, "ar", n=2000, sacrebleu_compatible=compat)
    monkeypatch.setattr(resampling, "_by_system", lambda *a: False)
    pairs = compare(r, "ar", n=2000, sacrebleu_compatible=compat)
    assert [p.p_value for p in blocks.pairs] == [p.p_value for p in pairs.pairs]
    assert len(pairs.pairs) == 6 and len({p.p_value for p in pairs.pairs}) > 1
    # TER's statistics average two references' lengths (not whole numbers): one block per pair, as before
    ter = score(_corpus(refs, systems), "ter")["ter"]
    assert not resampling._by_system({s: ter.stats[s] for s in ter.scores}, 6)

"""The release gate's decision (mtlens/analysis/gate.py) and the power estimate (mtlens/analysis/power.py).

Golden values: the paired bootstrap's p-values are those of :func:`compare` on the same resamples (itself
tested against sacrebleu), the bootstrap standard error of a mean's delta is checked against its closed form
``sd(x - y) / sqrt(n)``, the power formula against scipy's normal quantiles and against a simulation, and
Holm's correction over the metrics against a hand calculation.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from mtlens import Corpus, score
from mtlens.analysis.gate import gate
from mtlens.analysis.power import min_detectable_delta
from mtlens.analysis.resampling import paired_deltas
from mtlens.analysis.significance import compare
from mtlens.core.errors import InputError
from mtlens.readers.scores import ImportedScores
from mtlens.runtime.scoring import result_for


def _mean_metric(a, b, name="score", higher=True):
    """A metric whose corpus score is the mean of segment scores (as an imported COMET file is)."""
    corpus = Corpus.build({"ref": ["x"] * len(a)}, {"base": ["x"] * len(a), "cand": ["x"] * len(a)})
    scores = ImportedScores(name, higher, {"base": np.asarray(a, float), "cand": np.asarray(b, float)}, "test")
    return result_for(corpus, scores)


def test_paired_deltas_give_the_p_values_of_compare_on_the_same_resamples(sample):
    refs, systems = sample
    corpus = Corpus.build({f"r{i}": r for i, r in enumerate(refs)}, systems)
    res = score(corpus, "bleu")["bleu"]
    cmp = compare(res, "bootstrap", n=1000, seed=3, baseline="UEdin")
    pairs = [(p.a, "UEdin") for p in cmp.pairs]
    ours, cis = paired_deltas(res, pairs, 1000, seed=3, systems=list(systems))
    for got, want in zip(ours, cmp.pairs, strict=True):
        assert (got.a, got.b) == (want.a, want.b)
        assert got.delta == want.delta and got.p_value == want.p_value
    for name, ci in cis.items():
        assert (ci.low, ci.high) == (cmp.systems[name].low, cmp.systems[name].high)


def test_the_bootstrap_standard_error_of_a_mean_delta_is_its_closed_form():
    rng = np.random.default_rng(0)
    a = rng.normal(0.5, 0.2, 2000)
    b = a + rng.normal(0.01, 0.1, 2000)
    res = _mean_metric(a, b)
    (pd,), _ = paired_deltas(res, [("cand", "base")], 2000, seed=1)
    closed = np.std(b - a) / np.sqrt(len(a))  # the standard error of a mean of paired differences
    assert pd.delta == pytest.approx(np.mean(b) - np.mean(a), abs=1e-12)
    assert pd.se == pytest.approx(closed, rel=0.08)  # 2,000 resamples: about 1.6% sampling error per sigma


def test_min_detectable_delta_is_the_normal_power_formula():
    for alpha, tests in ((0.05, 1), (0.05, 3), (0.01, 2)):
        want = (norm.ppf(1 - alpha / (2 * tests)) + norm.ppf(0.8)) * 0.37
        assert min_detectable_delta(0.37, alpha, tests) == pytest.approx(want, rel=1e-12)
    assert np.isnan(min_detectable_delta(float("nan"), 0.05))


def test_a_true_difference_of_the_min_detectable_delta_is_found_about_80_percent_of_the_time():
    """Simulation: paired segment differences with mean = the estimated min. detectable delta; a z-test at
    alpha rejects in about 80% of 2,000 test sets (binomial sd about 0.9%)."""
    rng = np.random.default_rng(5)
    n, sd = 500, 0.3
    mdd = min_detectable_delta(sd / np.sqrt(n), 0.05)
    d = rng.normal(mdd, sd, size=(2000, n))
    z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    power = np.mean(np.abs(z) > norm.ppf(0.975))
    assert 0.76 <= power <= 0.84


def test_identical_systems_pass_with_p_one():
    a = np.linspace(0, 1, 100)
    res = gate({"score": _mean_metric(a, a)}, "base", "cand")
    (g,) = res.metrics
    assert res.verdict == "pass" and g.delta == 0 and g.p == 1.0 and g.p_holm == 1.0 and not g.regression


def test_a_significant_drop_is_a_regression_and_a_rise_is_an_improvement():
    rng = np.random.default_rng(1)
    a = rng.uniform(0.4, 0.6, 300)
    worse, better = a - 0.05, a + 0.05
    res = gate({"score": _mean_metric(a, worse)}, "base", "cand", n=999)
    assert res.verdict == "regression" and res.metrics[0].regression
    assert res.metrics[0].p == pytest.approx(1 / 1000)  # no resample reaches the observed delta
    up = gate({"score": _mean_metric(a, better)}, "base", "cand", n=999)
    assert up.verdict == "pass" and up.metrics[0].improvement and not up.metrics[0].regression


def test_for_an_error_rate_the_worse_direction_is_up():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.4, 0.6, 300)
    res = gate({"ter": _mean_metric(a, a + 0.05, "ter", higher=False)}, "base", "cand")
    assert res.verdict == "regression"
    res = gate({"ter": _mean_metric(a, a - 0.05, "ter", higher=False)}, "base", "cand")
    assert res.verdict == "pass" and res.metrics[0].improvement


def test_holm_is_applied_over_the_named_metrics():
    """Hand calculation: raw p (p1, p2) with p1 < p2 -> Holm (2 p1, max(2 p1, p2))."""
    rng = np.random.default_rng(3)
    a = rng.uniform(0.3, 0.7, 200)
    noise = rng.normal(0, 0.05, 200)
    results = {"m1": _mean_metric(a, a - 0.01 + noise, "m1"), "m2": _mean_metric(a, a + noise, "m2")}
    res = gate(results, "base", "cand", n=2000)
    p1, p2 = (g.p for g in res.metrics)
    lo, hi = sorted((p1, p2))
    want = {lo: min(1, 2 * lo), hi: min(1, max(2 * lo, hi))}
    for g in res.metrics:
        assert g.p_holm == pytest.approx(want[g.p])


def test_min_agreement_keeps_small_regressions_out_and_metrics_without_a_fit_on_significance():
    rng = np.random.default_rng(4)
    a = rng.uniform(20, 40, 2000)
    small = a - 0.3 + rng.normal(0, 0.5, 2000)  # about -0.3 BLEU: significant, but humans barely notice
    res = gate({"bleu": _mean_metric(a, small, "bleu")}, "base", "cand")
    assert res.verdict == "regression" and res.metrics[0].human_agreement < 0.6
    res = gate({"bleu": _mean_metric(a, small, "bleu")}, "base", "cand", min_agreement=0.6)
    assert res.verdict == "pass" and not res.metrics[0].regression
    ter = gate({"ter": _mean_metric(a, a + 0.3, "ter", higher=False)}, "base", "cand", min_agreement=0.6)
    assert ter.verdict == "regression" and ter.metrics[0].human_agreement is None
    assert "judged on significance alone" in ter.notes[0]


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"baseline": "nope"}, "the baseline 'nope' is not one of the systems"),
        ({"candidate": "base"}, "the same system"),
        ({"alpha": 1.5}, "--alpha must be between 0 and 1"),
        ({"min_agreement": 2}, "--min-agreement is a share of judges"),
    ],
)
def test_bad_settings_are_one_sentence(kwargs, said):
    a = np.linspace(0, 1, 100)
    args = {"baseline": "base", "candidate": "cand", **kwargs}
    with pytest.raises(InputError, match=said):
        gate({"score": _mean_metric(a, a)}, **args)


def test_too_few_lines_for_a_test_are_refused():
    a = np.linspace(0, 1, 10)
    with pytest.raises(InputError, match="at least 30 lines"):
        gate({"score": _mean_metric(a, a)}, "base", "cand")

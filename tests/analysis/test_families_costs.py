"""Metric families, tuned-on families and their relatives, run costs and the Pareto front, against hand-made cases
(issue 50)."""

from __future__ import annotations

import pytest

from mtlens.analysis.costs import RunCost, check_cost_meta, pareto_front, run_cost
from mtlens.analysis.families import family_of, tainted, tuned_families
from mtlens.core.errors import InputError


@pytest.mark.parametrize(
    ("metric", "family"),
    [("bleu", "surface"), ("chrf++", "surface"), ("ter", "surface"), ("tbleu", "surface"), ("comet:wmt22", "comet"),
     ("cometkiwi-xl", "comet"), ("xcomet", "comet"), ("metricx-24", "metricx"), ("judge:gpt", "llm-judge"),
     ("gemba-mqm", "llm-judge"), ("mqm", "human"), ("esa", "human"), ("mqm-2", "human"), ("bleurt", "learned"),
     ("some-new-metric", "learned"), ("metricx:comet-distilled", "metricx"), ("metricx-qe:comet-kiwi", "metricx"),
     ("comet:judge-like", "comet")],
)  # fmt: skip
def test_each_metric_has_its_family(metric, family):
    assert family_of(metric) == family


def test_tuning_on_one_learned_metric_taints_every_learned_family_and_no_other():
    assert tuned_families("COMET, metricx-qe") == {"comet", "metricx"}
    assert tainted({"comet"}) == {"comet", "metricx", "learned"}  # Kovacs et al. 2024: the relatives too
    assert tainted({"surface"}) == {"surface"}
    assert tainted({"llm-judge"}) == {"llm-judge"}
    assert tuned_families(None) == frozenset() and tuned_families(" , ") == frozenset()
    with pytest.raises(InputError, match="tuned on takes metric families"):
        tuned_families("comet,vibes")


def test_a_runs_cost_from_prices_and_tokens_or_the_estimate():
    # given tokens: 1,000 x 2 + 500 x 10 per million = US$ 0.007
    assert run_cost(
        {"price_in": "2", "price_out": "10", "tokens_in": "1000", "tokens_out": "500"}, None, ["x"]
    ).usd == (pytest.approx(0.007))
    # estimated: source 8 + 4 characters = 3 tokens, output 8 characters = 2 tokens -> 3 x 2 + 2 x 10 = 26 per million
    got = run_cost({"price_in": "2", "price_out": "10"}, ["abcdefgh", "abcd"], ["abcdefgh", ""])
    assert got.usd == pytest.approx(26e-6) and "estimated at 4 characters" in got.how
    assert run_cost({"cost_usd": "1.5"}, None, ["a"]) == RunCost(1.5, "given", None)
    assert run_cost({}, None, ["a"]).usd is None
    # 40 output characters = 10 tokens over 2 segments, at 5 tokens per second: 1 s per segment
    assert run_cost({"tokens_per_second": "5"}, None, ["a" * 20, "b" * 20]).seconds_per_segment == pytest.approx(1.0)
    for bad in ({"cost_usd": "-1"}, {"price_in": "nan"}, {"tokens_per_second": "0"}, {"price_out": "cheap"}):
        with pytest.raises(InputError):
            check_cost_meta(bad)


def test_the_pareto_front_by_hand():
    # (quality, cost): A cheap and bad, B better and dearer, C dominated by B (worse and dearer), D best and dearest,
    # E as good as B and as dear: not dominated (equal on both), F unknown cost: left out
    points = {"A": (10, 1), "B": (20, 5), "C": (15, 6), "D": (30, 9), "E": (20, 5), "F": (50, float("nan"))}
    front = pareto_front(points)
    assert front in (["A", "B", "E", "D"], ["A", "E", "B", "D"])  # cheapest first; B and E tie
    # lower is better (an error rate): the lowest-error cheap point leads
    assert pareto_front({"A": (0.5, 1), "B": (0.3, 2), "C": (0.6, 3)}, higher_is_better=False) == ["A", "B"]

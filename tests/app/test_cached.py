"""The pages' cache (mtlens.ui.cached): several metrics scored in one engine job, then served one by one."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.core.options import DEFAULTS
from mtlens.ui import cached, state


def test_metrics_scored_together_are_then_served_from_the_cache(monkeypatch, fresh_caches):
    ds = state.sample_dataset()
    calls = []
    real = cached._score

    def spy(dataset, names, opts):
        calls.append(list(names))
        return real(dataset, names, opts)

    monkeypatch.setattr(cached, "_score", spy)
    got = cached.metric_results(ds, ["bleu", "chrf", "ter"], DEFAULTS)
    assert calls == [["bleu", "chrf", "ter"]]  # one job
    assert cached.metric_result(ds, "chrf", DEFAULTS) is got["chrf"]
    assert cached.metric_results(ds, ["bleu", "ter"], DEFAULTS) == {"bleu": got["bleu"], "ter": got["ter"]}
    assert len(calls) == 1  # nothing scored again
    cached.metric_results(ds, ["bleu", "chrf++"], DEFAULTS)
    assert calls[1:] == [["chrf++"]]  # only what is missing, alone
    refs = [list(r) for r in ds.corpus.references.values()]
    for name, lines in ds.corpus.systems.items():
        assert got["bleu"].scores[name] == pytest.approx(SacreBLEU().corpus_score(list(lines), refs).score, abs=1e-9)
        assert got["chrf"].scores[name] == pytest.approx(SacreCHRF().corpus_score(list(lines), refs).score, abs=1e-9)


def test_pages_score_the_first_columns_first_then_the_rest_together():
    assert cached.metric_groups(["bleu", "bleu-c", "chrf", "chrf++", "ter", "nist", "tbleu"]) == [
        ["bleu", "chrf"],  # the two cheapest: sacrebleu's default metrics
        ["bleu-c", "chrf++", "ter", "nist", "tbleu"],
    ]
    assert cached.metric_groups(["bleu-c", "chrf++", "nist", "ter"]) == [["chrf++", "nist"], ["bleu-c", "ter"]]
    assert cached.metric_groups(["ter", "tbleu"]) == [["ter", "tbleu"]]  # slow ones never come first
    assert cached.metric_groups([]) == []


def test_a_sets_id_is_read_without_hashing_the_set_and_the_sample_is_read_once(monkeypatch):
    """``saved_id`` is called several times per page run: it must not be a cached function, whose key hashes the
    whole set (40 ms a call on WMT22 en-zh); the bundled sample is read once per process (a cached function)."""
    from streamlit.runtime.caching import cache_utils

    ds = state.sample_dataset()
    assert state.sample_dataset() is ds

    def refuse(*args, **kwargs):
        raise AssertionError("a cache key was computed")

    monkeypatch.setattr(cache_utils, "_make_value_key", refuse)
    assert state.saved_id(ds) == ds.set_id


def test_the_list_of_metrics_names_the_checks_without_computing_them(monkeypatch, fresh_caches):
    """The Rankings' list of metrics needs only the checks' names: they come without a check being computed (20
    visitors of sets a new server had not checked waited for the checks before their first table), the same names in
    the same order as the checks computed later (the sample has a source and no glossary)."""
    from mtlens.runtime import checking

    ds = state.sample_dataset()
    calls = []
    real = checking.check_scores_many

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(checking, "check_scores_many", spy)
    names = cached.metric_names(ds, with_checks=True)
    assert calls == []
    offered = [n for n in names if n.startswith("check:")]
    assert len(offered) >= 5 and names[-len(offered) :] == offered
    assert list(cached.checks(ds)) == offered
    assert calls == [offered]  # computed once, when asked for

"""The Rankings of a saved set computed from its stored statistics (mtlens.service.rankings), the numbers checked
against sacrebleu 2.6.0, and their HTML page (the quick view's body)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sacrebleu.metrics import BLEU, CHRF

from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.runtime import scoring
from mtlens.service import rankings
from mtlens.service.evaluation import evaluate, save
from mtlens.storage.store import SAMPLE_ID, Store

from ..golden.make_sacrebleu_golden import sample_ter


@pytest.fixture
def saved_sample(tmp_path, sample):
    """The bundled sample (200 lines, 4 systems, 2 references) saved as a set with an imported metric."""
    refs, systems = sample
    names = list(systems)
    # an imported metric: line k of system i scores i + k/1000 (its corpus score is the mean: i + 0.0995)
    tsv = "system\tline\tCOMET-22\n" + "".join(
        f"{s}\t{k + 1}\t{i + k / 1000}\n" for i, s in enumerate(names) for k in range(len(refs[0]))
    )
    corpus = Corpus.build({f"ref{k}": r for k, r in enumerate(refs)}, systems)
    store = Store(tmp_path)
    ev = save(store, evaluate(corpus, "en-de", scores=[("comet.tsv", tsv.encode())]), "sample <b>set</b>")
    return store, ev.set_id, refs, systems


def test_rankings_of_a_saved_set_equal_sacrebleu_and_follow_the_first_metric(saved_sample):
    store, sid, refs, systems = saved_sample
    rk = rankings.saved(store, sid)
    assert list(rk.results) == ["bleu", "bleu-c", "chrf", "chrf++", "ter", "nist", "tbleu", "comet-22"]
    assert rk.sort_by == "bleu" and rk.comparison is not None and rk.notes == []
    table = rk.table
    golden = {
        "bleu": BLEU(tokenize="13a"),
        "chrf": CHRF(),
        "chrf++": CHRF(word_order=2),
    }
    for metric, scorer in golden.items():
        for name, value in zip(table["system"], table[metric], strict=True):
            assert value == pytest.approx(scorer.corpus_score(systems[name], refs).score, abs=1e-9), (metric, name)
    ter = sample_ter()  # sacrebleu's TER, from its stored per-line statistics (pure Python: 12 CPU-s)
    assert set(ter) == set(systems)
    for name, value in zip(table["system"], table["ter"], strict=True):
        assert value == pytest.approx(ter[name], abs=1e-9), ("ter", name)
    want_order = sorted(systems, key=lambda n: -BLEU(tokenize="13a").corpus_score(systems[n], refs).score)
    assert list(table["system"]) == want_order
    assert list(table["rank"]) == [1, 2, 3, 4]
    for i, name in enumerate(sorted(systems)):  # mean of the imported per-line scores
        assert table.set_index("system").loc[name, "comet-22"] == pytest.approx(i + 0.0995, abs=1e-12)
    clusters = list(table["cluster (bleu)"])
    assert clusters == sorted(clusters) and clusters[0] == 1  # clusters follow the score order
    assert (table["bleu 95% CI ±"] > 0).all()


def test_a_set_whose_statistics_are_stored_is_ranked_without_scoring(saved_sample, monkeypatch):
    store, sid, *_ = saved_sample
    first = rankings.saved(store, sid).table  # computes and stores every metric's statistics

    def no_scoring(*args, **kwargs):
        raise AssertionError("the statistics were stored: nothing should be scored")

    monkeypatch.setattr(scoring, "statistics_many", no_scoring)
    again = rankings.saved(Store(store.data_dir), sid).table
    assert again.equals(first)


def test_a_quick_views_test_is_kept_by_what_it_resamples(saved_sample, monkeypatch):
    """The same set opened again resamples nothing (the kept test is the one computed before); a set differing in one
    segment's statistics, or a metric with other options, gets its own test, equal to a fresh one; a metric read from
    a file is never kept (its scorer holds more than its statistics)."""
    import dataclasses

    import numpy as np

    from mtlens.analysis import significance

    store, sid, *_ = saved_sample
    monkeypatch.setattr(rankings, "KEPT_TESTS", type(rankings.KEPT_TESTS)(64))
    first = rankings.saved(store, sid)
    calls = []
    real = significance.compare
    monkeypatch.setattr(significance, "compare", lambda *a, **k: calls.append(a[0].metric) or real(*a, **k))
    again = rankings.saved(Store(store.data_dir), sid)
    assert calls == [] and again.comparison is first.comparison

    result = first.results["bleu"]
    changed = {n: a.copy() for n, a in result.stats.items()}
    name = next(iter(changed))
    changed[name][0, 0] += 1  # one count of one segment
    other = dataclasses.replace(result, stats=changed)
    cmp = rankings.comparison(other)
    assert calls == ["bleu"] and cmp is not first.comparison
    fresh = real(other, test=rankings.TEST, n=rankings.RESAMPLES, seed=rankings.SEED, alpha=rankings.ALPHA)
    assert [p.p_value for p in cmp.pairs] == [p.p_value for p in fresh.pairs] and cmp.clusters == fresh.clusters
    assert rankings.comparison(other) is cmp and calls == ["bleu"]
    lowercased = dataclasses.replace(result, signature=result.signature.replace("case:mixed", "case:lc"))
    assert lowercased.signature != result.signature
    rankings.comparison(lowercased)
    assert calls == ["bleu", "bleu"]
    comet = first.results["comet-22"]
    rankings.comparison(comet)
    rankings.comparison(comet)
    assert calls == ["bleu", "bleu", "comet-22", "comet-22"]
    assert np.array_equal(result.stats[name], first.results["bleu"].stats[name])  # nothing kept was changed


def test_few_lines_get_no_test_and_say_why(tmp_path):
    corpus = Corpus.build({"r": ["a b c", "d e"]}, {"A": ["a b c", "d"], "B": ["a c", "d e"]})
    store = Store(tmp_path)
    sid = save(store, evaluate(corpus, "en-de"), "tiny").set_id
    rk = rankings.saved(store, sid)
    assert rk.comparison is None and "cluster (bleu)" not in rk.table.columns
    assert rk.notes == [rankings.too_few_lines(2)] and "at least" in rk.notes[0]


def test_a_large_set_shows_only_the_fast_metrics_by_default():
    names = ["bleu", "bleu-c", "chrf", "chrf++", "ter", "nist", "tbleu", "comet"]
    assert rankings.default_metrics(names, rankings.LARGE) == names
    assert rankings.default_metrics(names, rankings.LARGE + 1) == ["bleu", "bleu-c", "chrf", "chrf++", "nist", "comet"]


def test_the_sample_and_unknown_sets(tmp_path):
    store = Store(tmp_path)
    rk = rankings.saved(store, SAMPLE_ID)  # the bundled sample is not in the store: read from sample_data
    assert rk.systems == 4 and rk.n_lines == 200 and rk.name.startswith("Bundled sample")
    with pytest.raises(InputError, match="no saved set"):
        rankings.saved(store, "0" * 32)


def _cells(html: str) -> list[list[str]]:
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    return [[unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in body.split("</tr>")[:-1]]


def test_the_page_escapes_user_text_and_shows_the_dashboards_decimals(tmp_path, sample):
    refs, systems = sample
    evil = "<img src=x onerror=alert(1)>"
    corpus = Corpus.build({"r": refs[0]}, {evil: systems["Online-W"], "B&B": systems["UEdin"]})
    store = Store(tmp_path)
    sid = save(store, evaluate(corpus, "en-de"), "<script>alert('set')</script>").set_id
    rk = rankings.saved(store, sid)
    html = rankings.to_html(rk, "../Rankings?set=" + sid)
    assert "<img" not in html and "<script" not in html and "B&B" not in html
    assert "&lt;script&gt;" in html and "B&amp;B" in html
    rows = _cells(html)
    by_name = {r[1]: r for r in rows}
    assert set(by_name) == {evil, "B&B"}
    columns = list(rk.table.columns)
    bleu = BLEU().corpus_score(systems["Online-W"], refs[:1]).score
    nist_col, bleu_col = columns.index("nist"), columns.index("bleu")
    # one decimal for BLEU, two for NIST (the dashboard's rule): a hand-written format of sacrebleu's number
    assert by_name[evil][bleu_col] == f"{bleu:.1f}"
    assert re.fullmatch(r"\d+\.\d\d", by_name[evil][nist_col])
    assert "href='../Rankings?set=" + sid + "'" in html

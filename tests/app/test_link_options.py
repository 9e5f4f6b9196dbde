"""The link is the view (AppTest): metric options that differ from the set's defaults go into the address,
and a link carrying them opens with the same options and the same numbers (sacrebleu's)."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT, SAMPLE, read
from .conftest import TIMEOUT, no_errors, plain


def test_changed_options_are_written_into_the_link_and_defaults_are_not(app):
    app.switch_page("pages/1_Rankings.py").run()
    assert not [k for k in app.query_params if k.startswith("opt_")]
    app.checkbox(key="w_lowercase").check()
    app.selectbox(key="w_tokenize").set_value("intl")
    app.run()
    no_errors(app)
    assert app.query_params["opt_lowercase"] == "1"
    assert app.query_params["opt_tokenize"] == "intl"
    app.checkbox(key="w_lowercase").uncheck()
    app.selectbox(key="w_tokenize").set_value("13a")  # the sample's default again
    app.run()
    assert not [k for k in app.query_params if k.startswith("opt_")]


def test_a_link_with_options_opens_with_them_and_the_same_numbers():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update({"set": "sample", "opt_lowercase": "1", "opt_tokenize": "intl", "opt_max_ngram_order": "x"})
    at.run()
    at.switch_page("pages/1_Rankings.py").run()
    no_errors(at)
    assert at.checkbox(key="w_lowercase").value is True
    assert at.selectbox(key="w_tokenize").value == "intl"
    assert at.slider(key="w_max_ngram_order").value == 4  # a value that does not fit is ignored
    table = at.dataframe[0].value.set_index("system")
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    want = SacreBLEU(tokenize="intl", lowercase=True).corpus_score(read(SAMPLE / "UEdin.txt"), refs).score
    assert table.loc["UEdin", "bleu"] == pytest.approx(want, abs=1e-9)
    assert any("tok:intl" in c.value and "case:lc" in c.value for c in at.text)


def test_every_page_names_the_set_it_shows(tmp_path, monkeypatch):
    from mtlens import Corpus

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))  # its own workspace: other tests list theirs
    from mtlens.ui import state

    sid = state.store().save(
        Corpus.build({"ref": ["a b c"] * 40}, {"A": ["a b d"] * 40, "B": ["a c"] * 40}), "Q3 <run>", project="news"
    )
    for page in ("pages/1_Rankings.py", "pages/2_Sentences.py", "pages/4_Significance.py", "pages/7_Overview.py"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
        at.query_params["set"] = sid
        at.run()
        at.switch_page(page).run()
        no_errors(at)
        header = plain(at.caption[0].value)
        assert header.startswith("Set: Q3 <run> · Project: news · Data: saved set"), (page, header)
        assert "2 systems · 40 lines · 1 reference(s)" in header


def _page(path: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / path), default_timeout=TIMEOUT)
    at.query_params.update({"set": "sample", **params})
    return at.run()


def test_rankings_link_carries_the_metrics_shown_and_the_sort():
    at = _page("1_Rankings.py", metrics="chrf,bleu,nonsense", sort="chrf")
    no_errors(at)
    table = at.dataframe[0].value
    assert [c for c in table.columns if c in ("bleu", "chrf", "ter", "nist")] == ["bleu", "chrf"]
    assert list(table["chrf"]) == sorted(table["chrf"], reverse=True)  # sorted by chrF, as the link says
    assert at.query_params["metrics"] == "bleu,chrf" and at.query_params["sort"] == "chrf"
    at.multiselect(key=next(k for k in at.session_state if str(k).startswith("rank_metrics_"))).select("ter").run()
    assert at.query_params["metrics"] == "bleu,chrf,ter"


def test_significance_compare_and_human_links_open_what_they_name():
    at = _page("4_Significance.py", metric="chrf", test="ar", alpha="0.01", baseline="UEdin")
    no_errors(at)
    assert (at.selectbox(key="sig_metric").value, at.selectbox(key="sig_test").value) == ("chrf", "ar")
    assert at.selectbox(key="sig_alpha").value == 0.01 and at.selectbox(key="sig_baseline").value == "UEdin"
    pairs = next(d.value for d in at.dataframe if "delta (a - b)" in d.value.columns)
    assert set(pairs["b"]) | set(pairs["a"]) >= {"UEdin"} and len(pairs) == 3  # each system with UEdin
    at = _page("6_Compare_two_systems.py", a="UEdin", b="HuaweiTSC", metric="chrf")
    no_errors(at)
    assert [at.selectbox(key=k).value for k in ("cmp_a", "cmp_b", "cmp_metric")] == ["UEdin", "HuaweiTSC", "chrf"]
    at.selectbox(key="cmp_metric").set_value("ter").run()
    assert at.query_params["metric"] == "ter"
    at = _page("5_Human_correlation.py", metric="chrf", human="segment:MQM", clusters_by="segment:MQM")
    no_errors(at)
    assert at.selectbox(key="hc_metric").value == "chrf" and at.selectbox(key="hc_level").value == "segment:MQM"
    assert at.selectbox(key="hc_perm_level").value == "segment:MQM"

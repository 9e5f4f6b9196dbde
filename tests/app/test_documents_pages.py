"""Documents and domains on the pages (issue 35): the set's header, Rankings by domain, document resampling and
the power panel on Significance."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from mtlens.readers.testset import load_corpus

from ..conftest import ROOT, SAMPLE
from .conftest import errors, no_errors, plain

SYSTEMS = ("UEdin", "Online-W", "HuaweiTSC")


def _set(tmp_path, monkeypatch) -> str:
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    corpus = load_corpus([SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], [SAMPLE / f"{s}.txt" for s in SYSTEMS])
    corpus = corpus.with_documents([f"d{i // 5}" for i in range(200)], ["news"] * 100 + ["social"] * 100)
    return state.store().save(corpus, "with documents")


def _page(sid: str, page: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=180)
    at.query_params.update({"set": sid, **params})
    return at.run()


def test_rankings_by_domain_and_the_header(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page(sid, "1_Rankings.py", metrics="bleu,chrf")
    no_errors(at)
    assert any("40 documents · 2 domain(s): news, social" in c.value for c in at.caption)
    at.session_state["rank_domain_open"] = True  # the section, opened (as the chart's test does)
    at.run()
    no_errors(at)
    tables = [d.value for d in at.dataframe if any("news bleu" in str(c) for c in d.value.columns)]
    assert tables, [list(d.value.columns) for d in at.dataframe]
    assert {"news bleu (100 lines)", "social chrf (100 lines)", "news cluster (bleu)"} <= set(tables[0].columns)
    assert tables[0]["social cluster (bleu)"].min() == 1


def test_significance_resamples_documents_and_says_what_a_difference_needs(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page(sid, "4_Significance.py", metric="bleu", resample="documents")
    no_errors(at)
    assert at.radio(key="sig_resample").value == "documents"
    assert any("resample:documents" in c.value for c in at.caption)
    pairs = next(
        d.value for d in at.dataframe if "min. detectable" in d.value.columns and "p (Holm)" in d.value.columns
    )
    assert (pairs["min. detectable"] > 0).all()
    at.number_input(key="sig_power_delta").set_value(0.5).run()
    no_errors(at)
    need = next(d.value for d in at.dataframe if "lines needed" in d.value.columns)
    assert len(need) == 3 and (need["lines needed"] > 0).all()


def test_a_documents_file_uploaded_with_text_files(app):
    ref = (SAMPLE / "ref.txt").read_bytes()
    app.file_uploader(key="up_refs").set_value([("ref.txt", ref, "text/plain")])
    app.file_uploader(key="up_systems").set_value(
        [(f"{s}.txt", (SAMPLE / f"{s}.txt").read_bytes(), "text/plain") for s in SYSTEMS]
    )
    app.file_uploader(key="up_docs").set_value(
        [("docs.tsv", b"".join(b"d%d\tnews\n" % (i // 10) for i in range(200)), "text/plain")]
    )
    app.run()
    no_errors(app)
    assert any("20 documents · 1 domain(s): news" in c.value for c in app.caption)
    app.file_uploader(key="up_docs").set_value([("docs.tsv", b"d1\n", "text/plain")])
    app.run()
    assert any("the documents file 'docs.tsv' has 1 lines; the test set has 200" in e for e in errors(app)), errors(app)


def test_sentences_filter_by_domain_and_open_a_document_in_order(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page(sid, "2_Sentences.py", domain="social", metric="chrf")
    no_errors(at)
    assert at.selectbox(key="sent_domain").value == "social"
    assert any("100 of 200 lines" in c.value for c in at.caption)
    assert at.selectbox(key="sent_doc").options[1] == "d20"  # the domain's documents only
    at.selectbox(key="sent_doc").set_value("d23").run()
    no_errors(at)
    table = at.dataframe[0].value
    assert list(table["line"]) == [116, 117, 118, 119, 120]  # the document's lines, in document order
    assert any("Document d23: 5 lines in document order" in plain(c.value) for c in at.caption)
    assert at.query_params["doc"] == "d23" and at.query_params["domain"] == "social"
    # issue 51, D2: the line inspected is one of the document's, not a line of another one
    assert at.number_input(key="sent_line_input").value == 116 and at.query_params["line"] == "116"
    assert any(h.value == "Line 116" for h in at.subheader)
    at.number_input(key="sent_line_input").set_value(118).run()
    assert any(h.value == "Line 118" for h in at.subheader)  # a line of the document is kept
    at.selectbox(key="sent_doc").set_value("d20").run()
    assert at.number_input(key="sent_line_input").value == 101 and any(h.value == "Line 101" for h in at.subheader)


def test_compare_two_systems_shows_the_slices(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page(sid, "6_Compare_two_systems.py", a="UEdin", b="Online-W", metric="chrf")
    at.session_state["cmp_slices_open"] = True
    at.run()
    no_errors(at)
    table = next(d.value for d in at.dataframe if "slice" in d.value.columns)
    assert {"news", "social", "A and B differ"} <= set(table["slice"])


def test_compare_two_systems_says_what_the_set_can_detect(app):
    from mtlens.analysis.power import min_detectable_delta
    from mtlens.analysis.resampling import paired_deltas

    app.switch_page("pages/6_Compare_two_systems.py").run()
    no_errors(app)
    said = next(plain(c.value) for c in app.caption if "this test set detects a difference of" in plain(c.value))
    from mtlens.ui import cached, state

    ds = state.sample_dataset()
    result = cached.metric_result(ds, app.selectbox(key="cmp_metric").value, state.options())
    a, b = app.selectbox(key="cmp_a").value, app.selectbox(key="cmp_b").value
    (pd,), _ = paired_deltas(result, [(b, a)], 1000, 12345)
    assert f"difference of {min_detectable_delta(pd.se, 0.05):.1f} or more" in said


def test_rankings_resample_documents_and_compare_lists_one_domain(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page(sid, "1_Rankings.py", metrics="bleu,chrf", resample="documents")
    no_errors(at)
    assert at.radio(key="rank_resample").value == "documents"
    assert any("document-level intervals are" in plain(c.value).lower() for c in at.caption)
    at = _page(sid, "6_Compare_two_systems.py", a="UEdin", b="Online-W", metric="chrf")
    at.selectbox(key="cmp_domain").set_value("social").run()
    no_errors(at)
    table = next(d.value for d in at.dataframe if "B - A" in d.value.columns and "line" in d.value.columns)
    assert len(table) == 20 and (table["line"] > 100).all()  # social: lines 101-200

"""Human error annotations in the dashboard (AppTest): a set made from an MQM file alone, its MQM column,
the spans a rater marked, the filters (carried by the link), and pages that need a reference saying so."""

from __future__ import annotations

import re
from html import unescape

import pytest
from streamlit.testing.v1 import AppTest

from mtlens.readers.mqm import read_mqm_tsv

from ..conftest import ROOT, TESTDATA
from .conftest import lines_with, no_errors

EXCERPT = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"


def _gold():
    out = {}
    for line in (TESTDATA / "mqm" / "mqm_ted_ende.excerpt.avg_seg_scores.tsv").read_text().splitlines()[1:]:
        system, value, seg = line.split()
        out[({"ref-A": "ref"}.get(system, system), seg)] = float(value)
    return out


@pytest.fixture
def annotated(app):
    app.file_uploader(key="up_annotations").set_value([("ted-ende.tsv", EXCERPT.read_bytes(), "text/plain")]).run()
    no_errors(app)
    assert app.session_state["mtlens_dataset"].annotations
    return app


def test_an_annotation_file_alone_makes_a_set_with_an_mqm_column(annotated):
    sid = annotated.query_params["set"]
    assert len(sid) == 32
    annotated.switch_page("pages/1_Rankings.py").run()
    no_errors(annotated)
    table = annotated.dataframe[0].value.set_index("system")
    assert "bleu" not in table.columns  # no reference: no lexical metric offered
    ann = read_mqm_tsv(EXCERPT.read_bytes(), EXCERPT.name)
    gold = _gold()
    for system in ("Facebook-AI", "ref", "Online-W"):
        want = sum(gold[(system, s)] for s in ann.seg_ids) / len(ann.seg_ids)
        assert table.loc[system, "mqm"] == pytest.approx(want, abs=1e-9)


def test_pages_that_need_a_reference_say_so(annotated):
    for page in ("pages/3_Words_vs_characters.py", "pages/6_Compare_two_systems.py"):
        annotated.switch_page(page).run()
        no_errors(annotated)
        assert any("reference translation, and this set has none" in i.value for i in annotated.info)


def _spans(markdown: str) -> list[tuple[str, str]]:
    """(severity class, text) of each MQM span in the rendered markdown."""
    return [
        (m.group(1), unescape(m.group(2)))
        for m in re.finditer(r'class="mtl-tok mtl-mqm mtl-err-(\w+)"[^>]*>(.*?)</span>', markdown)
    ]


def test_the_sentence_view_draws_what_each_rater_marked(annotated):
    annotated.switch_page("pages/2_Sentences.py").run()
    no_errors(annotated)
    ann = read_mqm_tsv(EXCERPT.read_bytes(), EXCERPT.name)
    # the first (system, line) of the file with a Major error that has a span
    system, i, seg, major = next(
        (s, k, ann.segments[(s, seg_id)], majors)
        for s in ann.systems
        for k, seg_id in enumerate(ann.seg_ids)
        if (majors := [e for e in ann.segments[(s, seg_id)].errors if e.severity == "Major" and e.start is not None])
    )
    annotated.selectbox(key="sent_a").set_value(system).run()
    annotated.number_input(key="sent_line_input").set_value(i + 1).run()
    no_errors(annotated)
    html = " ".join(m.value for m in annotated.markdown)
    drawn = _spans(html)
    for e in major:
        assert ("major", seg.hypothesis[e.start : e.end]) in drawn
    # the span's text is exactly what the <v> tags marked in the file's row
    row = EXCERPT.read_text(encoding="utf-8").splitlines()[major[0].row - 1]
    assert re.search(r"<v>(.*?)</v>", row.split("\t")[6]).group(1) == seg.hypothesis[major[0].start : major[0].end]


def test_the_category_filter_keeps_matching_lines_and_is_in_the_link(annotated):
    annotated.switch_page("pages/2_Sentences.py").run()
    ann = read_mqm_tsv(EXCERPT.read_bytes(), EXCERPT.name)
    category = "Accuracy/Mistranslation"
    system = max(ann.systems, key=lambda s: len(lines_with(ann, s, category)))
    want = lines_with(ann, system, category)
    annotated.selectbox(key="sent_a").set_value(system).run()
    annotated.selectbox(key="sent_f_category").set_value(category).run()
    no_errors(annotated)
    lines = set(annotated.dataframe[0].value["line"])
    assert lines == want and 0 < len(lines) < 12
    assert annotated.query_params["category"] == category
    other = AppTest.from_file(str(ROOT / "pages" / "2_Sentences.py"), default_timeout=60)
    other.query_params.update({"set": annotated.query_params["set"], "category": category, "a": system})
    other.run()
    no_errors(other)
    assert other.selectbox(key="sent_f_category").value == category
    assert set(other.dataframe[0].value["line"]) == want


def test_mqm_feeds_human_correlation_and_the_wmt_ranking(annotated):
    """MQM from the ratings is a human score the metrics are measured against; the mqm metric is those same numbers,
    so it is never a row against MQM (issue 58, D6: it correlated 1 and was ranked first among metrics)."""
    annotated.switch_page("pages/5_Human_correlation.py").run()
    no_errors(annotated)
    tables = [d.value for d in annotated.dataframe]
    rows = next(t for t in tables if "pearson" in t.columns)
    assert rows[(rows["metric"] == "mqm") & (rows["human"] == "MQM")].empty  # the set's only metric is MQM itself
    assert any("only metrics are its human scores" in i.value for i in annotated.info)


def test_the_annotations_page_summarises_what_raters_marked(annotated):
    from mtlens.analysis.mqm_summary import error_counts

    annotated.switch_page("pages/8_Annotations.py").run()
    no_errors(annotated)
    per100 = annotated.dataframe[0].value.set_index(["system", "category"])
    ann = read_mqm_tsv(EXCERPT.read_bytes(), EXCERPT.name)
    for row in error_counts(ann)[:10]:
        assert per100.loc[(row["system"], row["category"]), row["severity"]] == pytest.approx(row["per 100 segments"])
    assert any("cannot be measured" in c.value for c in annotated.caption)  # one rater per segment in TED
    assert annotated.get("plotly_chart")


def test_a_file_with_400000_rows_to_check_is_listed_in_one_bounded_note(app):
    """Issue 38, item 6: a 7 MB MQM file with 400,000 problem rows (an unknown severity each) drew a
    caption per row; the page had not finished after 16 minutes. The first 100 are listed with a count
    of the rest, in one element; the page finishes."""

    from mtlens.readers.mqm import MAX_PROBLEMS

    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    rows = [f"S{k % 2}\td\t1\t{k // 2 + 1}\tr1\tsrc {k // 2}\tout {k // 2}\tAccuracy\tbogus\n" for k in range(400_000)]
    data = (head + "".join(rows)).encode()
    assert 7 * 2**20 < len(data) < 30 * 2**20
    ann = read_mqm_tsv(data, "big.tsv")
    assert len(ann.problems) == MAX_PROBLEMS + 1
    assert ann.problems[-1] == f"... and {400_000 - MAX_PROBLEMS:,} more rows like these (not listed)"
    app.file_uploader(key="up_annotations").set_value([("big.tsv", data, "text/plain")]).run(timeout=600)
    no_errors(app)
    app.switch_page("pages/8_Annotations.py").run(timeout=600)
    no_errors(app)
    notes = [c.value for c in app.caption if "unknown severity" in c.value]
    assert len(notes) == 1 and "399,900 more rows like these" in notes[0]


def test_a_set_without_references_offers_no_empty_controls_or_mqm_against_itself(annotated):
    """Issue 37, item 10: Sentences showed n-gram controls that do nothing without a reference; the
    Annotations page offered only "mqm" against MQM itself; the language note said "detected in the
    references" for a set that has none."""
    annotated.switch_page("pages/2_Sentences.py").run()
    no_errors(annotated)
    assert not [s for s in annotated.slider if s.key in ("sent_order", "sent_char_order")]
    assert not [r for r in annotated.radio if r.key == "sent_unit"]
    annotated.switch_page("pages/8_Annotations.py").run()
    no_errors(annotated)
    assert not [s for s in annotated.selectbox if s.key == "ann_metric"]
    assert any("no metric to hold against the raters" in c.value for c in annotated.caption)
    ds = annotated.session_state["mtlens_dataset"]
    assert "detected in the translations" in ds.language.describe()


def test_the_tbleu_sweep_is_computed_when_asked(app, monkeypatch):
    """Issue 58, D17: Human correlation's first visit computed the tBLEU threshold sweep unasked (39-144 s behind
    spinners); it is computed when the toggle asks for it."""
    from mtlens.ui import cached

    calls = []
    real = cached.tbleu_sweep
    monkeypatch.setattr(cached, "tbleu_sweep", lambda *a, **k: calls.append(1) or real(*a, **k))
    app.switch_page("pages/5_Human_correlation.py").run()
    no_errors(app)
    assert calls == [] and not [c for c in app.get("plotly_chart") if "epsilon" in str(c.proto)]
    app.toggle(key="hc_sweep_on").set_value(True).run()
    no_errors(app)
    assert calls and any("epsilon" in str(c.proto) for c in app.get("plotly_chart"))

"""AppTest: every page renders on the sample data; uploads, option changes and errors behave."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from streamlit.testing.v1 import AppTest

from mtlens.ui import uploads

from ..conftest import ROOT, SAMPLE, read
from .conftest import errors, no_errors, plain

PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_the_sample(app, page):
    app.switch_page(f"pages/{page}").run()
    no_errors(app)
    assert not app.error, [e.value for e in app.error]


def test_home_shows_the_sample_summary(app):
    df = app.dataframe[0].value
    assert list(df["name"]) == ["ref", "ref2", "VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"]
    assert set(df["lines"]) == {200}
    ref = (SAMPLE / "ref.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert df["words"][0] == str(sum(len(line.split()) for line in ref))  # German: space-separated words
    assert df["characters"][0] == sum(len(line) for line in ref) - sum(line.count(" ") for line in ref)


def _upload(at, key, *files):
    at.file_uploader(key=key).set_value(list(files))


def test_upload_replaces_the_sample_and_survives_page_switches(app):
    ref = (SAMPLE / "ref.txt").read_bytes()
    hyp = (SAMPLE / "UEdin.txt").read_bytes()
    _upload(app, "up_refs", ("myref.txt", ref, "text/plain"))
    _upload(app, "up_systems", ("mysys.txt", hyp, "text/plain"), ("other.txt", ref, "text/plain"))
    app.run()
    no_errors(app)
    assert list(app.dataframe[0].value["name"]) == ["myref", "mysys", "other"]
    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    table = app.dataframe[0].value
    assert list(table["system"]) == ["other", "mysys"]
    want = SacreBLEU().corpus_score(read(SAMPLE / "UEdin.txt"), [read(SAMPLE / "ref.txt")]).score
    assert table.set_index("system").loc["mysys", "bleu"] == pytest.approx(want, abs=1e-9)
    app.switch_page("app.py").run()  # back home: the upload is still the dataset
    assert list(app.dataframe[0].value["name"]) == ["myref", "mysys", "other"]


def test_bad_upload_is_a_message_and_keeps_the_previous_data(app):
    _upload(app, "up_refs", ("ref.txt", b"a\nb\nc\n", "text/plain"))
    _upload(app, "up_systems", ("B.txt", b"a\nb\n", "text/plain"))
    app.run()
    no_errors(app)
    assert any("'B.txt' has 2 lines, the reference 'ref.txt' has 3" in e for e in errors(app))
    assert "VolcTrans-GLAT" in list(app.dataframe[0].value["name"])
    _upload(app, "up_systems", ("bin.txt", b"\x00\x01\x02", "application/octet-stream"))
    app.run()
    assert any("looks binary" in e for e in errors(app))
    _upload(app, "up_systems", ("latin.txt", "Größe\na\nb\n".encode("latin-1"), "text/plain"))
    app.run()
    assert any("not valid UTF-8: line 1" in e for e in errors(app))


def test_rankings_options_and_csv(app):
    app.switch_page("pages/1_Rankings.py").run()
    app.selectbox(key="w_tokenize").set_value("intl")
    app.checkbox(key="w_lowercase").check()
    app.run()
    no_errors(app)
    table = app.dataframe[0].value.set_index("system")
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    want = SacreBLEU(tokenize="intl", lowercase=True).corpus_score(read(SAMPLE / "UEdin.txt"), refs).score
    assert table.loc["UEdin", "bleu"] == pytest.approx(want, abs=1e-9)
    assert any("tok:intl" in c.value and "case:lc" in c.value for c in app.text)
    # options survive a trip to another page
    app.switch_page("app.py").run()
    app.switch_page("pages/1_Rankings.py").run()
    assert app.selectbox(key="w_tokenize").value == "intl"
    assert app.dataframe[0].value.set_index("system").loc["UEdin", "bleu"] == pytest.approx(want, abs=1e-9)


def test_single_tsv_upload(app):
    refs = read(SAMPLE / "ref.txt")[:20]
    hyp = read(SAMPLE / "UEdin.txt")[:20]
    body = "ref\tUEdin\n" + "".join(f"{r}\t{h}\n" for r, h in zip(refs, hyp, strict=True))
    _upload(app, "up_systems", ("all.tsv", body.encode(), "text/tab-separated-values"))
    app.run()
    no_errors(app)
    assert list(app.dataframe[0].value["name"]) == ["ref", "UEdin"]


def test_sentences_page_interactions_and_escaping(app):
    lines = (SAMPLE / "ref.txt").read_text(encoding="utf-8").split("\n")[:5]
    evil = ["<script>alert(1)</script> Test", "<b onmouseover=alert(2)>x</b>", *lines[2:5]]
    _upload(app, "up_refs", ("ref.txt", ("\n".join(lines) + "\n").encode(), "text/plain"))
    _upload(
        app,
        "up_systems",
        ("evil.txt", ("\n".join(evil) + "\n").encode(), "text/plain"),
        ("good.txt", ("\n".join(lines) + "\n").encode(), "text/plain"),
    )
    app.run()
    app.switch_page("pages/2_Sentences.py").run()
    no_errors(app)
    app.selectbox(key="sent_a").set_value("evil")
    app.selectbox(key="sent_sort").set_value("line order")
    app.number_input(key="sent_line_input").set_value(1)
    app.slider(key="sent_order").set_value(1)
    app.run()
    no_errors(app)
    html = "\n".join(m.value for m in app.markdown)
    # the tBLEU corrections run nothing while their expander is closed (a sixth of every run of the page); opened,
    # the table is the core's matching of the line (tests/metrics/test_tbleu.py holds the matching to the paper)
    assert [e.label for e in app.expander if e.label.startswith("tBLEU")] == ["tBLEU corrections (epsilon = 0.05)"]
    assert not [d for d in app.dataframe if "affix distance" in d.value.columns]
    app.session_state["sent_tbleu_open"] = True
    app.run()
    no_errors(app)
    from mtlens.metrics.tbleu import TBLEU

    corrections = [d.value for d in app.dataframe if "affix distance" in d.value.columns]
    assert corrections and corrections[0]["affix distance"].between(0, 1).all()
    core = TBLEU().corrections(evil[0], [lines[0]])[0]
    assert len(corrections[0]) == len([c for c in core if c.distance < 1]) and corrections[0][
        "affix distance"
    ].tolist() == pytest.approx([c.distance for c in core if c.distance < 1])
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html and "<b onmouseover" not in html
    assert "TER =" in html
    app.radio(key="sent_unit").set_value("characters (chrF)")
    app.run()
    no_errors(app)
    app.selectbox(key="sent_metric").set_value("ter")
    app.selectbox(key="sent_sort").set_value("largest |B - A|")
    app.run()
    no_errors(app)
    df = app.dataframe[0].value
    assert list(df.columns[:4]) == ["line", "ter A", "ter B", "B - A"]
    assert list(df["B - A"].abs()) == sorted(df["B - A"].abs(), reverse=True)


def test_significance_page_controls(app):
    app.switch_page("pages/4_Significance.py").run()
    app.selectbox(key="sig_metric").set_value("chrf")
    app.selectbox(key="sig_test").set_value("ar")
    app.run()
    app.number_input(key="sig_n_ar").set_value(500)
    app.number_input(key="sig_seed").set_value(0)
    app.run()
    no_errors(app)
    assert any("test:ar|n:500|seed:0" in c.value for c in app.caption)
    pairs = app.dataframe[1].value
    from mtlens import Corpus, score
    from mtlens.analysis.significance import compare

    from ..conftest import SAMPLE, pair_files

    refs, systems = pair_files(SAMPLE)
    core = compare(score(Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems), "chrf")["chrf"], "ar", 500, 0)
    assert len(pairs) == 6
    assert pairs["p"].tolist() == [p.p_value for p in core.pairs]
    assert pairs["p (Holm)"].tolist() == [p.p_holm for p in core.pairs]
    assert app.get("plotly_chart")


def test_words_vs_characters_and_human_pages(app):
    app.switch_page("pages/3_Words_vs_characters.py").run()
    app.slider(key="wvc_n").set_value(3)
    app.slider(key="wvc_range").set_value((5, 20))
    app.run()
    no_errors(app)
    best = app.dataframe[0].value
    assert "all" in list(best["systems"])
    app.switch_page("pages/5_Human_correlation.py").run()
    no_errors(app)
    rows = app.dataframe[0].value
    assert {"system", "segment"} <= set(rows["level"]) and "MQM" in set(rows["human"])


def test_compare_two_systems_page(app):
    app.switch_page("pages/6_Compare_two_systems.py").run()
    no_errors(app)
    app.selectbox(key="cmp_a").set_value("UEdin")
    app.run()
    no_errors(app)
    tables = [d.value for d in app.dataframe]
    assert {"ngram", "matched_a", "matched_b", "score"} <= set(tables[0].columns)
    assert (tables[0]["score"] >= 0.5).all() and (tables[1]["score"] <= 0.5).all()
    from mtlens import Corpus, score
    from mtlens.analysis.pairwise import length_buckets
    from mtlens.analysis.policy import MIN_TEST_LINES

    from ..conftest import SAMPLE, pair_files

    buckets = tables[2]
    assert {"bucket", "lines", "A", "B", "p", "p (Holm)", "test"} <= set(buckets.columns)
    assert buckets["lines"].sum() == 200  # every line in exactly one length bucket
    small = buckets[buckets["lines"] < MIN_TEST_LINES]
    assert (small["test"] == "too few lines").all() and small["p"].isna().all()
    refs, systems = pair_files(SAMPLE)
    c = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems)
    b = app.selectbox(key="cmp_b").value
    core = length_buckets(c, score(c, "bleu")["bleu"], "UEdin", b)
    assert buckets["lines"].tolist() == [r.lines for r in core.rows]
    tested = buckets[buckets["test"] != "too few lines"]
    assert tested["p"].tolist() == [r.p_value for r in core.rows if r.tested]


def test_pages_without_human_scores_say_so(app):
    ref = (SAMPLE / "ref.txt").read_bytes()
    _upload(app, "up_refs", ("r.txt", ref, "text/plain"))
    _upload(app, "up_systems", ("a.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"))
    app.run()
    app.switch_page("pages/5_Human_correlation.py").run()
    no_errors(app)
    assert any("No human scores" in i.value for i in app.info)
    app.switch_page("pages/4_Significance.py").run()
    assert any("at least two systems" in i.value for i in app.info)


def test_chart_export_png_and_svg(app):
    """Each chart has PNG and SVG download buttons that download at once (a deferred download: the image is
    drawn on click; Chromium clicks one in tests/app/test_browser.py); the image is kaleido's drawing of the
    chart the page shows."""
    import plotly.graph_objects as go

    from mtlens.ui import export

    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    app.session_state["rank_chart_open"] = True  # the chart's expander, opened
    app.run()
    assert _download_keys(app) >= {"rank_chart_dl_svg", "rank_chart_dl_png"}
    assert not [b for b in app.button if b.key and b.key.startswith("rank_chart_make")]  # no second step
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    assert b"<svg" in export.image(fig, "svg")[:300]
    assert export.image(fig, "png")[:8] == b"\x89PNG\r\n\x1a\n"
    app.button(key="rank_report_make").click().run()
    no_errors(app)
    assert "<!DOCTYPE html>" in app.session_state["rank_report"][1]
    assert "dl_report" in _download_keys(app)
    # a different option set (or upload) makes the prepared report stale: no download until prepared again
    app.sidebar.checkbox(key="w_lowercase").check().run()
    no_errors(app)
    assert "dl_report" not in _download_keys(app)


def test_the_ranking_table_grows_while_anything_is_computed_and_is_drawn_once_when_all_is_at_hand(monkeypatch):
    """A first visit sees the table grow (the cheapest metrics, then all, then the test's clusters). A later session
    finds every metric and the test kept, and the table is drawn once: each table drawn costs the server (a pandas
    Styler marshalled), a sixth of a Rankings run under twenty visitors (docs/speed.md). The table is the same."""
    from mtlens.ui import cached
    from mtlens.ui.screens import rankings as screen

    drawn: list[tuple[str, ...]] = []  # the metrics of each ranking table the page made
    real = screen.ranking_table

    def counted(results, *args, **kwargs):
        drawn.append(tuple(results))
        return real(results, *args, **kwargs)

    monkeypatch.setattr(screen, "ranking_table", counted)
    cached.clear()

    def visit() -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        at.switch_page("pages/1_Rankings.py").run()
        no_errors(at)
        return at

    first = visit()
    shown = first.multiselect[0].value  # the metrics shown (the defaults)
    assert len(shown) > cached.FIRST_COLUMNS
    assert drawn == [tuple(m for m in shown if m in drawn[0]), tuple(shown), tuple(shown)]
    assert len(drawn[0]) == cached.FIRST_COLUMNS
    table = first.dataframe[0].value
    assert "cluster (bleu)" in table.columns  # the final table, with the test's clusters
    drawn.clear()
    second = visit()
    assert drawn == [tuple(shown)]
    assert second.dataframe[0].value.equals(table)


def test_rankings_draws_its_chart_and_autorank_only_when_opened(app):
    """The chart and AutoRank sit in expanders that run nothing while closed (no plotly.js for a reopened
    link, docs/decisions.md "Reopening a set"); opened, the chart's bars are the core's corpus scores and
    AutoRank ranks by the metrics picked."""
    import json

    from ..conftest import pair_files

    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    assert [e.label for e in app.expander if e.label.startswith(("AutoRank", "Chart"))] == [
        "AutoRank: several metrics in one ranking (as WMT24)",
        "Chart: scores with 95% confidence intervals",
    ]
    assert not app.get("plotly_chart")
    assert "rank_auto" not in [m.key for m in app.multiselect]
    app.session_state["rank_chart_open"] = True
    app.session_state["rank_auto_open"] = True
    app.run()
    no_errors(app)
    refs, systems = pair_files(SAMPLE)
    sacre = {name: SacreBLEU().corpus_score(hyp, refs).score for name, hyp in systems.items()}  # the default BLEU
    fig = json.loads(app.get("plotly_chart")[0].proto.spec)
    bars = dict(zip(fig["data"][0]["x"], fig["data"][0]["y"], strict=True))
    assert bars == pytest.approx(sacre, abs=1e-9)
    assert list(bars) == sorted(sacre, key=sacre.get, reverse=True)
    assert app.multiselect(key="rank_auto").value == ["chrf", "ter"]
    from sacrebleu.metrics import CHRF

    from ..golden.make_sacrebleu_golden import sample_ter

    auto = next(d.value for d in app.dataframe if "autorank" in d.value.columns).set_index("system")["autorank"]
    # the definition by hand: each metric's scores mapped linearly, best system 1, worst N; then the mean
    n = len(systems)
    rescaled = []
    chrf = {name: CHRF().corpus_score(hyp, refs).score for name, hyp in systems.items()}
    for x, better in ((chrf, max), (sample_ter(), min)):  # sacrebleu's TER from its stored line statistics
        best, worst = better(x.values()), (min if better is max else max)(x.values())
        rescaled.append({name: 1 + (n - 1) * (v - best) / (worst - best) for name, v in x.items()})
    assert auto.to_dict() == pytest.approx(
        {name: (rescaled[0][name] + rescaled[1][name]) / 2 for name in systems},
        abs=0.0051,  # shown with 2 decimals
    )


def _download_keys(app) -> set[str]:
    return {el.key for el in app.get("download_button")}


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ([("all.tsv", b"src\tA\ns\ta\n")], "no reference column"),
        ([("all.tsv", b"ref\tA\tB\nr\ta\n")], "has 2 tab-separated fields, the header has 3"),
        (
            [("test.xml", b"<dataset><doc id='d'><ref><p></p></ref><hyp system='A'><p></p></hyp></doc></dataset>")],
            "contains no <seg> segments",
        ),
        ([("test.xml", b"<dataset><doc>")], "is not well-formed XML"),
        ([("notes.txt", b"one line\n")], "upload at least one reference file"),
    ],
)
def test_bad_single_files_are_messages(app, files, needle):
    _upload(app, "up_systems", *[(n, d, "text/plain") for n, d in files])
    app.run()
    no_errors(app)
    assert any(needle in e for e in errors(app)), errors(app)
    assert "VolcTrans-GLAT" in list(app.dataframe[0].value["name"])  # the previous data is intact


def test_bad_human_file_is_a_message(app):
    _upload(app, "up_refs", ("r.txt", b"a b\nc d\n", "text/plain"))
    _upload(app, "up_systems", ("A.txt", b"a b\nc d\n", "text/plain"))
    _upload(app, "up_human", ("h.tsv", b"system\tline\tmetric\tscore\nA\t9\tDA\t1\n", "text/plain"))
    app.run()
    assert any("refers to line 9; the corpus has 2" in e for e in errors(app))


#: GFM's autolink literals as remark-gfm finds them in text nodes, after escapes are resolved
#: (mdast-util-gfm-autolink-literal: a protocol or "www." URL; e-mail addresses are left to GFM, render.md)
GFM_AUTOLINKS = [r"(?i)(https?://|www(?=\.))[-.\w]+"]


def test_markdown_and_link_injection_in_names_is_inert(app):
    """Neither Markdown links nor GFM's autolink literals form from a name (issue 51: a set named after a URL,
    a file ``www.evil.example.txt`` and an e-mail address were live links in every page's header)."""
    import re

    name = "[click](javascript:alert(1)) :red[x] $x$ <b>bold</b> www.evil.example"  # a stem: no "/"
    lines = b"a b c d\ne f g h\n"
    _upload(app, "up_refs", ("ref.txt", lines, "text/plain"))
    _upload(app, "up_systems", (f"{name}.txt", lines, "text/plain"), ("other.txt", b"a b c x\ne f g x\n", "text/plain"))
    app.run()
    seen = []
    for page in (
        "pages/2_Sentences.py",
        "pages/4_Significance.py",
        "pages/6_Compare_two_systems.py",
        "pages/3_Words_vs_characters.py",
    ):
        app.switch_page(page).run()
        no_errors(app)
        texts = [m.value for m in app.markdown] + [c.value for c in app.caption]
        for t in texts:
            assert "](javascript:" not in t and ":red[" not in t and "<b>bold" not in t, (page, t)
            shown = re.sub(r"\\(.)", r"\1", t)  # the text GFM sees once escapes are resolved (joiners kept)
            assert not any(re.search(p, shown) for p in GFM_AUTOLINKS), (page, t)
        seen += [plain(t) for t in texts if "www.evil.example" in plain(t)]
    assert seen  # the name is shown (as itself, to a reader), only not as a link


def test_empty_system_file_is_a_message(app):
    _upload(app, "up_refs", ("ref.txt", b"a\n", "text/plain"))
    _upload(app, "up_systems", ("empty.txt", b"", "text/plain"))
    app.run()
    assert any("'empty.txt' is empty" in e for e in errors(app))


def test_language_is_detected_shown_and_can_be_overridden(app):
    from mtlens.ui import state

    from ..conftest import TESTDATA

    folder = TESTDATA / "en-zh"
    _upload(app, "up_refs", ("ref.txt", (folder / "ref.txt").read_bytes(), "text/plain"))
    _upload(app, "up_systems", ("SMU.txt", (folder / "SMU.txt").read_bytes(), "text/plain"))
    app.run()
    no_errors(app)
    captions = " ".join(plain(c.value) for c in app.caption)
    assert "target language zh detected (Han script" in captions and "language und-zh (detected)" in captions
    table = app.dataframe[0].value  # Chinese has no spaces between words: no word count, characters instead
    ref = (folder / "ref.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert list(table["words"]) == ["-", "-"]
    assert table["characters"][0] == sum(len(line) for line in ref) - sum(line.count(" ") for line in ref)
    opts = app.session_state[state.OPTIONS_KEY]
    assert (opts.tokenize, opts.ter_normalized, opts.ter_asian_support) == ("zh", True, True)
    assert "w_tokenize" not in app.session_state  # the sidebar re-reads it from the options
    app.text_input(key="up_lang").set_value("en-ja").run()
    no_errors(app)
    ds = app.session_state[state.DATA_KEY]
    assert ds.corpus.language_pair == "en-ja" and ds.language.how == "declared"
    assert app.session_state[state.OPTIONS_KEY].tokenize == "ja-mecab"
    app.text_input(key="up_lang").set_value("chinese").run()
    assert any("-l/--language-pair must look like 'en-zh'" in e for e in errors(app))
    assert app.session_state[state.DATA_KEY].corpus.language_pair == "en-ja"  # the previous data stays
    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    assert app.sidebar.selectbox(key="w_tokenize").value == "ja-mecab"


def test_removing_files_from_an_upload_leaves_no_intermediate_set(tmp_path, monkeypatch):
    """Issue 37, item 4: a reference and 3 systems, then two system files removed with their X: the list
    gained "2 systems, ..." and "1 systems, ..." sets. The upload's set follows it: one set, the last
    state, named in good English."""
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))  # a workspace of its own: its list is this test's
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.run()

    names = ["UEdin", "Online-W", "HuaweiTSC"]
    files = [(f"{n}.txt", (SAMPLE / f"{n}.txt").read_bytes(), "text/plain") for n in names]
    _upload(app, "up_refs", ("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain"))
    _upload(app, "up_systems", *files)
    app.run()
    no_errors(app)
    for k in (2, 1):
        _upload(app, "up_systems", *files[:k])
        app.run()
        no_errors(app)
    saved = state.store().list()
    assert [s.systems for s in saved] == [["UEdin"]], [s.name for s in saved]
    assert saved[0].name.startswith("1 system, ") and saved[0].id == app.query_params["set"]


def test_an_upload_becomes_a_saved_set_with_a_link(app):
    from mtlens.ui import state

    ref = (SAMPLE / "ref.txt").read_bytes()
    _upload(app, "up_refs", ("ref.txt", ref, "text/plain"))
    _upload(app, "up_systems", ("A.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"))
    app.run()
    no_errors(app)
    first = app.query_params["set"]
    _upload(
        app,
        "up_systems",
        ("A.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"),
        ("Online-W.txt", (SAMPLE / "Online-W.txt").read_bytes(), "text/plain"),
    )
    app.run()
    no_errors(app)
    sid = app.query_params["set"]
    assert sid != first and len(sid) == 32
    saved = {s.id: s for s in state.store().list()}
    assert sid in saved and first not in saved  # the same upload, grown by a file, replaced its first set
    assert saved[sid].systems == ["A", "Online-W"] and saved[sid].lines == 200
    # a new session opened with the link shows the same set, on any page
    other = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=60)
    other.query_params["set"] = sid
    other.run()
    no_errors(other)
    table = other.dataframe[0].value.set_index("system")
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")][:1]
    want = SacreBLEU().corpus_score(read(SAMPLE / "Online-W.txt"), refs).score
    assert table.loc["Online-W", "bleu"] == pytest.approx(want, abs=1e-9)
    assert other.query_params["set"] == sid


def test_a_wrong_link_says_so_offers_the_sets_and_never_shows_the_sample(app, tmp_path, monkeypatch):
    from mtlens import Corpus
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))  # its own workspace: other tests list theirs
    sid = state.store().save(Corpus.build({"ref": ["a b"]}, {"A": ["a c"]}), "mine <b>")
    for page in ("app.py", "pages/1_Rankings.py"):
        other = AppTest.from_file(str(ROOT / page), default_timeout=60)
        other.query_params["set"] = "0" * 32
        other.run()
        no_errors(other)
        (message,) = errors(other)
        assert message.startswith(f"This link's set could not be opened: no saved set has the id '{'0' * 32}'")
        assert not other.dataframe  # no numbers of another set
        assert other.query_params["set"] == "0" * 32  # the address still says what was asked for
        listed = " ".join(m.value for m in other.markdown)
        assert f"(?set={sid})" in listed and "<b>" not in listed  # the set list, names escaped
    other.button(key="missing_set_sample").click().run()
    no_errors(other)
    assert other.query_params["set"] == "sample" and other.dataframe


def test_open_add_a_system_and_delete_from_the_home_page(app):
    from mtlens import Corpus
    from mtlens.service.bundles import export_bundle
    from mtlens.ui import state

    refs, _ = read(SAMPLE / "ref.txt"), None
    store = state.store()
    sid = store.save(Corpus.build({"ref": refs}, {"UEdin": read(SAMPLE / "UEdin.txt")}), "to open")
    app.run()
    names = list(app.dataframe[-1].value["name"])
    assert "to open" in names
    state_ds = state.saved_dataset(sid)
    app.session_state[state.DATA_KEY] = state_ds
    app.query_params["set"] = sid
    app.run()
    no_errors(app)
    _upload(app, f"ws_add_{sid}", ("HuaweiTSC.txt", (SAMPLE / "HuaweiTSC.txt").read_bytes(), "text/plain"))
    app.run()
    app.button(key=f"ws_add_go_{sid}").click().run()
    no_errors(app)
    assert store.load(sid).corpus.system_names == ("UEdin", "HuaweiTSC")
    assert app.session_state[state.DATA_KEY].corpus.system_names == ("UEdin", "HuaweiTSC")
    assert export_bundle(store, sid)[:2] == b"\x1f\x8b"  # the download is a gzip bundle
    tsv = "system\tline\tmetricx-24\n" + "".join(
        f"{s}\t{i}\t{i % 7}\n" for s in ("UEdin", "HuaweiTSC") for i in range(1, 201)
    )
    _upload(app, f"ws_scores_{sid}", ("metricx.tsv", tsv.encode(), "text/tab-separated-values"))
    app.run()
    app.button(key=f"ws_scores_go_{sid}").click().run()
    no_errors(app)
    assert [n for n, _ in store.load(sid).scores] == ["metricx.tsv"]
    from mtlens.ui import cached

    assert "metricx-24" in cached.metric_names(state.saved_dataset(sid))
    store.delete(sid)
    app.run()
    no_errors(app)
    assert "to open" not in list(app.dataframe[-1].value["name"])


def test_overview_page_shows_systems_by_set_with_clusters(app):
    from mtlens import Corpus
    from mtlens.ui import state

    from ..conftest import TESTDATA, pair_files

    store = state.store()
    refs, systems = pair_files(SAMPLE)
    store.save(Corpus.build({"ref": refs[0]}, systems, language_pair="en-de"), "sample en-de", project="P")
    zrefs, zsys = pair_files(TESTDATA / "en-zh")
    store.save(
        Corpus.build({"ref": zrefs[0], "ref2": zrefs[1]}, zsys, language_pair="en-zh"), "excerpt en-zh", project="P"
    )
    app.switch_page("pages/7_Overview.py").run()
    app.selectbox(key="ov_project").set_value("P").run()
    no_errors(app)
    long = app.dataframe[1].value
    assert set(long["set"]) == {"sample en-de", "excerpt en-zh"}
    row = long[(long["set"] == "excerpt en-zh") & (long["system"] == "SMU")].iloc[0]
    want = SacreBLEU(tokenize="zh").corpus_score(zsys["SMU"], zrefs).score  # each set with its language's tokenizer
    assert row["bleu"] == pytest.approx(want, abs=1e-9)
    assert long[long["set"] == "sample en-de"]["cluster"].notna().all()


def test_a_link_can_point_at_one_sentence(app):
    other = AppTest.from_file(str(ROOT / "pages" / "2_Sentences.py"), default_timeout=60)
    other.query_params.update({"set": "sample", "a": "UEdin", "b": "Online-W", "line": "17", "metric": "chrf"})
    other.run()
    no_errors(other)
    assert other.selectbox(key="sent_a").value == "UEdin" and other.selectbox(key="sent_b").value == "Online-W"
    assert other.selectbox(key="sent_metric").value == "chrf"
    assert other.number_input(key="sent_line_input").value == 17
    assert any("Line 17" in h.value for h in other.subheader)
    other.number_input(key="sent_line_input").set_value(20).run()
    assert other.query_params["line"] == "20"  # the address follows what is shown


def test_imported_comet_scores_are_a_metric_in_every_page(app):
    """An xCOMET JSON uploaded with the data: a Rankings column equal to the file's means, significance,
    the sentence view with escaped error spans, and the span counts per system."""
    import json

    from ..conftest import pair_files

    _refs, systems = pair_files(SAMPLE)
    names = ["UEdin", "HuaweiTSC"]
    doc = {}
    for k, s in enumerate(names):
        segs = []
        for i, mt in enumerate(systems[s]):
            seg = {"src": "", "mt": mt, "COMET": 0.7 + 0.001 * ((i * (k + 3)) % 97)}
            if i == 0:
                w = mt.split()[0]
                seg["errors"] = [{"text": w, "start": 0, "end": len(w), "severity": "critical", "confidence": 0.8}]
            segs.append(seg)
        doc[f"out/{s}.txt"] = segs
    _upload(app, "up_refs", ("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain"))
    _upload(app, "up_systems", *[(f"{s}.txt", (SAMPLE / f"{s}.txt").read_bytes(), "text/plain") for s in names])
    _upload(app, "up_scores", ("xcomet.json", json.dumps(doc).encode(), "application/json"))
    app.run()
    no_errors(app)
    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    table = app.dataframe[0].value.set_index("system")
    for s in names:
        want = sum(x["COMET"] for x in doc[f"out/{s}.txt"]) / 200
        assert table.loc[s, "xcomet"] == pytest.approx(want, abs=1e-12)
    spans = next(d.value for d in app.dataframe if "critical" in d.value.columns).set_index("system")
    assert spans.loc["UEdin", "critical"] == 1 and spans.loc["UEdin", "minor"] == 0
    app.switch_page("pages/4_Significance.py").run()
    app.selectbox(key="sig_metric").set_value("xcomet").run()
    no_errors(app)
    app.switch_page("pages/2_Sentences.py").run()
    app.selectbox(key="sent_metric").set_value("xcomet")
    app.selectbox(key="sent_sort").set_value("line order")
    app.number_input(key="sent_line_input").set_value(1)
    app.run()
    no_errors(app)
    html = "\n".join(m.value for m in app.markdown)
    first = systems["UEdin"][0].split()[0]
    assert f'mtl-err-critical" title="critical, confidence 0.80">{first}</span>' in html


def test_human_page_has_meta_evaluation_metric_clusters_and_the_wmt_ranking(app):
    app.switch_page("pages/5_Human_correlation.py").run()
    no_errors(app)
    tables = [d.value for d in app.dataframe]
    corr = tables[0]
    assert {"pairwise_accuracy", "acc_eq", "acc_eq_epsilon"} <= set(corr.columns)
    sys_rows = corr[corr["level"] == "system"]
    assert sys_rows["pairwise_accuracy"].between(0, 1).all() and sys_rows["acc_eq"].isna().all()
    clusters = next(t for t in tables if "pearson (sign-adjusted)" in t.columns)
    assert list(clusters["pearson (sign-adjusted)"]) == sorted(clusters["pearson (sign-adjusted)"], reverse=True)
    ranking = next(t for t in tables if "rank_low" in t.columns)
    assert set(ranking["system"]) == {"VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"}
    assert (ranking["rank_low"] <= ranking["rank_high"]).all()


def test_overview_with_sets_too_small_to_test(app):
    """A set below the minimum line count has no clusters: the page still shows its scores."""
    from mtlens import Corpus
    from mtlens.ui import state

    refs, hyp = read(SAMPLE / "ref.txt"), read(SAMPLE / "UEdin.txt")
    state.store().save(Corpus.build({"ref": refs[:10]}, {"UEdin": hyp[:10], "B": refs[:10]}), "tiny", project="T")
    state.store().save(Corpus.build({"ref": refs}, {"UEdin": hyp, "B": refs}), "full", project="T")
    app.switch_page("pages/7_Overview.py").run()
    app.selectbox(key="ov_project").set_value("T").run()
    no_errors(app)
    wide = app.dataframe[0].value
    # BLEU with its one decimal, as every table shows it (mtlens/exports/numbers.py)
    assert wide.loc["B", "tiny"] == "100.0" and wide.loc["B", "full"] == "100.0 (1)"


def test_a_new_upload_after_opening_another_set_never_deletes_the_first(app):
    """Upload A; go back to the sample; upload other files: both uploads stay saved."""
    from mtlens.ui import state

    ref = ("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain")
    _upload(app, "up_refs", ref)
    _upload(app, "up_systems", ("A.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"))
    app.run()
    first = app.query_params["set"]
    app.button(key="go_sample").click().run()
    assert app.query_params["set"] == "sample"
    _upload(app, "up_systems", ("B.txt", (SAMPLE / "Online-W.txt").read_bytes(), "text/plain"))
    app.run()
    no_errors(app)
    second = app.query_params["set"]
    ids = {s.id for s in state.store().list()}
    assert first != second and {first, second} <= ids


def test_sentence_scatter_of_two_metrics(app):
    import json

    app.switch_page("pages/2_Sentences.py").run()
    app.selectbox(key="sent_metric").set_value("bleu")
    app.toggle(key="sent_scatter_on").set_value(True).run()
    app.selectbox(key="sent_scatter_metric").set_value("chrf").run()
    no_errors(app)
    from mtlens import Corpus, score

    from ..conftest import pair_files

    refs, systems = pair_files(SAMPLE)
    res = score(Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems), "bleu,chrf")
    a = app.selectbox(key="sent_a").value
    fig = json.loads(app.get("plotly_chart")[0].proto.spec)

    def values(v):  # plotly sends numeric arrays base64-encoded with their dtype
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]) if isinstance(v, dict) else np.array(v)

    np.testing.assert_allclose(values(fig["data"][0]["x"]), res["bleu"].sentence_scores(a), atol=1e-9)
    np.testing.assert_allclose(values(fig["data"][0]["y"]), res["chrf"].sentence_scores(a), atol=1e-9)


def test_tables_show_each_metrics_decimals_and_a_dash_for_missing_values(app):
    """Rankings: BLEU with one decimal (as sacrebleu prints it), NIST with two. Significance on NIST (no
    published human-agreement fit): "-" in that column, never "None"; p-values with three decimals."""
    import re

    from .conftest import shown

    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    table = app.dataframe[0]
    text = shown(table)
    for k, value in enumerate(table.value["bleu"]):
        assert text["bleu"][k] == f"{value:.1f}"
        assert text["nist"][k] == f"{table.value['nist'][k]:.2f}"
    app.switch_page("pages/4_Significance.py").run()
    app.selectbox(key="sig_metric").set_value("nist").run()
    no_errors(app)
    pairs = next(d for d in app.dataframe if "humans agree (est.)" in d.value.columns)
    text = shown(pairs)
    assert set(text["humans agree (est.)"]) == {"-"} and not any("None" in str(v) for v in text.values.ravel())
    assert all(re.fullmatch(r"\d\.\d{3}", p) for p in text["p"])
    assert all(re.fullmatch(r"-?\d+\.\d{2}", d) for d in text["delta (a - b)"])


def test_significance_colours_separate_significant_from_not():
    """The heatmap's colour scale (plotly's own interpolation): p = 0.057 looks like p = 0.9, not like
    p = 0.006; every p below alpha is a shade of the significant colour."""
    from plotly.colors import sample_colorscale

    from mtlens.exports.html import p_text
    from mtlens.ui.screens import significance

    scale = significance.significance_colorscale(0.05)
    ps = [0.006, 0.049, 0.051, 0.057, 0.9]
    colour = dict(zip(ps, sample_colorscale(scale, ps), strict=True))
    assert colour[0.057] == colour[0.9] == colour[0.051]
    assert colour[0.006] != colour[0.057] and colour[0.049] != colour[0.051]
    green = [int(x) for x in colour[0.049].strip("rgb()").split(",")]
    assert green[1] > green[0] and green[1] > green[2]  # a green, not the pale grey
    assert p_text(0.0004) == "< 0.001" and p_text(0.0571) == "0.057"


def test_the_sidebar_names_the_home_page_home_and_lists_every_page(app):
    from pathlib import Path

    links = [(e.proto.label, e.proto.page) for e in app.get("page_link")]
    assert links[0] == ("Home", "")  # Streamlit's own list called it "app"
    pages = sorted(Path(ROOT / "pages").glob("*.py"), key=lambda p: int(p.stem.split("_")[0]))
    assert [label for label, _ in links[1:]] == [p.stem.split("_", 1)[1].replace("_", " ") for p in pages]
    assert "Presentation" in dict(links)


def test_every_cached_computation_says_what_it_does_while_it_runs():
    """Each computation the pages cache shows a spinner naming the work on a cache miss (a page never sits
    blank for seconds): read from the decorators in mtlens/ui/cached.py (the one decorator, ``cache``, takes
    the spinner as ``spinner=`` or as its third argument)."""
    import ast

    tree = ast.parse((ROOT / "mtlens" / "ui" / "cached.py").read_text(encoding="utf-8"))
    cached_functions = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                if isinstance(d, ast.Call) and ast.unparse(d.func) in ("cache", "st.cache_resource"):
                    kw = {k.arg: k.value for k in d.keywords}
                    spinner = kw.get("spinner", kw.get("show_spinner"))
                    cached_functions[node.name] = d.args[2] if spinner is None and len(d.args) > 2 else spinner
    assert len(cached_functions) >= 10
    silent = [n for n, v in cached_functions.items() if not (isinstance(v, ast.Constant) and isinstance(v.value, str))]
    assert not silent, silent


def test_download_names_carry_the_sets_name(app):
    from mtlens.ui import state

    assert uploads.slug("WMT21 en-de: <b>run</b> ") == "WMT21-en-de-b-run-b"
    assert uploads.slug("中文 新闻") == "中文-新闻" and uploads.slug("...") == ""
    shown = app.session_state[state.DATA_KEY].name  # the session's set: the bundled sample
    assert (
        uploads.download_name("mtlens-scores", "csv", shown) == "mtlens-scores-Bundled-sample-WMT21-en-de-200-lines.csv"
    )
    assert uploads.download_name("mtlens-report", "html", None) == "mtlens-report.html"


@pytest.mark.parametrize(
    ("pair", "tokenize", "note"),
    [
        ("en-ko", "13a", None),  # Korean puts spaces between words: nothing to say
        ("en-th", "13a", "written without spaces"),  # no tokenizer: words are phrases
        ("en-ja", None, "(a segmenter)"),  # its language's segmenter
    ],
)
def test_words_vs_characters_notes_follow_the_language_module(app, pair, tokenize, note):
    """The note about words follows the language module's rules (core/language.py), not a list of its own:
    Korean is not written without spaces."""
    lines = b"\n".join(f"line {k} x".encode() for k in range(40)) + b"\n"
    _upload(app, "up_refs", ("ref.txt", lines, "text/plain"))
    _upload(app, "up_systems", ("A.txt", lines, "text/plain"), ("B.txt", lines, "text/plain"))
    app.text_input(key="up_lang").set_value(pair)
    app.run()
    no_errors(app)
    app.switch_page("pages/3_Words_vs_characters.py").run()
    if tokenize is not None:
        app.selectbox(key="w_tokenize").set_value(tokenize).run()
    no_errors(app)
    infos = [i.value for i in app.info]
    if note is None:
        assert not any("without spaces" in i or "segmenter)" in i for i in infos), infos
    else:
        assert any(note in i for i in infos), infos


def test_a_table_draws_at_most_its_row_limit_and_says_so(monkeypatch):
    """Issue 38, item 6: a page draws a bounded table (MTLENS_MAX_TABLE_ROWS, default 5,000; the
    downloads hold all rows)."""
    from mtlens.core.limits import DEFAULT_MAX_TABLE_ROWS

    def page():
        import pandas as pd

        from mtlens.ui import export

        export.table(pd.DataFrame({"line": range(1, 12_001)}), name="big", key="big")

    at = AppTest.from_function(page, default_timeout=120)
    at.run()
    assert not at.exception
    assert len(at.dataframe[0].value) == DEFAULT_MAX_TABLE_ROWS == 5_000
    assert any("Showing the first 5,000 of 12,000 rows" in c.value for c in at.caption)
    monkeypatch.setenv("MTLENS_MAX_TABLE_ROWS", "20000")
    at = AppTest.from_function(page, default_timeout=120)
    at.run()
    assert len(at.dataframe[0].value) == 12_000 and not any("Showing the first" in c.value for c in at.caption)


def test_rankings_and_significance_say_how_many_resamples_many_systems_need(tmp_path, monkeypatch):
    """Issue 37, item 2, on the pages: 14 systems (91 pairs) get enough resamples to find differences,
    and the pages say so; a number too small for any pair is said on the Significance page."""
    from mtlens.ui import state

    from ..analysis.test_significance import _fourteen_systems

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    sid = state.store().save(_fourteen_systems(), "fourteen")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params.update({"set": sid, "metrics": "chrf"})
    at.run()
    at.switch_page("pages/1_Rankings.py").run()
    no_errors(at)
    assert any("3,639 resamples, chosen for 91 pairs" in c.value for c in at.caption)
    assert at.dataframe[0].value["cluster (chrf)"].nunique() > 1
    # issue 47: the clusters' rule names the count drawn (3,639, computed independently above), never "1000"
    rule = next(c.value for c in at.caption if c.value.startswith("Clusters:"))
    assert "paired bootstrap, 3,639 resamples, Holm-corrected p < 0.05" in rule
    at.switch_page("pages/7_Overview.py").run()
    no_errors(at)
    at.selectbox(key="ov_metric").set_value("chrf").run()
    no_errors(at)
    rule = next(c.value for c in at.caption if "Cluster:" in c.value)
    assert "(paired bootstrap, 3,639 resamples, Holm-corrected p < 0.05)" in rule, rule  # the one saved set
    at.switch_page("pages/4_Significance.py").run()
    no_errors(at)
    at.number_input(key="sig_n_bootstrap").set_value(1000).run()
    no_errors(at)
    assert any("cannot make any pair significant" in w.value for w in at.warning)


def test_each_upload_gets_a_name_no_other_set_has(tmp_path, monkeypatch):
    """Issue 51: every upload became a saved set with the same automatic name; a second upload of the same kind
    is "... (2)", and an upload grown by a file keeps replacing its own set (the list never fills with states)."""
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    ref = ("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain")
    sys_a = ("A.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain")
    sessions = []
    for _ in range(2):  # two sessions upload the same kind of set
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        _upload(at, "up_refs", ref)
        _upload(at, "up_systems", sys_a)
        at.run()
        no_errors(at)
        sessions.append(sorted(s.name for s in state.store().list()))
    base = sessions[0][0]
    assert base.startswith("1 system, ") and sessions[1] == [base, f"{base} (2)"]
    _upload(at, "up_systems", sys_a, ("B.txt", (SAMPLE / "HuaweiTSC.txt").read_bytes(), "text/plain"))
    at.run()  # the second session's upload grows by a system: it replaces its own set, "(2)" is free again
    no_errors(at)
    grown = base.replace("1 system, ", "2 systems, ")
    assert sorted(s.name for s in state.store().list()) == [base, grown]


def test_compare_two_systems_says_each_step_and_computes_the_power_once(tmp_path, monkeypatch):
    """Issue 51: Compare two systems' first load (13 s on a large set) showed no progress, and its power estimate
    (a bootstrap) ran again on every rerun. The page now says each part before computing it, in order, and a
    rerun that changes nothing about the pair (the rows shown) does not estimate the power again."""
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    from mtlens.analysis import significance

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    st.cache_resource.clear()  # the pages' cache is the process's: another test may have computed this pair
    said, powers = [], []
    real_progress, real_power = DeltaGenerator.progress, significance.pair_power

    def progress(self, value, text=None):
        said.append(text)
        return real_progress(self, value, text=text)

    def power(*args, **kwargs):
        powers.append(args[1:3])
        return real_power(*args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "progress", progress)
    monkeypatch.setattr(significance, "pair_power", power)
    at = AppTest.from_file(str(ROOT / "pages" / "6_Compare_two_systems.py"), default_timeout=300)
    at.query_params["set"] = "sample"
    at.run()
    no_errors(at)
    assert said == [
        "Step 1 of 5: scores…",
        "Step 2 of 5: n-grams…",
        "Step 3 of 5: buckets by length…",
        "Step 4 of 5: buckets by word frequency…",
        "Step 5 of 5: largest differences…",
    ]
    assert len(powers) == 1 and not at.get("progress")  # the bar is gone once the page is drawn
    at.slider(key="cmp_top").set_value(30).run()
    no_errors(at)
    assert len(powers) == 1


def test_an_upload_says_it_is_saved_and_under_which_distinct_name(tmp_path, monkeypatch):
    """Issue 51: every upload silently became a saved set with the same automatic name. Each is saved under a name
    no other set of the visitor has, and the page says so."""
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    ref = (SAMPLE / "ref.txt").read_bytes()
    names = []
    for hyp in ("UEdin.txt", "Online-W.txt"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        _upload(at, "up_refs", ("ref.txt", ref, "text/plain"))
        _upload(at, "up_systems", (hyp, (SAMPLE / hyp).read_bytes(), "text/plain"))
        at.run()
        no_errors(at)
        said = [plain(s.value) for s in at.success if "Saved in your workspace as" in plain(s.value)]
        assert len(said) == 1, [s.value for s in at.success]
        names.append(said[0].split("'")[1])
    assert names == ["1 system, no language, 200 lines", "1 system, no language, 200 lines (2)"]


def test_a_tables_files_are_made_when_clicked_not_with_every_run(app):
    """The CSV, LaTeX and Excel buttons under a table (export.table) hold no file: each is made on its click
    (Streamlit's deferred download), so no run writes files nobody asked for and no session keeps their bytes. The
    Rankings' own CSV and LaTeX, small and with signatures, are still sent with the page."""
    for page in ("pages/1_Rankings.py", "pages/2_Sentences.py"):
        app.switch_page(page).run()
        no_errors(app)
        table_buttons = [
            b
            for b in app.get("download_button")
            if b.key.endswith(("_csv", "_tex", "_xlsx")) and not b.key.startswith("dl_")
        ]
        assert len(table_buttons) >= 3
        assert all(b.proto.HasField("deferred_file_id") and not b.proto.url for b in table_buttons), page
    sent = {b.key: b.proto for b in app.switch_page("pages/1_Rankings.py").run().get("download_button")}
    assert sent["dl_csv"].url and not sent["dl_csv"].HasField("deferred_file_id")

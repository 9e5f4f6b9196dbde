"""AppTest: every page renders on the sample data; uploads, option changes and errors behave."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from ..conftest import ROOT, SAMPLE, read
from .conftest import no_errors

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
    assert any("'B.txt' has 2 lines, the reference 'ref.txt' has 3" in e.value for e in app.error)
    assert "VolcTrans-GLAT" in list(app.dataframe[0].value["name"])
    _upload(app, "up_systems", ("bin.txt", b"\x00\x01\x02", "application/octet-stream"))
    app.run()
    assert any("looks binary" in e.value for e in app.error)
    _upload(app, "up_systems", ("latin.txt", "Größe\na\nb\n".encode("latin-1"), "text/plain"))
    app.run()
    assert any("not valid UTF-8: line 1" in e.value for e in app.error)


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
    assert any("tok:intl" in c.value and "case:lc" in c.value for c in app.code)
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

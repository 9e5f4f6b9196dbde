"""The History page (issue 34) in AppTest: runs over time with significant steps, the link as the view, the
add-a-run form for who may change the set, and nothing for a link reader to change."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from mtlens.core.corpus import Corpus

from ..conftest import ROOT, SAMPLE, read
from .conftest import errors, no_errors


def _bytes(name: str, swap: bool = False) -> bytes:
    lines = read(SAMPLE / f"{name}.txt")
    if swap:
        lines = [lines[(i + 7) % len(lines)] if i % 5 == 0 else x for i, x in enumerate(lines)]
    return ("\n".join(lines) + "\n").encode()


def _set_with_runs(tmp_path, monkeypatch, owner=None) -> str:
    from mtlens.service.runs import add_run
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = state.store()
    refs = {"ref": read(SAMPLE / "ref.txt"), "ref2": read(SAMPLE / "ref2.txt")}
    sid = store.save(Corpus.build(refs, {"UEdin": read(SAMPLE / "UEdin.txt")}), "history", owner=owner)
    add_run(store, sid, _bytes("Online-W"), "a.txt", name="m-1", family="m", at="2026-11-01")
    add_run(store, sid, _bytes("Online-W", swap=True), "b.txt", name="m-2", family="m", at="2026-11-02")
    return sid


def _page(sid: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "10_History.py"), default_timeout=120)
    at.query_params.update({"set": sid, **params})
    return at.run()


def test_runs_their_steps_and_the_chart_markers(tmp_path, monkeypatch):
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = _page(sid)
    no_errors(at)
    table = at.dataframe[0].value
    assert list(table["run"]) == ["m-1", "m-2", "UEdin"]  # time order; UEdin was saved today
    assert table.loc[1, "bleu step"].startswith("-") and table.loc[1, "bleu step"].endswith("*")
    assert table.loc[0, "bleu step"] == "-"
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 2  # bleu and chrF
    stars = [t for t in charts[0]["data"] if t.get("marker", {}).get("symbol") == "star"]
    assert len(stars) == 1 and stars[0]["x"] == ["2026-11-02T00:00:00+00:00"]
    assert at.query_params["metrics"] == "bleu,chrf"


def test_the_link_is_the_view(tmp_path, monkeypatch):
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = _page(sid, family="m", metrics="chrf", baseline="UEdin")
    no_errors(at)
    assert at.selectbox(key="hist_family_pick").value == "m"
    assert at.multiselect(key="hist_metrics").value == ["chrf"]
    table = at.dataframe[0].value
    assert list(table["run"]) == ["m-1", "m-2"] and "chrf vs UEdin" in table.columns
    assert len(at.get("plotly_chart")) == 1


def test_the_owner_adds_a_run_and_it_appears_with_its_step(tmp_path, monkeypatch):
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = _page(sid)
    at.file_uploader(key="hist_file").set_value([("m-3.txt", _bytes("Online-W"), "text/plain")])
    at.text_input(key="hist_family").set_value("m")
    at.text_area(key="hist_meta").set_value("step=3000\ncommit=abc")
    at.button(key="FormSubmitter:hist_add-Add run").click().run()
    no_errors(at)
    assert not errors(at), errors(at)
    table = at.dataframe[0].value
    # made now (the form's time, to the minute): after m-2. Not compared with UEdin, saved "now" to the second
    # with the set: across a minute's boundary the two change places (a flake seen once in a full run)
    assert [r for r in table["run"] if r.startswith("m-")] == ["m-1", "m-2", "m-3"]
    assert table.loc[table["run"] == "m-3", "bleu step"].iloc[0].startswith("+")
    assert any("Added run" in s.value for s in at.success), [s.value for s in at.success]
    from mtlens.ui import state

    run = next(r for r in state.store().runs(sid) if r.name == "m-3")
    assert run.family == "m" and run.meta == {"step": "3000", "commit": "abc"}


def test_a_wrong_line_count_is_one_sentence_and_nothing_is_added(tmp_path, monkeypatch):
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = _page(sid)
    at.file_uploader(key="hist_file").set_value([("short.txt", b"a\nb\n", "text/plain")])
    at.button(key="FormSubmitter:hist_add-Add run").click().run()
    no_errors(at)
    assert any("has 2 lines; the set's references have 200" in e for e in errors(at))
    from mtlens.ui import state

    assert [r.name for r in state.store().runs(sid)] == ["m-1", "m-2", "UEdin"]


def test_a_link_reader_sees_the_history_but_no_form(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    sid = _set_with_runs(tmp_path, monkeypatch, owner="browser:someone-else")
    at = _page(sid)
    no_errors(at)
    assert list(at.dataframe[0].value["run"]) == ["m-1", "m-2", "UEdin"]
    assert not [u for u in at.get("file_uploader")]


def test_a_bundle_uploaded_into_the_set_adds_its_new_runs(tmp_path, monkeypatch):
    from mtlens.service.bundles import export_bundle, import_bundle
    from mtlens.service.runs import add_run
    from mtlens.ui import state

    sid = _set_with_runs(tmp_path, monkeypatch)
    store = state.store()
    elsewhere = import_bundle(store, export_bundle(store, sid))  # a colleague's copy, one more run in it
    add_run(store, elsewhere, _bytes("HuaweiTSC"), "c.txt", name="m-3", family="m", at="2026-11-03")
    at = _page(sid)
    at.file_uploader(key="hist_file").set_value(
        [("set.mtlens.gz", export_bundle(store, elsewhere), "application/gzip")]
    )
    at.button(key="FormSubmitter:hist_add-Add run").click().run()
    no_errors(at)
    assert not errors(at), errors(at)
    assert list(at.dataframe[0].value["run"]) == ["m-1", "m-2", "m-3", "UEdin"]


def test_the_presentation_has_a_slide_of_the_runs(tmp_path, monkeypatch):
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = AppTest.from_file(str(ROOT / "pages" / "9_Presentation.py"), default_timeout=120)
    at.query_params.update({"set": sid, "metric": "bleu", "slide": "3"})
    at.run()
    no_errors(at)
    html = at.get("html")[0].proto.body
    assert "Runs over time: BLEU" in html and "m-2" in html and "mtl-sig" in html


def test_a_long_history_is_shown_a_view_at_a_time(tmp_path, monkeypatch):
    """Issue 51: a page of 520 runs tested all their steps at once. The page shows VIEW_RUNS runs (3 here) and
    offers the older ones as other views; each view's table holds its runs."""
    from mtlens.service import runs as service_runs
    from mtlens.service.runs import add_run
    from mtlens.ui import state

    sid = _set_with_runs(tmp_path, monkeypatch)
    for k in range(3, 7):
        add_run(
            state.store(),
            sid,
            _bytes("Online-W", swap=k % 2 == 0),
            f"{k}.txt",
            name=f"m-{k}",
            family="m",
            at=f"2026-11-0{k}",
        )
    monkeypatch.setattr(service_runs, "VIEW_RUNS", 3)
    at = _page(sid, family="m")
    no_errors(at)
    pick = at.selectbox(key="hist_view")
    assert pick.options == ["runs 4 to 6 of 6 (the newest)", "runs 1 to 3 of 6"]
    assert list(at.dataframe[0].value["run"]) == ["m-4", "m-5", "m-6"]
    pick.select_index(1).run()
    no_errors(at)
    assert list(at.dataframe[0].value["run"]) == ["m-1", "m-2", "m-3"]


def test_a_run_added_with_what_it_was_tuned_on_and_cost(tmp_path, monkeypatch):
    """The form's facts are the command line's (``add --tuned-on --cost --seconds-per-segment``): kept as the run's
    metadata, the tuned-on metrics as families; a bad one is one sentence and nothing is added."""
    sid = _set_with_runs(tmp_path, monkeypatch)
    at = _page(sid)
    at.file_uploader(key="hist_file").set_value([("m-3.txt", _bytes("Online-W"), "text/plain")])
    at.text_input(key="hist_tuned_on").set_value("xcomet, bleurt")
    at.number_input(key="hist_cost").set_value(3.5)
    at.number_input(key="hist_latency").set_value(0.25)
    at.button(key="FormSubmitter:hist_add-Add run").click().run()
    no_errors(at)
    assert not errors(at), errors(at)
    from mtlens.ui import state

    run = next(r for r in state.store().runs(sid) if r.name == "m-3")
    assert run.meta == {"tuned_on": "comet,learned", "cost_usd": "3.5", "seconds_per_segment": "0.25"}
    at.file_uploader(key="hist_file").set_value([("m-4.txt", _bytes("Online-W"), "text/plain")])
    at.text_input(key="hist_tuned_on").set_value("vibes")
    at.button(key="FormSubmitter:hist_add-Add run").click().run()
    assert any("tuned on takes metric families" in e for e in errors(at)), errors(at)
    assert "m-4" not in [r.name for r in state.store().runs(sid)]

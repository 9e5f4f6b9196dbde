"""The History page in real headless Chromium (issue 34): a run uploaded into a saved set appears as a new
point with its significant step starred; the page's link opened in a fresh browser context shows the same."""

from __future__ import annotations

import os

from mtlens.core.corpus import Corpus
from mtlens.service.runs import add_run
from mtlens.storage.store import Store

from ..conftest import SAMPLE, read
from .test_browser import UPLOADER, _idle, browser, running_server  # noqa: F401 (the fixture)

#: the plotly traces of every chart on the page, as plotly holds them (``el.data`` of each plot)
TRACES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
    el => (el.data || []).map(t => ({name: t.name, symbol: (t.marker || {}).symbol || null, x: t.x || [],
                                   text: Array.isArray(t.text) ? t.text : []})))"""


def _stars(page) -> list[list]:
    """Per chart, the x values of its significant-step markers."""
    charts = page.evaluate(TRACES)
    return [[x for t in traces if t["symbol"] == "star" for x in t["x"]] for traces in charts]


def _points(page) -> list[str]:
    """The run names of the first chart's points (their hover text)."""
    traces = page.evaluate(TRACES)[0]
    return [x for t in traces if t["symbol"] != "star" for x in t["text"]]


def test_a_run_uploaded_into_a_saved_set_appears_with_its_step_and_the_link_shows_it(browser, tmp_path):  # noqa: F811
    data = tmp_path / "ws"
    store = Store(data)
    refs = {"ref": read(SAMPLE / "ref.txt"), "ref2": read(SAMPLE / "ref2.txt")}
    sid = store.save(Corpus.build(refs, {"UEdin": read(SAMPLE / "UEdin.txt")}), "history in chromium")
    good = read(SAMPLE / "Online-W.txt")
    add_run(store, sid, ("\n".join(good) + "\n").encode(), "m-1.txt", family="m", at="2026-11-01")
    worse = [good[(i + 7) % len(good)] if i % 5 == 0 else x for i, x in enumerate(good)]
    upload = tmp_path / "m-2.txt"
    upload.write_text("\n".join(worse) + "\n", encoding="utf-8")
    env = dict(os.environ, MTLENS_DATA_DIR=str(data))
    with running_server(tmp_path, env=env) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 2400})
        page = ctx.new_page()
        page.goto(f"{url}/History?set={sid}")
        page.get_by_text("Runs", exact=True).wait_for(timeout=120_000)
        _idle(page)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length == 2", timeout=120_000)
        assert _stars(page) == [[], []]  # one run of the family: no step yet
        page.get_by_text("Add a run to this set").click()
        page.locator(UPLOADER.format("hist_file")).set_input_files(str(upload))
        # the upload reaches the server asynchronously: submitting before the uploader lists the file sends
        # the form without it (what a too-quick user would meet too; the page then says to choose the file)
        page.locator(".st-key-hist_file").get_by_text("m-2.txt").wait_for(timeout=60_000)
        page.locator(".st-key-hist_family input").fill("m")
        page.get_by_role("button", name="Add run").click()
        done = page.get_by_text("Added run").or_(page.locator('[data-testid="stAlertContentError"]'))
        done.first.wait_for(timeout=120_000)
        assert page.get_by_text("Added run").count() == 1, page.locator('[data-testid="stMain"]').inner_text()
        _idle(page)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length == 2", timeout=120_000)
        stars = _stars(page)
        assert [len(s) for s in stars] == [1, 1], stars  # BLEU and chrF: the new run's step is significant
        assert _points(page) == ["m-1", "m-2", "UEdin"]  # the new point, in time order (UEdin: saved now)
        assert page.locator('[data-testid="stException"]').count() == 0
        link = page.url
        assert f"set={sid}" in link and ("metrics=bleu%2Cchrf" in link or "metrics=bleu,chrf" in link)
        # the link in a fresh context (another browser, a colleague): the same point and the same step
        other = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
        other.goto(link)
        other.get_by_text("Runs", exact=True).wait_for(timeout=120_000)
        _idle(other)
        other.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length == 2", timeout=120_000)
        assert _stars(other) == stars
        assert _points(other) == ["m-1", "m-2", "UEdin"]
        ctx.close()

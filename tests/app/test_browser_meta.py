"""Issue 61 in real headless Chromium: an MQM file with a second rater on every item uploaded alone; the Human
correlation page shows "Which judge to trust, as WMT25 measures it" with the sentinel's row and the human
ceiling's, in the downloaded table and in the chart drawn on the page."""

from __future__ import annotations

import csv

import pytest

from ..analysis.test_meta_table import _two_raters
from .test_browser import _deferred_download, _goto, _idle, browser, running_server
from .test_browser_annotations import upload_annotations

__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("meta")) as url:
        yield url


def test_the_sentinel_and_the_human_ceiling_are_on_the_page(browser, server, tmp_path):
    path = _two_raters(tmp_path)
    ctx, page = upload_annotations(browser, server, path)
    try:
        _goto(page, "Human correlation")
        page.get_by_text("Which judge to trust, as WMT25 measures it").wait_for(timeout=120_000)
        _idle(page)
        dl = _deferred_download(page, page.locator(".st-key-hc_wmt25_table_csv button"))  # made on the click
        saved = tmp_path / "meta.csv"
        dl.save_as(saved)
        rows = {r["metric"]: r for r in csv.DictReader(saved.open(encoding="utf-8"))}
        assert rows["sentinel:length"]["role"] == "sentinel"
        assert rows["human:MQM (second of 2 raters)"]["role"] == "human ceiling"
        assert float(rows["human:MQM (second of 2 raters)"]["span_f1"]) == pytest.approx(0.5)
        # the chart: one bar per source, named on its axis (the sentinel in grey, the ceiling in green)
        chart = page.locator(".st-key-hc_wmt25_chart")
        chart.locator("text", has_text="sentinel:length").first.wait_for(timeout=60_000)
        assert chart.locator("text", has_text="second of 2 raters").count() >= 1
    finally:
        ctx.close()

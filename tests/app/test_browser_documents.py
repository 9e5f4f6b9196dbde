"""Documents and domains in real headless Chromium (issue 35): Rankings by domain, a document opened on the
Sentences page, the slices panel on Compare two systems; a set with documents and two domains."""

from __future__ import annotations

import os

from mtlens.readers.testset import load_corpus
from mtlens.storage.store import Store

from ..conftest import SAMPLE
from .test_browser import _deferred_download, _idle, browser, running_server  # noqa: F401 (the fixture)

SYSTEMS = ("UEdin", "Online-W", "HuaweiTSC")


def _table_csv(page, key: str, tmp_path) -> str:
    """A keyed table as its CSV download gives it (the grid itself is drawn on a canvas)."""
    dl = _deferred_download(page, page.locator(f".st-key-{key}_csv button"))  # the file is made on the click
    path = tmp_path / f"{key}.csv"
    dl.save_as(path)
    return path.read_text(encoding="utf-8")


def test_rankings_by_domain_a_document_and_the_slices(browser, tmp_path):  # noqa: F811
    corpus = load_corpus([SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], [SAMPLE / f"{s}.txt" for s in SYSTEMS])
    corpus = corpus.with_documents([f"d{i // 5}" for i in range(200)], ["news"] * 100 + ["social"] * 100)
    sid = Store(tmp_path / "ws").save(corpus, "documents in chromium")
    env = dict(os.environ, MTLENS_DATA_DIR=str(tmp_path / "ws"))
    with running_server(tmp_path, env=env) as url:
        page = browser.new_context(viewport={"width": 1600, "height": 2400}, accept_downloads=True).new_page()
        page.goto(f"{url}/Rankings?set={sid}&metrics=bleu,chrf")
        page.get_by_text("40 documents · 2 domain(s): news, social").wait_for(timeout=120_000)
        _idle(page)
        page.get_by_text("By domain: every metric on each domain's lines").click()
        page.locator(".st-key-rank_domain_table_csv button").wait_for(timeout=120_000)
        _idle(page)
        head = _table_csv(page, "rank_domain_table", tmp_path)
        assert "news bleu (100 lines)" in head and "social cluster (bleu)" in head, head
        # a document opened on Sentences: its five lines in document order, and its scores
        page.goto(f"{url}/Sentences?set={sid}&domain=social&doc=d23&metric=chrf")
        page.get_by_text("Document d23: 5 lines in document order").wait_for(timeout=120_000)
        _idle(page)
        assert page.get_by_text("5 of 200 lines").count() == 1
        # the slices on Compare two systems
        page.goto(f"{url}/Compare_two_systems?set={sid}&a=UEdin&b=Online-W&metric=chrf")
        page.get_by_text("Slices: the kinds of lines").click()
        page.locator(".st-key-cmp_slices_table_csv button").wait_for(timeout=120_000)
        _idle(page)
        cells = _table_csv(page, "cmp_slices_table", tmp_path)
        assert "A and B differ" in cells and "social" in cells, cells
        assert page.locator('[data-testid="stException"]').count() == 0

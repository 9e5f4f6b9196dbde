"""Human error annotations in real headless Chromium: an MQM file uploaded alone becomes a set whose
sentence view draws each Major span over exactly the characters the file's <v> tags mark (German and
Chinese, several lines), and the category filter keeps only matching lines."""

from __future__ import annotations

import re

import pytest

from mtlens.readers.mqm import read_mqm_tsv

from ..conftest import TESTDATA
from .conftest import lines_with
from .test_browser import UPLOADER, _goto, _idle, browser, low_contrast, running_server

__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("annotations")) as url:
        yield url


def _majors(ann, limit=3):
    """(system, line index, segment, error) of the first Major errors with a span, on different lines."""
    found, lines = [], set()
    for system in ann.systems:
        for k, seg_id in enumerate(ann.seg_ids):
            seg = ann.segments[(system, seg_id)]
            for e in seg.errors:
                if e.severity == "Major" and e.start is not None and (system, k) not in lines:
                    found.append((system, k, seg, e))
                    lines.add((system, k))
        if len(found) >= limit:
            return found[:limit]
    return found


def upload_annotations(browser, server, path, color_scheme="light"):
    """A new browser context on the home page with the annotation file uploaded alone: ``(context, page)``."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 2600}, color_scheme=color_scheme)
    page = ctx.new_page()
    page.goto(server)
    page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Optional: source text, documents and human scores").click()
    page.locator(UPLOADER.format("up_annotations")).set_input_files([str(path)])
    # the upload is processed (and saved) before leaving the page: a page switch while the home page still
    # reads the file would leave the session on the sample (a cold server on two cores is slow enough)
    page.get_by_text("your upload").first.wait_for(timeout=120_000)
    _idle(page)
    return ctx, page


def _open_annotated(browser, server, path, color_scheme="light"):
    """A new browser context on the home page, the annotation file uploaded alone, then the Sentences page."""
    ctx, page = upload_annotations(browser, server, path, color_scheme)
    _goto(page, "Sentences")
    page.get_by_text("What human raters marked").wait_for(timeout=60_000)
    return ctx, page


def _choose(page, key, value):
    """Pick ``value`` in the selectbox with widget key ``key``: open it, type to search, pick the option."""
    box = page.locator(f'.st-key-{key} input[role="combobox"]')
    box.click()
    box.fill(value)
    page.get_by_role("option", name=value, exact=True).click()
    _idle(page)


@pytest.mark.parametrize("pair", ["ende", "zhen"])
def test_major_spans_cover_exactly_the_tagged_characters(browser, server, pair):
    path = TESTDATA / "mqm" / f"mqm_ted_{pair}.excerpt.tsv"
    ann = read_mqm_tsv(path.read_bytes(), path.name)
    rows = path.read_text(encoding="utf-8").splitlines()
    ctx, page = _open_annotated(browser, server, path, color_scheme="dark" if pair == "ende" else "light")
    try:
        for system, k, seg, error in _majors(ann):
            tagged = re.search(r"<v>(.*?)</v>", rows[error.row - 1].split("\t")[6]).group(1)
            assert seg.hypothesis[error.start : error.end] == tagged
            _choose(page, "sent_a", system)
            box = page.locator(".st-key-sent_line_input input")
            box.fill(str(k + 1))
            box.press("Enter")
            _idle(page)
            container = page.locator(f'[class*="st-key-mqm_{k}_"][class*="_{error.by}-"]').first
            container.wait_for(timeout=60_000)
            spans = container.locator(".mtl-mqm.mtl-err-major")
            texts = [spans.nth(j).text_content() for j in range(spans.count())]
            assert tagged in texts, (system, k, tagged, texts)
            title = spans.nth(texts.index(tagged)).get_attribute("title")
            assert error.category in title and error.by in title
        bad, measured, _ = low_contrast(page)  # the error chips are readable (WCAG AA) in this scheme
        assert measured >= 3 and not bad, bad[:5]
    finally:
        ctx.close()


def test_the_category_filter_works_in_the_browser(browser, server):
    path = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
    ann = read_mqm_tsv(path.read_bytes(), path.name)
    category = "Accuracy/Mistranslation"
    system = max(ann.systems, key=lambda s: len(lines_with(ann, s, category)))
    ctx, page = _open_annotated(browser, server, path)
    try:
        _choose(page, "sent_a", system)
        page.get_by_text(f"{len(ann.seg_ids)} of {len(ann.seg_ids)} lines").wait_for(timeout=60_000)
        _choose(page, "sent_f_category", category)
        page.get_by_text(f"{len(lines_with(ann, system, category))} of {len(ann.seg_ids)} lines").wait_for(
            timeout=60_000
        )
        assert "category=Accuracy%2FMistranslation" in page.url or "category=Accuracy/Mistranslation" in page.url
    finally:
        ctx.close()

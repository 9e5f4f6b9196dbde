"""A COMET job in real headless Chromium: started on an uploaded set from the Rankings page, the page
reloaded mid-way (the job goes on in its own process and finishes), a second visitor's click joins the
same job, and the Rankings CSV then carries the comet:NAME column with the cached scores' means."""

from __future__ import annotations

import csv
import os
import time

import numpy as np
import pytest

from mtlens.neural import models as neural
from mtlens.neural import segments as neural_segments
from mtlens.storage.store import Store

from ..conftest import SAMPLE
from .test_browser import _goto, _idle, _upload, browser, running_server

__all__ = ["browser"]
N = 64


@pytest.fixture(scope="module")
def setup(tmp_path_factory, neural_python, tiny_models):
    """A server whose workspace has the tiny model registered; small calls, so a reload lands mid-way."""
    data = tmp_path_factory.mktemp("neural-store")
    model = neural.add_model(Store(data), "tiny", tiny_models["tiny-comet"])
    files = tmp_path_factory.mktemp("neural-upload")
    for name in ("ref", "src", "UEdin", "Online-W"):
        lines = (SAMPLE / f"{name}.txt").read_text(encoding="utf-8").split("\n")[:N]
        (files / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "MTLENS_DATA_DIR": str(data), "MTLENS_NEURAL_CHUNK": "16"}
    with running_server(tmp_path_factory.mktemp("neural-server"), env=env) as url:
        yield url, Store(data), model, files


def _open_panel(page):
    """Open the panel's expander (again, if a rerun of the still-loading page closed it)."""
    button = page.locator(".st-key-neural_start button")
    for _ in range(20):
        _idle(page)
        if button.is_visible():
            return
        page.locator("summary", has_text="Neural metrics (COMET, CometKiwi, xCOMET, MetricX-24)").click()
        page.wait_for_timeout(1000)
    button.wait_for(timeout=10_000)


def _job(store, model):
    rows = [j for s in store.list() for j in store.jobs(s.id)]
    return next((j for j in rows if j["digest"] == model.digest), None)


def test_a_job_survives_a_reload_is_shared_and_adds_its_column(browser, setup, tmp_path):
    url, store, model, files = setup
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    page = ctx.new_page()
    page.goto(url)
    page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Optional: source text, documents and human scores").click()
    page.locator('.st-key-up_source [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        str(files / "src.txt")
    )
    _idle(page)
    _upload(page, [files / "ref.txt"], [files / "UEdin.txt", files / "Online-W.txt"])
    _goto(page, "Rankings")
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _open_panel(page)
    page.locator(".st-key-neural_start button").click()
    page.get_by_text("segments").first.wait_for(timeout=120_000)

    end = time.time() + 120
    while time.time() < end and not ((j := _job(store, model)) and j["state"] == "running" and j["done"] > 0):
        time.sleep(0.1)
    job = _job(store, model)
    assert job["state"] == "running" and 0 < job["done"] < job["total"] == 2 * N, job
    pid = job["pid"]
    page.reload()  # mid-way: the job is not the page's
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    assert _job(store, model)["pid"] == pid

    other = browser.new_context(viewport={"width": 1400, "height": 2200})
    second = other.new_page()
    second.goto(page.url)  # the link names the set and the page
    second.get_by_text("Signatures").wait_for(timeout=120_000)
    _open_panel(second)
    second.locator(".st-key-neural_start button").click()
    page.wait_for_timeout(1000)
    assert _job(store, model)["pid"] == pid  # joined, not started again
    other.close()

    page.get_by_text("comet:tiny: done, 128 segments scored").wait_for(timeout=240_000)
    _idle(page)
    with page.expect_download(timeout=60_000) as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / "scores.csv"
    dl.value.save_as(path)
    rows = {r["system"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    set_id = page.url.split("set=")[1].split("&")[0]
    want = neural_segments.cached_scores(store, model, store.load(set_id).corpus).scores
    for system in ("UEdin", "Online-W"):
        assert float(rows[system]["comet:tiny"]) == pytest.approx(float(np.mean(want[system])), abs=1e-6)
    ctx.close()

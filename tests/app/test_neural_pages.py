"""Neural metrics in the dashboard (AppTest): the Rankings panel starts a background job on the shown set,
a second click joins it, and the finished job's column appears with comet-score's system scores."""

from __future__ import annotations

import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mtlens.core.corpus import Corpus
from mtlens.neural import models as neural
from mtlens.neural import segments as neural_segments
from mtlens.runtime import jobs
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE
from .conftest import TIMEOUT, no_errors, plain

N = 32


def _open(set_id: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    if set_id:
        at.query_params["set"] = set_id
    at.run()
    no_errors(at)
    at.switch_page("pages/1_Rankings.py").run()
    no_errors(at)
    return at


def test_without_the_extra_the_panel_says_how_to_enable_it(monkeypatch, tmp_path):
    monkeypatch.setenv("MTLENS_NEURAL_PYTHON", str(tmp_path / "no-python"))
    at = _open()
    assert any("install-neural.sh" in plain(i.value) for i in at.info)
    assert not [b for b in at.button if b.key == "neural_start"]


def test_the_score_button_starts_one_job_and_its_column_appears(neural_python, tiny_models, tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))  # its own workspace (the job process inherits it)
    store = Store()
    model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    read = {
        n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]
        for n in ("src", "ref", "UEdin", "Online-W")
    }
    corpus = Corpus.build({"ref": read["ref"]}, {"UEdin": read["UEdin"], "Online-W": read["Online-W"]}, read["src"])
    set_id = store.save(corpus, "neural page test")

    at = _open(set_id)
    assert "comet:tiny" not in at.dataframe[0].value.columns
    start = next(b for b in at.button if b.key == "neural_start")
    start.click().run()
    no_errors(at)
    pid = store.job(set_id, model.digest)["pid"]
    next(b for b in at.button if b.key == "neural_start").click().run()  # again: the same job
    assert store.job(set_id, model.digest)["pid"] == pid
    end = time.time() + 240
    while store.job(set_id, model.digest)["state"] != "done" and time.time() < end:
        time.sleep(0.3)
    assert store.job(set_id, model.digest)["state"] == "done", jobs.status(store, set_id)
    at.run()
    no_errors(at)
    table = at.dataframe[0].value.set_index("system")
    assert "comet:tiny" in table.columns
    want = neural_segments.cached_scores(store, model, corpus).scores
    for system in ("UEdin", "Online-W"):
        assert table.loc[system, "comet:tiny"] == pytest.approx(float(np.mean(want[system])), abs=1e-9)
    assert any("comet:tiny: done, 64 segments scored" in plain(s.value) for s in at.success)


def test_a_metricx_checkpoint_registered_on_the_home_page_scores_from_rankings(neural_python, tiny_metricx, tmp_path,
                                                                                monkeypatch):  # fmt: skip
    """The home page's model form registers a MetricX-24 folder with its tokenizer given apart; Rankings offers both of
    its metrics, and a finished metricx-qe job's column is the mean of its cached segment scores (lower is better)."""
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store()
    read = {
        n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]
        for n in ("src", "ref", "UEdin", "Online-W")
    }
    corpus = Corpus.build({"ref": read["ref"]}, {"UEdin": read["UEdin"], "Online-W": read["Online-W"]}, read["src"])
    set_id = store.save(corpus, "metricx page test")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["set"] = set_id
    at.run()
    no_errors(at)
    at.text_input(key="model_name").input("mx")
    at.text_input(key="model_path").input(str(tiny_metricx["tiny-metricx-bin"]))
    at.text_input(key="model_tokenizer").input(str(tiny_metricx["tokenizer"]))
    next(b for b in at.button if b.label == "Register model").click().run()
    no_errors(at)
    assert any(
        "Registered metricx:mx (metricx) and metricx-qe:mx (lower is better)" in plain(s.value) for s in at.success
    )
    at.switch_page("pages/1_Rankings.py").run()
    no_errors(at)
    box = at.selectbox(key="neural_model")
    assert [o.split(" (")[0] for o in box.options] == ["metricx:mx", "metricx-qe:mx"]
    box.set_value("metricx-qe:mx").run()
    next(b for b in at.button if b.key == "neural_start").click().run()
    no_errors(at)
    qe = neural.get_model(store, "metricx-qe:mx")
    end = time.time() + 240
    while (store.job(set_id, qe.digest) or {}).get("state") != "done" and time.time() < end:
        time.sleep(0.3)
    assert store.job(set_id, qe.digest)["state"] == "done", jobs.status(store, set_id)
    assert store.job(set_id, neural.get_model(store, "metricx:mx").digest) is None  # only the one asked for ran
    at.run()
    no_errors(at)
    table = at.dataframe[0].value.set_index("system")
    want = neural_segments.cached_scores(store, qe, corpus)
    assert want.higher_is_better is False
    for system in ("UEdin", "Online-W"):
        assert table.loc[system, "metricx-qe:mx"] == pytest.approx(float(np.mean(want.scores[system])), abs=1e-9)

"""The load test's light visitor (benchmarks/loadclient.py) receives what a browser is sent: it speaks
Streamlit's WebSocket protocol to a real server, so the figures it gives (README, "Load") are only worth
something if the tables it times are the dashboard's real tables and if it notices a page that fails.

Golden values: sacrebleu's corpus BLEU of the bundled sample (both references), computed here.
"""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import sacrebleu

from ..conftest import ROOT, SAMPLE, read
from .test_browser import SYSTEMS, server  # noqa: F401  (fixture)

sys.path.insert(0, str(ROOT / "benchmarks"))
from loadclient import Visitor


def _visit(url: str, how: str, *args):
    async def go():
        with ThreadPoolExecutor(4) as pool:
            return await getattr(Visitor(url, pool, 240), how)(*args)

    return asyncio.run(go())


def _bleu() -> dict[str, float]:
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    return {s: sacrebleu.corpus_bleu(read(SAMPLE / f"{s}.txt"), refs).score for s in SYSTEMS}


def test_a_light_visitor_receives_the_rankings_table(server):  # noqa: F811
    import pyarrow as pa

    visit = _visit(server, "page", "Rankings", "set=sample")
    assert visit.errors == [] and visit.finished_s is not None
    assert 0 < visit.first_table_s <= visit.finished_s
    table = pa.ipc.open_stream(visit.tables[0]).read_all().to_pandas()
    bleu = _bleu()
    assert list(table["system"]) == sorted(bleu, key=bleu.get, reverse=True)
    assert table["bleu"].tolist() == pytest.approx([bleu[s] for s in table["system"]], abs=1e-9)


def test_a_light_visitor_receives_the_quick_view(server):  # noqa: F811
    visit = _visit(server, "quick", "quick/rankings?set=sample")
    assert visit.errors == [] and visit.first_table_s is not None


def test_a_light_visitor_notices_a_page_without_its_table(server):  # noqa: F811
    visit = _visit(server, "page", "Rankings", "set=" + "0" * 32)  # no such set: one sentence, no table
    assert visit.finished_s is not None and visit.first_table_s is None
    assert any("no table" in e or "error" in e for e in visit.errors), visit.errors
    quick = _visit(server, "quick", "quick/rankings?set=" + "0" * 32)
    assert quick.first_table_s is None and quick.errors, quick.errors


def test_the_server_imports_and_freezes_the_pages_code_before_it_answers(monkeypatch):
    """The load test's finding (docs/decisions.md, "Serving many visitors"): the objects of the imported
    libraries are frozen before the first visitor, so Streamlit's collection after each run skips them."""
    import gc

    from mtlens.ui import server as ui_server
    from mtlens.ui.server import lifespan

    monkeypatch.setattr(ui_server, "stop_workers", lambda: None)  # this test process's workers stay

    async def start():
        async with lifespan(None):
            return gc.get_freeze_count(), set(sys.modules)

    gc.unfreeze()
    try:
        frozen, modules = asyncio.run(start())
    finally:
        gc.unfreeze()
    assert {"mtlens.ui.screens.rankings", "mtlens.ui.screens.sentences", "plotly.graph_objects"} <= modules
    assert frozen > 100_000, frozen  # every object then alive: about 157,000 with pandas and plotly


def test_streamlit_runs_no_full_collection_after_each_run():
    """``runner.postScriptGC`` is off in the dashboard's configuration (docs/decisions.md, "Serving many visitors"),
    and it is an option this Streamlit knows, so the setting is read and not ignored."""
    import tomllib
    from streamlit import config

    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["runner"]["postScriptGC"] is False
    assert "runner.postScriptGC" in config.get_config_options()

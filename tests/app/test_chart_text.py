"""Issue 51: every chart of the dashboard has titled axes and a text alternative under it (the chart in words:
its axes and series, and a bar chart's values), checked on every page of the bundled sample."""

from __future__ import annotations

import html
import json

import pytest
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT
from .conftest import no_errors

PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_every_chart_has_axis_titles_and_a_text_alternative(page, tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=300)
    at.query_params["set"] = "sample"
    at.run()
    no_errors(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    described = [c.value for c in at.caption if c.value.startswith("Chart")]
    assert len(described) == len(charts), (page, described)
    for spec in charts:
        layout = spec["layout"]
        for axis in ("xaxis", "yaxis"):
            assert (layout.get(axis, {}).get("title") or {}).get("text"), (page, axis, layout.get("title"))
    for text, spec in zip(described, charts, strict=True):
        bars = [t for t in spec["data"] if t.get("type") == "bar"]
        for t in bars:
            if 0 < len(t["y"]) <= 12:  # a short bar chart is read out: its first bar's label
                assert html.unescape(str(t["x"][0])) in text.replace("\\", ""), (page, text)  # the spec is escaped

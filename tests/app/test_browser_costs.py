"""Quality against cost in real headless Chromium (issue 50): a saved set whose runs say their cost opens on Rankings
with the Pareto chart drawn by plotly, its front trace the runs a hand calculation over sacrebleu's chrF puts there,
cheapest first."""

from __future__ import annotations

import os

from .test_browser import _idle, browser, running_server
from .test_costs_pages import _front, priced

__all__ = ["browser", "priced"]


def test_the_pareto_chart_in_the_browser(browser, priced, tmp_path):
    ws, set_id, chrf = priced
    with running_server(tmp_path, env={**os.environ, "MTLENS_DATA_DIR": str(ws)}) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 2600})
        page = ctx.new_page()
        try:
            page.goto(f"{url}/Rankings?set={set_id}&sort=chrf")
            box = page.locator(".st-key-rank_cost_open")
            box.wait_for(timeout=180_000)
            _idle(page)
            plot = box.locator(".js-plotly-plot")
            plot.wait_for(timeout=60_000)
            traces = plot.evaluate("el => el.data.map(t => ({name: t.name, text: t.text, x: t.x, y: t.y}))")
            by = {t["name"]: t for t in traces}
            cost = {"cheap": 1.0, "better": 5.0, "online": 6.0}
            assert by["Pareto front"]["text"] == _front(chrf, cost)
            assert by["Pareto front"]["x"] == [cost[n] for n in _front(chrf, cost)]
            assert sorted(by["dominated"]["text"]) == sorted(set(cost) - set(_front(chrf, cost)))
            assert "chrf against cost" in box.inner_text()  # the chart's title and its words under it
        finally:
            ctx.close()

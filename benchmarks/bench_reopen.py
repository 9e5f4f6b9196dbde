"""Reopening a saved set in a new browser session (issue 23, goal 5: the first table under 1 s, the whole
Rankings from stored statistics under 2 s), in real Chromium.

A fresh workspace gets ../shared/data/wmt/en-de (8 systems x 1002 lines x 3 references) by
``python -m mtlens import``, and its seven default metrics are scored once and stored
(``python -m mtlens score --set ID``). Then, on a Streamlit server:

- "server running": someone used the server before (its home page was opened and finished); a new
  browser context opens the set's Rankings link (``/Rankings?set=ID``);
- "new server": the same link opened on a server process started just before (nothing imported or
  cached in it);
- "opened before": the link opened again in new browser sessions on the running server (its caches hold
  the set's statistics and intervals; the browser's caches are empty each time);
- "quick view": the set's quick view (``/quick/rankings?set=ID``, mtlens.ui.quick: the same table as
  plain HTML drawn by the server from the stored statistics, the link the dashboard offers for
  reopening a set), on the running server and on a new one.

Times from the navigation: until the first Rankings table is drawn; until the final table (clusters,
bootstrap intervals) is drawn; until the page has finished (no spinner, the run over; for the quick view,
one answer holds the final table, and "finished" is the browser's load event). Chromium shares the
machine's two cores with the server. Peer in the same run: sacrebleu 2.6.0 computing only BLEU and chrF
of the set (references prepared once), what a user without a workspace would wait for. Streamlit's own
floor in the same run: a bare Streamlit page with a title and one 8-row table (and the same with one
plotly chart), opened in a new browser session, median of three: no Streamlit page can show a table
sooner; the quick view is not a Streamlit page.

    python benchmarks/bench_reopen.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, shared

sys.path.insert(0, str(ROOT))

GOAL_FIRST, GOAL_WHOLE = 1.0, 2.0
METRICS = "bleu,bleu-c,chrf,chrf++,ter,nist,tbleu"


def _quick(browser, url: str) -> tuple[float, float, float]:
    """The quick view (plain HTML, the whole Rankings in one answer): until its table is drawn, and until
    the page has loaded (nothing else is fetched: no script, no font, no image)."""
    page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
    t = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.locator("#rankings tbody tr").first.wait_for(timeout=120_000)
    first = time.perf_counter() - t
    page.wait_for_load_state("load")
    whole = time.perf_counter() - t
    assert page.locator("#rankings tbody tr").count() == 8
    page.context.close()
    return first, first, whole


def _open(browser, url: str) -> tuple[float, float, float]:
    page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
    t = time.perf_counter()
    page.goto(url)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    first = time.perf_counter() - t
    page.get_by_text("Clusters: systems in score order").wait_for(timeout=120_000)  # drawn after the final table
    table = time.perf_counter() - t
    page.wait_for_function(
        """() => {
            const w = document.querySelector('[data-testid="stStatusWidget"]');
            return !(w && /Running|Stop/.test(w.innerText)) && !document.querySelector('[data-testid="stSpinner"]');
        }""",
        timeout=120_000,
        polling=50,
    )
    whole = time.perf_counter() - t
    assert page.locator('[data-testid="stException"]').count() == 0
    page.context.close()
    return first, table, whole


FLOOR_APP = """import pandas as pd
import streamlit as st

st.set_page_config(layout="wide")
st.title("Rankings")
st.dataframe(pd.DataFrame({"system": [f"system {i}" for i in range(8)], "score": range(8)}), hide_index=True)
if st.query_params.get("chart"):
    import plotly.graph_objects as go

    st.plotly_chart(go.Figure(go.Bar(x=list("abcdefgh"), y=list(range(8)))))
"""


def _floor(browser, url: str, chart: bool) -> float:
    """Median of three new browser sessions: navigation until the bare page's table (and chart) is drawn."""
    times = []
    for _ in range(3):
        page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
        t = time.perf_counter()
        page.goto(url + ("?chart=1" if chart else ""))
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
        if chart:
            page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
        times.append(time.perf_counter() - t)
        page.context.close()
    return sorted(times)[1]


#: the set's quick view (mtlens.ui.quick), the link the dashboard offers for reopening a set
QUICK = "quick view (/quick/rankings?set=ID), server running, new browser session"
DASHBOARD = "server running, new browser session"


def _median(runs):
    return tuple(sorted(col)[1] for col in zip(*runs, strict=True))


def main():
    from bench_dashboard import sacrebleu_bleu_chrf
    from playwright.sync_api import sync_playwright

    from tests.app.test_browser import ARGS, CHROMIUM, _idle, running_server

    data = shared("wmt", "en-de")  # before any folder is made: a run without its data leaves nothing behind
    env = dict(os.environ, MTLENS_DATA_DIR=tempfile.mkdtemp(prefix="mtlens-bench-"))
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "mtlens", *a], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    sid = run("import", str(data)).stdout.strip()
    run("score", "--set", sid, "--metrics", METRICS)
    figures = {}
    os.environ["MTLENS_DATA_DIR"] = env["MTLENS_DATA_DIR"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        with running_server(Path(tempfile.mkdtemp())) as url:
            page = browser.new_context().new_page()
            page.goto(url)
            page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
            _idle(page)
            page.context.close()
            time.sleep(3)  # the server's start-up work (kernels) over, as on a server in use
            figures["server running, new browser session"] = _open(browser, f"{url}/Rankings?set={sid}")
            again = [_open(browser, f"{url}/Rankings?set={sid}") for _ in range(3)]
            figures["the same, the set opened before on this server (median of 3)"] = _median(again)
            figures[QUICK] = _quick(browser, f"{url}/quick/rankings?set={sid}")
            again = [_quick(browser, f"{url}/quick/rankings?set={sid}") for _ in range(3)]
            figures["quick view, opened again in new browser sessions (median of 3)"] = _median(again)
        with running_server(Path(tempfile.mkdtemp())) as url:
            figures["new server, new browser session"] = _open(browser, f"{url}/Rankings?set={sid}")
        with running_server(Path(tempfile.mkdtemp())) as url:
            figures["quick view, new server, new browser session"] = _quick(browser, f"{url}/quick/rankings?set={sid}")
        floor_app = Path(tempfile.mkdtemp()) / "floor.py"
        floor_app.write_text(FLOOR_APP)
        with running_server(floor_app.parent, script=floor_app) as url:
            _floor(browser, url, False)  # the server's first run
            floor = {chart: _floor(browser, url, chart) for chart in (False, True)}
        browser.close()
    peer = sacrebleu_bleu_chrf()
    print("| reopening en-de's Rankings by its link | first table, s | final table, s | page finished, s |")
    print("|---|---:|---:|---:|")
    for what, (first, table, whole) in figures.items():
        print(f"| {what} | {first:.2f} | {table:.2f} | {whole:.2f} |")
    print(f"| peer: sacrebleu 2.6.0, BLEU and chrF only (references prepared once) | | {peer:.2f} | |")
    print(f"| floor: a bare Streamlit page, title + one 8-row table, new browser session | {floor[False]:.2f} | | |")
    print(f"| floor: the same page with one plotly chart | | | {floor[True]:.2f} |")
    for what, label in ((QUICK, "the quick view"), (DASHBOARD, "the dashboard's Rankings page")):
        first, table, whole = figures[what]
        print(f"{label}: first table {first:.2f} s: goal {GOAL_FIRST:g} s {'met' if first < GOAL_FIRST else 'not met'}")
        print(
            f"{label}: whole Rankings {whole:.2f} s: goal {GOAL_WHOLE:g} s {'met' if whole < GOAL_WHOLE else 'not met'}"
        )
    for what, label in ((QUICK, "quick view"), (DASHBOARD, "dashboard page")):
        whole = figures[what][2]
        print(f"{label}: whole Rankings (7 metrics) / sacrebleu's BLEU + chrF: {whole / peer:.2f}x the time")


if __name__ == "__main__":
    main()

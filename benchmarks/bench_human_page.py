"""The Human correlation page on the bundled sample (200 lines, 4 systems, DA and MQM), as a visitor meets it:
a new server process (nothing cached in it), a new Chromium context, the page opened by its address.

Prints the time until the first table (the correlation table: seven metrics scored, then 28 rows of
correlations with 1000-resample bootstrap intervals) is drawn and until the page has finished (metric
clusters by PERM-BOTH, the WMT-style human ranking, the scatter and the tBLEU sweep), against the goal of
issue 22: first table within 5 s of clicking the page. Chromium shares the machine's cores with the
server, as it does on a user's laptop. Needs /usr/bin/chromium and playwright (the test extra).
Peer in the same run: sacrebleu 2.6.0's command line scoring the sample's 4 systems with the four
metrics it has (BLEU, chrF, chrF++, TER: system scores only, no correlation, no interval).

    python benchmarks/bench_human_page.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

sys.path.insert(0, str(ROOT))

GOAL_FIRST_TABLE = 5.0


def _first_table(page, t0):
    # the correlation table, with the fast metrics' rows or with all (by key: the home page's tables do not count)
    page.locator(
        '.st-key-hc_first_rows [data-testid="stDataFrame"], .st-key-hc_all_rows [data-testid="stDataFrame"]'
    ).first.wait_for(timeout=300_000)
    return time.perf_counter() - t0


def main():
    from playwright.sync_api import sync_playwright

    from tests.app.test_browser import ARGS, CHROMIUM, _idle, running_server

    env = dict(os.environ, MTLENS_DATA_DIR=tempfile.mkdtemp(prefix="mtlens-bench-"))
    figures = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        # 1. as a visitor meets it: the home page of a new server, then the sidebar's "Human correlation"
        with running_server(Path(tempfile.mkdtemp()), env=env) as url:
            page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
            page.goto(url)
            page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
            _idle(page)
            t = time.perf_counter()
            page.locator(".st-key-mtlens_nav a", has_text="Human correlation").click()
            figures["from the home page"] = (_first_table(page, t), None)
            _idle(page, timeout=300_000)
            figures["from the home page"] = (figures["from the home page"][0], time.perf_counter() - t)
            assert page.locator('[data-testid="stException"]').count() == 0
        # 2. a link to the page opened in a new server process (nothing imported, nothing cached)
        with running_server(Path(tempfile.mkdtemp()), env=env) as url:
            page = browser.new_context(viewport={"width": 1400, "height": 2200}).new_page()
            t = time.perf_counter()
            page.goto(f"{url}/Human_correlation")
            first = _first_table(page, t)
            _idle(page, timeout=300_000)
            figures["a link, new server process"] = (first, time.perf_counter() - t)
            assert page.locator('[data-testid="stException"]').count() == 0
        browser.close()
    peer = _sacrebleu_four_metrics()
    print("| Human correlation on the sample | first table, s | whole page, s |")
    print("|---|---:|---:|")
    for what, (first, whole) in figures.items():
        print(f"| {what} | {first:.1f} | {whole:.1f} |")
    first = figures["from the home page"][0]
    met = "met" if first <= GOAL_FIRST_TABLE else "NOT met"
    print(
        f"| peer: sacrebleu 2.6.0 CLI, BLEU, chrF, chrF++ and TER of the 4 systems (whole processes) | {peer:.1f} | |"
    )
    whole = figures["from the home page"][1]
    print(f"first table / peer: {first / peer:.2f}x the time; whole page / peer: {whole / peer:.2f}x")
    print(f"goal: first table within {GOAL_FIRST_TABLE:g} s of clicking the page: {first:.1f} s, {met}")


def _sacrebleu_four_metrics() -> float:
    sample = ROOT / "sample_data"
    systems = [str(p) for p in sorted(sample.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
    refs = [str(sample / "ref.txt"), str(sample / "ref2.txt")]
    sacrebleu = str(Path(sys.executable).with_name("sacrebleu"))
    runs = [[sacrebleu, *refs, "-i", *systems, "-m", "bleu", "chrf", "ter", "-f", "json"]]
    runs.append([sacrebleu, *refs, "-i", *systems, "-m", "chrf", "--chrf-word-order", "2", "-f", "json"])
    t = time.perf_counter()
    for cmd in runs:
        subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()

"""What one visitor can make a shared server hold (issue 51), as a visitor meets it: a new server process in owners
mode (a shared server), a new Chromium session uploading a reference and two system outputs of N lines each (real
WMT22 en-de lines, cycled; 30,000 by default: 90,000 line texts, the visitors' bound), then opening Rankings,
Sentences, Significance and Compare two systems. A second upload of 200,000 lines each (the issue's 3 x 200,000,
3.7 GB before) is refused by the bound.

Reports the server's peak memory (RSS of its process tree, sampled every 0.1 s) after each step, against the issue's
bound of about 1 GB. Needs /usr/bin/chromium and playwright (the test extra). Peer: none (the reference tools have no
server); the figure is the server's own.

    python benchmarks/bench_visitor_memory.py [--lines 50000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from itertools import cycle, islice
from pathlib import Path

from bench_load import server, tree_rss_mb
from bench_memory import tree_memory
from common import ROOT, shared

sys.path.insert(0, str(ROOT))


def write(folder: Path, lines: int) -> list[Path]:
    src = shared("wmt", "en-de")
    names = ["ref.txt", *sorted(p.name for p in src.glob("*.txt") if not p.name.startswith(("ref", "src")))[:2]]
    out = []
    for name in names:
        text = (src / name).read_text(encoding="utf-8").splitlines()
        path = folder / f"{lines}" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(islice(cycle(text), lines)) + "\n", encoding="utf-8")
        out.append(path)
    return out


def main() -> int:
    from playwright.sync_api import sync_playwright

    from tests.app.test_browser import ARGS, CHROMIUM, _goto, _idle, _upload

    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=30_000)
    args = ap.parse_args()
    shared("wmt", "en-de")  # the data first: without it, one sentence before any server starts
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        folder = Path(tmp)
        env = dict(os.environ, MTLENS_ACCESS="owners", MTLENS_DATA_DIR=str(folder / "ws"))
        url, pid = server(stack, env, folder)
        peak, pss, done = [tree_rss_mb(pid)], [0.0], threading.Event()
        print(f"server started: {peak[0]:.0f} MB")

        def sample():
            while not done.is_set():
                rss_kb, pss_kb = tree_memory(pid)
                peak[0], pss[0] = max(peak[0], rss_kb / 1024), max(pss[0], pss_kb / 1024)
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 2200})
                page.goto(url)
                page.get_by_text("Dataset", exact=True).wait_for(timeout=120_000)
                files = write(folder, args.lines)
                t = time.perf_counter()
                _upload(page, files[:1], files[1:])
                page.get_by_label("Name").wait_for(timeout=600_000)
                print(
                    f"upload of 3 x {args.lines:,} lines saved: {time.perf_counter() - t:.1f} s, peak {peak[0]:.0f} MB"
                )
                for label in ("Rankings", "Sentences", "Significance", "Compare two systems"):
                    t = time.perf_counter()
                    _goto(page, label)
                    _idle(page, timeout=900_000)
                    print(
                        f"{label}: {time.perf_counter() - t:.1f} s, server peak so far {peak[0]:.0f} MB RSS, {pss[0]:.0f} MB PSS"
                    )
                page = browser.new_page()
                page.goto(url)
                page.get_by_text("Dataset", exact=True).wait_for(timeout=120_000)
                big = write(folder, 200_000)
                _upload(page, big[:1], big[1:])
                page.get_by_text("a set made on the dashboard may hold at most").wait_for(timeout=600_000)
                print(f"3 x 200,000 lines: refused in one sentence; server peak so far {peak[0]:.0f} MB RSS")
                browser.close()
        finally:
            done.set()
            sampler.join()
    print(
        f"goal (issue 51): the server's process tree within about 1 GB: {'met' if peak[0] <= 1024 else 'NOT met'} "
        f"({peak[0]:.0f} MB RSS; {pss[0]:.0f} MB PSS, the pages its forked workers share counted once)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

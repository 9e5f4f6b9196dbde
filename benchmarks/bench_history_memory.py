"""A long history as a visitor meets it (issue 51): a saved set with N runs in one family (520 by default: WMT22
cs-en's reference, 1,448 lines, and runs made from Online-W's output by dropping words at random), opened on the
History page of a new server process twice by a light visitor (benchmarks/loadclient.py: the page's own
WebSocket session, everything the server sends read), and by ``python -m mtlens history`` (all runs, and the
newest view with --last 50).

Reports the time of each visit and the server's peak memory (RSS of its process tree, sampled every 0.1 s),
against issue 51's bound (1 GB) and its measurement before the fix (the page: 71 s and 3.3 GB; the command:
3.2-3.8 GB). Peer: none does a history with step tests; the command's whole-history run is the reference.

    python benchmarks/bench_history_memory.py [--runs 520] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from bench_load import server, tree_rss_mb
from common import ROOT, shared

sys.path.insert(0, str(ROOT))


def make_set(folder: Path, runs: int) -> str:
    from mtlens.service.runs import add_run
    from mtlens.service.sets import Store

    src = shared("wmt", "cs-en")
    base = (src / "Online-W.txt").read_text(encoding="utf-8").splitlines()
    texts = folder / "texts"
    texts.mkdir(parents=True, exist_ok=True)
    (texts / "ref.txt").write_bytes((src / "ref.txt").read_bytes())
    (texts / "Online-W.txt").write_text("\n".join(base) + "\n", encoding="utf-8")
    data = folder / "data"
    cmd = [sys.executable, "-m", "mtlens", "import", str(texts), "--data-dir", str(data), "--name", "history"]
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    store = Store(data)
    set_id = store.list()[0].id
    rng = random.Random(1)
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    for k in range(runs):
        p = 0.02 + 0.1 * rng.random()
        lines = [" ".join(w for w in line.split() if rng.random() > p) for line in base]
        at = (t0 + dt.timedelta(hours=k)).isoformat()
        add_run(store, set_id, ("\n".join(lines) + "\n").encode(), f"run{k:04d}.txt", family="fam", at=at)
    return set_id


def peak_while(pid_of, work) -> tuple[float, object]:
    """Run ``work()`` while sampling the RSS of ``pid_of()``'s process tree; (peak MB, work's result)."""
    peak, done = [0.0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_mb(pid_of()))
            time.sleep(0.1)

    t = threading.Thread(target=sample)
    t.start()
    try:
        out = work()
    finally:
        done.set()
        t.join()
    return peak[0], out


def command(data: Path, set_id: str, *extra: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``mtlens history`` (one process)."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtlens", "history", "--set", set_id, "--data-dir", str(data), *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    peak, _ = peak_while(lambda: proc.pid, proc.wait)
    return time.perf_counter() - t, peak


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=520)
    ap.add_argument("--keep", help="a folder to make the set in (reused when it holds one)")
    args = ap.parse_args()
    shared("wmt", "cs-en")  # before any folder is made: a run without its data leaves nothing behind
    folder = Path(args.keep or tempfile.mkdtemp(prefix="mtlens-history-"))
    data = folder / "data"
    if not data.exists():
        t = time.perf_counter()
        set_id = make_set(folder, args.runs)
        print(f"made a set of {args.runs} runs in {time.perf_counter() - t:.0f} s")
    else:
        from mtlens.service.sets import Store

        set_id = Store(data).list()[0].id
    from loadclient import Visitor

    for label, extra in [
        ("all runs (scores stored on the first)", ()),
        ("all runs again", ()),
        ("--last 50", ("--last", "50")),
    ]:
        wall, peak = command(data, set_id, *extra)
        print(f"mtlens history, {label}: {wall:.1f} s, peak {peak:.0f} MB")
    env = {**os.environ, "MTLENS_DATA_DIR": str(data), "MTLENS_MODE": "local"}
    with ExitStack() as stack, ThreadPoolExecutor(8) as pool:
        url, pid = server(stack, env, folder)
        print(f"server started: {tree_rss_mb(pid):.0f} MB")
        for visit in (1, 2):
            client = Visitor(url, pool, 600)
            t = time.perf_counter()
            peak, seen = peak_while(lambda: pid, lambda c=client: asyncio.run(c.page("History", f"set={set_id}")))
            wall = time.perf_counter() - t
            errors = "; ".join(seen.errors) or "none"
            print(f"History page, visit {visit}: {wall:.1f} s, server peak {peak:.0f} MB, errors: {errors}")
    print(f"this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print("goal (issue 51): the page and the command under 1 GB; before: page 71 s, 3.3 GB; command 3.2-3.8 GB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

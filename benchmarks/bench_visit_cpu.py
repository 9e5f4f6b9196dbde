"""The server's CPU for one visit of each page, one visitor at a time (issue 62): what each page costs the server,
without the queueing of the load test (benchmarks/bench_load.py), where these costs add up.

One server on a SQLite store holding WMT22 en-de (8 systems x 1,002 lines, looked at once as the load test's sets
are), warmed by two visits of each page. Then ``--visits`` visits of each page in turn, each by a new light visitor
(benchmarks/loadclient.py: a new browser session, so a dashboard page's sixty files are asked for too): the quick
view, Rankings and Sentences. Prints, per page, the server's CPU seconds per visit (user + system of its process tree,
from /proc) and the median seconds to the first table and to the end of the script run.

    python benchmarks/bench_visit_cpu.py [--visits 12]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from common import ROOT, shared

sys.path.insert(0, str(ROOT))

PAGES = ("quick view", "Rankings", "Sentences")


async def _visits(url: str, set_id: str, page: str, n: int) -> list[tuple[float, float]]:
    """``n`` visits of ``page``, each by a new visitor: (first table, end) in seconds."""
    from loadclient import Visitor

    out = []
    with ThreadPoolExecutor(8) as pool:
        for _ in range(n):
            visitor = Visitor(url, pool, 300)
            if page == "quick view":
                visit = await visitor.quick(f"quick/rankings?set={set_id}")
            else:
                visit = await visitor.page(page, f"set={set_id}")
            if visit.errors or visit.first_table_s is None:
                raise SystemExit(f"{page}: {visit.errors or 'no table'}")
            out.append((visit.first_table_s, visit.finished_s))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--visits", type=int, default=12)
    args = ap.parse_args()
    folder = shared("wmt", "en-de")
    import bench_load as load

    with tempfile.TemporaryDirectory(prefix="mtlens-visit-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        env = {**os.environ, "MTLENS_STORE": str(work / "sqlite"), "MTLENS_DATA_DIR": str(work / "unused")}
        set_id = load.mtlens("import", str(folder), "--name", "WMT22 en-de", env=env).strip()
        url, pid = load.server(stack, env, work)
        load.urllib_get(f"{url}/quick/rankings?set={set_id}")  # looked at once: its statistics stored
        for page in PAGES:
            asyncio.run(_visits(url, set_id, page, 2))
        print(f"One visitor at a time, {args.visits} visits of each page (this machine: {os.cpu_count()} cores)\n")
        print("| page | server's CPU per visit, s | first table, s (median) | end of the run, s (median) |")
        print("|---|---:|---:|---:|")
        for page in PAGES:
            before = load.tree_cpu_s(pid)
            times = asyncio.run(_visits(url, set_id, page, args.visits))
            cpu = (load.tree_cpu_s(pid) - before) / args.visits
            first = statistics.median(t for t, _ in times)
            end = statistics.median(e for _, e in times)
            print(f"| {page} | {cpu:.3f} | {first:.3f} | {end:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

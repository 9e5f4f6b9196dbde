"""Load test on loopback (issue 36): N concurrent visitors (20 by default) in real headless Chromium, each
opening a saved set's quick view, then the dashboard's Rankings and Sentences for it, while a COMET job
(a tiny checkpoint built offline, over the largest set) runs in the background. Three set-ups, each on a
fresh store holding the same sets (four WMT22 pairs of ../shared/data, imported and looked at once, so
their statistics are stored as a team's sets are):

- one server on a SQLite store;
- one server on a PostgreSQL store (a real server on 127.0.0.1, tests/pgserver.py);
- two servers on one PostgreSQL store, the visitors split between them.

Reports per set-up: p50/p95 of the time to the first table of each page (navigation to the first
``<table>`` of the quick view, the first data table of a dashboard page), the errors (a step that timed
out or a page that showed an error), and the servers' peak memory (RSS of each server's process tree,
sampled every 0.5 s). Bounded: every step has a time limit and each set-up a total one.

    python benchmarks/bench_load.py              # 20 visitors
    MTLENS_LOAD_VISITORS=5 python benchmarks/bench_load.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from common import ROOT, process_tree, shared

sys.path.insert(0, str(ROOT))

VISITORS = int(os.environ.get("MTLENS_LOAD_VISITORS", "20"))
PAIRS = ("en-de", "de-en", "zh-en", "en-ja")
#: the set-ups to run (MTLENS_LOAD_SETUPS, comma-separated, chooses some)
SETUPS = tuple(
    s.strip() for s in os.environ.get("MTLENS_LOAD_SETUPS", "sqlite,postgresql,postgresql x2").split(",") if s.strip()
)
STEP_SECONDS = 300
SETUP_SECONDS = 1200
CHROMIUM = "/usr/bin/chromium"
TABLE = '[data-testid="stDataFrame"], [data-testid="stTable"]'
ERROR = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def mtlens(*args: str, env: dict) -> str:
    proc = subprocess.run([sys.executable, "-m", "mtlens", *args], capture_output=True, text=True, cwd=ROOT, env=env)
    if proc.returncode:
        raise SystemExit(f"mtlens {args[0]} failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and its descendants, MB."""
    total = 0
    for p in process_tree(pid):
        try:
            total += next(
                int(x.split()[1]) for x in Path(f"/proc/{p}/status").read_text().splitlines() if x.startswith("VmRSS:")
            )
        except (OSError, StopIteration):
            continue
    return total / 1024


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and its descendants."""
    total = 0
    for p in process_tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """CPU seconds the whole machine has spent working (user, nice, system) since boot."""
    return sum(map(int, Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:4])) / os.sysconf("SC_CLK_TCK")


def niced_chromium(folder: Path) -> str:
    """Chromium at a lower priority than the servers: the visitors' browsers share this machine's cores with
    the servers they measure, and rendering twenty dashboards costs far more CPU than serving them."""
    wrapper = folder / "chromium-niced"
    wrapper.write_text(f'#!/bin/sh\nexec nice -n 15 {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def tiny_model(folder: Path) -> Path:
    from mtlens.neural import models as neural

    try:
        python = neural.python()
    except neural.NeuralUnavailable as err:
        raise SystemExit(f"the load test's COMET job needs the neural extra: {err}") from None
    texts = [str(ROOT / "sample_data" / n) for n in ("src.txt", "ref.txt", "UEdin.txt")]
    build = ROOT / "tests" / "neural" / "build_tiny_comet.py"
    proc = subprocess.run(
        [python, "-I", str(build), str(folder), *texts],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"},
    )
    if proc.returncode:
        raise SystemExit(f"building the tiny COMET checkpoint failed: {proc.stderr[-500:]}")
    return folder / "tiny-comet"


def prepare(env: dict, model: Path) -> list[str]:
    """The sets imported, each looked at once (its statistics stored), the model registered; set ids."""
    ids = []
    for name in PAIRS:
        folder = shared("wmt", name)
        ids.append(mtlens("import", str(folder), "--name", f"WMT22 {name}", env=env).strip())
    mtlens("models", "add", "tiny", str(model), env=env)
    return ids


def start_job(env: dict, set_id: str) -> None:
    code = (
        "import sys; from mtlens.runtime import jobs; from mtlens.storage.store import Store; "
        "print(jobs.start(Store(), sys.argv[1], 'tiny').state)"
    )
    subprocess.run([sys.executable, "-c", code, set_id], cwd=ROOT, env=env, check=True, capture_output=True)


def server(stack: ExitStack, env: dict, log_dir: Path) -> tuple[str, int]:
    from tests.app.test_browser import running_server
    from tests.app.test_load import _server_pid

    url = stack.enter_context(running_server(log_dir, env=env))
    return url, _server_pid(int(url.rsplit(":", 1)[1]))


async def visitor(browser, k: int, url: str, set_id: str) -> dict:
    from playwright.async_api import Error as PlaywrightError

    ctx = await browser.new_context(viewport={"width": 1300, "height": 1600})
    ctx.set_default_timeout(STEP_SECONDS * 1000)
    page = await ctx.new_page()
    out: dict = {"times": {}, "errors": []}
    steps = (
        ("quick view", f"{url}/quick/rankings?set={set_id}", "table"),
        ("Rankings", f"{url}/Rankings?set={set_id}", TABLE),
        ("Sentences", f"{url}/Sentences?set={set_id}", TABLE),
    )
    try:
        for name, address, selector in steps:
            t = time.perf_counter()
            try:
                await page.goto(address)
                await page.locator(selector).first.wait_for(state="visible")
                out["times"][name] = time.perf_counter() - t
                if await page.locator(ERROR).count():
                    out["errors"].append(f"visitor {k}, {name}: the page shows an error")
            except (PlaywrightError, asyncio.TimeoutError) as err:
                out["errors"].append(f"visitor {k}, {name}: {str(err).splitlines()[0][:150]}")
    finally:
        await ctx.close()
    return out


def run_visitors(targets: list[tuple[str, str]], chromium: str) -> list[dict]:
    from playwright.async_api import async_playwright

    async def main():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
            )
            try:
                jobs = [visitor(browser, k, *targets[k % len(targets)]) for k in range(VISITORS)]
                return await asyncio.wait_for(asyncio.gather(*jobs), timeout=SETUP_SECONDS)
            finally:
                await browser.close()

    return asyncio.run(main())


def setup(kind: str, model: Path, work: Path) -> dict:
    """One set-up: ``sqlite``, ``postgresql`` or ``postgresql x2``; its figures."""
    with ExitStack() as stack:
        if kind == "sqlite":
            where = str(work / "sqlite")
        else:
            from tests.pgserver import Server

            pg = Server()
            stack.callback(pg.stop)
            where = pg.database()
        env = {**os.environ, "MTLENS_STORE": where, "MTLENS_DATA_DIR": str(work / "unused")}
        ids = prepare(env, model)
        servers = [server(stack, env, work) for _ in range(2 if kind.endswith("x2") else 1)]
        for sid in ids:  # each set looked at once: its statistics stored, as a team's sets are
            urllib_get(f"{servers[0][0]}/quick/rankings?set={sid}")
        start_job(env, ids[0])
        peak = {pid: tree_rss_mb(pid) for _, pid in servers}
        stop = threading.Event()

        def sample():
            while not stop.wait(0.5):
                for _, pid in servers:
                    peak[pid] = max(peak[pid], tree_rss_mb(pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        targets = [(servers[k % len(servers)][0], ids[k % len(ids)]) for k in range(VISITORS)]
        t, cpu0, busy0 = time.perf_counter(), sum(tree_cpu_s(pid) for _, pid in servers), machine_busy_s()
        results = run_visitors(targets, niced_chromium(work))
        wall = time.perf_counter() - t
        server_cpu = sum(tree_cpu_s(pid) for _, pid in servers) - cpu0
        busy = machine_busy_s() - busy0
        stop.set()
        job = job_state(env, ids[0])
    figures: dict = {
        "setup": kind,
        "visitors": VISITORS,
        "wall_s": round(wall, 1),
        "job": job,
        # where the machine's CPU went while the visitors ran: the servers, and everything (browsers, job)
        "servers_cpu_s": round(server_cpu, 1),
        "machine_cpu_s": round(busy, 1),
    }
    for name in ("quick view", "Rankings", "Sentences"):
        times = sorted(r["times"][name] for r in results if name in r["times"])
        figures[name] = {
            "p50_s": round(statistics.median(times), 2) if times else None,
            "p95_s": round(times[min(len(times) - 1, int(0.95 * len(times)))], 2) if times else None,
            "n": len(times),
        }
    figures["errors"] = [e for r in results for e in r["errors"]]
    figures["peak_rss_mb"] = [round(v) for v in peak.values()]
    return figures


def job_state(env: dict, set_id: str) -> str:
    code = (
        "import sys; from mtlens.runtime import jobs; from mtlens.storage.store import Store; "
        "p = jobs.status(Store(), sys.argv[1])[0]; print(f'{p.state} {p.done}/{p.total}')"
    )
    proc = subprocess.run([sys.executable, "-c", code, set_id], cwd=ROOT, env=env, capture_output=True, text=True)
    return proc.stdout.strip() or proc.stderr.strip()[-200:]


def urllib_get(url: str) -> None:
    import urllib.request

    urllib.request.urlopen(url, timeout=STEP_SECONDS).read()


def main() -> int:
    for name in PAIRS:
        shared("wmt", name)
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"the load test needs Debian's chromium ({CHROMIUM})")
    with tempfile.TemporaryDirectory(prefix="mtlens-load-") as tmp:
        work = Path(tmp)
        model = tiny_model(work / "models")
        rows = []
        for kind in SETUPS:
            (work / kind.replace(" ", "-")).mkdir()
            fig = setup(kind, model, work / kind.replace(" ", "-"))
            rows.append(fig)
            print(json.dumps(fig), flush=True)
    print(f"\n{VISITORS} concurrent visitors, time to the first table (p50 / p95, s); errors; servers' peak RSS")
    print(f"{'set-up':16} {'quick view':>14} {'Rankings':>14} {'Sentences':>14} {'errors':>7}  peak RSS (MB)")
    for fig in rows:
        cells = [f"{fig[n]['p50_s']} / {fig[n]['p95_s']}" for n in ("quick view", "Rankings", "Sentences")]
        print(
            f"{fig['setup']:16} {cells[0]:>14} {cells[1]:>14} {cells[2]:>14} {len(fig['errors']):>7}  {fig['peak_rss_mb']}"
        )
    return 1 if any(fig["errors"] for fig in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

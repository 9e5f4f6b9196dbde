"""Load test on loopback (issue 36): N concurrent visitors (20 by default) each open a saved set's quick view,
then the dashboard's Rankings and Sentences for it, while a COMET job (a tiny checkpoint built offline, over
the largest set) runs in the background. Three set-ups, each on a fresh store holding the same sets (four
WMT22 pairs of ../shared/data, imported and looked at once, so their statistics are stored as a team's sets
are):

- one server on a SQLite store;
- one server on a PostgreSQL store (a real server on 127.0.0.1, tests/pgserver.py);
- two servers on one PostgreSQL store, the visitors split between them.

Two kinds of visitor run at the same time. Most are light visitors (benchmarks/loadclient.py): each asks
for a page as a new browser session does (the HTML, the scripts it names, a WebSocket session sending the
browser's first message) and reads everything the server sends, without drawing it. A few
(``MTLENS_LOAD_BROWSERS``, 2 by default) are real headless Chromium sessions, reported apart: what a person
sees while the others load the server. Twenty Chromium pages cannot be the load here: on this 2-core
machine they take most of the CPU themselves and then measure the browsers, not the server (README, "Load").

Reports per set-up and kind of visitor: p50/p95 of the time to the first table of each page (from the
request of the page to its first table: for a light visitor the first table element received, for a
browser the first table drawn), the errors (a step over its time limit, a page showing an error or no
table, a script run that did not finish), the servers' peak memory (RSS of each server's process tree,
sampled every 0.5 s) and CPU seconds. Bounded: every step has a time limit and each set-up a total one.

    python benchmarks/bench_load.py              # 20 visitors, 2 of them in Chromium
    MTLENS_LOAD_VISITORS=5 MTLENS_LOAD_BROWSERS=5 python benchmarks/bench_load.py   # 5 browsers
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
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
#: how many of the visitors are real Chromium sessions (the rest are light visitors)
BROWSERS = min(VISITORS, int(os.environ.get("MTLENS_LOAD_BROWSERS", "2")))
PAGES = ("quick view", "Rankings", "Sentences")
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
    from mtlens.neural import environment as neural_env

    try:
        python = neural_env.python()
    except neural_env.NeuralUnavailable as err:
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


def steps(set_id: str) -> tuple[tuple[str, str], ...]:
    """A visitor's steps: (page, address without the server)."""
    return (
        ("quick view", f"quick/rankings?set={set_id}"),
        ("Rankings", f"Rankings?set={set_id}"),
        ("Sentences", f"Sentences?set={set_id}"),
    )


async def browser_visitor(browser, k: int, url: str, set_id: str) -> dict:
    from playwright.async_api import Error as PlaywrightError

    ctx = await browser.new_context(viewport={"width": 1300, "height": 1600})
    ctx.set_default_timeout(STEP_SECONDS * 1000)
    page = await ctx.new_page()
    out: dict = {"kind": "browser", "times": {}, "errors": []}
    try:
        for name, address in steps(set_id):
            t = time.perf_counter()
            try:
                await page.goto(f"{url}/{address}")
                await page.locator("table" if name == "quick view" else TABLE).first.wait_for(state="visible")
                out["times"][name] = time.perf_counter() - t
                if await page.locator(ERROR).count():
                    out["errors"].append(f"browser {k}, {name}: the page shows an error")
            except (PlaywrightError, asyncio.TimeoutError) as err:
                out["errors"].append(f"browser {k}, {name}: {str(err).splitlines()[0][:150]}")
    finally:
        await ctx.close()
    return out


async def light_visitor(pool, k: int, url: str, set_id: str) -> dict:
    from loadclient import Visitor

    client = Visitor(url, pool, STEP_SECONDS)
    out: dict = {"kind": "light", "times": {}, "complete": {}, "errors": []}
    for name, address in steps(set_id):
        if name == "quick view":
            visit = await client.quick(address)
        else:
            page, query = address.split("?", 1)
            visit = await client.page(page, query)
        if visit.first_table_s is not None:
            out["times"][name] = visit.first_table_s
            out["complete"][name] = visit.finished_s
        out["errors"] += [f"visitor {k}, {e}" for e in visit.errors]
    return out


def run_visitors(targets: list[tuple[str, str]], chromium: str) -> list[dict]:
    """All visitors at once: the first ``BROWSERS`` of them in Chromium, the others light."""
    from concurrent.futures import ThreadPoolExecutor

    async def main():
        with ThreadPoolExecutor(max_workers=4 * VISITORS) as pool:
            light = [light_visitor(pool, k, *targets[k]) for k in range(BROWSERS, VISITORS)]
            if not BROWSERS:
                return await asyncio.wait_for(asyncio.gather(*light), timeout=SETUP_SECONDS)
            from playwright.async_api import async_playwright

            async with async_playwright() as pw:
                browser = await pw.chromium.launch(
                    executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
                )
                try:
                    real = [browser_visitor(browser, k, *targets[k]) for k in range(BROWSERS)]
                    return await asyncio.wait_for(asyncio.gather(*real, *light), timeout=SETUP_SECONDS)
                finally:
                    await browser.close()

    return asyncio.run(main())


def percentiles(times: list[float]) -> dict:
    times = sorted(times)
    return {
        "p50_s": round(statistics.median(times), 2) if times else None,
        "p95_s": round(times[min(len(times) - 1, int(0.95 * len(times)))], 2) if times else None,
        "n": len(times),
    }


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
        stop_job(env, ids[0])
    figures: dict = {
        "setup": kind,
        "visitors": VISITORS,
        "browsers": BROWSERS,
        "wall_s": round(wall, 1),
        "job": job,
        # where the machine's CPU went while the visitors ran: the servers, and everything (visitors, job)
        "servers_cpu_s": round(server_cpu, 1),
        "machine_cpu_s": round(busy, 1),
    }
    for kind_ in ("light", "browser"):
        mine = [r for r in results if r["kind"] == kind_]
        figures[kind_] = {name: percentiles([r["times"][name] for r in mine if name in r["times"]]) for name in PAGES}
        if kind_ == "light":  # the end of the page's script run: every table, chart and control sent
            figures["light complete"] = {
                name: percentiles([r["complete"][name] for r in mine if name in r["complete"]]) for name in PAGES[1:]
            }
    figures["errors"] = [e for r in results for e in r["errors"]]
    figures["peak_rss_mb"] = [round(v) for v in peak.values()]
    return figures


def stop_job(env: dict, set_id: str) -> None:
    """Cancel the set's COMET job and end its process. A job outlives the server that started it (by design), so
    without this it would go on scoring after the benchmark, against a store about to be removed, and take the
    CPU of the next run's servers."""
    code = (
        "import sys; from mtlens.runtime import jobs; from mtlens.storage.store import Store; s = Store(); "
        "ps = jobs.status(s, sys.argv[1]); [jobs.cancel(s, sys.argv[1], p.digest) for p in ps]; "
        "print(' '.join(str(s.job(sys.argv[1], p.digest)['pid'] or '') for p in ps))"
    )
    proc = subprocess.run([sys.executable, "-c", code, set_id], cwd=ROOT, env=env, capture_output=True, text=True)
    for pid in (int(x) for x in proc.stdout.split() if x.isdigit()):
        for _ in range(100):  # the job stops at its next batch; its process group (a session of its own) goes then
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGTERM)


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
    print(
        f"\n{VISITORS} concurrent visitors ({VISITORS - BROWSERS} light, {BROWSERS} in Chromium), time to the first "
        "table (p50 / p95, s); errors; servers' peak RSS"
    )
    print(
        f"{'set-up':16} {'visitors':9} {'quick view':>14} {'Rankings':>14} {'Sentences':>14} {'errors':>7}  peak RSS (MB)"
    )
    for fig in rows:
        for kind in ("light", "browser"):
            if not fig[kind]["Rankings"]["n"] and not fig[kind]["quick view"]["n"]:
                continue
            cells = [f"{fig[kind][n]['p50_s']} / {fig[kind][n]['p95_s']}" for n in PAGES]
            print(
                f"{fig['setup']:16} {kind:9} {cells[0]:>14} {cells[1]:>14} {cells[2]:>14} "
                f"{len(fig['errors']):>7}  {fig['peak_rss_mb']}"
            )
    return 1 if any(fig["errors"] for fig in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

"""The first TER / tBLEU use after installation: compiled kernels not yet on disk.

Each measurement runs with a new, empty ``NUMBA_CACHE_DIR`` (what a fresh installation has), on
the bundled sample (sample_data: 2 references, 4 systems, 50 lines).

- command line: ``python -m mtlens score --metrics ter`` (and ``ter,tbleu``), whole process; then
  the same command again (kernels loaded from the disk cache);
- dashboard (streamlit AppTest, a fresh process): the home page opens (the server starts compiling
  the kernels in the background), then Rankings with its default metrics (BLEU, character BLEU,
  chrF, chrF++, TER, NIST, tBLEU) and bootstrap intervals. Timed from opening Rankings; the home
  page is left at once, so the background compilation has no head start from a user's upload.

    python benchmarks/bench_first_use.py

Goal (issue 14): at most 8 s on this machine, command line and dashboard.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time

from common import ROOT

GOAL = 8.0
SAMPLE = ROOT / "sample_data"

DASHBOARD = textwrap.dedent(
    """
    import time, sys
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file("app.py", default_timeout=600).run()
    t = time.perf_counter()
    at.switch_page("pages/1_Rankings.py").run()
    assert not at.exception, at.exception
    cols = [c for c in at.dataframe[0].value.columns if c not in ("rank", "system") and not c.startswith("cluster")]
    assert "ter" in cols and "tbleu" in cols, cols
    print(time.perf_counter() - t)
    """
)


def run(cmd, cache: str) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t
    return wall, out.stdout


def main():
    systems = [str(p) for p in sorted(SAMPLE.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
    refs = [a for p in sorted(SAMPLE.glob("ref*.txt")) for a in ("--ref", str(p))]
    rows = []
    for metrics in ("ter", "tbleu", "ter,tbleu"):
        cmd = [sys.executable, "-m", "mtlens", "score", *refs, "--sys", *systems, "--metrics", metrics]
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            first, _ = run(cmd, cache)
            again, _ = run(cmd, cache)
        rows.append((f"`python -m mtlens score --metrics {metrics}` (whole process)", first, again))
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env_data = tempfile.mkdtemp(prefix="mtlens-bench-store-")
        os.environ["MTLENS_DATA_DIR"] = env_data
        _, out = run([sys.executable, "-c", DASHBOARD], cache)
        first = float(out.strip().splitlines()[-1])
        _, out = run([sys.executable, "-c", DASHBOARD], cache)
        again = float(out.strip().splitlines()[-1])
    rows.append(("dashboard: open Rankings (all default metrics + bootstrap), new server", first, again))
    print("| first use after installation | first, s | again (cached kernels), s |")
    print("|---|---:|---:|")
    for work, first, again in rows:
        print(f"| {work} | {first:.1f} | {again:.1f} |")
    worst = max(r[1] for r in rows)
    print(f"\ngoal (at most {GOAL:.0f} s): {'met' if worst <= GOAL else 'NOT met'} (slowest first use {worst:.1f} s)")


if __name__ == "__main__":
    main()

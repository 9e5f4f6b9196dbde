"""TER and tBLEU against word BLEU, whole processes (issue 23, goal 2: tBLEU at most 2x BLEU's time,
TER at most 1.5x), with sacrebleu 2.6.0's command line as the peer, in one run.

``python -m mtlens score --metrics <m>`` for each metric, one metric per process, on
../shared/data/wmt/en-de (8 systems x 1002 lines x 3 references), best of ``--repeat`` runs, Python's
default bytecode caching (one untimed run first), kernels in numba's disk cache (as after the first
use); ``sacrebleu REFS -i SYSTEMS -m bleu`` and ``-m ter`` in the same run.

    python benchmarks/bench_slow_metrics.py [--repeat 5] [--pair en-de]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, pair

GOALS = {"tbleu": 2.0, "ter": 1.5}


def best(cmd, env, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pair", default="en-de")
    ap.add_argument("--sacrebleu-ter", action="store_true", help="also time sacrebleu's TER (slow: minutes)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    py = sys.executable
    refs, systems = pair(args.pair)
    r, s = [str(p) for p in refs], [str(p) for p in systems]
    ml = [py, "-m", "mtlens", "score", *(a for p in r for a in ("--ref", p)), "--sys", *s, "--format", "json"]
    times = {}
    for m in ("bleu", "ter", "tbleu", "chrf"):
        subprocess.run([*ml, "--metrics", m], check=True, capture_output=True, cwd=ROOT, env=env)  # untimed
        times[m] = best([*ml, "--metrics", m], env, args.repeat)
    sacrebleu = str(Path(py).with_name("sacrebleu"))
    peer = {"bleu": best([sacrebleu, *r, "-i", *s, "-m", "bleu", "-f", "json"], env, 1)}
    if args.sacrebleu_ter:
        peer["ter"] = best([sacrebleu, *r, "-i", *s, "-m", "ter", "-f", "json"], env, 1)
    print(f"{args.pair}: {len(s)} systems x {len(r)} references, whole processes, best of {args.repeat}")
    print("| metric | mtlens, s | x mtlens BLEU | goal | sacrebleu CLI, s |")
    print("|---|---:|---:|---|---:|")
    for m, t in times.items():
        ratio = t / times["bleu"]
        goal = f"at most {GOALS[m]:g}x: {'met' if ratio <= GOALS[m] else 'not met'}" if m in GOALS else ""
        sb = f"{peer[m]:.1f}" if m in peer else ""
        print(f"| {m} | {t:.2f} | {ratio:.2f} | {goal} | {sb} |")


if __name__ == "__main__":
    main()

"""Whole processes against sacrebleu 2.6.0's own command line, in one run, on ../shared/data/wmt/en-de.

8 systems x 1002 lines x 3 references. Every figure is the best of ``--repeat`` runs of a complete
process (interpreter start-up, imports, reading, scoring, output), mtlens and sacrebleu alternately.
Both run with Python's default bytecode caching (``PYTHONDONTWRITEBYTECODE`` removed, one untimed
run first), as on a user's machine; sacrebleu's bytecode was compiled by pip. sacrebleu's paired
tests print text (``-f text``): its JSON output fails on them (float32 values).

    python benchmarks/bench_cli.py [--repeat 5]

Goals (issue 14): every ratio at least 10x; mtlens' start-up within 0.3 s of sacrebleu's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, pair

GOAL_RATIO = 10.0
GOAL_STARTUP = 0.3


def timed(cmds: list[list[str]], env) -> float:
    """Wall time of running ``cmds`` one after the other (each must succeed)."""
    t = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT, env=env)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    py = sys.executable
    sacrebleu = str(Path(py).with_name("sacrebleu"))
    refs, systems = pair("en-de")
    r, s = [str(p) for p in refs], [str(p) for p in systems]
    ml_in = [a for p in r for a in ("--ref", p)] + ["--sys", *s, "--metrics", "bleu,chrf", "--format", "json"]
    sb_in = [*r, "-i", *s, "-m", "bleu", "chrf", "-f", "json"]
    rows = [
        ("start-up: `--help`", [[py, "-m", "mtlens", "--help"]], [[sacrebleu, "--help"]]),
        (
            "BLEU + chrF, 8 systems (sacrebleu: all systems in one run)",
            [[py, "-m", "mtlens", "score", *ml_in]],
            [[sacrebleu, *sb_in]],
        ),
        (
            "BLEU + chrF, 8 systems (sacrebleu: one run per system)",
            [[py, "-m", "mtlens", "score", *ml_in]],
            [[sacrebleu, *r, "-i", x, "-m", "bleu", "chrf", "-f", "json"] for x in s],
        ),
        (
            "paired bootstrap 1,000, BLEU + chrF (mtlens: all 28 pairs; sacrebleu: 7 against the baseline)",
            [[py, "-m", "mtlens", "compare", *ml_in, "--test", "bootstrap", "--n", "1000"]],
            [[sacrebleu, *sb_in[:-2], "-f", "text", "--paired-bs", "--paired-bs-n", "1000"]],
        ),
        (
            "approximate randomisation 10,000, BLEU + chrF (28 pairs; sacrebleu: 7)",
            [[py, "-m", "mtlens", "compare", *ml_in, "--test", "ar", "--n", "10000"]],
            [[sacrebleu, *sb_in[:-2], "-f", "text", "--paired-ar", "--paired-ar-n", "10000"]],
        ),
    ]
    for _, ml, sb in rows:  # untimed: bytecode written, disk caches warm
        timed(ml, env)
        timed(sb[:1], env)
    print(f"Whole processes, best of {args.repeat} (this machine: {os.cpu_count()} cores)\n")
    print("| work | sacrebleu 2.6.0 CLI, s | mtlens CLI, s | speed-up |")
    print("|---|---:|---:|---:|")
    failed = []
    for work, ml, sb in rows:
        t_ml = t_sb = float("inf")
        for _ in range(args.repeat):
            t_ml = min(t_ml, timed(ml, env))
            t_sb = min(t_sb, timed(sb, env))
        if work.startswith("start-up"):
            print(f"| {work} | {t_sb:.2f} | {t_ml:.2f} | +{t_ml - t_sb:.2f} s |")
            if t_ml - t_sb > GOAL_STARTUP:
                failed.append(work)
            continue
        print(f"| {work} | {t_sb:.2f} | {t_ml:.2f} | {t_sb / t_ml:.1f}x |")
        if t_sb / t_ml < GOAL_RATIO:
            failed.append(work)
    print("\ngoals (10x, start-up within 0.3 s):", "all met" if not failed else "NOT met: " + "; ".join(failed))


if __name__ == "__main__":
    main()

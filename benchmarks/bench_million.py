"""A million lines (issue 23, goal 4): BLEU + chrF for 1,000,000 lines x 2 systems x 1 reference.

The corpus is made of real lines: the references and first two systems of every pair of
../shared/data/wmt, cycled to the wanted length (written to a temporary folder). Every tool runs as a
whole process (interpreter start-up, reading the files, scoring), one after the other:

- mtlens: ``python -m mtlens score --metrics bleu,chrf`` (and ``--metrics bleu`` alone);
- bleuscore 0.2 (Rust, PyPI): corpus BLEU of both systems (its own 13a tokenizer; not sacrebleu's
  numbers: 57.94 against 58.06 on en-de);
- fastchrf 0.2 (Rust, PyPI): sentence-level chrF of every line (``aggregate_chrf`` on batches of 10,000
  lines: one call on a million lines ran for over 15 minutes; it has no corpus chrF), both systems;
- sacrebleu 2.6.0 (``sacrebleu REF -i A B -m bleu chrf``): its time grows linearly with the lines, so
  it runs on the first N and N/2 lines (``--sacrebleu-lines``, default 100,000) and its time for a
  million is the straight line through those two points (its start-up counted once, not multiplied).

Time and memory come from separate runs: each tool's time from a run nobody watches (reading
``/proc/PID/smaps_rollup`` walks the page tables under the process's memory-map lock, and sampling a
2 GB process every 10 ms slowed mtlens' million lines from 86 s to 151 s, its own allocations waiting
on the sampler), mtlens' peak memory from a second run of the same command.
Peak memory of the process and its children, sampled every 10 ms, two ways: the sum of their
proportional set sizes (PSS: a page shared by k processes counts 1/k in each, so the sum is the memory
the tree occupies; the goal's measure) and the sum of their resident sets (RSS: a page a forked worker
shares with its parent counts twice). Goals: at least 20x sacrebleu's speed, at least as fast as
bleuscore (+ fastchrf for chrF), peak under 2 GB.

    pip install bleuscore fastchrf   # the peers (requirements-bench.txt)
    python benchmarks/bench_million.py [--lines 1000000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
import time
from itertools import cycle, islice
from pathlib import Path

from bench_memory import peak_memory
from common import ROOT, read, shared

PEER = textwrap.dedent(
    """
    import sys
    ref = open(sys.argv[2], encoding="utf-8").read().split("\\n")[:-1]
    systems = [open(p, encoding="utf-8").read().split("\\n")[:-1] for p in sys.argv[3:]]
    if sys.argv[1] == "bleuscore":
        import bleuscore
        refs = [[r] for r in ref]
        for hyp in systems:
            print(bleuscore.compute(references=refs, predictions=hyp, max_order=4, smooth=False)["bleu"])
    else:
        import fastchrf
        refs = [[r] for r in ref]
        for hyp in systems:  # in batches of 10,000 lines: one call on a million lines takes over 15 minutes
            total = 0.0
            for a in range(0, len(hyp), 10_000):
                total += sum(s[0] for s in fastchrf.aggregate_chrf([[h] for h in hyp[a : a + 10_000]], refs[a : a + 10_000]))
            print(total / len(hyp))
    """
)


def timed(cmd) -> float:
    """Wall seconds of a whole process nobody samples."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    wall = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"{cmd[:4]} failed: {proc.stderr.decode()[-2000:]}")
    return wall


def run(cmd, memory: bool = False) -> tuple[float, float, float]:
    """(wall seconds, peak PSS MB, peak RSS MB; NaN when ``memory`` is false) of a whole process."""
    wall = timed(cmd)
    return (wall, *(peak_memory(cmd) if memory else (float("nan"), float("nan"))))


def _mb(x: float) -> str:
    return "not sampled" if x != x else f"{x:.0f}"


def write(folder: Path, streams: dict, n: int) -> dict:
    paths = {}
    for key, lines in streams.items():
        paths[key] = folder / f"{key}.{n}.txt"
        paths[key].write_text("\n".join(islice(cycle(lines), n)) + "\n", encoding="utf-8")
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--sacrebleu-lines", type=int, default=100_000)
    args = ap.parse_args()
    streams = {"ref": [], "A": [], "B": []}
    for folder in sorted(shared("wmt").iterdir()):
        systems = [p for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
        streams["ref"] += read(folder / "ref.txt")
        for key, path in zip("AB", systems, strict=False):
            streams[key] += read(path)
    py = sys.executable
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        big = write(Path(tmp), streams, args.lines)
        files = [str(big["ref"]), str(big["A"]), str(big["B"])]
        mt = [py, "-m", "mtlens", "score", "--ref", files[0], "--sys", *files[1:], "--format", "json"]
        rows["mtlens BLEU + chrF"] = run([*mt, "--metrics", "bleu,chrf"], memory=True)
        rows["mtlens BLEU"] = run([*mt, "--metrics", "bleu"])
        rows["bleuscore BLEU"] = run([py, "-c", PEER, "bleuscore", *files])
        rows["fastchrf sentence chrF"] = run([py, "-c", PEER, "fastchrf", *files])
        sacre = {}
        for n in (args.sacrebleu_lines // 2, args.sacrebleu_lines):
            small = write(Path(tmp), streams, n)
            cmd = [
                py,
                "-m",
                "sacrebleu",
                str(small["ref"]),
                "-i",
                str(small["A"]),
                str(small["B"]),
                "-m",
                "bleu",
                "chrf",
            ]
            sacre[n] = run(cmd, memory=n == args.sacrebleu_lines)
    n_sacre = args.sacrebleu_lines
    half, full = sacre[n_sacre // 2][0], sacre[n_sacre][0]
    per_line = (full - half) / (n_sacre - n_sacre // 2)
    sacre_full = full + per_line * (args.lines - n_sacre)  # the line through both points
    print(f"{args.lines:,} lines x 2 systems x 1 reference (real WMT lines cycled), whole processes")
    print("| tool | s | peak MB, PSS sum | peak MB, RSS sum |")
    print("|---|---:|---:|---:|")
    for name, (wall, pss, rss) in rows.items():
        print(f"| {name} | {wall:.1f} | {_mb(pss)} | {_mb(rss)} |")
    for n, (wall, pss, rss) in sacre.items():
        print(f"| sacrebleu 2.6.0 BLEU + chrF, {n:,} lines | {wall:.1f} | {_mb(pss)} | {_mb(rss)} |")
    print(f"| sacrebleu 2.6.0 BLEU + chrF, {args.lines:,} lines (projected) | {sacre_full:.0f} | | |")
    mine, peak, peak_rss = rows["mtlens BLEU + chrF"]
    peers = rows["bleuscore BLEU"][0] + rows["fastchrf sentence chrF"][0]
    print(
        f"sacrebleu's time grows linearly: {n_sacre // 2:,} lines {sacre[n_sacre // 2][0]:.1f} s, "
        f"{n_sacre:,} lines {sacre[n_sacre][0]:.1f} s"
    )
    ratio = sacre_full / mine
    print(f"mtlens BLEU + chrF vs sacrebleu: {ratio:.1f}x faster (goal 20x: {'met' if ratio >= 20 else 'not met'})")
    print(
        f"mtlens BLEU + chrF vs bleuscore + fastchrf: {peers / mine:.2f}x "
        f"(goal at least 1x: {'met' if mine <= peers else 'not met'})"
    )
    b = rows["bleuscore BLEU"][0] / rows["mtlens BLEU"][0]
    print(f"mtlens BLEU vs bleuscore BLEU: {b:.2f}x (goal at least 1x: {'met' if b >= 1 else 'not met'})")
    print(
        f"peak memory of mtlens' process tree: {peak:.0f} MB PSS (goal under 2048 MB: "
        f"{'met' if peak < 2048 else 'not met'}); {peak_rss:.0f} MB counting shared pages in every process"
    )


if __name__ == "__main__":
    main()

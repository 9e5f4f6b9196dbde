"""Peak memory of `python -m mtlens score` on a 100,000-line corpus with 3 systems (BLEU + chrF).

The corpus is made of real lines: the references and systems of every pair of
../shared/data/wmt, cycled to 100,000 lines (written to a temporary folder).

mtlens shares the work with forked children (one per extra core), so the figure is the peak of
the *sum* over the process and its children, sampled every 10 ms from /proc: resident set sizes
(an upper bound: pages the children share with the parent count twice) and proportional set
sizes (shared pages divided between the processes). Goal (issue 14): within 1 GB. Peer in the same
run: sacrebleu 2.6.0's command line on the same files and metrics, measured the same way.

    python benchmarks/bench_memory.py [--lines 100000] [--metrics bleu,chrf]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

from common import ROOT, process_tree, read, shared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--metrics", default="bleu,chrf")
    args = ap.parse_args()
    streams = {"ref": [], "A": [], "B": [], "C": []}
    for folder in sorted(shared("wmt").iterdir()):
        systems = [p for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
        streams["ref"] += read(folder / "ref.txt")
        for key, path in zip("ABC", systems, strict=False):
            streams[key] += read(path)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for key, lines in streams.items():
            paths[key] = Path(tmp) / f"{key}.txt"
            paths[key].write_text("\n".join(islice(cycle(lines), args.lines)) + "\n", encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "mtlens",
            "score",
            "--ref",
            str(paths["ref"]),
            "--sys",
            *(str(paths[k]) for k in "ABC"),
            "--metrics",
            args.metrics,
            "--format",
            "json",
        ]
        t = time.perf_counter()
        peak_pss, peak_rss = peak_memory(cmd)
        wall = time.perf_counter() - t
        one = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # before the peer runs
        sacrebleu = str(Path(sys.executable).with_name("sacrebleu"))
        peer_cmd = [sacrebleu, str(paths["ref"]), "-i", *(str(paths[k]) for k in "ABC")]
        peer_cmd += ["-m", *args.metrics.split(","), "-f", "json"]
        t = time.perf_counter()
        peer_rss = peak_rss_single(peer_cmd)
        peer_wall = time.perf_counter() - t
    print(
        f"{args.lines} lines x 3 systems, {args.metrics}: peak of the process tree {peak_rss:.0f} MB RSS, "
        f"{peak_pss:.0f} MB PSS (largest single process {one:.0f} MB); wall {wall:.1f} s"
    )
    print(
        f"peer, same run: sacrebleu 2.6.0 CLI (one process) on the same files: peak {peer_rss:.0f} MB RSS; "
        f"wall {peer_wall:.1f} s; mtlens / sacrebleu: peak RSS {peak_rss / peer_rss:.2f}x, time {wall / peer_wall:.2f}x"
    )
    print(f"goal: within 1 GB: {'met' if peak_rss <= 1024 else 'NOT met'}")


def peak_memory(cmd) -> tuple[float, float]:
    """(peak MB of the process tree's PSS, peak MB of its RSS) of a whole process, sampled every 10 ms."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        peak_pss = peak_rss = 0
        while proc.poll() is None:
            rss, pss = tree_memory(proc.pid)
            peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
            time.sleep(0.01)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{cmd[:4]} failed: {err.read().decode()[-2000:]}")
    return peak_pss / 1024, peak_rss / 1024


def peak_rss_single(cmd) -> float:
    """Peak RSS (MB) of a program that runs in one process, from the kernel's own high-water mark
    (``wait4``'s ``ru_maxrss``): no sampling, which would slow a large process (reading its page map
    takes the lock its allocations need)."""
    import os

    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{cmd[:4]} failed: {err.read().decode()[-2000:]}")
    return usage.ru_maxrss / 1024


def tree_memory(pid: int) -> tuple[int, int]:
    """(sum of RSS, sum of PSS) in kB over ``pid`` and its descendants (0 for vanished ones)."""
    rss = pss = 0
    for p in process_tree(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return rss, pss


if __name__ == "__main__":
    main()

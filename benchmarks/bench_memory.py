"""Peak memory of `python -m mtlens score` on a 100,000-line corpus with 3 systems (BLEU + chrF).

The corpus is made of real lines: the references and systems of every pair of
../shared/data/wmt, cycled to 100,000 lines (written to a temporary folder).

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

from common import ROOT, SHARED, read


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--metrics", default="bleu,chrf")
    args = ap.parse_args()
    streams = {"ref": [], "A": [], "B": [], "C": []}
    for folder in sorted((SHARED / "wmt").iterdir()):
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
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        wall = time.perf_counter() - t
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{args.lines} lines x 3 systems, {args.metrics}: peak RSS {peak_mb:.0f} MB, wall {wall:.1f} s")


if __name__ == "__main__":
    main()

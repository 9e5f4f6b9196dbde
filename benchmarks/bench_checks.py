"""The translation checks against BLEU on the same data, as whole commands (issue 60: "all checks over 8 systems x
100k lines no slower than BLEU"), and a 1,000,000-term glossary's memory.

The data: ../shared/data/wmt/en-de (source, reference, 8 systems), each line repeated to N lines with a distinct
word appended per repeat (so no two lines of a system are the same text and nothing is identified twice). Each
command is a fresh process (``python -m mtlens score ... --format json``), best of ``--repeat``.

    python benchmarks/bench_checks.py                 # 8 x 100,000 lines
    python benchmarks/bench_checks.py --lines 20000   # quicker
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, pair, read, shared


def _tag(k: int) -> str:
    s = ""
    k += 1
    while k:
        s += chr(97 + k % 26)
        k //= 26
    return s


def _write(folder: Path, n: int) -> list[str]:
    ref_paths, sys_paths = pair("en-de")
    src = read(shared("wmt", "en-de", "src.txt"))
    m = len(src)

    def grow(lines):
        return [f"{lines[i % m]} {_tag(i // m)}" if i >= m else lines[i] for i in range(n)]

    (folder / "src.txt").write_text("\n".join(grow(src)) + "\n", encoding="utf-8")
    (folder / "ref.txt").write_text("\n".join(grow(read(ref_paths[0]))) + "\n", encoding="utf-8")
    out = []
    for p in sys_paths[:8]:
        (folder / p.name).write_text("\n".join(grow(read(p))) + "\n", encoding="utf-8")
        out.append(str(folder / p.name))
    return out


def _run(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mtlens", *args], check=True, cwd=ROOT, capture_output=True)
    return time.perf_counter() - start


_PEAK = (
    "import resource, subprocess, sys; subprocess.run([sys.executable, '-m', 'mtlens', *sys.argv[1:]], check=True, "
    "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def _peak_mb(args: list[str]) -> float:
    """The peak resident memory of one command, measured by a parent of its own (MB)."""
    got = subprocess.run([sys.executable, "-c", _PEAK, *args], check=True, cwd=ROOT, capture_output=True, text=True)
    return int(got.stdout.strip()) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--terms", type=int, default=1_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        systems = _write(folder, args.lines)
        base = ["score", "--src", str(folder / "src.txt"), "--ref", str(folder / "ref.txt"), "--sys", *systems,
                "-l", "en-de", "--format", "json", "--data-dir", str(folder / "ws")]  # fmt: skip
        _run([*base, "--metrics", "bleu"])  # the kernels built and the pool's code read once, for both
        _run([*base, "--metrics", "checks"])
        bleu = min(_run([*base, "--metrics", "bleu"]) for _ in range(args.repeat))
        checks = min(_run([*base, "--metrics", "checks"]) for _ in range(args.repeat))
        print(f"| {len(systems)} systems x {args.lines:,} lines | seconds |")
        print("|---|---:|")
        print(f"| mtlens score --metrics bleu | {bleu:.2f} |")
        print(f"| mtlens score --metrics checks (all nine) | {checks:.2f} |")
        print(f"| checks / BLEU | {checks / bleu:.2f} |")
        rng = random.Random(1)
        words = [w for line in read(shared("wmt", "en-de", "src.txt")) for w in line.split()]
        with open(folder / "big.tsv", "w", encoding="utf-8") as f:
            for k in range(args.terms):
                f.write(f"{rng.choice(words)} {_tag(k)}\tZiel {k}\n")
        one = ["score", "--src", str(folder / "src.txt"), "--ref", str(folder / "ref.txt"), "--sys", systems[0],
               "--format", "json", "--data-dir", str(folder / "ws")]  # fmt: skip
        plain = _peak_mb([*one, "--metrics", "bleu"])
        start = time.perf_counter()
        terms = _peak_mb([*one, "--metrics", "term", "--terms", str(folder / "big.tsv")])
        took = time.perf_counter() - start
        size = (folder / "big.tsv").stat().st_size / 2**20
        print(f"\n| a glossary of {args.terms:,} terms ({size:.0f} MB) | peak MB | seconds |")
        print("|---|---:|---:|")
        print(f"| score --metrics bleu, one system | {plain:.0f} | |")
        print(f"| score --metrics term --terms (the glossary) | {terms:.0f} | {took:.1f} |")


if __name__ == "__main__":
    main()

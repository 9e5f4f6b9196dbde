"""TER against sacrebleu 2.6.0, in one process: ../shared/data/wmt/en-de, 8 systems x 1002 lines x 3 references.

python benchmarks/bench_ter.py            # full set (sacrebleu needs about 2-3 minutes)
python benchmarks/bench_ter.py --lines 200
"""

from __future__ import annotations

import argparse
import sys
import time

from common import ROOT, best_of, clear_tokenizer_caches, pair, read

sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=None)
    args = ap.parse_args()
    from sacrebleu.metrics import TER as SacreTER

    from mtlens.metrics import TER

    ref_paths, sys_paths = pair("en-de")
    refs = [read(p)[: args.lines] for p in ref_paths]
    hyps = [read(p)[: args.lines] for p in sys_paths]
    m = TER()
    t = time.perf_counter()
    m.statistics([["a b"]], [["b a"]])  # numba: load the compiled kernel from its cache (or compile once)
    warm = time.perf_counter() - t
    t_ml = best_of(lambda: [m.corpus_score(s) for s in m.statistics(refs, hyps)], 3)
    clear_tokenizer_caches()
    t = time.perf_counter()
    sb = [SacreTER().corpus_score(h, refs).score for h in hyps]
    t_sb = time.perf_counter() - t
    ours = [m.corpus_score(s) for s in m.statistics(refs, hyps)]
    assert max(abs(a - b) for a, b in zip(ours, sb, strict=True)) < 1e-9
    print(
        f"| TER, {len(hyps)} systems x {len(refs[0])} lines x {len(refs)} refs | sacrebleu {t_sb:.1f} s | "
        f"mtlens {t_ml:.2f} s | {t_sb / t_ml:.0f}x | kernel load {warm:.1f} s |"
    )


if __name__ == "__main__":
    main()

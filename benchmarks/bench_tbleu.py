"""tBLEU cost against sacrebleu's plain BLEU, one process, on ../shared/data/wmt/en-cs (8 systems, 2 references),
and the sweep over 21 epsilons (the Human correlation page's tBLEU sweep).

python benchmarks/bench_tbleu.py
"""

from __future__ import annotations

import sys
import time

from common import ROOT, best_of, pair, read

sys.path.insert(0, str(ROOT))


def main():
    from sacrebleu.metrics import BLEU as SacreBLEU

    from mtlens.metrics import TBLEU

    ref_paths, sys_paths = pair("en-cs")
    refs = [read(p) for p in ref_paths]
    hyps = [read(p) for p in sys_paths]
    TBLEU().statistics([["a b"]], [["a c"]])  # imports done before timing
    t_sb = best_of(lambda: [SacreBLEU().corpus_score(h, refs) for h in hyps], 3)
    t_tb = best_of(lambda: TBLEU(0.05).statistics(refs, hyps), 3)
    t = time.perf_counter()
    TBLEU(0.05).sweep_statistics(refs, hyps, [round(0.05 * i, 2) for i in range(21)])
    t_sweep = time.perf_counter() - t
    print(
        f"| tBLEU (epsilon 0.05), 8 systems x 1002 lines x 2 refs | sacrebleu BLEU {t_sb:.2f} s | tBLEU {t_tb:.2f} s "
        f"| {t_tb / t_sb:.2f}x of BLEU's time | sweep of 21 epsilons {t_sweep:.1f} s |"
    )


if __name__ == "__main__":
    main()

"""Significance tests against sacrebleu 2.6.0, in one process, on ../shared/data/wmt/en-de.

mtlens: all 28 pairs of the 8 systems, BLEU and chrF, paired bootstrap (1,000) and approximate
randomisation (10,000), statistics included. sacrebleu: its 7 baseline comparisons of the same two
tests (``PairedTest``, one worker, as its command line does by default).

    python benchmarks/bench_significance.py
"""

from __future__ import annotations

import sys
import time

from common import ROOT, clear_tokenizer_caches, pair, read

sys.path.insert(0, str(ROOT))


def main():
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.metrics import CHRF as SacreCHRF
    from sacrebleu.significance import PairedTest

    import mtlens
    from mtlens.analysis.significance import compare

    ref_paths, sys_paths = pair("en-de")
    refs = [read(p) for p in ref_paths]
    named = [(p.stem, read(p)) for p in sys_paths]

    clear_tokenizer_caches()
    t = time.perf_counter()
    for test, n in (("bs", 1000), ("ar", 10000)):
        PairedTest(named, {"BLEU": SacreBLEU(), "chrF2": SacreCHRF()}, references=refs, test_type=test, n_samples=n)()
    t_sb = time.perf_counter() - t

    clear_tokenizer_caches()
    t = time.perf_counter()
    results = mtlens.score(mtlens.load_corpus(ref_paths, sys_paths), "bleu,chrf")
    n_pairs = 0
    for r in results.values():
        for test in ("bootstrap", "ar"):
            n_pairs += len(compare(r, test).pairs)
    t_ml = time.perf_counter() - t
    print("| work | s |")
    print("|---|---:|")
    print(f"| sacrebleu `PairedTest`: 7 baseline comparisons x (bootstrap 1000 + AR 10000), BLEU + chrF | {t_sb:.1f} |")
    print(f"| mtlens: scoring + all {n_pairs // 4} pairs x (bootstrap 1000 + AR 10000), BLEU + chrF | {t_ml:.1f} |")
    print(f"| ratio | {t_sb / t_ml:.1f}x |")


if __name__ == "__main__":
    main()

"""Scoring speed against sacrebleu 2.6.0, in one process, on ../shared/data/wmt/en-de.

8 systems x 1002 lines x 3 references. Prints a markdown table of wall times and ratios.

    python benchmarks/bench_score.py            # everything (character BLEU-18 in sacrebleu takes ~90 s)
    python benchmarks/bench_score.py --quick    # skip sacrebleu's character BLEU-18 run
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from common import ROOT, best_of, clear_tokenizer_caches, pair, read

sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.metrics import CHRF as SacreCHRF

    import mtlens

    ref_paths, sys_paths = pair("en-de")
    refs = [read(p) for p in ref_paths]
    hyps = [read(p) for p in sys_paths]
    rows = []

    def sb_bleu_chrf():
        for h in hyps:
            SacreBLEU().corpus_score(h, refs)
            SacreCHRF().corpus_score(h, refs)

    def sb_bleu_chrf_cached():
        b, c = SacreBLEU(references=refs), SacreCHRF(references=refs)
        for h in hyps:
            b.corpus_score(h, None)
            c.corpus_score(h, None)

    def ml_bleu_chrf():
        corpus = mtlens.load_corpus(ref_paths, sys_paths)
        mtlens.score(corpus, "bleu,chrf")

    cli = [
        sys.executable,
        "-m",
        "mtlens",
        "score",
        *[a for p in ref_paths for a in ("--ref", str(p))],
        "--sys",
        *map(str, sys_paths),
        "--metrics",
        "bleu,chrf",
        "--format",
        "json",
    ]

    def ml_cli():
        subprocess.run(cli, check=True, capture_output=True, cwd=ROOT)

    t_sb = best_of(sb_bleu_chrf, args.repeat)
    t_sbc = best_of(sb_bleu_chrf_cached, args.repeat)
    t_ml = best_of(ml_bleu_chrf, args.repeat)
    t_cli = best_of(ml_cli, args.repeat)
    rows.append(("BLEU + chrF, 8 systems", "sacrebleu API, new metric per system", t_sb, "mtlens API", t_ml))
    rows.append(("BLEU + chrF, 8 systems", "sacrebleu API, references cached", t_sbc, "mtlens API", t_ml))
    rows.append(
        (
            "BLEU + chrF, 8 systems",
            "sacrebleu API, new metric per system",
            t_sb,
            "`python -m mtlens score` (whole process)",
            t_cli,
        )
    )

    def ml_char():
        corpus = mtlens.load_corpus(ref_paths, sys_paths)
        mtlens.score(corpus, "bleu-c")

    # the 13a tokenizer alone, every line of the 11 files, caches emptied (identical outputs checked)
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a as SacreTokenizer13a

    from mtlens.core.tokenizers import get_tokenizer

    lines = [line for stream in (*refs, *hyps) for line in stream]
    sb_tok, ml_tok = SacreTokenizer13a(), get_tokenizer("13a")
    assert [sb_tok(x) for x in lines] == [ml_tok(x) for x in lines]
    t_sbt = best_of(lambda: [sb_tok(x) for x in lines], args.repeat)
    t_mlt = best_of(lambda: [ml_tok(x) for x in lines], args.repeat)
    rows.append(
        (f"13a tokenization, {len(lines):,} lines", "sacrebleu `Tokenizer13a`", t_sbt, "mtlens `Tokenizer13a`", t_mlt)
    )

    t_mlc = best_of(ml_char, args.repeat)
    if not args.quick:
        clear_tokenizer_caches()
        t = time.perf_counter()
        for h in hyps:
            SacreBLEU(tokenize="char", max_ngram_order=18).corpus_score(h, refs)
        t_sbchar = time.perf_counter() - t
        rows.append(
            (
                "character BLEU-18, 8 systems",
                "sacrebleu `tokenize='char', max_ngram_order=18`",
                t_sbchar,
                "mtlens API `bleu-c`",
                t_mlc,
            )
        )
    else:
        print(f"mtlens bleu-c 18: {t_mlc:.2f} s (sacrebleu skipped with --quick)")

    print("| work | sacrebleu 2.6.0 | s | mtlens | s | speed-up |")
    print("|---|---|---:|---|---:|---:|")
    for work, a, ta, b, tb in rows:
        print(f"| {work} | {a} | {ta:.2f} | {b} | {tb:.2f} | {ta / tb:.1f}x |")


if __name__ == "__main__":
    main()

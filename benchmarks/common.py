"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ../shared/data (MTLENS_BENCH_SHARED names another folder: the tests run the benchmarks without it)
SHARED = Path(os.environ.get("MTLENS_BENCH_SHARED") or ROOT.parent / "shared" / "data")


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants as /proc lists them now (a process that ended meanwhile is left out)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        out.append(p)
    return out


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def shared(*parts: str) -> Path:
    """A folder of ../shared/data, or one sentence (not a traceback) when a plain clone has none."""
    folder = SHARED.joinpath(*parts)
    if not folder.exists():
        raise SystemExit(f"benchmark data {folder} is missing (it needs ../shared/data)")
    return folder


def pair(name: str):
    folder = shared("wmt", name)
    refs = sorted(folder.glob("ref*.txt"))
    systems = [p for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
    return refs, systems


def clear_tokenizer_caches() -> None:
    """Empty sacrebleu's and mtlens' tokenizer LRU caches, so no run profits from an earlier one."""
    from sacrebleu.tokenizers import tokenizer_13a, tokenizer_char, tokenizer_intl, tokenizer_re, tokenizer_zh

    from mtlens.core.tokenizers import Tokenizer13a

    Tokenizer13a.__call__.cache_clear()

    for fn in (
        tokenizer_13a.Tokenizer13a.__call__,
        tokenizer_re.TokenizerRegexp.__call__,
        tokenizer_char.TokenizerChar.__call__,
        tokenizer_intl.TokenizerV14International.__call__,
        tokenizer_zh.TokenizerZh.__call__,
    ):
        fn.cache_clear()


def best_of(fn, repeat: int = 3) -> float:
    """Fastest wall time of ``repeat`` runs (seconds), each starting with empty tokenizer caches."""
    best = float("inf")
    for _ in range(repeat):
        clear_tokenizer_caches()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def sacrebleu_seconds(refs: list[list[str]], hyps: list[list[str]], metrics=("bleu", "chrf")) -> float:
    """sacrebleu 2.6.0 at its fastest through its API: each metric built once with its references
    prepared, then every system's corpus score; wall seconds of one run, tokenizer caches emptied."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    make = {"bleu": BLEU, "chrf": CHRF, "chrf++": lambda **kw: CHRF(word_order=2, **kw), "ter": TER}

    def run():
        for name in metrics:
            metric = make[name](references=refs)
            for h in hyps:
                metric.corpus_score(h, None)

    return best_of(run, 1)

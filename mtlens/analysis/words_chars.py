"""Words vs characters (Denoual & Lepage, 2005, "BLEU in characters").

As the paper does it: sentence-level BLEU_wN and BLEU_cM without smoothing and
without effective order; for each M, Pearson's r between them, Cohen's kappa on
ten grades (grade = floor(score / 10), 100 in grade 9), and the analogical
share, the fraction of sentences with BLEU_cM <= BLEU_w(N-1). Best M: the
largest r, the largest kappa (smallest M on ties), and the smallest M whose
analogical share reaches 90% (the paper's threshold). See docs/decisions.md.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..metrics import BLEU, CharBLEU, bleu_from_totals
from ..runtime.tasks import statistics_many
from .correlation import cohen_kappa, grades, pearson

ANALOGY_THRESHOLD = 0.9
#: the largest character order studied (memory grows with it: one column pair per order)
MAX_CHAR_ORDER = 100


@dataclass(frozen=True)
class Criteria:
    """The paper's three criteria at one character order M."""

    char_order: int
    pearson: float
    kappa: float
    analogical: float


@dataclass(frozen=True)
class BestOrders:
    """The best M per criterion (None where no M qualifies)."""

    pearson: int | None
    kappa: int | None
    analogical: int | None


@dataclass(frozen=True)
class RankRow:
    """A system's corpus BLEU_wN and BLEU_cM and its rank by each (1 = best)."""

    system: str
    bleu_w: float
    bleu_c: float
    rank_w: int
    rank_c: int


@dataclass(frozen=True)
class WordsVsChars:
    """The words-vs-characters study on a corpus.

    Attributes:
        word_order: N.
        char_orders: the Ms studied.
        rows: system -> criteria per M.
        pooled: the same over all systems' sentences together.
        best: system (and ``"all"``) -> best M per criterion.
        ranking: systems with corpus BLEU_wN and BLEU_cM (M = ``ranking_char_order``), by word rank.
        ranking_char_order: M of the ranking and of ``sentences``.
        sentences: system -> (BLEU_wN per line, BLEU_cM per line).
    """

    word_order: int
    char_orders: tuple[int, ...]
    rows: dict[str, list[Criteria]]
    pooled: list[Criteria]
    best: dict[str, BestOrders]
    ranking: list[RankRow]
    ranking_char_order: int
    sentences: dict[str, tuple[np.ndarray, np.ndarray]] = field(repr=False)

    @property
    def rankings_agree(self) -> bool:
        return all(r.rank_w == r.rank_c for r in self.ranking)


def parse_orders(text: str) -> tuple[int, ...]:
    """``"1-30"`` or ``"5,18"`` or ``"1-5,18"`` -> sorted unique orders.

    Example:
        >>> parse_orders("1-3,18")
        (1, 2, 3, 18)
    """
    out: set[int] = set()
    try:
        for part in str(text).split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                a, b = part.split("-", 1)
                if int(b) - int(a) > MAX_CHAR_ORDER:
                    raise ValueError
                out.update(range(int(a), int(b) + 1))
            else:
                out.add(int(part))
    except ValueError:
        raise InputError(f"character orders must look like '1-30' or '5,18', not '{text}'") from None
    if not out or min(out) < 1 or max(out) > MAX_CHAR_ORDER:
        raise InputError(f"character orders must be between 1 and {MAX_CHAR_ORDER}, not '{text}'")
    return tuple(sorted(out))


def _best(rows: list[Criteria]) -> BestOrders:
    def arg(key):
        vals = [(getattr(r, key), r.char_order) for r in rows if not math.isnan(getattr(r, key))]
        return max(vals, key=lambda v: (v[0], -v[1]))[1] if vals else None

    analog = next((r.char_order for r in rows if r.analogical >= ANALOGY_THRESHOLD), None)
    return BestOrders(arg("pearson"), arg("kappa"), analog)


def _criteria(w: np.ndarray, w_prev: np.ndarray, c: np.ndarray, m: int) -> Criteria:
    return Criteria(
        m,
        pearson(w, c),
        cohen_kappa(grades(w), grades(c)),
        float(np.mean(c <= w_prev)) if len(c) else float("nan"),
    )


def words_vs_chars(
    corpus: Corpus,
    word_order: int = 4,
    char_orders: Sequence[int] = tuple(range(1, 31)),
    ranking_char_order: int = 18,
    tokenize: str = "13a",
    lowercase: bool = False,
) -> WordsVsChars:
    """Run the study of Denoual & Lepage (2005) on a corpus (see the module docstring)."""
    if not 2 <= word_order <= 10:
        raise InputError(f"--word-order must be between 2 and 10 (the analogy compares with N - 1), not {word_order}")
    if not 1 <= ranking_char_order <= MAX_CHAR_ORDER:
        raise InputError(f"--ranking-char-order must be between 1 and {MAX_CHAR_ORDER}, not {ranking_char_order}")
    orders = tuple(sorted(set(int(m) for m in char_orders)))
    if not orders or orders[0] < 1 or orders[-1] > MAX_CHAR_ORDER:
        raise InputError(f"character orders must be between 1 and {MAX_CHAR_ORDER}")
    max_m = max(max(orders), ranking_char_order)
    refs, hyps = corpus.reference_streams(), corpus.system_streams()
    N = word_order
    wstats, cstats = statistics_many(
        [BLEU(tokenize, lowercase, "none", None, N), CharBLEU(max_m, lowercase=lowercase, smooth_method="none")],
        refs,
        hyps,
    )

    def sub(st, total_order, k):
        cols = [0, 1, *range(2, 2 + k), *range(2 + total_order, 2 + total_order + k)]
        return st[:, cols]

    rows: dict[str, list[Criteria]] = {}
    best: dict[str, BestOrders] = {}
    sentences = {}
    all_w, all_wp, all_c = [], [], {m: [] for m in orders}
    corpus_scores = []
    for name, ws, cs in zip(corpus.system_names, wstats, cstats, strict=True):
        w = bleu_from_totals(ws, N, "none")
        w_prev = bleu_from_totals(sub(ws, N, N - 1), N - 1, "none")
        all_w.append(w)
        all_wp.append(w_prev)
        rows[name] = []
        for m in orders:
            c = bleu_from_totals(sub(cs, max_m, m), m, "none")
            all_c[m].append(c)
            rows[name].append(_criteria(w, w_prev, c, m))
        best[name] = _best(rows[name])
        c_rank = sub(cs, max_m, ranking_char_order)
        sentences[name] = (w, bleu_from_totals(c_rank, ranking_char_order, "none"))
        corpus_scores.append(
            (
                name,
                float(bleu_from_totals(ws.sum(axis=0), N, "exp")),
                float(bleu_from_totals(c_rank.sum(axis=0), ranking_char_order, "exp")),
            )
        )
    w_all, wp_all = np.concatenate(all_w), np.concatenate(all_wp)
    pooled = [_criteria(w_all, wp_all, np.concatenate(all_c[m]), m) for m in orders]
    best["all"] = _best(pooled)
    rank_w = {s: i for i, (s, _, _) in enumerate(sorted(corpus_scores, key=lambda r: -r[1]), start=1)}
    rank_c = {s: i for i, (s, _, _) in enumerate(sorted(corpus_scores, key=lambda r: -r[2]), start=1)}
    ranking = sorted((RankRow(s, bw, bc, rank_w[s], rank_c[s]) for s, bw, bc in corpus_scores), key=lambda r: r.rank_w)
    return WordsVsChars(N, orders, rows, pooled, best, ranking, ranking_char_order, sentences)


def to_dict(res: WordsVsChars) -> dict:
    """The ``analyze`` command's JSON part."""
    asdict = dataclasses.asdict
    return {
        "words_vs_chars": {s: [asdict(r) for r in rows] for s, rows in res.rows.items()},
        "pooled": [asdict(r) for r in res.pooled],
        "best": {s: asdict(b) for s, b in res.best.items()},
        "ranking": [asdict(r) for r in res.ranking],
        "word_order": res.word_order,
        "ranking_char_order": res.ranking_char_order,
        "rankings_agree": res.rankings_agree,
    }

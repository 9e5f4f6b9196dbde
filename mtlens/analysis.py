"""Analyses: words vs characters (Denoual & Lepage, 2005), correlation with human judgments,
the tBLEU threshold sweep (Libovický & Pecina, 2014).

Words vs characters, as the paper does it: sentence-level BLEU_wN and BLEU_cM
without smoothing and without effective order; for each M, Pearson's r between
them, Cohen's kappa on ten grades (grade = floor(score / 10), 100 in grade 9),
and the analogical share, the fraction of sentences with BLEU_cM <= BLEU_w(N-1).
Best M: the largest r, the largest kappa, and the smallest M whose analogical
share reaches 90% (the paper's threshold).

Human correlation: Pearson, Spearman and Kendall's tau (scipy) between each
metric and each human score type, at system level (corpus scores vs system
human scores) and segment level (sentence scores vs rated lines, all systems
pooled), with percentile bootstrap 95% intervals (items resampled with replacement).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from .corpus import Corpus
from .errors import InputError
from .io import decode_lines
from .metrics import BLEU, CharBLEU, bleu_from_totals
from .ngrams import ngram_counts
from .scoring import MetricResult

ANALOGY_THRESHOLD = 0.9


# --------------------------------------------------------------------------- statistics helpers
def grades(scores: np.ndarray) -> np.ndarray:
    """Scores 0-100 to grades 0..9 (100 falls in grade 9)."""
    return np.minimum(np.floor(np.asarray(scores, dtype=np.float64) / 10.0), 9).astype(np.int64)


def cohen_kappa(a: np.ndarray, b: np.ndarray, n_classes: int = 10) -> float:
    """Cohen's kappa of two judges' integer grades (NaN when chance agreement is 1).

    Example:
        >>> round(cohen_kappa(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 1]), 3), 4)
        0.6364
    """
    a, b = np.asarray(a), np.asarray(b)
    if len(a) == 0:
        return float("nan")
    table = np.zeros((n_classes, n_classes))
    np.add.at(table, (a, b), 1)
    table /= len(a)
    p_o = np.trace(table)
    p_e = float(table.sum(axis=1) @ table.sum(axis=0))
    return float("nan") if p_e == 1 else float((p_o - p_e) / (1 - p_e))


def pearson(x, y) -> float:
    """Pearson's r, NaN when it is undefined (fewer than 2 points or a constant side)."""
    return _corr("pearson", x, y)


def _corr(kind: str, x, y) -> float:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    if kind == "pearson":
        return float(sps.pearsonr(x, y).statistic)
    if kind == "spearman":
        return float(sps.spearmanr(x, y).statistic)
    return float(sps.kendalltau(x, y).statistic)


# --------------------------------------------------------------------------- words vs characters
@dataclass(frozen=True)
class WordsVsChars:
    """The words-vs-characters study on a corpus.

    Attributes:
        word_order: N.
        char_orders: the Ms studied.
        rows: system -> one dict per M: ``char_order``, ``pearson``, ``kappa``, ``analogical``.
        pooled: the same over all systems' sentences together.
        best: system (and ``"all"``) -> best M per criterion.
        ranking: systems with corpus BLEU_wN and BLEU_cM (M = ``ranking_char_order``) and both ranks.
        sentences: system -> (BLEU_wN per line, BLEU_cM per line for M = ``ranking_char_order``).
    """

    word_order: int
    char_orders: tuple[int, ...]
    rows: dict[str, list[dict]]
    pooled: list[dict]
    best: dict[str, dict]
    ranking: list[dict]
    ranking_char_order: int
    sentences: dict[str, tuple[np.ndarray, np.ndarray]] = field(repr=False)


def parse_orders(text: str) -> tuple[int, ...]:
    """``"1-30"`` or ``"5,18"`` or ``"1-5,18"`` -> sorted unique orders."""
    out: set[int] = set()
    try:
        for part in str(text).split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                a, b = part.split("-", 1)
                out.update(range(int(a), int(b) + 1))
            else:
                out.add(int(part))
    except ValueError:
        raise InputError(f"character orders must look like '1-30' or '5,18', not '{text}'") from None
    if not out or min(out) < 1 or max(out) > 100:
        raise InputError(f"character orders must be between 1 and 100, not '{text}'")
    return tuple(sorted(out))


def _best(rows: list[dict]) -> dict:
    def arg(key):
        vals = [(r[key], r["char_order"]) for r in rows if not math.isnan(r[key])]
        return max(vals, key=lambda v: (v[0], -v[1]))[1] if vals else None

    analog = next((r["char_order"] for r in rows if r["analogical"] >= ANALOGY_THRESHOLD), None)
    return {"pearson": arg("pearson"), "kappa": arg("kappa"), "analogical": analog}


def _criteria(w: np.ndarray, w_prev: np.ndarray, c: np.ndarray, m: int) -> dict:
    return {
        "char_order": m,
        "pearson": pearson(w, c),
        "kappa": cohen_kappa(grades(w), grades(c)),
        "analogical": float(np.mean(c <= w_prev)) if len(c) else float("nan"),
    }


def words_vs_chars(
    corpus: Corpus,
    word_order: int = 4,
    char_orders: Sequence[int] = tuple(range(1, 31)),
    ranking_char_order: int = 18,
    tokenize: str = "13a",
    lowercase: bool = False,
) -> WordsVsChars:
    """Run the study of Denoual & Lepage (2005) on a corpus (see the module docstring)."""
    if word_order < 2:
        raise InputError("the word order N must be at least 2 (the analogy compares with N - 1)")
    orders = tuple(sorted(set(int(m) for m in char_orders)))
    max_m = max(max(orders), ranking_char_order)
    refs, hyps = corpus.reference_streams(), corpus.system_streams()
    N = word_order
    wstats = BLEU(tokenize, lowercase, "none", None, N).statistics(refs, hyps)
    cstats = CharBLEU(max_m, lowercase=lowercase, smooth_method="none").statistics(refs, hyps)

    def sub(st, total_order, k):
        cols = [0, 1, *range(2, 2 + k), *range(2 + total_order, 2 + total_order + k)]
        return st[:, cols]

    rows: dict[str, list[dict]] = {}
    best: dict[str, dict] = {}
    sentences = {}
    all_w, all_wp, all_c = [], [], {m: [] for m in orders}
    ranking = []
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
        ranking.append(
            {
                "system": name,
                "bleu_w": float(bleu_from_totals(ws.sum(axis=0), N, "exp")),
                "bleu_c": float(bleu_from_totals(c_rank.sum(axis=0), ranking_char_order, "exp")),
            }
        )
    w_all, wp_all = np.concatenate(all_w), np.concatenate(all_wp)
    pooled = [_criteria(w_all, wp_all, np.concatenate(all_c[m]), m) for m in orders]
    best["all"] = _best(pooled)
    for key in ("bleu_w", "bleu_c"):
        order = sorted(ranking, key=lambda r: -r[key])
        for i, r in enumerate(order, start=1):
            r[f"rank_{key[-1]}"] = i
    ranking.sort(key=lambda r: r["rank_w"])
    return WordsVsChars(N, orders, rows, pooled, best, ranking, ranking_char_order, sentences)


def words_vs_chars_to_dict(res: WordsVsChars) -> dict:
    """The ``analyze`` command's JSON part."""
    return {
        "words_vs_chars": res.rows,
        "pooled": res.pooled,
        "best": res.best,
        "ranking": res.ranking,
        "word_order": res.word_order,
        "ranking_char_order": res.ranking_char_order,
        "rankings_agree": [r["rank_w"] for r in res.ranking] == [r["rank_c"] for r in res.ranking],
    }


# --------------------------------------------------------------------------- human scores
@dataclass(frozen=True)
class HumanScores:
    """Human judgments read from a file.

    Attributes:
        system: human score type -> system -> score.
        segment: human score type -> system -> {line (0-based): score}.
        ignored: systems of the file that are not in the corpus.
        notes: what was done with the file (readable sentences).
    """

    system: dict[str, dict[str, float]]
    segment: dict[str, dict[str, dict[int, float]]]
    ignored: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def read_human(data: bytes, name: str, corpus: Corpus) -> HumanScores:
    """Read human scores: WMT-style TSV with a header (system level: ``system metric score``;
    segment level: ``system line metric score``, 1-based lines), or a plain column of
    per-line scores for a corpus with a single system.

    Raises:
        InputError: unreadable file, bad numbers, lines out of range, or no usable row.
    """
    lines = decode_lines(data, name)
    header = [h.strip().lower() for h in lines[0].split("\t")]
    systems = set(corpus.system_names)
    if "system" in header and "score" in header:
        col = {h: i for i, h in enumerate(header)}
        sys_lvl: dict[str, dict[str, float]] = {}
        seg_lvl: dict[str, dict[str, dict[int, float]]] = {}
        ignored: set[str] = set()
        for k, row in enumerate(csv.reader(io.StringIO("\n".join(lines[1:])), delimiter="\t"), start=2):
            if not row or not any(x.strip() for x in row):
                continue
            try:
                sys_name = row[col["system"]]
                metric = row[col["metric"]] if "metric" in col else "human"
                value = float(row[col["score"]])
                line = int(row[col["line"]]) if "line" in col else None
            except (IndexError, ValueError):
                raise InputError(f"line {k} of '{name}' is not 'system<TAB>[line<TAB>]metric<TAB>score'") from None
            if sys_name not in systems:
                ignored.add(sys_name)
                continue
            if line is None:
                sys_lvl.setdefault(metric, {})[sys_name] = value
            else:
                if not 1 <= line <= corpus.n_lines:
                    raise InputError(f"line {k} of '{name}' refers to line {line}; the corpus has {corpus.n_lines}")
                seg_lvl.setdefault(metric, {}).setdefault(sys_name, {})[line - 1] = value
        if not sys_lvl and not seg_lvl:
            raise InputError(f"'{name}' has no score for any of the systems {', '.join(sorted(systems))}")
        notes = []
        if ignored:
            notes.append(
                f"human scores of {len(ignored)} system(s) not uploaded were ignored: {', '.join(sorted(ignored))}"
            )
        return HumanScores(sys_lvl, seg_lvl, tuple(sorted(ignored)), tuple(notes))
    # a plain column of numbers: one per line of a single-system corpus
    try:
        values = [float(x) for x in lines]
    except ValueError:
        raise InputError(
            f"'{name}' is neither a TSV with 'system' and 'score' columns nor a column of numbers"
        ) from None
    if len(systems) != 1:
        raise InputError(f"'{name}' is a plain column of scores; it needs a corpus with one system, not {len(systems)}")
    if len(values) != corpus.n_lines:
        raise InputError(f"'{name}' has {len(values)} scores, the corpus has {corpus.n_lines} lines")
    only = corpus.system_names[0]
    return HumanScores({}, {"human": {only: dict(enumerate(values))}}, (), ())


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def _rowwise_kendall_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    num = (sx * sy).sum(axis=(1, 2))
    den = np.sqrt((sx != 0).sum(axis=(1, 2)) * (sy != 0).sum(axis=(1, 2)).astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _bootstrap_ci(x, y, kind, n_boot, rng) -> tuple[float, float]:
    """Percentile 95% interval of a correlation over resamples of the items (vectorised; Kendall's
    tau-b by pair signs for up to 60 items, scipy per resample above)."""
    n = len(x)
    if n < 3 or n_boot <= 0:
        return (float("nan"), float("nan"))
    idx = rng.integers(0, n, size=(n_boot, n))
    xs, ys = np.asarray(x, dtype=np.float64)[idx], np.asarray(y, dtype=np.float64)[idx]
    if kind == "pearson":
        vals = _rowwise_pearson(xs, ys)
    elif kind == "spearman":
        vals = _rowwise_pearson(sps.rankdata(xs, axis=1), sps.rankdata(ys, axis=1))
    elif n <= 60:
        vals = _rowwise_kendall_b(xs, ys)
    else:
        vals = np.array([_corr("kendall", a, b) for a, b in zip(xs, ys, strict=True)])
    vals = vals[~np.isnan(vals)]
    if len(vals) == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return (float(lo), float(hi))


def human_correlation(
    results: Mapping[str, MetricResult], human: HumanScores, n_boot: int = 1000, seed: int = 12345
) -> dict:
    """Correlations of every metric with every human score type, system and segment level.

    Returns ``{"human_correlation": [rows], "missing": {...}, "notes": [...]}``; each row has
    ``metric, level, human, pearson, spearman, kendall, n`` and ``*_ci`` intervals. Error
    rates (TER) are correlated as they are (expect negative values).
    """
    rng = np.random.default_rng(seed)
    rows, missing = [], {}
    for h_name, by_sys in human.system.items():
        names = [s for s in next(iter(results.values())).scores if s in by_sys]
        missing[f"system:{h_name}"] = [s for s in next(iter(results.values())).scores if s not in by_sys]
        y = np.array([by_sys[s] for s in names])
        for m, r in results.items():
            x = np.array([r.scores[s] for s in names])
            rows.append(_row(m, "system", h_name, x, y, n_boot, rng))
    for h_name, by_sys in human.segment.items():
        missing[f"segment:{h_name}"] = [s for s in next(iter(results.values())).scores if s not in by_sys]
        for m, r in results.items():
            xs, ys = [], []
            for s, lines in by_sys.items():
                sent = r.sentence_scores(s)
                idx = np.fromiter(lines.keys(), dtype=np.int64)
                xs.append(sent[idx])
                ys.append(np.fromiter(lines.values(), dtype=np.float64))
            rows.append(_row(m, "segment", h_name, np.concatenate(xs), np.concatenate(ys), n_boot, rng))
    return {"human_correlation": rows, "missing": missing, "notes": list(human.notes)}


def _row(metric, level, human, x, y, n_boot, rng) -> dict:
    row = {"metric": metric, "level": level, "human": human, "n": len(x)}
    for kind in ("pearson", "spearman", "kendall"):
        row[kind] = _corr(kind, x, y)
        row[f"{kind}_ci"] = list(_bootstrap_ci(x, y, kind, n_boot, rng))
    return row


# --------------------------------------------------------------------------- tBLEU sweep
def tbleu_sweep(
    corpus: Corpus,
    epsilons: Sequence[float] = tuple(round(0.05 * i, 2) for i in range(21)),
    human: HumanScores | None = None,
    **bleu_options,
) -> dict:
    """Corpus tBLEU of every system for each epsilon, and (with system-level human scores)
    its Pearson and Kendall correlation per epsilon (the paper's Figure 2)."""
    from .metrics.tbleu import TBLEU

    m = TBLEU(0.0, **bleu_options)
    per_eps = m.sweep_statistics(corpus.reference_streams(), corpus.system_streams(), epsilons)
    scores = {
        s: [float(m.score_from_totals(per_eps[e][k].sum(axis=0))) for e in range(len(epsilons))]
        for k, s in enumerate(corpus.system_names)
    }
    out = {"epsilons": list(epsilons), "scores": scores, "correlation": {}}
    if human is not None:
        for h_name, by_sys in human.system.items():
            names = [s for s in scores if s in by_sys]
            y = [by_sys[s] for s in names]
            out["correlation"][h_name] = {
                kind: [_corr(kind, [scores[s][e] for s in names], y) for e in range(len(epsilons))]
                for kind in ("pearson", "kendall")
            }
    return out


# --------------------------------------------------------------------------- two systems
def ngram_differences(
    corpus: Corpus,
    a: str,
    b: str,
    max_order: int = 4,
    tokenize: str = "13a",
    lowercase: bool = False,
    alpha: float = 1.0,
    min_count: int = 2,
):
    """The n-grams one system gets right (matched in a reference, BLEU clipping) more often than
    the other (compare-mt's n-gram analysis).

    Returns a pandas DataFrame with ``ngram, n, matched_a, matched_b, score, lines_a, lines_b``
    where ``score = (matched_a + alpha) / (matched_a + matched_b + 2 alpha)`` (> 0.5: A better)
    and ``lines_a`` / ``lines_b`` are 1-based lines where that system matched it more often.
    Only n-grams matched at least ``min_count`` times in total are kept.
    """
    import pandas as pd

    bleu = BLEU(tokenize, lowercase)
    refs = corpus.reference_streams()
    ma: dict = {}
    mb: dict = {}
    lines_a: dict = {}
    lines_b: dict = {}
    for i in range(corpus.n_lines):
        ref_toks = [bleu.tokens(r[i]) for r in refs]
        ha, hb = bleu.tokens(corpus.systems[a][i]), bleu.tokens(corpus.systems[b][i])
        for n in range(1, max_order + 1):
            ref_max: dict = {}
            for rt in ref_toks:
                for g, k in ngram_counts(rt, n).items():
                    if k > ref_max.get(g, 0):
                        ref_max[g] = k
            ca = {g: min(k, ref_max[g]) for g, k in ngram_counts(ha, n).items() if g in ref_max}
            cb = {g: min(k, ref_max[g]) for g, k in ngram_counts(hb, n).items() if g in ref_max}
            for g in ca.keys() | cb.keys():
                x, y = ca.get(g, 0), cb.get(g, 0)
                ma[g] = ma.get(g, 0) + x
                mb[g] = mb.get(g, 0) + y
                if x > y:
                    lines_a.setdefault(g, []).append(i + 1)
                elif y > x:
                    lines_b.setdefault(g, []).append(i + 1)
    rows = []
    for g in ma:
        x, y = ma[g], mb[g]
        if x + y < min_count:
            continue
        rows.append(
            {
                "ngram": " ".join(g),
                "n": len(g),
                "matched_a": x,
                "matched_b": y,
                "score": (x + alpha) / (x + y + 2 * alpha),
                "lines_a": lines_a.get(g, []),
                "lines_b": lines_b.get(g, []),
            }
        )
    cols = ["ngram", "n", "matched_a", "matched_b", "score", "lines_a", "lines_b"]
    return pd.DataFrame(rows, columns=cols)


LENGTH_EDGES = (10, 20, 30, 40)
FREQ_EDGES = (1, 5, 10, 100, 1000)


def _bucket_label(edges, k):
    if k == 0:
        return f"<= {edges[0]}"
    if k == len(edges):
        return f"> {edges[-1]}"
    return f"{edges[k - 1] + 1}-{edges[k]}"


def length_buckets(
    corpus: Corpus,
    result: MetricResult,
    a: str,
    b: str,
    edges: Sequence[int] = LENGTH_EDGES,
    n_boot: int = 1000,
    seed: int = 12345,
) -> list[dict]:
    """Scores of A and B on sentences grouped by reference length (13a words of the first
    reference), each bucket with a paired bootstrap test of B against A."""
    from .significance import paired_bootstrap_p

    tok = BLEU()
    lengths = np.array([len(tok.tokens(x)) for x in corpus.reference_streams()[0]])
    bucket = np.searchsorted(np.asarray(edges), lengths, side="left")
    out = []
    for k in range(len(edges) + 1):
        sel = np.flatnonzero(bucket == k)
        if len(sel) == 0:
            continue
        sa, sb, p = paired_bootstrap_p(
            result.stats[a][sel], result.stats[b][sel], result.scorer.score_from_totals, n_boot, seed
        )
        out.append({"bucket": _bucket_label(edges, k), "lines": len(sel), "a": sa, "b": sb, "delta": sb - sa, "p": p})
    return out


def frequency_buckets(
    corpus: Corpus,
    a: str,
    b: str,
    edges: Sequence[int] = FREQ_EDGES,
    n_boot: int = 1000,
    seed: int = 12345,
    tokenize: str = "13a",
    lowercase: bool = False,
) -> list[dict]:
    """Word F-measure of A and B by the word's frequency in the reference corpus (compare-mt's
    bucketed word accuracy; the first reference), each bucket with a paired bootstrap test.

    Hypothesis words absent from the references fall in bucket ``0``.
    """
    from .significance import paired_bootstrap_p

    bleu = BLEU(tokenize, lowercase)
    ref = [bleu.tokens(x) for x in corpus.reference_streams()[0]]
    freq: dict[str, int] = {}
    for toks in ref:
        for t in toks:
            freq[t] = freq.get(t, 0) + 1
    n_b = len(edges) + 2  # bucket 0: unseen, then the edges

    def bucket_of(word):
        f = freq.get(word, 0)
        return 0 if f == 0 else 1 + int(np.searchsorted(np.asarray(edges), f, side="left"))

    def stats_for(system):
        st = np.zeros((corpus.n_lines, n_b, 3))
        for i, line in enumerate(corpus.systems[system]):
            hyp = ngram_counts(bleu.tokens(line), 1)
            rc = ngram_counts(ref[i], 1)
            for (w,), k in hyp.items():
                st[i, bucket_of(w), 1] += k
                if (w,) in rc:
                    st[i, bucket_of(w), 0] += min(k, rc[(w,)])
            for (w,), k in rc.items():
                st[i, bucket_of(w), 2] += k
        return st

    def fmeasure(t):
        t = np.asarray(t, dtype=np.float64)
        denom = t[..., 1] + t[..., 2]
        return np.where(denom > 0, 200 * t[..., 0] / np.where(denom > 0, denom, 1), 0.0)

    sa_all, sb_all = stats_for(a), stats_for(b)
    out = []
    labels = ["0 (not in references)"] + [_bucket_label(edges, k) for k in range(len(edges) + 1)]
    for k in range(n_b):
        if sa_all[:, k, 1:].sum() + sb_all[:, k, 1:].sum() == 0:
            continue
        sa, sb, p = paired_bootstrap_p(sa_all[:, k], sb_all[:, k], fmeasure, n_boot, seed)
        out.append(
            {"bucket": labels[k], "words": int(sa_all[:, k, 2].sum()), "a": sa, "b": sb, "delta": sb - sa, "p": p}
        )
    return out

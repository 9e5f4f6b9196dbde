"""Two systems side by side (after compare-mt, Neubig et al. 2019): the n-grams each gets right,
scores by sentence-length and word-frequency bucket with paired bootstrap tests.

Decisions (docs/decisions.md, "Buckets"):
- a bucket with fewer than :data:`~mtlens.analysis.policy.MIN_TEST_LINES` lines gets no test
  (``p_value`` None, never significant: "too few lines");
- the tests of one bucket analysis are Holm-corrected over the buckets tested;
  ``significant`` means Holm-corrected p < alpha;
- word frequencies come from a frequency corpus the user gives (e.g. the training
  data, as compare-mt does); without one they are counted in the first reference, and
  then there is no "unseen" bucket (a reference word is never unseen in the reference).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.corpus import Corpus
from ..core.ngrams import ngram_counts
from ..core.options import DEFAULTS, Options
from ..metrics import BLEU
from ..scores.results import MetricResult
from .policy import ALPHA, MIN_TEST_LINES, P_DEFINITIONS, SEED, default_resamples
from .resampling import paired_bootstrap_p
from .significance import holm

LENGTH_EDGES = (10, 20, 30, 40)
FREQ_EDGES = (1, 5, 10, 100, 1000)
UNSEEN = "0 (not in the frequency corpus)"


@dataclass(frozen=True)
class BucketRow:
    """One bucket: its lines, both systems' scores, and the test of B against A.

    ``p_value`` (raw, paired bootstrap) and ``p_holm`` are None where no test was run
    (fewer than ``min_lines`` lines); ``words`` is the number of reference words
    (frequency buckets only).
    """

    bucket: str
    lines: int
    a: float
    b: float
    delta: float
    p_value: float | None
    p_holm: float | None
    significant: bool
    words: int | None = None

    @property
    def tested(self) -> bool:
        return self.p_value is not None


@dataclass(frozen=True)
class BucketAnalysis:
    """Scores of two systems by bucket.

    Attributes:
        kind: ``length`` or ``frequency``.
        score: what a/b are (e.g. ``bleu``, ``word F-measure``).
        rows: the non-empty buckets.
        min_lines, alpha, n_boot, seed: the test settings; the correction is Holm's over the tested buckets.
        frequency_source: ``references`` or the frequency corpus's name (frequency buckets).
    """

    kind: str
    score: str
    rows: list[BucketRow]
    min_lines: int
    alpha: float
    n_boot: int
    seed: int
    frequency_source: str | None = None
    correction: str = "holm"


def bucket_label(edges, k):
    if k == 0:
        return f"<= {edges[0]}"
    if k == len(edges):
        return f"> {edges[-1]}"
    return f"{edges[k - 1] + 1}-{edges[k]}"


def tested_rows(parts, score_fn, n_boot, seed, alpha, min_lines, documents=None) -> tuple[list[BucketRow], int]:
    """parts: (label, lines, stats_a, stats_b, words). Tests the buckets with enough lines, Holm over them.
    ``documents``: per part, its lines' document ids (whole documents resampled; a part needs ``min_lines``
    documents then). ``n_boot``: the resamples, or None for the policy's count for the buckets tested
    (:func:`mtlens.analysis.policy.default_resamples`). Returns the rows and the resamples drawn."""
    docs_of = [None if documents is None else documents[k] for k in range(len(parts))]
    enough = [
        part[1] >= min_lines and (docs is None or len(set(docs)) >= min_lines)
        for part, docs in zip(parts, docs_of, strict=True)
    ]
    if n_boot is None:
        n_boot = default_resamples(sum(enough), max((p[1] for p in parts), default=0), alpha)
    raw = []
    for (label, n_lines, sa_stats, sb_stats, words), docs, test in zip(parts, docs_of, enough, strict=True):
        sa = float(score_fn(sa_stats.sum(axis=0)))
        sb = float(score_fn(sb_stats.sum(axis=0)))
        p = paired_bootstrap_p(sa_stats, sb_stats, score_fn, n_boot, seed, docs)[2] if test else None
        raw.append((label, n_lines, sa, sb, p, words))
    tested = [r[4] for r in raw if r[4] is not None]
    adjusted = iter(holm(tested).tolist())
    rows = []
    for label, n_lines, sa, sb, p, words in raw:
        ph = next(adjusted) if p is not None else None
        rows.append(BucketRow(label, n_lines, sa, sb, sb - sa, p, ph, ph is not None and ph < alpha, words))
    return rows, n_boot


def length_buckets(
    corpus: Corpus,
    result: MetricResult,
    a: str,
    b: str,
    options: Options = DEFAULTS,
    edges: Sequence[int] = LENGTH_EDGES,
    n_boot: int | None = None,
    seed: int = SEED,
    alpha: float = ALPHA,
    min_lines: int = MIN_TEST_LINES,
) -> BucketAnalysis:
    """``result``'s score of A and B on the lines grouped by the first reference's length in words
    (the BLEU tokenizer of ``options``), each bucket with enough lines tested (paired bootstrap)."""
    tok = BLEU(options.tokenize, options.lowercase)
    lengths = np.array([len(tok.tokens(x)) for x in corpus.reference_streams()[0]], dtype=np.int64)
    bucket = np.searchsorted(np.asarray(edges), lengths, side="left")
    parts = []
    for k in range(len(edges) + 1):
        sel = np.flatnonzero(bucket == k)
        if len(sel):
            parts.append((bucket_label(edges, k), len(sel), result.stats[a][sel], result.stats[b][sel], None))
    rows, n_boot = tested_rows(parts, result.scorer.score_from_totals, n_boot, seed, alpha, min_lines)
    return BucketAnalysis("length", result.metric, rows, min_lines, alpha, n_boot, seed)


def word_fmeasure(t: np.ndarray) -> np.ndarray:
    """Word F-measure (0-100) from ``[matched, hyp words, ref words]`` totals, vectorised.

    Example:
        >>> float(word_fmeasure(np.array([2, 4, 4])))
        50.0
    """
    t = np.asarray(t, dtype=np.float64)
    denom = t[..., 1] + t[..., 2]
    return np.where(denom > 0, 200 * t[..., 0] / np.where(denom > 0, denom, 1), 0.0)


def frequency_buckets(
    corpus: Corpus,
    a: str,
    b: str,
    options: Options = DEFAULTS,
    frequency_corpus: Sequence[str] | None = None,
    frequency_source: str = "frequency corpus",
    edges: Sequence[int] = FREQ_EDGES,
    n_boot: int | None = None,
    seed: int = SEED,
    alpha: float = ALPHA,
    min_lines: int = MIN_TEST_LINES,
) -> BucketAnalysis:
    """Word F-measure of A and B against the first reference, by each word's frequency
    (compare-mt's bucketed word accuracy), each bucket with enough lines tested.

    Frequencies are counted in ``frequency_corpus`` (lines, tokenized like BLEU) when given,
    with bucket :data:`UNSEEN` for words it never has; otherwise in the first reference.
    A word's bucket applies to its hypothesis and its reference occurrences alike.
    """
    tok = BLEU(options.tokenize, options.lowercase)
    ref = [tok.tokens(x) for x in corpus.reference_streams()[0]]
    counted = ref if frequency_corpus is None else (tok.tokens(x) for x in frequency_corpus)
    freq: Counter[str] = Counter()
    for toks in counted:
        freq.update(toks)
    edges_arr = np.asarray(edges)
    n_b = len(edges) + 2  # bucket 0: unseen, then the edges

    def bucket_of(word):
        f = freq.get(word, 0)
        return 0 if f == 0 else 1 + int(np.searchsorted(edges_arr, f, side="left"))

    def stats_for(system):
        st = np.zeros((corpus.n_lines, n_b, 3), dtype=np.int64)
        for i, line in enumerate(corpus.systems[system]):
            rc = ngram_counts(ref[i], 1)
            for (w,), k in ngram_counts(tok.tokens(line), 1).items():
                st[i, bucket_of(w), 1] += k
                st[i, bucket_of(w), 0] += min(k, rc.get((w,), 0))
            for (w,), k in rc.items():
                st[i, bucket_of(w), 2] += k
        return st

    sa_all, sb_all = stats_for(a), stats_for(b)
    labels = [UNSEEN] + [bucket_label(edges, k) for k in range(len(edges) + 1)]
    parts = []
    for k in range(0 if frequency_corpus is not None else 1, n_b):
        used = (sa_all[:, k, 1:].sum(axis=1) + sb_all[:, k, 1:].sum(axis=1)) > 0
        if used.any():
            sel = np.flatnonzero(used)
            parts.append((labels[k], len(sel), sa_all[sel, k], sb_all[sel, k], int(sa_all[:, k, 2].sum())))
    rows, n_boot = tested_rows(parts, word_fmeasure, n_boot, seed, alpha, min_lines)
    source = "references" if frequency_corpus is None else frequency_source
    return BucketAnalysis("frequency", "word F-measure", rows, min_lines, alpha, n_boot, seed, source)


def ngram_differences(corpus: Corpus, a: str, b: str, options: Options = DEFAULTS, max_order: int = 4, alpha=1.0):
    """The n-grams one system gets right (matched in a reference with BLEU's clipping) more often
    than the other (compare-mt's n-gram analysis), with the BLEU tokenizer of ``options``.

    Returns a pandas DataFrame with ``ngram, n, matched_a, matched_b, score, lines_a, lines_b``
    where ``score = (matched_a + alpha) / (matched_a + matched_b + 2 alpha)`` (> 0.5: A better)
    and ``lines_a`` / ``lines_b`` are 1-based lines where that system matched it more often.
    Every matched n-gram is listed, so per order ``matched_a`` sums to BLEU's matches of A.
    """
    import pandas as pd

    bleu = BLEU(options.tokenize, options.lowercase)
    refs = corpus.reference_streams()
    ma: Counter = Counter()
    mb: Counter = Counter()
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
                ma[g] += x
                mb[g] += y
                if x > y:
                    lines_a.setdefault(g, []).append(i + 1)
                elif y > x:
                    lines_b.setdefault(g, []).append(i + 1)
    rows = [
        {
            "ngram": " ".join(g),
            "n": len(g),
            "matched_a": ma[g],
            "matched_b": mb[g],
            "score": (ma[g] + alpha) / (ma[g] + mb[g] + 2 * alpha),
            "lines_a": lines_a.get(g, []),
            "lines_b": lines_b.get(g, []),
        }
        for g in ma
    ]
    cols = ["ngram", "n", "matched_a", "matched_b", "score", "lines_a", "lines_b"]
    return pd.DataFrame(rows, columns=cols)


def buckets_to_dicts(res: BucketAnalysis) -> list[dict]:
    """The rows as the CLI's JSON shows them (``bucket, lines, a, b, delta, p_value, significant``,
    ``p_holm``, and ``words`` for frequency buckets)."""
    out = []
    for r in res.rows:
        d = dataclasses.asdict(r)
        if d["words"] is None:
            del d["words"]
        out.append(d)
    return out


def pair_analysis(
    corpus: Corpus,
    result: MetricResult,
    a: str,
    b: str,
    options: Options = DEFAULTS,
    frequency_corpus: Sequence[str] | None = None,
    frequency_source: str = "frequency corpus",
    top: int = 20,
    seed: int = SEED,
) -> dict:
    """The ``analyze --pair A B`` JSON: buckets (length by ``result``'s metric, frequency by word
    F-measure) and n-grams (per-order totals, the ``top`` n-grams each system gets right more often)."""
    length = length_buckets(corpus, result, a, b, options, seed=seed)
    freq = frequency_buckets(corpus, a, b, options, frequency_corpus, frequency_source, seed=seed)
    diff = ngram_differences(corpus, a, b, options)
    by_order = (
        diff.groupby("n")[["matched_a", "matched_b"]].sum().reset_index().astype(int).to_dict(orient="records")
        if len(diff)
        else []
    )
    cols = ["ngram", "n", "matched_a", "matched_b", "score"]
    kept = diff[diff["matched_a"] + diff["matched_b"] >= 2]
    a_better = kept.sort_values(["score", "matched_a"], ascending=[False, False]).head(top)[cols]
    b_better = kept.sort_values(["score", "matched_b"], ascending=[True, False]).head(top)[cols]
    return {
        "a": a,
        "b": b,
        "metric": result.metric,
        "buckets": {
            "length": buckets_to_dicts(length),
            "frequency": buckets_to_dicts(freq),
            "min_lines": length.min_lines,
            "correction": "holm (over the tested buckets of each analysis)",
            "p_value": P_DEFINITIONS["bootstrap"],
            "resamples": length.n_boot,
            "alpha": length.alpha,
            "frequency_source": freq.frequency_source,
        },
        "ngrams": {
            "by_order": by_order,
            "a_better": a_better.to_dict(orient="records"),
            "b_better": b_better.to_dict(orient="records"),
        },
    }

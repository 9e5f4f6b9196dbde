"""The sentence table: one row per line with sentence scores of one or two systems, sorted and
filtered as the Sentences page offers (the page only draws what this returns)."""

from __future__ import annotations

import numpy as np

from ..core.corpus import Corpus
from ..scores.results import MetricResult

SORTS_ONE = ("line order", "score A ascending", "score A descending")
SORTS_TWO = (*SORTS_ONE, "largest |B - A|", "B better than A first", "A better than B first")


def sort_options(two_systems: bool) -> tuple[str, ...]:
    return SORTS_TWO if two_systems else SORTS_ONE


def matching_lines(corpus: Corpus, query: str, systems: list[str]) -> np.ndarray:
    """0-based lines where ``query`` occurs (case-insensitively) in one of ``systems`` or a reference."""
    q = query.lower()
    streams = [corpus.systems[s] for s in systems] + corpus.reference_streams()
    return np.array([i for i in range(corpus.n_lines) if any(q in st[i].lower() for st in streams)], dtype=np.int64)


def sentence_table(
    corpus: Corpus,
    result: MetricResult,
    a: str,
    b: str | None = None,
    sort: str = "line order",
    query: str = "",
    preview: int = 120,
):
    """Lines with ``result``'s sentence scores of A (and B, and B - A), filtered and sorted.

    Args:
        sort: one of :func:`sort_options`; "better" follows the metric's direction
            (for TER, lower is better).
        query: keep only lines containing it (in A, B or a reference), case-insensitive.
        preview: characters of each hypothesis shown.

    Returns:
        A pandas DataFrame with columns ``line`` (1-based), ``<metric> A``, [``<metric> B``,
        ``B - A``], ``A``, [``B``]; stable sorts (ties keep line order).
    """
    import pandas as pd

    if sort not in sort_options(b is not None):
        raise ValueError(f"unknown sort {sort!r}")
    m = result.metric
    sa = result.sentence_scores(a)
    table = pd.DataFrame({"line": np.arange(1, corpus.n_lines + 1), f"{m} A": sa})
    if b is not None:
        sb = result.sentence_scores(b)
        table[f"{m} B"] = sb
        table["B - A"] = sb - sa
    table["A"] = [h[:preview] for h in corpus.systems[a]]
    if b is not None:
        table["B"] = [h[:preview] for h in corpus.systems[b]]
    if query:
        table = table.iloc[matching_lines(corpus, query, [a] if b is None else [a, b])]
    hib = result.higher_is_better
    if sort == "score A ascending":
        table = table.sort_values(f"{m} A", kind="stable")
    elif sort == "score A descending":
        table = table.sort_values(f"{m} A", ascending=False, kind="stable")
    elif sort == "largest |B - A|":
        table = table.iloc[np.argsort(-table["B - A"].abs().to_numpy(), kind="stable")]
    elif sort == "B better than A first":
        table = table.sort_values("B - A", ascending=not hib, kind="stable")
    elif sort == "A better than B first":
        table = table.sort_values("B - A", ascending=hib, kind="stable")
    return table

"""Slices: where do two systems differ most? (issue 35; docs/decisions.md, "Slices")

A slice is a set of lines chosen by a property of the test set, never by the scores: each domain, each
document with enough lines, the source's length (in words of the source, or of the first reference when
there is no source), lines with digits, lines with capitalised words inside a sentence (names, most
often), lines where A and B differ only in punctuation or spacing, and lines where A and B differ at all.
Each slice with at least ``min_lines`` lines is tested like a bucket (:mod:`mtlens.analysis.pairwise`: the
metric over the slice's lines, ``delta = B - A``, paired bootstrap p, two-sided), Holm's correction over all
the slices tested; slices are listed by the size of their delta, tested ones first.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..scores.results import MetricResult
from .groups import group_lines, labels_for
from .pairwise import bucket_label, tested_rows
from .policy import ALPHA, MIN_TEST_LINES, P_DEFINITIONS, SEED

#: source length buckets (words): <= 10, 11-20, 21-40, > 40
LENGTH_EDGES = (10, 20, 40)
_DIGIT = re.compile(r"\d")
#: a capitalised word that does not open the sentence (after a letter, digit or comma and a space)
_NAME = re.compile(r"(?<=[\w,;:] )[A-Z][a-z]+")


def _no_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not (ch.isspace() or unicodedata.category(ch).startswith("P")))


def slice_masks(corpus: Corpus, a: str, b: str, min_lines: int = MIN_TEST_LINES) -> list[tuple[str, str, np.ndarray]]:
    """(kind, name, lines) of every slice of the test set for systems ``a`` and ``b``."""
    out: list[tuple[str, str, np.ndarray]] = []
    n = corpus.n_lines
    if corpus.domains is not None:
        out += [("domain", d, lines) for d, lines in group_lines(labels_for(corpus, "domain"))]
    if corpus.documents is not None:  # a document is a slice only when it can be tested
        out += [("document", d, lines) for d, lines in group_lines(corpus.documents) if len(lines) >= min_lines]
    text = corpus.source if corpus.source is not None else next(iter(corpus.references.values()), None)
    if text is not None:
        what = "source" if corpus.source is not None else "reference"
        words = np.asarray([len(x.split()) for x in text])
        bucket = np.searchsorted(np.asarray(LENGTH_EDGES), words, side="left")
        names = [bucket_label(LENGTH_EDGES, k) for k in range(len(LENGTH_EDGES) + 1)]
        for k, name in enumerate(names):
            out.append(("length", f"{what} {name} words", np.flatnonzero(bucket == k)))
        out.append(("numbers", f"{what} has digits", np.flatnonzero([bool(_DIGIT.search(x)) for x in text])))
        out.append(("names", f"{what} has capitalised words", np.flatnonzero([bool(_NAME.search(x)) for x in text])))
    ha, hb = corpus.systems[a], corpus.systems[b]
    differ = [x != y for x, y in zip(ha, hb, strict=True)]
    punct = [d and _no_punctuation(x) == _no_punctuation(y) for d, x, y in zip(differ, ha, hb, strict=True)]
    out.append(("punctuation", "A and B differ only in punctuation or spacing", np.flatnonzero(punct)))
    out.append(("differ", "A and B differ", np.flatnonzero(differ)))
    # a slice of no line, or of every line (the whole test set again), says nothing; "A and B differ" is kept
    return [(k, name, lines) for k, name, lines in out if len(lines) and (len(lines) < n or k == "differ")]


def slices(
    corpus: Corpus,
    result: MetricResult,
    a: str,
    b: str,
    n_boot: int | None = None,
    seed: int = SEED,
    alpha: float = ALPHA,
    min_lines: int = MIN_TEST_LINES,
    resample: str = "segments",
) -> dict:
    """The slices of ``a`` and ``b`` on ``result``'s metric, tested and ranked (the ``"slices"`` of
    ``analyze --pair A B --slices``). ``n_boot``: resamples (default 1,000, more when there are so many
    slices that Holm's correction needs them: :func:`~mtlens.analysis.policy.default_resamples`)."""
    masks = slice_masks(corpus, a, b, min_lines)
    documents = None
    if resample == "documents":  # each slice's lines drawn as whole documents (a slice needs min_lines of them)
        if corpus.documents is None:
            raise InputError("resampling documents needs documents: WMT XML, a doc column or a documents file")
        documents = [[corpus.documents[i] for i in lines] for _, _, lines in masks]
    parts = [(name, len(lines), result.stats[a][lines], result.stats[b][lines], None) for _, name, lines in masks]
    rows, n_boot = tested_rows(parts, result.scorer.score_from_totals, n_boot, seed, alpha, min_lines, documents)
    items = [
        {
            "slice": r.bucket,
            "kind": kind,
            "lines": r.lines,
            "a": r.a,
            "b": r.b,
            "delta": r.delta,
            "p_value": r.p_value,
            "p_holm": r.p_holm,
            "significant": r.significant,
        }
        for (kind, _, _), r in zip(masks, rows, strict=True)
    ]
    items.sort(key=lambda x: (x["p_value"] is None, -abs(x["delta"])))
    return {
        "a": a,
        "b": b,
        "metric": result.metric,
        "slices": items,
        "min_lines": min_lines,
        "resamples": n_boot,
        "resample": resample,
        "correction": "holm (over the slices tested)",
        "alpha": alpha,
        "p_value": P_DEFINITIONS["bootstrap"] + "; delta = B - A",
    }

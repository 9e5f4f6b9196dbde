"""SLIDE (Raunak, Kocmi and Post 2023): a reference-free model reads a document through a sliding window of
sentences, so that the source's context stands in for a reference (issue 49; docs/decisions.md, "SLIDE").

- **Windows**: in each document (its lines in line order), windows of ``w`` consecutive sentences starting every
  ``s`` sentences, never crossing a document; when the last window ends before the document does, one more window
  ends at its last sentence; a document shorter than ``w`` is one window. A window's source and translation are its
  sentences joined by a space.
- **Scores**: each window is one segment of the unmodified model (its cache, its jobs' machinery: a window's score
  is that of its inputs); a document's score is the mean of its windows', and a system's the mean of its
  documents' (every line carries its document's score, weighted so that the corpus formula gives that mean).
- ``w = 1, s = 1``: every window is one sentence, so the document scores are the means of the sentence-level
  scores.
- The metric is ``slide:NAME`` for a registered reference-free model; ``MTLENS_SLIDE_WINDOW`` and
  ``MTLENS_SLIDE_STRIDE`` choose ``w`` and ``s`` (default 6 and 6), and the signature says them.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..scores.sources import SLIDE_PREFIX, source_of
from .models import get_model

PREFIX = SLIDE_PREFIX
WINDOW_ENV, STRIDE_ENV = "MTLENS_SLIDE_WINDOW", "MTLENS_SLIDE_STRIDE"
DEFAULT_WINDOW = DEFAULT_STRIDE = 6


def settings() -> tuple[int, int]:
    """``(w, s)`` from the environment (default 6 and 6), or one sentence naming the bad one."""
    out = []
    for env, default in ((WINDOW_ENV, DEFAULT_WINDOW), (STRIDE_ENV, DEFAULT_STRIDE)):
        text = os.environ.get(env, "").strip()
        try:
            value = int(text) if text else default
        except ValueError:
            value = 0
        if not 1 <= value <= 100:
            raise InputError(f"{env} is a whole number of sentences from 1 to 100, not '{text[:20]}'")
        out.append(value)
    return out[0], out[1]


def spans(n: int, w: int, s: int) -> list[tuple[int, int]]:
    """The windows ``[start, end)`` over a document of ``n`` sentences (the module's rule).

    >>> spans(7, 3, 2), spans(2, 3, 1), spans(4, 1, 1)
    ([(0, 3), (2, 5), (4, 7)], [(0, 2)], [(0, 1), (1, 2), (2, 3), (3, 4)])
    >>> spans(8, 3, 3)
    [(0, 3), (3, 6), (5, 8)]
    """
    if n <= w:
        return [(0, n)]
    starts = list(range(0, n - w + 1, s))
    if starts[-1] + w < n:
        starts.append(n - w)
    return [(a, a + w) for a in starts]


def documents_of(corpus: Corpus) -> list[list[int]]:
    """Each document's line indices, in line order, documents in order of first appearance."""
    if corpus.documents is None:
        raise InputError("SLIDE reads whole documents: give the set its documents (--docs FILE, or WMT XML)")
    docs: dict[str, list[int]] = {}
    for i, d in enumerate(corpus.documents):
        docs.setdefault(d, []).append(i)
    return list(docs.values())


def window_corpus(corpus: Corpus, w: int, s: int) -> tuple[Corpus, list[tuple[int, list[int]]]]:
    """The windows as a corpus of their own (one line per window: source and every system's translation) and, per
    window, ``(document index, its lines)``."""
    if corpus.source is None:
        raise InputError("SLIDE reads the source: the set has none (add a source file)")
    owners: list[tuple[int, list[int]]] = []
    for k, lines in enumerate(documents_of(corpus)):
        owners += [(k, lines[a:b]) for a, b in spans(len(lines), w, s)]
    src = [" ".join(corpus.source[i].strip() for i in idx) for _, idx in owners]
    systems = {
        name: [" ".join(hyp[i].strip() for i in idx) for _, idx in owners] for name, hyp in corpus.systems.items()
    }
    return Corpus.build({}, systems, src, language_pair=corpus.language_pair, allow_no_reference=True), owners


def slide_scores(store, corpus: Corpus, item: str, progress=None, cached_only: bool = False):
    """``slide:NAME``'s scores of the corpus (an :class:`mtlens.scores.results.ImportedScores`): the windows scored
    by the registered reference-free model NAME (only what its cache lacks), or None with ``cached_only`` while a
    window is unscored."""
    from .compute import scores_for
    from .segments import cached_scores

    model = get_model(store, source_of(item).registered)
    qe = [m for m in model.checkpoint.metrics(model) if not m.needs_reference]
    if model.needs_reference and qe:  # a hybrid checkpoint (MetricX's): its reference-free metric scores the windows
        model = get_model(store, qe[0].metric)
    if model.needs_reference:
        raise InputError(f"SLIDE needs a reference-free model (CometKiwi-like); '{model.name}' reads the reference")
    w, s = settings()
    windows, owners = window_corpus(corpus, w, s)
    got = cached_scores(store, model, windows) if cached_only else scores_for(store, model, windows, progress)
    if got is None:
        return None
    n_docs = max(k for k, _ in owners) + 1
    doc_lines = documents_of(corpus)
    scores, weights = {}, {}
    for name in corpus.system_names:
        per_doc = [[] for _ in range(n_docs)]
        for (k, _), v in zip(owners, got.scores[name], strict=True):
            per_doc[k].append(v)
        line_score = np.full(corpus.n_lines, np.nan)
        line_weight = np.zeros(corpus.n_lines)
        for k, lines in enumerate(doc_lines):
            line_score[lines] = float(np.mean(per_doc[k]))
            line_weight[lines] = 1.0 / (len(lines) * n_docs)
        scores[name], weights[name] = line_score, line_weight
    fields = (*got.model, ("window", str(w)), ("stride", str(s)))
    return dataclasses.replace(
        got, name=PREFIX + model.name, scores=scores, spans={}, model=fields, weights=weights, mean="documents",
        notes=(*got.notes, f"{PREFIX}{model.name}: {len(owners):,} windows of {w} sentences, stride {s}, over "
               f"{n_docs:,} documents; a line carries its document's score"),
    )  # fmt: skip

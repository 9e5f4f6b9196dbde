"""Is the reference the problem? (issue 50) The notes every face shows: on Rankings, in the gate's verdict, in the
report and on the command line (:mod:`mtlens.analysis.reference` decides)."""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError

__all__ = [
    "BASED",
    "reference_notes",
]

#: the reference-based metric the reference-free orders are compared with (fast, and no neural family's)
BASED = "chrf"


def reference_notes(store, ev, imported=None, based=None) -> list[str]:
    """The notes on the evaluation's references: their own text (pitfalls, length, a system's output) and what the
    reference-free metrics that scored them say (an LLM judge registered with ``--score-references``).
    ``imported``: the set's read metrics (default: read here); ``based``: chrF's result if computed already."""
    from ..analysis.reference import free_checks, text_checks
    from ..core.language import known_pair
    from ..metrics import make_metric
    from ..runtime import kernels
    from ..runtime.scoring import result_for, score_metrics
    from .evaluation import file_metrics, finished_neural

    corpus = ev.corpus
    if not corpus.references or not corpus.systems:
        return []
    pair = known_pair(corpus.language_pair)
    if pair[1]:  # the references' language is identified: its compiled loop built ahead of time (once), like TER's
        kernels.prepare([kernels.LANGUAGE_CHECK])
    notes = text_checks(corpus.references, corpus.systems, corpus.source, pair)
    if imported is None:
        try:
            neural = finished_neural(store, ev) if ev.set_id and store is not None else ()
            imported = file_metrics(store, ev, neural)
        except InputError:
            imported = []
    scored = [m for m in imported if getattr(m, "reference_scores", None)]
    if scored:
        if based is None:
            (based,) = score_metrics(corpus, [make_metric(BASED, None)])
        for m in scored:
            systems = result_for(corpus, m).scores
            refs = {
                r: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for r, v in m.reference_scores.items()
            }
            notes += free_checks(m.name, refs, systems, m.higher_is_better, based.scores, BASED, based.higher_is_better)
    return notes

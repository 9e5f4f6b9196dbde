"""Human error annotations (MQM) as the pages show them: filters, the lines they select, summaries and overlaps."""

from __future__ import annotations

import pandas as pd

from ..core.options import Options
from . import cached, state
from .views import ANY


def annotation_choices(anns) -> dict[str, list[str]]:
    """The values the Sentences page filters annotated lines by: category, severity, rater, document."""
    cats, sevs, raters, docs = set(), set(), set(), set()
    for ann in anns:
        for seg in ann.segments.values():
            docs.add(seg.doc)
            raters.update(seg.raters)
            for e in seg.errors:
                cats.add(e.category)
                sevs.add(e.severity)
    return {
        "category": [ANY, *sorted(cats)],
        "severity": [ANY, *sorted(sevs)],
        "rater": [ANY, *sorted(raters)],
        "document": [ANY, *sorted(docs)],
    }


def annotated_lines(anns, system: str, category=ANY, severity=ANY, rater=ANY, document=ANY) -> set[int] | None:
    """Line numbers (1-based) of ``system`` whose annotations match the filter (None: no filter set). A line
    matches when it is in the document and one error matches category, severity and rater together."""
    if (category, severity, rater, document) == (ANY, ANY, ANY, ANY):
        return None
    lines = set()
    for ann in anns:
        for k, seg_id in enumerate(ann.seg_ids, start=1):
            seg = ann.segments.get((system, seg_id))
            if seg is None or (document != ANY and seg.doc != document):
                continue
            if (category, severity, rater) == (ANY, ANY, ANY) or any(
                (category == ANY or e.category == category)
                and (severity == ANY or e.severity == severity)
                and (rater == ANY or e.by == rater)
                for e in seg.errors
            ):
                lines.add(k)
    return lines


def annotated_segment(ann, system: str, i: int):
    """The annotated segment of line ``i`` (0-based) of ``system``, or None when it was not rated."""
    return ann.segments.get((system, ann.seg_ids[i])) if i < len(ann.seg_ids) else None


def annotation_summaries(anns) -> dict[str, pd.DataFrame]:
    """The Annotations page's tables: error counts (long), per-100 pivot, document scores, rater agreement."""
    from ..analysis.mqm_summary import document_scores, error_counts, rater_agreement

    counts = pd.DataFrame([{"file": a.name, **r} for a in anns for r in error_counts(a)])
    docs = pd.DataFrame([{"file": a.name, **r} for a in anns for r in document_scores(a)])
    agreement = pd.DataFrame([{"file": a.name, **r} for a in anns for r in rater_agreement(a)])
    per100 = (
        counts.pivot_table(index=["system", "category"], columns="severity", values="per 100 segments", aggfunc="sum")
        .fillna(0.0)
        .reset_index()
        if not counts.empty
        else counts
    )
    doc_table = (
        docs.pivot_table(index="system", columns="document", values="mqm", aggfunc="mean").reset_index()
        if not docs.empty
        else docs
    )
    return {"counts": counts, "per100": per100, "documents": doc_table, "agreement": agreement}


def metric_disagreements(ds: state.Dataset, anns, metric: str, system: str, opts: Options) -> pd.DataFrame:
    """The lines of ``system`` where ``metric`` and MQM disagree most (the first annotation file)."""
    from ..analysis.mqm_summary import disagreements

    result = cached.metric_result(ds, metric, opts)
    scores = result.sentence_scores(system)
    if not result.higher_is_better:
        scores = -scores
    rows = disagreements(anns[0], system, scores)
    return pd.DataFrame(rows)


def span_overlaps(ds: state.Dataset, anns) -> pd.DataFrame:
    """Character-level precision, recall and F1 of every imported metric's error spans against the raters'."""
    from ..analysis.mqm_summary import span_overlap

    rows = []
    for name, (imp, _) in cached.imported(ds).items():
        if imp.spans:
            rows.append({"metric": name, **span_overlap(anns[0], imp.spans)})
    return pd.DataFrame(rows)

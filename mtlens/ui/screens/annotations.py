"""The human annotations: what the raters marked, summarised (MQM error counts, documents, rater agreement),
and where the metrics disagree with them.

The body of ``pages/8_Annotations.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...scores.sources import HUMAN_KIND, source_of
from ...service.ratings import MEANS, has_esa
from .. import annotated, cached, export, render, state, views
from ..widgets import open_screen


def esa_section(ds) -> None:
    """The set's ESA ratings (issue 52): the systems' scores as the publisher computes them, and each rater's
    quality; a rater can be left out and the scores follow."""
    import pandas as pd

    st.subheader("Human ESA ratings")
    c1, c2 = st.columns([1, 2])
    mean = c1.radio(
        "A system's score",
        list(MEANS),
        format_func=lambda m: "mean of domain means" if m == "domains" else "mean of segments",
        key="esa_mean",
        help="The publisher (WMT24) averages each domain's segments, then the domains.",
    )
    first = cached.esa_report(ds, (), mean)
    everyone, saved = [q["rater"] for q in first["raters"]], first["left_out_by_the_set"]
    left_out = c2.multiselect(
        "Leave out raters",
        everyone,
        default=saved,
        key="esa_exclude",
        help="Their ratings leave these tables at once; saved with the set, they leave the esa metric of every page.",
    )
    changed = bool(ds.set_id) and state.may_change(ds.set_id) and sorted(left_out) != saved
    if changed and c2.button("Leave them out on every page", key="esa_save", help="The set keeps this choice."):
        state.workspace().leave_out(ds.set_id, left_out)
        state.open_set(ds.set_id)  # the set now holds the choice: every page's esa follows
        st.rerun()
    doc = cached.esa_report(ds, tuple(left_out), mean)
    systems = pd.DataFrame(
        [
            {
                "system": r["system"] + (" (reference)" if r["reference"] else ""),
                "ESA": r["score"],
                "segments": r["segments"],
            }
            for r in doc["systems"]
        ]
    )
    export.table(systems, name="mtlens-esa-systems", hide_index=True, key="esa_systems")
    st.caption(render.md(f"A system's score: {doc['mean']}. Files: {', '.join(doc['files'])}."))
    raters = pd.DataFrame(
        [
            {
                "rater": q["rater"],
                "items": q["items"],
                "attention checks": q["attention_checks"],
                "passed": q["passed"],
                "pass rate": q["pass_rate"],
                "repeated items": q["repeated_items"],
                "repeat |difference|": q["repeat_mean_abs_difference"],
                "agreement r": q["agreement_r"],
                "left out": q["excluded"],
            }
            for q in doc["raters"]
        ]
    )
    st.markdown("**Raters**")
    export.table(raters, name="mtlens-esa-raters", hide_index=True, key="esa_raters")
    st.caption(
        "Attention check: a deliberately damaged copy of an item the rater also rated; passed when scored lower "
        "than the original. Repeated item: the same item twice, and the mean absolute difference of the two scores. "
        "Agreement: Pearson r of the rater's scores with the mean of the other raters' on the items they share "
        "(at least 10)."
    )
    for note in doc["notes"]:
        st.caption(render.md(note[0].upper() + note[1:] + "."))


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Human annotations (MQM, ESA)")
    anns = cached.mqm_annotations(ds)
    esa = has_esa(ds.evaluation())
    if esa:
        esa_section(ds)
    if not anns:
        if not esa:
            st.info(
                "This set has no human error annotations. Upload an MQM file (Google's TSV with <v> spans) on the "
                "home page: alone it makes a set, with references and systems it annotates their hypotheses; or add "
                "ESA ratings to a saved set: python -m mtlens import --ratings FILE --set ID."
            )
        st.stop()
    for ann in anns:
        if ann.problems:
            with st.expander(f"{render.md(ann.name)}: rows to check"):
                # one element for all of them (at most MAX_PROBLEMS and a count of the rest)
                st.caption("  \n".join(render.md(p) for p in ann.problems))
    tables = annotated.annotation_summaries(anns)
    st.subheader("Errors per 100 rated segments, by category and severity")
    export.table(tables["per100"], name="mtlens-mqm-per100", hide_index=True, key="ann_per100")
    system = st.selectbox("System", list(ds.corpus.system_names), key="ann_system")
    mine = tables["counts"][tables["counts"]["system"] == system]
    fig = go.Figure()
    for sev in sorted(set(mine["severity"])):
        part = mine[mine["severity"] == sev]
        fig.add_trace(go.Bar(name=sev, x=list(part["category"]), y=list(part["per 100 segments"])))
    fig.update_layout(
        barmode="stack",
        height=380,
        margin={"t": 20},
        xaxis_title="error category",
        yaxis_title="errors per 100 segments",
    )
    export.chart(fig, "ann_counts", f"mtlens-mqm-errors-{views.safe_key(system)}")
    with st.expander("Error counts (every system, category and severity)"):
        export.table(tables["counts"], name="mtlens-mqm-counts", hide_index=True, key="ann_counts_table")
    st.subheader("MQM by document")
    export.table(tables["documents"], name="mtlens-mqm-documents", hide_index=True, key="ann_docs")
    st.subheader("Rater agreement")
    agreement = tables["agreement"]
    if agreement.empty or agreement["pearson"].isna().all():
        st.caption(
            "No two raters rated the same (system, segment) three times or more, so their agreement cannot be "
            "measured (WMT21 TED assigns one rater per segment)."
        )
    if not agreement.empty:
        export.table(agreement, name="mtlens-rater-agreement", hide_index=True, key="ann_agree")
    st.subheader("Where a metric disagrees with the raters")
    # a human score held against the raters says nothing about a metric (MQM against itself least of all)
    names = [m for m in cached.metric_names(ds, sentence=True) if source_of(m).kind != HUMAN_KIND]
    if not names:
        st.caption(
            "This set has no metric to hold against the raters: it has no reference (for BLEU, chrF, ...) and no "
            "imported or neural sentence scores. Add a reference or metric scores to the set to compare."
        )
    else:
        metric = st.selectbox("Metric", names, key="ann_metric")
        st.caption(
            "Percentile ranks of the metric's sentence scores and of MQM over the system's rated lines; the "
            "disagreement is their absolute difference (1: one puts the line first, the other last)."
        )
        export.table(
            annotated.metric_disagreements(ds, anns, metric, system, opts),
            name=f"mtlens-disagreement-{metric}",
            hide_index=True,
            key="ann_disagree",
        )
    overlap = annotated.span_overlaps(ds, anns)
    if not overlap.empty:
        st.subheader("Predicted error spans against the raters' spans")
        st.caption("Character-level precision, recall and F1 against the union of the raters' spans (micro average).")
        export.table(overlap, name="mtlens-span-overlap", hide_index=True, key="ann_overlap")

"""The overview: systems by test set for one metric, with each set's significance clusters (as WMT findings
tables show them). Sets are grouped by project; each set is scored with its own language's defaults.

The body of ``pages/7_Overview.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import streamlit as st

from ...core.errors import InputError
from .. import export, identity, render, state, views
from ..widgets import dataset_caption, metric_sidebar


def page() -> None:
    """Draw the page (inside the page guard)."""
    st.title("Overview: many test sets")
    ds = state.current()
    opts = metric_sidebar()
    dataset_caption(ds)
    try:
        sets = state.store().list(visitor=identity.visitor())
    except InputError as err:
        st.error(render.md(str(err)))
        st.stop()
    if not sets:
        st.info(
            "No saved sets yet: upload test sets on the home page, or `python -m mtlens import PATH --project NAME`."
        )
        st.stop()
    projects = sorted({s.project for s in sets if s.project})
    c1, c2 = st.columns(2)
    project = c1.selectbox("Project", ["(all saved sets)", *projects], key="ov_project")
    metric = c2.selectbox("Metric", views.overview_metrics(), key="ov_metric")
    chosen = [s for s in sets if project == "(all saved sets)" or s.project == project]
    bar = st.progress(0.0, text="Scoring the sets…")
    long, shown = views.overview(
        chosen,
        metric,
        opts,
        lambda f, text: bar.progress(f, text=text),
        lambda w: st.warning(render.md(w)),
    )
    bar.empty()
    if long.empty:
        st.stop()
    st.subheader(f"{metric} by test set (cluster in brackets)")
    st.dataframe(shown, key="ov_table")
    st.caption(views.overview_note(long))
    export.table(long, name=f"mtlens-overview-{metric}", hide_index=True, key="ov_long")

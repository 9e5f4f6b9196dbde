"""Overview: systems by test set for one metric, with each set's significance clusters (as WMT findings
tables show them). Sets are grouped by project; each set is scored with its own language's defaults."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mtlens.errors import InputError
from mtlens.language import language_defaults
from mtlens.metrics import metric_names
from mtlens.report import set_labels
from mtlens.ui import cached, export, identity, render, state
from mtlens.ui.guard import guard
from mtlens.ui.widgets import dataset_caption, metric_sidebar

with guard():
    st.set_page_config(page_title="mtlens · Overview", layout="wide")
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
    metric = c2.selectbox("Metric", list(metric_names()), key="ov_metric")
    chosen = [s for s in sets if project == "(all saved sets)" or s.project == project]
    st.caption(
        "Each set is scored with the options of the sidebar and its own language's tokenizer and TER defaults. "
        "Cluster: systems in score order, split only where every system above is significantly better than every "
        "system below (paired bootstrap, 1000 resamples, Holm-corrected p < 0.05)."
    )
    rows = []
    bar = st.progress(0.0, text="Scoring the sets…")
    for k, info in enumerate(chosen):
        bar.progress(k / len(chosen), text=f"Scoring {info.name}…")
        try:
            sds = state.saved_dataset(info.id)
        except InputError as err:
            st.warning(render.md(f"{info.name}: {err}"))
            continue
        set_opts = opts.replace(**language_defaults(sds.language.target if sds.language else None))
        result = cached.metric_result(sds, metric, set_opts)
        cluster = {}
        if cached.can_test(sds):
            cmp = cached.comparison(sds, metric, set_opts)
            cluster = {n: i + 1 for i, group in enumerate(cmp.clusters) for n in group}
        for system, value in result.scores.items():
            rows.append(
                {
                    "set id": info.id,
                    "set": info.name,
                    "language pair": info.language_pair or "",
                    "system": system,
                    metric: value,
                    "cluster": cluster.get(system),
                }
            )
    bar.empty()
    long = pd.DataFrame(rows)
    if long.empty:
        st.stop()
    # Sets are told apart by id (two sets may share a name); a repeated name gets the start of its id.
    labels = set_labels([(info.id, info.name) for info in chosen])
    wide = long.pivot_table(index="system", columns="set id", values=metric, aggfunc="first")
    clusters = long.pivot_table(index="system", columns="set id", values="cluster", aggfunc="first", dropna=False)
    clusters = clusters.reindex(index=wide.index, columns=wide.columns)  # sets without tests have no cluster
    shown = pd.DataFrame(
        {
            col: [
                "" if pd.isna(v) else f"{v:.2f}" + ("" if pd.isna(k) else f" ({int(k)})")
                for v, k in zip(wide[col], clusters[col], strict=True)
            ]
            for col in wide.columns
        },
        index=wide.index,
    ).rename(columns=labels)
    st.subheader(f"{metric} by test set (cluster in brackets)")
    st.dataframe(shown, key="ov_table")
    export.table(long, name=f"mtlens-overview-{metric}", hide_index=True, key="ov_long")

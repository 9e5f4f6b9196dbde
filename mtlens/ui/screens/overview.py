"""The overview: systems by test set for one metric, with each set's significance clusters (as WMT findings
tables show them). Sets are grouped by project; each set is scored with its own language's defaults.

The body of ``pages/7_Overview.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from ...analysis.policy import MIN_TEST_LINES, test_wording
from ...core.errors import InputError
from ...core.options import Options
from ...exports.tables import set_labels
from ...service.evaluation import options_for
from ...service.results import metric_names
from .. import cached, export, render, state
from ..views import metric_decimals
from ..widgets import open_screen


def page() -> None:
    """Draw the page (inside the page guard)."""
    _, opts = open_screen("Overview: many test sets")
    try:
        sets = state.workspace().sets()
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
    metric = c2.selectbox("Metric", overview_metrics(), key="ov_metric")
    chosen = [s for s in sets if project == "(all saved sets)" or s.project == project]
    bar = st.progress(0.0, text="Scoring the sets…")
    long, shown = overview(
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
    st.caption(overview_note(long))
    export.table(long, name=f"mtlens-overview-{metric}", hide_index=True, key="ov_long")


def overview_note(long) -> str:
    """The Overview's caption: how each set was scored, and the test its clusters come from, naming the
    resamples the sets' tests drew (one count, or the range; the download's ``resamples`` column has each)."""
    drawn = [int(n) for n in long["resamples"].dropna()] if "resamples" in long else []
    test = test_wording("bootstrap", drawn) if drawn else f"no set had the {MIN_TEST_LINES} lines a test needs"
    return (
        "Each set is scored with the options of the sidebar and its own language's tokenizer and TER defaults. "
        "Cluster: systems in score order, split only where every system above is significantly better than every "
        f"system below ({test})."
    )


def overview_metrics() -> list[str]:
    return list(metric_names())


def overview(sets, metric: str, opts: Options, progress: Callable[[float, str], object], warn: Callable[[str], object]):
    """Systems by saved set for one metric, each set scored with its own language's defaults, with its
    significance clusters. Returns ``(long, shown)``: one row per (set, system) with the set's id, and the
    systems x sets table (columns labelled by name, with the start of the id where names repeat)."""
    rows = []
    for k, info in enumerate(sets):
        progress(k / max(len(sets), 1), f"Scoring {info.name}…")
        try:
            sds = state.saved_dataset(info.id)
        except InputError as err:
            warn(f"{info.name}: {err}")
            continue
        set_opts = options_for(sds.language, opts)
        try:
            result = cached.metric_result(sds, metric, set_opts)
        except InputError as err:  # e.g. a set made from annotations has no reference for BLEU
            warn(f"{info.name}: {err}")
            continue
        cluster, drawn = {}, None
        if cached.can_test(sds):
            cmp = cached.comparison(sds, metric, set_opts)
            cluster = {n: i + 1 for i, group in enumerate(cmp.clusters) for n in group}
            drawn = cmp.n
        for system, value in result.scores.items():
            rows.append(
                {
                    "set id": info.id,
                    "set": info.name,
                    "language pair": info.language_pair or "",
                    "system": system,
                    metric: value,
                    "cluster": cluster.get(system),
                    "resamples": drawn,
                }
            )
    long = pd.DataFrame(rows)
    if long.empty:
        return long, long
    labels = set_labels([(info.id, info.name) for info in sets])
    wide = long.pivot_table(index="system", columns="set id", values=metric, aggfunc="first")
    clusters = long.pivot_table(index="system", columns="set id", values="cluster", aggfunc="first", dropna=False)
    clusters = clusters.reindex(index=wide.index, columns=wide.columns)  # sets without tests have no cluster
    places = metric_decimals(metric, long[metric])
    shown = pd.DataFrame(
        {
            col: [
                "" if pd.isna(v) else f"{v:.{places}f}" + ("" if pd.isna(k) else f" ({int(k)})")
                for v, k in zip(wide[col], clusters[col], strict=True)
            ]
            for col in wide.columns
        },
        index=wide.index,
    ).rename(columns=labels)
    return long, shown

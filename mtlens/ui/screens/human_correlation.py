"""The human correlation: how each metric agrees with the human judgments uploaded with the data.

The body of ``pages/5_Human_correlation.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...analysis.human import merge_correlations, segment_pairs
from ...analysis.meta_table import CEILING, MEASURES, METRIC, SENTINEL_ROLE
from ...analysis.policy import ALPHA, CI_RESAMPLES, MIN_TEST_LINES
from ...analysis.wmt25 import CRITICAL_BELOW
from .. import cached, export, links, render, views
from ..widgets import open_screen


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Correlation with human judgments")
    human = cached.human(ds)
    if human is None:
        st.info(
            "No human scores in this dataset: upload a TSV (system, metric, score; or system, line, metric, score) "
            "on the home page."
        )
        st.stop()
    for note in human.notes:
        st.caption(render.md(note))

    # the fast metrics' rows first (a table within seconds), then every metric's (TER and tBLEU take longer);
    # a row is the same in both (each row has its own seeded resamples)
    names = cached.metric_names(ds)
    fast = cached.fast_metrics(names)
    first = st.empty()
    slow = [m for m in names if m not in fast]
    parts = []
    if fast and slow:
        parts.append(cached.human_corr(ds, opts, cached.all_results(ds, opts, fast)))
        with first.container(key="hc_first_rows"):
            st.dataframe(export.numbers(correlation_table(parts[0])), hide_index=True)
    results = cached.all_results(ds, opts, names)
    parts.append(cached.human_corr(ds, opts, {m: results[m] for m in (slow if parts else names)}))
    corr = merge_correlations(parts, names)
    with first.container(key="hc_all_rows"):
        export.table(name="mtlens-human-correlation", df=correlation_table(corr), hide_index=True)
    if not corr.rows:
        st.info("The set's only metrics are its human scores themselves: add references or metric scores to "
                "measure a metric against them.")  # fmt: skip
    st.caption(
        "TER is an error rate: a good TER correlates negatively. Intervals: percentile bootstrap over systems "
        f"(system level) or rated segments (segment level), {CI_RESAMPLES:,} resamples."
    )
    for key, names in corr.missing.items():
        if names:
            st.warning(render.md(f"No human score ({key}) for: {', '.join(names)}"))

    st.caption(
        "pairwise_accuracy (system level): share of system pairs the metric orders as the humans do. acc_eq "
        "(segment level, Deutsch et al. 2023): per segment, the share of system pairs ordered as the humans do or "
        "tied in both, with the one tie threshold (acc_eq_epsilon, in metric units) that maximises the average "
        "over segments."
    )

    wmt25_section(ds, opts, results)

    st.subheader("Which metric agrees better? (PERM-BOTH, Deutsch et al. 2021)")
    levels_all = [f"system:{h}" for h in human.system] + [f"segment:{h}" for h in human.segment]
    links.from_link(
        {
            "clusters_by": ("hc_perm_level", levels_all),
            "metric": ("hc_metric", list(results)),
            "human": ("hc_level", levels_all),
            "ranked_by": ("hc_rank_kind", list(human.segment)),
        }
    )
    perm_level = st.selectbox("Human score", levels_all, key="hc_perm_level")
    links.to_link(clusters_by=perm_level)
    perm = cached.metric_clusters(ds, opts, results, perm_level)
    export.table(metric_clusters_table(perm), name="mtlens-metric-clusters", hide_index=True, key="hc_perm_table")
    st.caption(
        f"Metrics by Pearson correlation ({perm.level}); cluster boundaries only where every metric above "
        f"correlates significantly better than every metric below. p: PERM-BOTH, {CI_RESAMPLES:,} permutations, one-sided "
        "(share of permutations whose correlation difference is at least the observed one), Holm-corrected "
        "over the metric pairs."
    )

    if human.segment:
        st.subheader("Systems ranked by the human scores (as WMT findings tables)")
        seg_kind = st.selectbox("Segment-level human score", list(human.segment), key="hc_rank_kind")
        links.to_link(ranked_by=seg_kind)
        ranks, _ = cached.human_ranks(ds, seg_kind)
        export.table(
            pd.DataFrame([asdict(x) for x in ranks]), name="mtlens-human-ranking", hide_index=True, key="hc_rank_table"
        )
        st.caption(
            "Rank range: (systems that beat it) + 1 ... N - (systems it beats). Two systems are compared on the "
            f"segments both were rated on (at least {MIN_TEST_LINES}), Wilcoxon signed-rank, Holm-corrected "
            f"p < {ALPHA:g}; clusters "
            "split only where every system above beats every system below."
        )

    st.subheader("Metric against human score")
    c1, c2 = st.columns(2)
    metric = c1.selectbox("Metric", list(results), key="hc_metric")
    levels = [f"system:{h}" for h in human.system] + [f"segment:{h}" for h in human.segment]
    level = c2.selectbox("Human score", levels, key="hc_level")
    links.to_link(metric=metric, human=level)
    kind, h = level.split(":", 1)
    r = results[metric]
    if kind == "system":
        names = [s for s in r.scores if s in human.system[h]]
        fig = go.Figure(
            go.Scatter(
                x=[r.scores[s] for s in names],
                y=[human.system[h][s] for s in names],
                mode="markers+text",
                text=list(names),
                textposition="top center",
                hovertemplate=f"%{{text}}<br>%{{x:{views.hover_format(metric, r.scores.values())}}} / "
                f"%{{y:{views.hover_format(h, human.system[h].values())}}}<extra></extra>",
            )
        )
    else:
        xs, ys = segment_pairs(r, human.segment[h])
        labels = [f"{s} line {line + 1}" for s, lines in human.segment[h].items() for line in lines]
        fig = go.Figure(
            go.Scattergl(
                x=xs,
                y=ys,
                mode="markers",
                text=labels,
                marker={"opacity": 0.5},
                hovertemplate=f"%{{text}}<br>%{{x:{views.hover_format(metric, xs)}}} / "
                f"%{{y:{views.hover_format(h, ys)}}}<extra></extra>",
            )
        )
    fig.update_layout(xaxis_title=metric, yaxis_title=h, height=440, margin={"t": 20})
    export.chart(fig, "hc_scatter")

    if human.system and ds.corpus.references:  # tBLEU compares with a reference
        st.subheader("tBLEU threshold sweep (Libovický & Pecina, Figure 2)")
        # asked for, not computed on every first visit (issue 58, D17: tBLEU at every threshold took most of a minute)
        if not st.toggle("Compute the sweep (tBLEU at every threshold: slow on large sets)", key="hc_sweep_on"):
            st.caption("The correlation of tBLEU with the human scores at each threshold, as the paper's Figure 2.")
            return
        sweep = cached.tbleu_sweep(ds, opts)
        fig2 = go.Figure()
        for hname, vals in sweep.correlation.items():
            fig2.add_trace(
                go.Scatter(
                    x=sweep.epsilons,
                    y=vals["pearson"],
                    mode="lines+markers",
                    name=f"Pearson vs {hname}",
                )
            )
        fig2.update_layout(xaxis_title="epsilon", yaxis_title="correlation", height=380, margin={"t": 20})
        export.chart(fig2, "hc_sweep")


def correlation_table(corr) -> pd.DataFrame:
    """The Human correlation table: one row per metric, level and human score type, intervals as text
    ("[lo, hi]" with the correlations' decimals, "-" where undefined)."""
    from dataclasses import asdict

    from ...exports.numbers import decimals

    if not corr.rows:  # every metric of the set is a human score itself (issue 58, D6): no row
        return pd.DataFrame(columns=["metric", "level", "human", "n", "pearson", "spearman", "kendall"])
    rows = pd.DataFrame([asdict(r) for r in corr.rows])
    d = decimals("pearson", [0.0])
    for k in ("pearson", "spearman", "kendall"):
        rows[f"{k} 95% CI"] = [f"[{a:.{d}f}, {b:.{d}f}]" if a == a else "-" for a, b in rows[f"{k}_ci"]]
    return rows.drop(columns=["pearson_ci", "spearman_ci", "kendall_ci"])


def metric_clusters_table(mc) -> pd.DataFrame:
    """The PERM-BOTH clusters of :func:`mtlens.analysis.human.metric_clusters`, best metric first; p is the
    Holm-corrected p-value that the metric correlates better than the next one below."""
    nxt = dict(zip(mc.metrics, mc.metrics[1:], strict=False))
    return pd.DataFrame(
        {
            "metric": mc.metrics,
            "pearson (sign-adjusted)": [mc.pearson[m] for m in mc.metrics],
            "cluster": [mc.cluster[m] for m in mc.metrics],
            "p vs next": [mc.p[(m, nxt[m])] if m in nxt else None for m in mc.metrics],
        }
    )


#: what each column of the WMT25 table measures, under the table
WMT25_WORDING = (
    "pairwise_accuracy: share of system pairs ordered as the humans order them. spa: soft pairwise accuracy (Thompson "
    "et al. 2024), 1 - mean |p_human - p_metric| over system pairs. acc_eq: segment-level pairwise accuracy with "
    "ties (Deutsch et al. 2023). pdp: Pearson of the human and metric differences between every two systems on the "
    "same segment (WMT25). span_precision/recall/f1: character-level, major and minor counted apart, half credit for "
    "the right place with the wrong severity, omissions left out (WMT25's scoring_esa.py). criticality_f1: how well "
    f"the metric's lowest (or highest) scores find the segments the humans scored below {CRITICAL_BELOW:g} (ESA "
    "only). The sentinel sees only the candidate (its length): a metric no better than it is not measured by these "
    "ratings. The human ceiling is a second rater (or wave) against the first, on the items both rated. "
    "- : does not apply (no spans, no segment scores, no ESA)."
)


def wmt25_section(ds, opts, results) -> None:
    """Which judge to trust, measured as WMT25 measures it: the table and a chart of one measure (issue 61)."""
    rows = cached.meta_rows(ds, opts, results)
    if not rows:
        return
    st.subheader("Which judge to trust, as WMT25 measures it")
    table = meta_table(rows)
    export.table(name="mtlens-meta-evaluation", df=table, hide_index=True, key="hc_wmt25_table")
    st.caption(WMT25_WORDING)
    shown_measures = [m for m in MEASURES if table[m].notna().any()]
    if not shown_measures:
        return
    c1, c2 = st.columns(2)
    measure = c1.selectbox("Measure", shown_measures, key="hc_wmt25_measure")
    kinds = list(dict.fromkeys(table["human"]))
    kind = c2.selectbox("Human score", kinds, key="hc_wmt25_human")
    part = table[(table["human"] == kind) & table[measure].notna()].sort_values(measure, ascending=False)
    colours = {METRIC: "#4c78a8", SENTINEL_ROLE: "#b0b0b0", CEILING: "#54a24b"}
    fig = go.Figure(
        go.Bar(
            x=part["metric"].tolist(),
            y=part[measure].tolist(),
            marker_color=[colours[r] for r in part["role"]],
            text=part["role"].tolist(),
            hovertemplate=f"%{{x}}<br>%{{y:{views.hover_format(measure, part[measure])}}}<br>%{{text}}<extra></extra>",
        )
    )
    fig.update_layout(xaxis_title="score source", yaxis_title=measure, height=380, margin={"t": 20})
    export.chart(fig, "hc_wmt25_chart")
    st.caption("Grey: the sentinel (sees only the candidate). Green: the human ceiling (a second rating).")


def meta_table(rows) -> pd.DataFrame:
    """The meta-evaluation rows as the page and its export show them."""
    return pd.DataFrame([asdict(r) for r in rows]).astype({m: "float64" for m in MEASURES})

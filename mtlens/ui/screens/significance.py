"""The significance: all pairs of systems, paired bootstrap or approximate randomisation, Holm, clusters.

The body of ``pages/4_Significance.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...analysis.policy import ALPHA_CHOICES, DEFAULT_SAMPLES, MAX_SAMPLES, MCNEMAR, P_DEFINITIONS, SEED
from ...core.errors import InputError
from ...exports.comparisons import comparisons_to_csv, comparisons_to_latex
from ...exports.html import NOT_SIGNIFICANT_COLOUR, SIGNIFICANT_COLOUR, p_text
from ...exports.numbers import hover_format
from .. import cached, export, links, render, views
from ..widgets import open_screen


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Significance")
    systems = list(ds.corpus.system_names)
    if len(systems) < 2:
        st.info("Significance tests need at least two systems.")
        st.stop()
    if not cached.can_test(ds):
        st.info(cached.too_few_lines(ds))
        st.stop()

    links.from_link(
        {
            "metric": ("sig_metric", cached.metric_names(ds, with_checks=True)),
            "test": ("sig_test", ["bootstrap", "ar"]),
            "alpha": ("sig_alpha", list(ALPHA_CHOICES)),
            "baseline": ("sig_baseline", systems),
            "resample": ("sig_resample", ["segments", "documents"]),
        }
    )
    c1, c2, c3, c4, c5 = st.columns(5)
    metric = c1.selectbox("Metric", cached.metric_names(ds, with_checks=True), key="sig_metric")
    test = c2.selectbox(
        "Test",
        ["bootstrap", "ar"],
        format_func=lambda t: {"bootstrap": "paired bootstrap", "ar": "approximate randomisation"}[t],
        key="sig_test",
    )
    n = c3.number_input(
        "Resamples / trials",
        10,
        MAX_SAMPLES,
        None,
        step=1000,
        key=f"sig_n_{test}",
        placeholder="chosen for the pairs",
        help=f"Empty: {DEFAULT_SAMPLES['bootstrap']:,} resamples ({DEFAULT_SAMPLES['ar']:,} trials), more when there "
        "are so many pairs that fewer could never make a pair significant after Holm's correction.",
    )
    seed = c4.number_input("Seed", 0, 2**31 - 1, SEED, key="sig_seed")
    alpha = c5.selectbox("alpha", list(ALPHA_CHOICES), key="sig_alpha")
    baseline: str | None = st.selectbox(
        "Compare",
        ["all pairs", *systems],
        format_func=lambda s: s if s == "all pairs" else f"each system with {s}",
        key="sig_baseline",
    )
    baseline = None if baseline == "all pairs" else baseline
    resample = "segments"
    if ds.corpus.documents is not None:  # WMT XML or a documents file: whole documents can be resampled
        resample = st.radio(
            "Resample",
            ["segments", "documents"],
            horizontal=True,
            key="sig_resample",
            help=f"Segments: sacrebleu's way. Documents: the {ds.corpus.document_count:,} documents are drawn whole "
            "(their segments are correlated, so a segment-level test can claim more than the set supports).",
        )
    links.to_link(
        metric=metric, test=test, alpha=alpha, baseline=baseline, resample=None if resample == "segments" else resample
    )

    bar = st.progress(0.0, text="Resampling…")
    try:
        cmp = cached.comparison(
            ds,
            metric,
            opts,
            test,
            None if n is None else int(n),
            int(seed),
            baseline,
            float(alpha),
            progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg),
            resample=resample,
        )
    except InputError as err:  # e.g. too many resamples for a large test set
        bar.empty()
        st.error(str(err))
        st.stop()
    bar.empty()
    for note in cmp.notes:  # how many resamples, and whether they can find anything at all
        (st.warning if "cannot" in note else st.caption)(render.md(note[0].upper() + note[1:] + "."))
    if cmp.test == MCNEMAR:  # a translation check: its lines pass or fail (issue 60)
        st.caption(
            render.md(
                f"{metric} is a translation check: each pair is tested with {P_DEFINITIONS[MCNEMAR]} (whatever "
                "the test chosen above); the intervals are the bootstrap's."
            )
        )
    st.caption(f"Signature: {cmp.signature} · {cmp.metric_signature}")

    names, matrix = cmp.p_matrix(adjusted=True)
    text = [["" if np.isnan(v) else p_text(v) for v in row] for row in matrix]
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=list(names),
            y=list(names),
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale=significance_colorscale(alpha),
            colorbar={"title": "Holm p", "tickvals": [0, alpha, 1], "ticktext": ["0", f"α = {alpha:g}", "1"]},
            hovertemplate=f"%{{y}} vs %{{x}}: p = %{{z:{hover_format('p')}}}<extra></extra>",
        )
    )
    fig.update_layout(
        height=120 + 40 * len(names),
        margin={"t": 20},
        xaxis_title="system",
        yaxis={"autorange": "reversed", "title": {"text": "system"}},
    )
    st.subheader("Pairwise p-values (Holm-corrected)")
    export.chart(fig, "sig_heatmap")

    if cmp.clusters:
        st.subheader("Clusters")
        st.caption(
            "Systems in score order, split only where every system above is significantly better than every system below."
        )
        for k, cl in enumerate(cmp.clusters, start=1):
            st.markdown(f"**{k}.** " + render.md(", ".join(cl)))

    st.subheader("Systems")
    export.table(
        name="mtlens-intervals",
        df=pd.DataFrame(
            {
                "system": cmp.ranking,
                "score": [cmp.systems[s].score for s in cmp.ranking],
                "bootstrap mean": [cmp.systems[s].mean for s in cmp.ranking],
                "95% CI ±": [cmp.systems[s].ci for s in cmp.ranking],
            }
        ),
        hide_index=True,
        places=dict.fromkeys(
            ("score", "bootstrap mean", "95% CI ±"),
            views.metric_decimals(metric, [s.score for s in cmp.systems.values()]),
        ),
    )
    st.subheader("Pairs")
    files = significance_exports(metric, cmp)
    export.table(
        name="mtlens-significance",
        df=pairs_table(cmp),
        hide_index=True,
        csv=files["csv"],
        latex=files["tex"],
        places=dict.fromkeys(
            ("delta (a - b)", "min. detectable"), views.metric_decimals(metric, [s.score for s in cmp.systems.values()])
        ),
        column_config={
            "humans agree (est.)": st.column_config.Column(help=AGREEMENT_HELP),
            "min. detectable": st.column_config.Column(help=DETECTABLE_HELP),
        },
    )
    st.caption(AGREEMENT_HELP)
    st.subheader("Power: how many lines a difference needs")
    delta = st.number_input(
        "A difference you want to detect (on the metric's scale)",
        min_value=0.0,
        value=None,
        step=0.5,
        key="sig_power_delta",
        placeholder="e.g. 0.5",
    )
    if delta:
        places = views.metric_decimals(metric, [s.score for s in cmp.systems.values()])
        export.table(
            name="mtlens-power",
            df=segments_needed_table(cmp, float(delta), ds.corpus.n_lines),
            hide_index=True,
            places={"min. detectable": places},
        )
        st.caption(
            f"Lines needed: the lines a test set of this kind needs so that a difference of {delta:g} is found with "
            "80% power after Holm's correction (the standard error falls as one over the square root of the lines)."
        )


def significance_exports(metric: str, cmp) -> dict[str, str]:
    return {"csv": comparisons_to_csv({metric: cmp}), "tex": comparisons_to_latex({metric: cmp})}


def significance_colorscale(alpha: float) -> list[list]:
    """A plotly colour scale for p-values in 0..1 with a hard step at ``alpha``: every significant cell one
    saturated colour (darker the smaller p), every other cell the same pale grey, so p = 0.057 never looks
    like p = 0.006."""
    a = min(max(float(alpha), 1e-9), 1.0)
    return [
        [0.0, "#0b4f22"],
        [a * 0.999, SIGNIFICANT_COLOUR],
        [a, NOT_SIGNIFICANT_COLOUR],
        [1.0, NOT_SIGNIFICANT_COLOUR],
    ]


AGREEMENT_HELP = (
    "Estimated share of system pairs with a difference of this size on which human judges agree with the "
    "metric (Kocmi et al. 2024, 'Navigating the Metrics Maze'; their published fits). '-' where the metric "
    "has no published fit."
)


def pairs_table(cmp) -> pd.DataFrame:
    """The Significance page's pairs: delta, p-values, and what the delta means to humans."""
    from ...analysis.agreement import human_agreement

    return pd.DataFrame(
        [
            {
                "a": p.a,
                "b": p.b,
                "delta (a - b)": p.delta,
                "p": p.p_value,
                "p (Holm)": p.p_holm,
                "significant": p.significant,
                "humans agree (est.)": human_agreement(p.metric, p.delta),
                "min. detectable": p.min_detectable_delta,
            }
            for p in cmp.pairs
        ]
    )


#: what the pairs table's "min. detectable" column says
DETECTABLE_HELP = (
    "The smallest difference this test set detects with 80% power at Holm's strictest level (alpha divided "
    "by the number of pairs), from the bootstrap's standard error of the delta (docs/decisions.md)."
)


def segments_needed_table(cmp, delta: float, n_lines: int) -> pd.DataFrame:
    """For each pair: the lines a test set of this kind needs to detect ``delta`` with 80% power."""
    from ...analysis.power import segments_needed

    rows = []
    for p in cmp.pairs:
        need = segments_needed(p.se, n_lines, delta, cmp.alpha, len(cmp.pairs))
        rows.append({"a": p.a, "b": p.b, "min. detectable": p.min_detectable_delta, "lines needed": need})
    return pd.DataFrame(rows)

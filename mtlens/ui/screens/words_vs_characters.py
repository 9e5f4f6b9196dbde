"""The words vs characters (Denoual & Lepage, 2005): does BLEU over M characters behave like word BLEU-N?

The body of ``pages/3_Words_vs_characters.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...exports.numbers import UNIT_DECIMALS, hover_format, shown
from .. import cached, export, render, views
from ..widgets import open_screen, require_reference


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen(
        "Words vs characters",
        "Sentence BLEU over word n-grams (BLEU_wN) against BLEU over character n-grams (BLEU_cM), without smoothing "
        "or effective order, as in Denoual & Lepage (2005), who found BLEU_c18 equivalent to word BLEU-4.",
    )
    require_reference(ds, "This page")
    c = ds.corpus

    lang = ds.language
    if lang is not None and lang.segmented and opts.tokenize == lang.tokenizer:  # words cut by a segmenter
        st.info(
            f"Target language {lang.target}: words here are {opts.tokenize} words (a segmenter). The question "
            "of Denoual & Lepage (2005) is whether BLEU over M characters, which needs no segmenter, ranks "
            "systems like word BLEU; the best M for this language is in the table below (for Japanese with "
            "MeCab it is usually between 6 and 9, not 18: Japanese words are one to three characters long)."
        )
    elif lang is not None and lang.without_spaces:
        st.info(
            f"Target language {lang.target}, written without spaces between words: word BLEU with tokenizer "
            f"{opts.tokenize} counts whole phrases as words, while BLEU over characters needs no segmenter, "
            "which is the point of Denoual & Lepage (2005). Compare the two rankings below."
        )
    k1, k2, k3 = st.columns(3)
    n = k1.slider("Word order N", 2, 6, 4, key="wvc_n")
    lo, hi = k2.slider("Character orders M studied", 1, 40, (1, 30), key="wvc_range")
    m = k3.slider("M for the scatter and the ranking", 1, 40, min(40, opts.char_order), key="wvc_m")
    res = cached.words_vs_chars(ds, n, tuple(range(lo, hi + 1)), m, opts)

    st.subheader("Best M per criterion")
    best = pd.DataFrame(
        [
            {
                "systems": k,
                "Pearson (max r)": v.pearson,
                "kappa (max)": v.kappa,
                "analogical (first M with >= 90%)": v.analogical,
            }
            for k, v in res.best.items()
        ]
    )
    export.table(name="mtlens-best-M", df=best, hide_index=True)

    st.subheader("The sweep over M (all systems pooled)")
    pooled = pd.DataFrame([asdict(r) for r in res.pooled])
    fig = go.Figure()
    criteria = (
        ("pearson", "Pearson r"),
        ("kappa", "Cohen's kappa (10 grades)"),
        ("analogical", f"share BLEU_cM <= BLEU_w{n - 1}"),
    )
    for col, name in criteria:
        fig.add_trace(go.Scatter(x=pooled["char_order"], y=pooled[col], mode="lines+markers", name=name))
    for mark in best_m_marks(res.best["all"], pooled, criteria):
        fig.add_trace(
            go.Scatter(
                x=[mark["x"]],
                y=[mark["y"]],
                mode="markers+text",
                text=[mark["text"]],
                textposition=mark["textposition"],
                marker={"size": 14, "symbol": "star"},
                showlegend=False,
            )
        )
    fig.add_hline(y=0.9, line_dash="dot", annotation_text="90%")
    fig.update_layout(
        xaxis_title="M (characters)", yaxis_title="criterion (r, kappa, share)", height=420, margin={"t": 20}
    )
    export.chart(fig, "wvc_sweep")

    st.subheader(f"BLEU_w{n} against BLEU_c{m}, one point per sentence")
    system = st.selectbox("System", list(c.system_names), key="wvc_system")
    w, ch = res.sentences[system]
    hover = [h[:200] for h in c.systems[system]]  # escaped with the figure (export.chart)
    sc = go.Figure(
        go.Scattergl(
            x=ch,
            y=w,
            mode="markers",
            showlegend=False,
            marker={"size": 6, "opacity": 0.6},
            text=hover,
            customdata=list(range(1, c.n_lines + 1)),
            hovertemplate=f"line %{{customdata}}<br>BLEU_c=%{{x:{hover_format('bleu-c')}}} BLEU_w=%{{y:{hover_format('bleu')}}}"
            "<br>%{text}<extra></extra>",
        )
    )
    sc.add_trace(
        go.Scatter(x=[0, 100], y=[0, 100], mode="lines", line={"dash": "dot", "color": "#999"}, showlegend=False)
    )
    sc.update_layout(xaxis_title=f"BLEU_c{m}", yaxis_title=f"BLEU_w{n}", height=480, margin={"t": 20})
    export.chart(sc, "wvc_scatter")
    row = next((r for r in res.rows[system] if r.char_order == m), None)
    if row:
        st.caption(
            f"{render.md(system)}, M = {m}: Pearson r = {shown(row.pearson, UNIT_DECIMALS)}, kappa = "
            f"{shown(row.kappa, UNIT_DECIMALS)}, analogical share = {shown(row.analogical, UNIT_DECIMALS)}"
        )

    st.subheader(f"System rankings: BLEU_w{n} and BLEU_c{m}, side by side")
    rank = pd.DataFrame([asdict(r) for r in res.ranking]).rename(
        columns={
            "bleu_w": f"BLEU_w{n}",
            "bleu_c": f"BLEU_c{m}",
            "rank_w": f"rank by BLEU_w{n}",
            "rank_c": f"rank by BLEU_c{m}",
        }
    )
    export.table(
        name="mtlens-rankings-w-c",
        df=rank,
        hide_index=True,
        places={f"BLEU_w{n}": views.metric_decimals("bleu"), f"BLEU_c{m}": views.metric_decimals("bleu-c")},
    )
    st.markdown("The two rankings **agree**." if res.rankings_agree else "The two rankings **differ**.")


def best_m_marks(best, pooled: pd.DataFrame, criteria: Sequence[tuple[str, str]]) -> list[dict]:
    """The labels of the best M on the Words vs characters sweep: one per distinct M (criteria that agree
    share it, "best M=21: Pearson r, Cohen's kappa"), at the highest of their points; labels of nearby
    M (within 3) alternate above and below so they never overlap.

    ``criteria``: (column of ``pooled`` and attribute of ``best``, display name)."""
    groups: dict[int, list[tuple[str, str]]] = {}
    for col, name in criteria:
        b = getattr(best, col)
        if b is not None:
            groups.setdefault(int(b), []).append((col, name))
    marks: list[dict] = []
    last: dict | None = None
    for m in sorted(groups):
        ys = [float(pooled.loc[pooled["char_order"] == m, col].iloc[0]) for col, _ in groups[m]]
        below = last is not None and m - last["x"] <= 3 and last["textposition"] == "top center"
        mark = {
            "x": m,
            "y": max(ys),
            "text": f"best M={m}: " + ", ".join(name for _, name in groups[m]),
            "textposition": "bottom center" if below else "top center",
        }
        marks.append(mark)
        last = mark
    return marks

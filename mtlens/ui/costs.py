"""Quality against cost: the chart with the Pareto front (Rankings and History draw it) and the note on systems
tuned on metrics (Rankings). Numbers come from the core (:mod:`mtlens.analysis.costs`,
:mod:`mtlens.service.run_facts`); this module draws them."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ..service.run_facts import cost_axes, families_line, pareto_points, tuned_marks
from . import export, render

FRONT_COLOUR, OTHER_COLOUR = "#1f77b4", "#9aa5b1"


def pareto_chart(scores: dict[str, float], costs: dict, metric: str, higher_is_better: bool, key: str) -> None:
    """Each system's ``metric`` score against its cost (or latency), the Pareto front drawn as a line; nothing when
    fewer than two systems say their cost."""
    axes = cost_axes(costs)
    if not axes:
        return
    axis = st.radio("Against", list(axes), horizontal=True, key=f"{key}_axis") if len(axes) > 1 else next(iter(axes))
    rows, front = pareto_points(scores, costs, higher_is_better, axes[axis], metric)
    fig = go.Figure()
    off = [r for r in rows if not r["on the front"]]
    on = sorted((r for r in rows if r["on the front"]), key=lambda r: r[axis])
    fig.add_trace(go.Scatter(x=[r[axis] for r in off], y=[r[metric] for r in off], mode="markers+text",
                             text=[r["system"] for r in off], textposition="top center", name="dominated",
                             marker={"color": OTHER_COLOUR, "size": 10}))  # fmt: skip
    fig.add_trace(go.Scatter(x=[r[axis] for r in on], y=[r[metric] for r in on], mode="lines+markers+text",
                             text=[r["system"] for r in on], textposition="top center", name="Pareto front",
                             marker={"color": FRONT_COLOUR, "size": 12}))  # fmt: skip
    fig.update_layout(
        title=f"{metric} against {axis}",
        xaxis_title=axis,
        yaxis_title=f"{metric} ({'higher' if higher_is_better else 'lower'} is better)",
        height=420,
        margin={"t": 50},
    )
    export.chart(fig, key, f"mtlens-pareto-{metric.replace(':', '-')}")
    table = pd.DataFrame(rows)
    export.table(table, name=f"mtlens-pareto-{metric.replace(':', '-')}", hide_index=True, key=f"{key}_table")
    st.caption(
        render.md(
            f"On the front ({', '.join(front)}): no other system is at least as good on {metric} and as cheap, and "
            "better on one. Costs are what each run says (a given cost, or prices x tokens; tokens not given are "
            "estimated at 4 characters each)."
        )
    )


#: the shade of a score of a family the system was tuned on (readable in both colour schemes)
TUNED_SHADE = "background-color: rgba(255, 193, 7, 0.28)"


def shade(shown, table: pd.DataFrame, marks: dict[tuple[str, str], bool]):
    """The ranking table as :func:`mtlens.ui.export.numbers` shows it, its marked (system, metric) cells shaded."""
    from pandas.io.formats.style import Styler

    if not marks or not isinstance(shown, Styler):  # a table too large for a Styler: the caption says it
        return shown

    def cells(df):
        return pd.DataFrame(
            [[TUNED_SHADE if (df.at[i, "system"], c) in marks else "" for c in df.columns] for i in df.index],
            index=df.index,
            columns=df.columns,
        )

    return shown.apply(cells, axis=None)


def tuned_note(results, facts: dict) -> dict[tuple[str, str], bool]:
    """A caption naming each system tuned on metrics and which of its scores that tuning inflates; returns the
    (system, metric) cells to mark."""
    marks, sentences = tuned_marks(results, facts)
    st.caption(render.md(f"Metric families: {families_line(results)}."))
    for s in sentences:
        st.caption(render.md(s))
    return marks

"""Rankings: every system by every metric, with signatures, confidence intervals, clusters and exports."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from mtlens import report
from mtlens.ui import cached, state
from mtlens.ui.widgets import dataset_caption, metric_sidebar

st.set_page_config(page_title="mtlens · Rankings", layout="wide")
st.title("Rankings")
ds = state.current()
opts = metric_sidebar()
dataset_caption(ds)

results = cached.all_results(ds, opts)
metrics = list(results)
sort_by = st.selectbox("Sort by", metrics, key="rank_sort")
first = results[sort_by]
order = sorted(first.scores, key=lambda n: first.scores[n], reverse=first.higher_is_better)
table = pd.DataFrame({"system": order, **{m: [results[m].scores[n] for n in order] for m in metrics}})
table.insert(0, "rank", range(1, len(order) + 1))
if len(order) > 1:
    bar = st.progress(0.0, text="Bootstrap resampling…")
    cmp = cached.comparison(
        ds, sort_by, opts, "bootstrap", 1000, 12345, progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg)
    )
    bar.empty()
    cluster_of = {n: i + 1 for i, cl in enumerate(cmp.clusters) for n in cl}
    table.insert(2, f"cluster ({sort_by})", [cluster_of[n] for n in order])
    table.insert(3, f"{sort_by} 95% CI ±", [cmp.systems[n].ci for n in order])
st.dataframe(
    table,
    hide_index=True,
    column_config={m: st.column_config.NumberColumn(m, format="%.2f") for m in [*metrics, f"{sort_by} 95% CI ±"]},
)
st.caption(
    "Clusters: systems in score order, split only where every system above is significantly better than every "
    "system below (paired bootstrap, 1000 resamples, Holm-corrected p < 0.05). Lower is better for TER."
)
st.markdown("**Signatures**")
st.code("\n".join(f"{m}: {r.signature}" for m, r in results.items()), language=None)

c1, c2 = st.columns(2)
c1.download_button("Download CSV", report.to_csv(results), file_name="mtlens-scores.csv", mime="text/csv", key="dl_csv")
c2.download_button(
    "Download LaTeX", report.to_latex(results), file_name="mtlens-scores.tex", mime="text/x-tex", key="dl_latex"
)

st.subheader("Scores with 95% confidence intervals")
chart_metric = st.selectbox("Metric", metrics, key="rank_chart_metric")
r = results[chart_metric]
names = sorted(r.scores, key=lambda n: r.scores[n], reverse=r.higher_is_better)
ci = None
if len(names) > 1:
    ccmp = cached.comparison(ds, chart_metric, opts, "bootstrap", 1000, 12345)
    ci = [ccmp.systems[n].ci for n in names]
fig = go.Figure(
    go.Bar(
        x=names,
        y=[r.scores[n] for n in names],
        error_y={"type": "data", "array": ci, "visible": ci is not None},
        marker_color="#4C78A8",
        hovertemplate="%{x}: %{y:.2f}<extra></extra>",
    )
)
fig.update_layout(yaxis_title=chart_metric, height=380, margin={"t": 20, "b": 40})
st.plotly_chart(fig, key="rank_chart")

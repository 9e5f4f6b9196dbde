"""Rankings: every system by every metric, with signatures and exports."""

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
st.dataframe(
    table,
    hide_index=True,
    column_config={m: st.column_config.NumberColumn(m, format="%.2f") for m in metrics},
)
st.markdown("**Signatures**")
st.code("\n".join(f"{m}: {r.signature}" for m, r in results.items()), language=None)

c1, c2 = st.columns(2)
c1.download_button("Download CSV", report.to_csv(results), file_name="mtlens-scores.csv", mime="text/csv")
c2.download_button("Download LaTeX", report.to_latex(results), file_name="mtlens-scores.tex", mime="text/x-tex")

st.subheader("Scores per metric")
chart_metric = st.selectbox("Metric", metrics, key="rank_chart_metric")
r = results[chart_metric]
names = sorted(r.scores, key=lambda n: r.scores[n], reverse=r.higher_is_better)
fig = go.Figure(go.Bar(x=names, y=[r.scores[n] for n in names], marker_color="#4C78A8"))
fig.update_layout(yaxis_title=chart_metric, height=380, margin={"t": 20, "b": 40})
st.plotly_chart(fig)

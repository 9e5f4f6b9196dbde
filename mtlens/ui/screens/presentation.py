"""The presentation: full width, large type, one slide at a time for a projector: the ranking as WMT findings
tables draw it, the significance matrix, then the sentences pinned on the Sentences page.

The body of ``pages/9_Presentation.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import streamlit as st

from .. import cached, state, views
from ..widgets import dataset_caption, metric_sidebar


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds = state.current()
    opts = metric_sidebar()
    dataset_caption(ds)
    names = cached.metric_names(ds)
    state.from_link({"metric": ("pres_metric", names)}, {"slide": ("pres_slide", 200)})
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    metric = c1.selectbox("Metric", names, key="pres_metric", label_visibility="collapsed")
    with st.spinner("Scores, intervals and significance tests…"):
        slides = views.presentation(ds, opts, metric)
    k = min(max(int(st.session_state.get("pres_slide", 1)), 1), len(slides))
    if c2.button("Previous", key="pres_prev", shortcut="Left", icon=":material/arrow_back:", disabled=k <= 1):
        k -= 1
    if c4.button("Next", key="pres_next", shortcut="Right", icon=":material/arrow_forward:", disabled=k >= len(slides)):
        k += 1
    st.session_state["pres_slide"] = k
    c3.markdown(f"**{k} / {len(slides)}** · {slides[k - 1][0]}")
    state.to_link(metric=metric, slide=k)
    st.html(f"<style>{views.SLIDE_CSS}</style>{slides[k - 1][1]}")
    if not views.pins(ds):
        st.caption(
            "Pin sentences on the Sentences page: each becomes a slide after these (and a section of the report)."
        )

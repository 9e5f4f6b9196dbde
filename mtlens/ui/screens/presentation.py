"""The presentation: full width, large type, one slide at a time for a projector: the ranking as WMT findings
tables draw it, the significance matrix, then the sentences pinned on the Sentences page.

The body of ``pages/9_Presentation.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ...core.errors import InputError
from ...core.options import Options
from ...exports.html import SLIDE_CSS, presentation_slides
from ...service.results import REGISTRY
from ...service.runs import families
from .. import cached, links, state
from ..widgets import open_screen


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen(None)
    names = cached.metric_names(ds)
    links.from_link({"metric": ("pres_metric", names)}, {"slide": ("pres_slide", 200)})
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    metric = c1.selectbox("Metric", names, key="pres_metric", label_visibility="collapsed")
    with st.spinner("Scores, intervals and significance tests…"):
        slides = presentation(ds, opts, metric)
    k = min(max(int(st.session_state.get("pres_slide", 1)), 1), len(slides))
    if c2.button("Previous", key="pres_prev", shortcut="Left", icon=":material/arrow_back:", disabled=k <= 1):
        k -= 1
    if c4.button("Next", key="pres_next", shortcut="Right", icon=":material/arrow_forward:", disabled=k >= len(slides)):
        k += 1
    st.session_state["pres_slide"] = k
    c3.markdown(f"**{k} / {len(slides)}** · {slides[k - 1][0]}")
    links.to_link(metric=metric, slide=k)
    st.html(f"<style>{SLIDE_CSS}</style>{slides[k - 1][1]}")
    if not pins(ds):
        st.caption(
            "Pin sentences on the Sentences page: each becomes a slide after these (and a section of the report)."
        )


def pins(ds: state.Dataset) -> list:
    """The set's pinned sentences (:class:`mtlens.storage.store.Pin`); none for the sample or an unsaved upload."""
    if not ds.set_id or ds.read_only:
        return []
    try:
        return state.workspace().pins(ds.set_id)
    except InputError:
        return []


def may_pin(ds: state.Dataset) -> str | None:
    """None when this visitor may pin sentences of the set, else why not (one sentence)."""
    if not ds.set_id or ds.read_only:
        return "Pins are kept with a saved set: the bundled sample is read-only (upload your files to pin sentences)."
    if state.may_change(ds.set_id):
        return None
    return "Only the set's owner pins sentences; this link shows the set read-only."


def pin(ds: state.Dataset, line: int, systems: Sequence[str], metric: str, note: str) -> None:
    from ...service.sets import Pin

    state.workspace().pin(ds.set_id, Pin(line, tuple(systems), metric, note))


def unpin(ds: state.Dataset, line: int, systems: Sequence[str]) -> None:

    state.workspace().unpin(ds.set_id, line, systems)


def presentation(ds: state.Dataset, opts: Options, metric: str) -> list[tuple[str, str]]:
    """The presentation's slides (title, HTML) for ``metric``: ranking, significance matrix, pinned sentences."""
    wanted = {metric, *(p.metric for p in pins(ds))}
    results = cached.metric_results(ds, [m for m in cached.metric_names(ds) if m in wanted], opts)
    results = {metric: results.pop(metric), **results}
    cmp = cached.comparison(ds, metric, opts) if cached.can_test(ds) else None
    history = None
    if metric in REGISTRY and families(state.store(), ds.set_id):  # a set with runs of a family: their history
        history = cached.history(ds, None, [metric], None, opts)
    return presentation_slides(ds.corpus, results, cmp, pins(ds), history)

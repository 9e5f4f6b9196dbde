"""Chart and table exports for every page: PNG/SVG through kaleido (Debian's chromium, one
server per process, started on first use), CSV and LaTeX for tables."""

from __future__ import annotations

import hashlib
import threading
import warnings

import pandas as pd
import streamlit as st

from ..html_report import PLOTLY_CONFIG, safe_figure
from ..report import frame_to_csv, table_to_latex, to_xlsx

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

_lock = threading.Lock()
_started = False


def image(fig, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (the kaleido server is started once per process)."""
    global _started
    import kaleido

    with _lock:
        if not _started:
            kaleido.start_sync_server()
            _started = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fig.to_image(format=fmt, width=1100, height=fig.layout.height or 450, scale=2 if fmt == "png" else 1)


def figure_digest(fig) -> str:
    """A digest of everything a chart shows (its full JSON): the key of its exported images."""
    return hashlib.sha256(fig.to_json().encode("utf-8")).hexdigest()[:20]


def chart(fig, key: str, name: str | None = None) -> None:
    """Draw a plotly chart with PNG/SVG export buttons under it.

    A prepared image is kept with the digest of the chart it was made from and offered
    only while the chart shows exactly that (another system, metric or upload needs a new export).
    """
    safe_figure(fig)
    st.plotly_chart(fig, key=key, config=PLOTLY_CONFIG)
    name = name or key
    digest = figure_digest(fig)
    cols = st.columns([1, 1, 6])
    for col, fmt in zip(cols[:2], ("png", "svg"), strict=True):
        store = f"{key}_{fmt}"
        if col.button(f"{fmt.upper()}", key=f"{key}_make_{fmt}", help=f"export this chart as {fmt.upper()}"):
            try:
                st.session_state[store] = (digest, image(fig, fmt))
            except Exception as err:  # no browser for kaleido: say so, keep the page
                st.warning(f"Chart export is unavailable here ({type(err).__name__}: {err}).")
        prepared = st.session_state.get(store)
        if prepared and prepared[0] == digest:
            col.download_button(
                f"Save {fmt.upper()}",
                prepared[1],
                file_name=f"{name}.{fmt}",
                mime="image/png" if fmt == "png" else "image/svg+xml",
                key=f"{key}_dl_{fmt}",
            )


def table(df: pd.DataFrame | None = None, *args, name: str = "mtlens-table", key: str | None = None, **kwargs):
    """``st.dataframe`` plus CSV (full precision) and LaTeX downloads of the same table."""
    key = key or f"tbl_{name}"
    event = st.dataframe(df, *args, key=key, **kwargs)
    c1, c2, c3, _ = st.columns([1, 1, 1, 5])
    c1.download_button(
        "CSV", frame_to_csv(df).encode("utf-8"), file_name=f"{name}.csv", mime="text/csv", key=f"{key}_csv"
    )
    c2.download_button(
        "LaTeX", table_to_latex(list(df.columns), df.values.tolist()), file_name=f"{name}.tex", key=f"{key}_tex"
    )
    c3.download_button(
        "Excel",
        lambda: to_xlsx({name.removeprefix("mtlens-"): df}),
        file_name=f"{name}.xlsx",
        mime=XLSX_MIME,
        key=f"{key}_xlsx",
    )
    return event

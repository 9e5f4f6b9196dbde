"""Chart and table exports for every page: PNG/SVG through kaleido (Debian's chromium, one
server per process, started on first use), CSV and LaTeX for tables."""

from __future__ import annotations

import functools
import threading
import warnings

import pandas as pd
import streamlit as st

from ..core.limits import max_table_rows
from ..exports.excel import to_xlsx
from ..exports.figures import describe_figure, safe_figure
from ..exports.html import PLOTLY_CONFIG
from ..exports.numbers import ABSENT, column_decimals
from ..exports.tables import frame_to_csv, table_to_latex
from . import render, uploads

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


def available() -> str | None:
    """None when charts can be exported here, else the reason (kaleido draws with a Chromium browser)."""
    import shutil

    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "kaleido is not installed"
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome")):
        return "no Chromium browser is installed (apt-get install chromium)"
    return None


def chart(fig, key: str, name: str | None = None) -> None:
    """Draw a plotly chart with PNG and SVG download buttons under it.

    The image is drawn when the button is clicked (a deferred download: nothing is drawn for a chart
    nobody exports), from the figure the page shows at that moment.
    """
    described = describe_figure(fig)  # its text alternative, under it (issue 51)
    safe_figure(fig)
    st.plotly_chart(fig, key=key, config=PLOTLY_CONFIG)
    st.caption(render.md(described), help="The chart in words; its numbers are in the table beside it.")
    name = name or key
    missing = available()
    if missing:
        st.caption(f"PNG/SVG export is unavailable here: {missing}.")
        return
    cols = st.columns([1, 1, 6])
    for col, fmt in zip(cols[:2], ("png", "svg"), strict=True):
        col.download_button(
            fmt.upper(),
            data=functools.partial(image, fig, fmt),
            file_name=uploads.file_name(name, fmt),
            mime="image/png" if fmt == "png" else "image/svg+xml",
            key=f"{key}_dl_{fmt}",
            on_click="ignore",
            help=f"download this chart as {fmt.upper()}",
        )


def numbers(df: pd.DataFrame, places: dict[str, int] | None = None):
    """The table as people read it: every number with its decimals (:func:`mtlens.exports.numbers.decimals`, one
    rule for every page) and "-" where a value is missing. A pandas Styler up to :data:`MAX_STYLED_CELLS`
    cells (values stay numbers: sorting and the CSV keep full precision); above, the frame itself.
    ``places``: decimals of columns the rule cannot name (e.g. "A" and "B" holding one metric's scores)."""
    if df is None:
        return df
    if df.size > MAX_STYLED_CELLS:  # no Styler: gaps in text columns written "-" (numbers stay numbers)
        text = [c for c in df.columns if df[c].dtype == object]
        return df.assign(**{str(c): df[c].where(df[c].notna(), ABSENT) for c in text}) if text else df
    fmt = {c: f"{{:.{d}f}}" for c, d in column_decimals(df, places).items()}
    rest = [c for c in df.columns if c not in fmt]
    styler = df.style.format(fmt, na_rep=ABSENT)
    return styler.format(na_rep=ABSENT, subset=rest) if rest else styler  # no "None" or "nan" in any cell


#: above this many cells a table is shown without the Styler (formatting every cell in Python gets slow)
MAX_STYLED_CELLS = 60_000


def table(
    df: pd.DataFrame,
    *args,
    name: str = "mtlens-table",
    key: str | None = None,
    csv=None,
    latex=None,
    places: dict[str, int] | None = None,
    **kwargs,
):
    """``st.dataframe`` (numbers as :func:`numbers` shows them) plus CSV (full precision), LaTeX and Excel
    downloads of the same table; ``csv``/``latex`` replace the generic files by the core's own (e.g. with
    signatures).

    The generic files are made when their button is clicked (Streamlit's deferred download): made with every run,
    they cost each run the time to write them, and Streamlit kept their bytes for every session, disconnected ones
    too, until the session ended (with 20 visitors, about 10 MB a visit to Rankings and Sentences; docs/speed.md)."""
    key = key or f"tbl_{name}"
    shown, limit = df, max_table_rows()
    if len(df) > limit:  # a page draws a bounded table (issue 38); the files hold all rows
        shown = df.head(limit)
        st.caption(f"Showing the first {limit:,} of {len(df):,} rows; the downloads below hold all of them.")
    event = st.dataframe(numbers(shown, places), *args, key=key, **kwargs)
    c1, c2, c3, _ = st.columns([1, 1, 1, 5])
    c1.download_button(
        "CSV",
        csv if csv is not None else (lambda: frame_to_csv(df).encode("utf-8")),
        file_name=uploads.file_name(name, "csv"),
        mime="text/csv",
        key=f"{key}_csv",
    )
    c2.download_button(
        "LaTeX",
        latex if latex is not None else (lambda: table_to_latex(list(df.columns), df.values.tolist())),
        file_name=uploads.file_name(name, "tex"),
        key=f"{key}_tex",
    )
    c3.download_button(
        "Excel",
        lambda: to_xlsx({name.removeprefix("mtlens-"): df}),
        file_name=uploads.file_name(name, "xlsx"),
        mime=XLSX_MIME,
        key=f"{key}_xlsx",
    )
    return event

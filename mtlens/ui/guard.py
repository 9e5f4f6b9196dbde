"""The page guard: what a visitor sees when something fails (docs/security.md).

Every page runs inside :func:`guard`. A sentence (:class:`~mtlens.core.errors.InputError`) is shown as it is;
running out of memory is a sentence; anything else (a bug) is logged on the server with its traceback
under a short random id, and the visitor sees only that id, never a traceback, a file path or code.
Streamlit's own ``client.showErrorDetails = "none"`` covers whatever escapes this.

The test suite sets ``MTLENS_RAISE_ERRORS=1`` so that AppTest sees the real exception of a bug.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from pathlib import Path

import streamlit as st

from ..core.errors import InputError
from ..core.paths import find_app_root
from . import render

LOG = logging.getLogger("mtlens.dashboard")


#: the dashboard's root (app.py and pages/): a checkout's, or the installed package's share/mtlens
ROOT = find_app_root() or Path(__file__).resolve().parents[2]


def pages() -> list[tuple[str, str]]:
    """(path relative to app.py, label) of every page, home first: the sidebar's navigation. A page's
    label is its file name without the order number ("4_Significance.py" -> "Significance")."""
    found = sorted(ROOT.glob("pages/*.py"), key=lambda p: (int(p.stem.split("_", 1)[0]), p.stem))
    return [("app.py", "Home")] + [(f"pages/{p.name}", p.stem.split("_", 1)[1].replace("_", " ")) for p in found]


def navigation() -> None:
    """The sidebar's page links (Streamlit's own list is switched off in .streamlit/config.toml: it would
    call the home page "app"). Skipped where the script is not app.py's dashboard (a page run alone)."""
    from streamlit.errors import StreamlitAPIException

    try:
        with st.sidebar.container(key="mtlens_nav"):
            for path, label in pages():
                st.page_link(path, label=label)
    except StreamlitAPIException:
        pass


@contextlib.contextmanager
def guard():
    navigation()
    try:
        yield
    except InputError as err:
        st.error(render.md(str(err)))
    except MemoryError:
        st.error("The server ran out of memory for this request; try fewer or shorter files.")
    except Exception:
        if os.environ.get("MTLENS_RAISE_ERRORS") == "1":
            raise
        error_id = secrets.token_hex(4)
        LOG.exception("mtlens error id %s", error_id)
        st.error(
            f"Something went wrong on the server (error id {error_id}). Nothing you saved is lost; the operator "
            "finds the details in the server's log under that id."
        )

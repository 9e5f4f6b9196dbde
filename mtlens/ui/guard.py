"""The page guard: what a visitor sees when something fails (docs/security.md).

Every page runs inside :func:`guard`. A sentence (:class:`~mtlens.errors.InputError`) is shown as it is;
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

import streamlit as st

from ..errors import InputError
from . import render

LOG = logging.getLogger("mtlens.dashboard")


@contextlib.contextmanager
def guard():
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

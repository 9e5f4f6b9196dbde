"""Presentation: full width, large type, one slide at a time for a projector: the ranking as WMT findings
tables draw it, the significance matrix, then the sentences pinned on the Sentences page."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import presentation

with guard():
    st.set_page_config(page_title="mtlens · Presentation", layout="wide", initial_sidebar_state="collapsed")
    presentation.page()

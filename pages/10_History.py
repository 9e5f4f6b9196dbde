"""History: a saved set's runs over time per family and metric, significant steps marked; add a run."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import history

with guard():
    st.set_page_config(page_title="mtlens · History", layout="wide")
    history.page()

"""Rankings: every system by every metric, with signatures, confidence intervals, clusters and exports."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import rankings

with guard():
    st.set_page_config(page_title="mtlens · Rankings", layout="wide")
    rankings.page()

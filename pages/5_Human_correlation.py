"""Human correlation: how each metric agrees with the human judgments uploaded with the data."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import human_correlation

with guard():
    st.set_page_config(page_title="mtlens · Human correlation", layout="wide")
    human_correlation.page()

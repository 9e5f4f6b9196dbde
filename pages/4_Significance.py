"""Significance: all pairs of systems, paired bootstrap or approximate randomisation, Holm, clusters."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import significance

with guard():
    st.set_page_config(page_title="mtlens · Significance", layout="wide")
    significance.page()

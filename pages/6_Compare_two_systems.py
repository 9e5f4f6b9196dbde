"""Two systems side by side: the n-grams each gets right, scores by bucket with paired tests, largest differences."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import compare_two_systems

with guard():
    st.set_page_config(page_title="mtlens · Compare two systems", layout="wide")
    compare_two_systems.page()

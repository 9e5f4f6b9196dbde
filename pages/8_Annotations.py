"""Human annotations: what the raters marked, summarised (MQM error counts, documents, rater agreement),
and where the metrics disagree with them."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import annotations as screen

with guard():
    st.set_page_config(page_title="mtlens · Annotations", layout="wide")
    screen.page()

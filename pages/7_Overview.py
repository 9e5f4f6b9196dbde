"""Overview: systems by test set for one metric, with each set's significance clusters (as WMT findings
tables show them). Sets are grouped by project; each set is scored with its own language's defaults."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import overview

with guard():
    st.set_page_config(page_title="mtlens · Overview", layout="wide")
    overview.page()

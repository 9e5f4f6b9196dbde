"""Sentences: sort and filter lines by score or by the difference between two systems, then see why."""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import sentences

with guard():
    st.set_page_config(page_title="mtlens · Sentences", layout="wide")
    sentences.page()

"""Words vs characters (Denoual & Lepage, 2005): does BLEU over M characters behave like word BLEU-N?"""

from __future__ import annotations

import streamlit as st

from mtlens.ui.guard import guard
from mtlens.ui.screens import words_vs_characters

with guard():
    st.set_page_config(page_title="mtlens · Words vs characters", layout="wide")
    words_vs_characters.page()

"""Sidebar widgets shared by the pages."""

from __future__ import annotations

import streamlit as st

from ..tokenizers import TOKENIZERS
from . import state

#: widget key -> option name in the session's option dict
WIDGETS = {
    "w_tokenize": "tokenize",
    "w_lowercase": "lowercase",
    "w_smooth": "smooth_method",
    "w_char_order": "char_order",
    "w_char_spaces": "char_keep_spaces",
    "w_tbleu_eps": "tbleu_epsilon",
    "w_ter_norm": "ter_normalized",
    "w_ter_punct": "ter_no_punct",
    "w_ter_asian": "ter_asian_support",
    "w_ter_case": "ter_case_sensitive",
}


def _seed_widget_state(opts: dict) -> None:
    """Keep the option widgets' values across pages.

    Streamlit forgets widget-keyed state when another page runs without the
    widget, and a widget re-created on a new page falls back to its own default.
    Re-assigning each key before the widget is drawn (Streamlit's documented
    workaround) keeps the value; keys never set yet take the session's option
    dict (a non-widget key, the memory of the options).
    """
    for key, opt in WIDGETS.items():
        st.session_state[key] = st.session_state[key] if key in st.session_state else opts[opt]


def metric_sidebar() -> dict:
    """Metric options in the sidebar; returns the session's option dict (updated)."""
    opts = state.options()
    _seed_widget_state(opts)
    sb = st.sidebar
    sb.header("Metric options")
    opts["tokenize"] = sb.selectbox(
        "BLEU tokenizer",
        TOKENIZERS,
        key="w_tokenize",
        help="13a: WMT's standard; intl: Unicode punctuation; zh: Chinese; char: characters; none: spaces only",
    )
    opts["lowercase"] = sb.checkbox("Lowercase (case-insensitive)", key="w_lowercase")
    opts["smooth_method"] = sb.selectbox("BLEU smoothing", ("exp", "floor", "add-k", "none"), key="w_smooth")
    opts["char_order"] = int(
        sb.slider(
            "Character BLEU order M",
            1,
            30,
            key="w_char_order",
            help="BLEU over character n-grams 1..M; M = 18 behaves like word BLEU-4 (Denoual & Lepage 2005)",
        )
    )
    opts["char_keep_spaces"] = sb.checkbox("Character BLEU keeps spaces", key="w_char_spaces")
    opts["tbleu_epsilon"] = float(
        sb.slider(
            "tBLEU epsilon",
            0.0,
            1.0,
            step=0.05,
            key="w_tbleu_eps",
            help="affix-distance threshold under which a word is replaced by its matched reference word",
        )
    )
    with sb.expander("TER options"):
        opts["ter_normalized"] = st.checkbox("normalized", key="w_ter_norm")
        opts["ter_no_punct"] = st.checkbox("no punctuation", key="w_ter_punct")
        opts["ter_asian_support"] = st.checkbox("Asian support", key="w_ter_asian")
        opts["ter_case_sensitive"] = st.checkbox("case sensitive", key="w_ter_case")
    return opts


def dataset_caption(ds: state.Dataset) -> None:
    c = ds.corpus
    origin = "bundled sample (WMT21 en-de, 200 lines)" if ds.origin == "sample" else "your upload"
    st.caption(f"Data: {origin} · {len(c.systems)} systems · {c.n_lines} lines · {len(c.references)} reference(s)")

"""The home page's LLM judges panel (issue 48): the registered judges for everyone to see (their endpoint's host
only, never a key); the operator (local mode, or an administrator) registers one. A visitor can never make the
server call a URL of their choosing: registering is the operator's alone."""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from ..core.errors import InputError
from ..core.secrets import redact
from ..service import judging
from . import identity, render, state


def panel() -> None:
    st.subheader("LLM judges")
    try:
        registered = state.workspace().judges()
    except InputError as err:
        st.error(render.md(str(err)))
        return
    admin = identity.visitor().admin
    if registered:
        st.dataframe(
            [
                {
                    "metric": j.metric,
                    "protocol": j.protocol,
                    "model": j.model,
                    "endpoint": redact(j.url) if admin else (urlsplit(j.url).hostname or ""),
                    "samples": j.samples,
                    "in flight": j.concurrency,
                    "US$ / 1M in": j.price_in,
                    "US$ / 1M out": j.price_out,
                    "key from": f"${j.key_env}" if (admin and j.key_env) else ("a variable" if j.key_env else "-"),
                }
                for j in registered
            ],
            hide_index=True,
        )
        st.caption(
            "A judge scores a set with python -m mtlens score --set ID --metrics judge:NAME; once every answer is "
            "cached, every page offers it, its error spans on Sentences."
        )
    else:
        st.caption("No judge is registered yet.")
    if not admin:
        st.caption("The operator registers judges (python -m mtlens judges add NAME --url URL --model MODEL ...).")
        return
    with st.form("judge_add", clear_on_submit=False):
        c1, c2, c3 = st.columns([1, 2, 1])
        name = c1.text_input("Name", key="judge_name", placeholder="gpt4o-mqm")
        url = c2.text_input("Endpoint (OpenAI-compatible)", key="judge_url", placeholder="http://127.0.0.1:8000/v1")
        protocol = c3.selectbox("Protocol", ["gemba-mqm", "gemba-esa"], key="judge_protocol")
        c4, c5, c6 = st.columns([2, 1, 1])
        model = c4.text_input("Model", key="judge_model")
        key_env = c5.text_input("Key's environment variable", key="judge_key_env", help="Its name, never the key.")
        concurrency = c6.number_input("In flight", 1, 256, 8, key="judge_concurrency")
        c7, c8, c9 = st.columns(3)
        samples = c7.number_input("Samples per segment (their mean)", 1, 20, 1, key="judge_samples")
        price_in = c8.number_input("US$ per million prompt tokens", 0.0, value=None, key="judge_price_in")
        price_out = c9.number_input("US$ per million completion tokens", 0.0, value=None, key="judge_price_out")
        refs = st.checkbox(
            "Also judge the references, as systems (is the reference the problem? one more system per reference)",
            key="judge_score_references",
        )
        if st.form_submit_button("Register judge"):
            try:
                j = state.workspace().add_judge(
                    judging.Judge(name, url, model, protocol, key_env.strip() or None, int(samples), int(concurrency),
                                  price_in, price_out, refs),
                )  # fmt: skip
                st.success(render.md(f"Registered judge:{j.name} ({j.protocol} with {j.model})."))
            except InputError as err:
                st.error(render.md(str(err)))

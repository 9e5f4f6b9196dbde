"""The home page's one panel of scorers (issue 59): the registered neural models and LLM judges, each listed for
everyone (a checkpoint's digest, a judge's endpoint host: never a server path or a key), and, for the operator (local
mode, or an administrator), one form to register each. A visitor can never make the server read a path or call a URL
of their choosing: registering is the operator's alone (:mod:`mtlens.service.rights`, asked by the workspace)."""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from ..core.errors import InputError
from ..core.secrets import redact
from ..scores.sources import JUDGE_AGGREGATES, JUDGE_PROTOCOLS
from ..service import judging
from . import identity, render, state


def panel() -> None:
    """The panel: the models, then the judges, with the one set of verbs their command line has (add, list, remove)."""
    st.subheader("Scorers")
    st.caption(
        "The operator adds, lists and removes them the same way: python -m mtlens models add|list|remove, "
        "python -m mtlens judges add|list|remove."
    )
    _models()
    _judges()


def _models() -> None:
    """The registered neural models; the operator (local mode) registers a checkpoint by its path."""
    from ..service import neural_scoring as neural

    st.markdown("**Neural models** (checkpoints on this machine: COMET, CometKiwi, xCOMET, MetricX-24)")
    why_not = neural.unavailable()
    if why_not:
        st.caption(why_not)
        return
    try:
        registered = state.workspace().models()
    except InputError as err:
        st.error(render.md(str(err)))
        return
    admin = identity.visitor().admin
    if registered:
        # where a checkpoint lies on the server is the operator's business: visitors see its digest only
        st.dataframe(
            [
                {
                    "metric": m.metric,
                    "kind": m.kind,
                    "reads": ", ".join(m.inputs),
                    "digest": m.digest[:12],
                    **({"path": m.path} if admin else {}),
                }
                for m in registered
            ],
            hide_index=True,
        )
    else:
        st.caption("No model is registered yet.")
    if not admin:
        st.caption("The operator registers models (python -m mtlens models add NAME PATH).")
        return
    with st.form("model_add", clear_on_submit=False):
        cols = st.columns([1, 3])
        name = cols[0].text_input("Name", key="model_name", placeholder="wmt22-comet-da")
        path = cols[1].text_input(
            "Checkpoint folder on this machine", key="model_path", placeholder="~/models/wmt22-comet-da"
        )
        tokenizer = st.text_input(
            "MetricX-24 only: the mT5 tokenizer's folder, when the checkpoint's has none",
            key="model_tokenizer",
            placeholder="~/models/mt5-xl",
        )
        if st.form_submit_button("Register model"):
            try:
                with st.spinner("Reading the checkpoint (its digest)…"):
                    m = state.workspace().add_model(name, path, tokenizer.strip() or None)
                others = [x for x in m.metrics_given if x != m.metric]
                also = (
                    f" and {', '.join(others)}" + ("" if m.higher_is_better else " (lower is better)") if others else ""
                )
                st.success(f"Registered {m.metric} ({m.kind}){also}.")
            except InputError as err:
                st.error(render.md(str(err)))


def _judges() -> None:
    """The registered LLM judges (their endpoint's host only, never a key); the operator registers one."""
    st.markdown("**LLM judges** (OpenAI-compatible endpoints: GEMBA-MQM, GEMBA-ESA)")
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
        protocol = c3.selectbox("Protocol", list(JUDGE_PROTOCOLS), key="judge_protocol")
        c4, c5, c6 = st.columns([2, 1, 1])
        model = c4.text_input("Model", key="judge_model")
        key_env = c5.text_input("Key's environment variable", key="judge_key_env", help="Its name, never the key.")
        concurrency = c6.number_input("In flight", 1, 256, 8, key="judge_concurrency")
        c7, c8, c9 = st.columns(3)
        samples = c7.number_input("Samples per segment", 1, 20, 1, key="judge_samples")
        price_in = c8.number_input("US$ per million prompt tokens", 0.0, value=None, key="judge_price_in")
        price_out = c9.number_input("US$ per million completion tokens", 0.0, value=None, key="judge_price_out")
        c10, c11 = st.columns(2)
        temperature = c10.number_input(
            "Temperature of every sample", 0.0, 2.0, value=None, key="judge_temperature",
            help="Empty: the first sample at 0, the others at 1.",
        )  # fmt: skip
        aggregate = c11.selectbox(
            "Samples become a score by", list(JUDGE_AGGREGATES), key="judge_aggregate",
            help="gemba-v2: answers beyond 2 standard deviations dropped, then the reciprocal-rank weighted mean.",
        )  # fmt: skip
        refs = st.checkbox(
            "Also judge the references, as systems (is the reference the problem? one more system per reference)",
            key="judge_score_references",
        )
        if st.form_submit_button("Register judge"):
            try:
                j = state.workspace().add_judge(
                    judging.Judge(name, url, model, protocol, key_env.strip() or None, int(samples), int(concurrency),
                                  price_in, price_out, refs, temperature, aggregate),
                )  # fmt: skip
                st.success(render.md(f"Registered judge:{j.name} ({j.protocol} with {j.model})."))
            except InputError as err:
                st.error(render.md(str(err)))

"""History: a saved set's runs over time, per family and metric, with confidence bands, a marker on every
significant step, the table of runs with deltas to the previous run and to a chosen baseline; and a form
to add a run (a new system output) to the set, for who may change it.

The body of ``pages/10_History.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from ...core.errors import InputError
from ...exports.history import history_figure, history_rows
from ...service import run_facts
from ...service import runs as service_runs
from ...service.bundles import add_bundle_runs, is_bundle
from ...service.results import metric_label
from .. import cached, costs, export, identity, links, render, state
from ..widgets import open_screen

ALL = "all families"
NO_BASELINE = "none"


def _add_form(ds: state.Dataset) -> None:
    """Upload a run into this saved set (shown only to who may change it)."""
    with st.expander("Add a run to this set", expanded=False):
        with st.form("hist_add", clear_on_submit=True, border=False):
            up = st.file_uploader(
                "System output (one line per segment, UTF-8), or a set bundle of the same test set",
                key="hist_file",
                type=None,
                help="A bundle (from 'Download this set') adds the systems this set does not have, with their own "
                "family, time and metadata; the fields below are then not used.",
            )
            c1, c2 = st.columns(2)
            name = c1.text_input("Run name", key="hist_name", placeholder="default: the file's name")
            known = service_runs.families(state.store(), ds.set_id)
            family = c2.text_input(
                "Family",
                key="hist_family",
                placeholder=", ".join(known[:3]) or "e.g. my-model",
                help="The run's lineage: steps are tested between consecutive runs of one family.",
            )
            c3, c4 = st.columns(2)
            now = dt.datetime.now(dt.timezone.utc)
            day = c3.date_input("Made on (UTC)", value=now.date(), key="hist_day")
            at = c4.time_input("at (UTC)", value=now.time().replace(microsecond=0), key="hist_time", step=60)
            c5, c6, c7, c8 = st.columns(4)
            tuned = c5.text_input(
                "Tuned on",
                key="hist_tuned_on",
                placeholder="e.g. comet,metricx",
                help="The metrics it was decoded or tuned with (MBR, QE re-ranking, RL): the gate then wants a "
                "held-out metric to agree, and Rankings shades the scores that tuning inflates.",
            )
            cost = c6.number_input("Cost of this test set (US$)", 0.0, value=None, key="hist_cost")
            price_in = c7.number_input("US$ / 1M prompt tokens", 0.0, value=None, key="hist_price_in")
            price_out = c8.number_input("US$ / 1M completion tokens", 0.0, value=None, key="hist_price_out")
            latency = st.number_input("Seconds per segment", 0.0, value=None, key="hist_latency")
            meta = st.text_area(
                "Metadata (KEY=VALUE, one per line)",
                key="hist_meta",
                height=80,
                placeholder="checkpoint=step-42000\ncommit=1a2b3c",
            )
            submitted = st.form_submit_button("Add run", type="primary")
        if submitted:
            if up is None:
                st.error("Choose the run's file first.")
                return
            try:
                data = up.getvalue()
                if is_bundle(data):  # a set bundle: the runs it has and the set lacks, with their own facts
                    added = ", ".join(add_bundle_runs(state.store(), state.saved_id(ds), data, identity.visitor()))
                else:
                    added = service_runs.add_run(
                        state.store(),
                        state.saved_id(ds),
                        data,
                        up.name,
                        name or None,
                        family or None,
                        dt.datetime.combine(day, at, tzinfo=dt.timezone.utc).isoformat(),
                        {
                            **service_runs.parse_meta([x for x in meta.splitlines() if x.strip()]),
                            **run_facts.facts_meta(tuned, cost, price_in, price_out, latency),
                        },
                        identity.visitor(),
                    ).name
            except InputError as err:
                st.error(render.md(str(err)))
                return
            state.open_set(state.saved_id(ds))  # the set now has the run(s): reload it
            st.session_state["hist_added"] = added
            st.rerun()


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("History")
    if not ds.set_id or ds.read_only:
        st.info(
            "Runs are added to a saved set of yours: upload a set on the home page (it is saved), then add each "
            "new system output here or with `python -m mtlens add --set ID FILE --family F`."
        )
        if not ds.set_id:
            st.stop()
    if state.may_change(ds.set_id):
        _add_form(ds)
    added = st.session_state.pop("hist_added", None)
    if added:
        st.success(render.md(f"Added run '{added}'."))
    families = service_runs.families(state.store(), ds.set_id)
    names = cached.metric_names(ds, with_checks=True)
    runs = list(ds.corpus.system_names)
    links.from_link(
        {"family": ("hist_family_pick", [ALL, *families]), "baseline": ("hist_baseline", [NO_BASELINE, *runs])},
        lists={"metrics": ("hist_metrics", names)},
    )
    if "hist_metrics" not in st.session_state:
        st.session_state["hist_metrics"] = [m for m in ("bleu", "chrf") if m in names] or names[:1]
    c1, c2, c3 = st.columns([1, 2, 1])
    family = c1.selectbox("Family", [ALL, *families], key="hist_family_pick")
    metrics = c2.multiselect("Metrics", names, key="hist_metrics")
    baseline = c3.selectbox(
        "Baseline", [NO_BASELINE, *runs], key="hist_baseline", help="Every run's delta to this run, in the table."
    )
    links.to_link(
        family=None if family == ALL else family,
        metrics=metrics,
        baseline=None if baseline == NO_BASELINE else baseline,
    )
    if not metrics:
        st.info("Choose at least one metric.")
        st.stop()
    if not families:
        st.caption("No run has a family yet: give runs a family to see their steps tested.")
    resample = "segments"
    if ds.corpus.documents is not None:  # intervals and step tests over whole documents, on request
        resample = st.radio("Resample", ["segments", "documents"], horizontal=True, key="hist_resample")
    views = service_runs.windows(state.store(), ds.set_id, None if family == ALL else family)
    skip = 0
    if len(views) > 1:  # a view of at most VIEW_RUNS runs: what is shown is what is tested (issue 51)
        skips = {label: k for k, label in views}
        skip = skips[
            st.selectbox(
                "Runs shown",
                list(skips),
                key="hist_view",
                help=f"At most {service_runs.VIEW_RUNS} runs at a time; their steps are tested and corrected together.",
            )
        ]
    doc = cached.history(
        ds,
        None if family == ALL else family,
        metrics,
        None if baseline == NO_BASELINE else baseline,
        opts,
        resample,
        skip,
    )
    for note in doc["notes"]:
        st.caption(render.md(note[0].upper() + note[1:] + "."))
    for m in doc["metrics"]:
        st.subheader(f"{metric_label(m)} over time")
        export.chart(history_figure(doc, m), f"hist_chart_{m}", name=f"mtlens-history-{m}")
    st.subheader("Runs")
    rows = history_rows(doc)
    export.table(
        name="mtlens-history",
        df=pd.DataFrame(rows),
        hide_index=True,
        csv=_csv(doc).encode("utf-8"),
    )
    st.caption(
        "Step: the change from the previous run of the same family; * significant after Holm's correction over the "
        "steps shown. p: two-sided paired bootstrap p-value (" + render.md(doc["test"]) + "). Humans agree: the "
        "share of judges expected to agree with a delta this size (Kocmi et al. 2024)."
    )
    priced = run_facts.costs_of(doc)
    if run_facts.cost_axes(priced):  # at least two runs say what they cost
        st.subheader("Quality against cost")
        m = st.selectbox("Quality", doc["metrics"], key="hist_cost_metric")
        scores = {r["name"]: r["scores"][m] for r in doc["runs"] if r["scores"].get(m) is not None}
        costs.pareto_chart(scores, priced, m, doc["higher_is_better"][m], "hist_pareto")
    meta = [{"run": r["name"], **r["meta"]} for r in doc["runs"] if r["meta"]]
    if meta:
        st.subheader("Metadata")
        st.dataframe(pd.DataFrame(meta).fillna("-"), hide_index=True)


def _csv(doc: dict) -> str:
    """Full precision, one row per run and metric (machine-read)."""
    import csv
    import io

    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(
        [
            "run",
            "family",
            "at",
            "metric",
            "score",
            "ci_low",
            "ci_high",
            "previous",
            "step_delta",
            "step_p",
            "step_p_holm",
            "step_significant",
            "step_human_agreement",
            "delta_to_baseline",
        ]
    )
    for r in doc["runs"]:
        for m in doc["metrics"]:
            s = r["step"].get(m, {})
            lo, hi = r["ci95"].get(m, [None, None])
            w.writerow(
                [
                    r["name"],
                    r["family"] or "",
                    r["at"],
                    m,
                    r["scores"].get(m),
                    lo,
                    hi,
                    s.get("previous", ""),
                    s.get("delta", ""),
                    s.get("p", ""),
                    s.get("p_holm", ""),
                    s.get("significant", ""),
                    s.get("human_agreement", ""),
                    r["delta_to_baseline"].get(m, ""),
                ]
            )
    return out.getvalue()

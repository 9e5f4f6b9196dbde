"""The jobs panels of the Rankings page: start a COMET / CometKiwi / xCOMET job, or an LLM judge's, on the shown
set, watch its progress (segments per second, time left), cancel it. The job runs in its own process
(:mod:`mtlens.runtime.jobs`), so the page stays usable, and a reload, a closed tab or a restarted server finds it
again."""

from __future__ import annotations

import streamlit as st

from ..core.errors import InputError
from ..scores.progress import Progress
from ..service import jobs, judging, rights
from ..service import neural_scoring as neural
from . import identity, render, state
from .state import Dataset


def _may_run(ds: Dataset, judge: bool = False) -> bool:
    if judge:
        return rights.may_start(state.store(), state.saved_id(ds), identity.visitor())
    return rights.may_run_jobs(state.store(), state.saved_id(ds), identity.visitor())


def describe(p: Progress) -> str:
    """One line about a job: its progress, speed and time left, or how it ended (the service's line for this
    visitor)."""
    return jobs.progress_line(p, identity.visitor())


def panel(ds: Dataset) -> None:
    """The panel (an expander on the Rankings page)."""
    # open while the set has jobs (running or finished), so progress and outcome are in view
    with st.expander("Neural metrics (COMET, CometKiwi, xCOMET, MetricX-24)", expanded=bool(ds.set_id and _jobs(ds))):
        why_not = neural.unavailable()
        if why_not:
            st.info(why_not)
            return
        if not ds.set_id:
            st.info("Neural metrics run on saved sets; this upload could not be saved.")
            return
        try:
            registered = state.workspace().models()
        except InputError as err:
            st.error(render.md(str(err)))
            return
        if not registered:
            st.info(
                "No model is registered. Register a local checkpoint with "
                "`python -m mtlens models add NAME PATH` (see the README) or on the Workspace page."
            )
        else:
            _start_form(ds, registered)
        if _active(ds):
            _live(ds)
        else:
            _show(ds)


def judges_panel(ds: Dataset) -> None:
    """The LLM judges' panel (an expander on the Rankings page, shown when a judge is registered): ask one about
    the set in the background (the operator, or an administrator on a shared server: it spends the operator's
    money), watch and cancel it; its finished answers are the metric ``judge:NAME`` on every page."""
    try:
        registered = state.workspace().judges() if ds.set_id else []
    except InputError:
        registered = []
    if not registered:
        return
    with st.expander("LLM judges (GEMBA-MQM, GEMBA-ESA, M-Prometheus)", expanded=bool(_jobs(ds, judge=True))):
        labels = {j.name: f"{j.metric} ({j.protocol} with {j.model})" for j in registered}
        cols = st.columns([3, 1])
        name: str = cols[0].selectbox("Judge", list(labels), format_func=lambda k: labels[k], key="judge_job_name")
        allowed = _may_run(ds, judge=True)
        if cols[1].button("Ask", key="judge_start", disabled=not allowed, use_container_width=True):
            try:
                jobs.start_job(state.store(), state.saved_id(ds), jobs.judge_job(name), identity.visitor())
            except InputError as err:
                st.error(render.md(str(err)))
        if not allowed:
            st.caption("The operator asks a judge (it calls the operator's endpoint, at the operator's cost).")
        elif st.toggle("What asking it will take and cost", key="judge_estimate"):  # every prompt built: on request
            judge = next(j for j in registered if j.name == name)
            try:
                st.caption(render.md(judging.before_run(state.store(), judge, ds.corpus)))
            except InputError as err:
                st.caption(render.md(str(err)))
        if _active(ds, judge=True):
            _live_judges(ds)
        else:
            _show(ds, judge=True)


def _jobs(ds: Dataset, judge: bool = False) -> list[Progress]:
    try:
        return [p for p in jobs.status_for(state.store(), state.saved_id(ds), identity.visitor()) if p.judge == judge]
    except InputError:
        return []


def _active(ds: Dataset, judge: bool = False) -> bool:
    return any(p.active for p in _jobs(ds, judge))


def _start_form(ds: Dataset, registered) -> None:
    labels = {m.job_name: f"{m.metric} ({m.kind}, checkpoint {m.digest[:12]})" for m in registered}
    cols = st.columns([3, 1])
    name: str = cols[0].selectbox("Model", list(labels), format_func=lambda k: labels[k], key="neural_model")
    allowed = _may_run(ds)
    if cols[1].button("Score", key="neural_start", disabled=not allowed, use_container_width=True):
        try:
            jobs.start_job(state.store(), state.saved_id(ds), name, identity.visitor())
        except InputError as err:
            st.error(render.md(str(err)))
    if not allowed:
        st.caption("Only the owner of this set can start a neural job on it (upload your own copy to score it).")


@st.fragment(run_every=1.0)
def _live(ds: Dataset) -> None:
    """Polls the jobs once a second while one runs; when none runs any more, the whole page reruns (the
    finished job's column appears in the tables)."""
    if not _show(ds):
        st.rerun(scope="app")


@st.fragment(run_every=1.0)
def _live_judges(ds: Dataset) -> None:
    if not _show(ds, judge=True):
        st.rerun(scope="app")


def _show(ds: Dataset, judge: bool = False) -> bool:
    """The set's jobs of one kind; True while one of them runs."""
    try:
        shown = [p for p in jobs.status_for(state.store(), state.saved_id(ds), identity.visitor()) if p.judge == judge]
    except InputError as err:
        st.error(render.md(str(err)))
        return False
    for p in shown:
        line = describe(p)  # model names are [a-z0-9._-]; messages are shown as text
        if p.active:
            st.progress(p.fraction, text=render.md(line))
            if _may_run(ds, judge) and st.button("Cancel", key=f"job_cancel_{p.digest[:16]}"):
                try:
                    jobs.cancel_job(state.store(), state.saved_id(ds), p.digest, identity.visitor())
                except InputError as err:
                    st.error(render.md(str(err)))
        elif p.state == "done":
            st.success(render.md(line))
        else:
            st.warning(render.md(line))
    return any(p.active for p in shown)

"""The workspace on the home page: the current set (name, project, link, add a system, download),
and the list of saved sets (open, rename, delete, import a bundle).

Who sees what (docs/decisions.md, "Workspace"): everyone who can reach the server sees the list of
saved sets. mtlens listens on 127.0.0.1 unless told otherwise; a team server belongs behind a
reverse proxy with authentication (README, "Sharing the dashboard").
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..errors import InputError
from ..external import read_score_files
from ..io import decode_lines, unique_names
from ..store import SAMPLE_ID
from . import render, state


def _link(ds: state.Dataset) -> str:
    return f"?set={ds.set_id}"


def current_set_panel(ds: state.Dataset) -> None:
    """Name, project, link, added systems and the bundle of the set shown."""
    if not ds.set_id:
        return
    st.subheader("This set")
    st.caption(
        "The address of every page holds this set's id: a reload, another browser or a colleague with the "
        "link opens the same evaluation. Link: " + render.md(_link(ds))
    )
    if ds.set_id == SAMPLE_ID:
        st.caption("The bundled sample is read-only; uploads become sets of their own.")
        return
    store = state.store()
    try:
        bundle = store.export_bundle(ds.set_id)
    except InputError as err:  # deleted by another session, or the store became unreadable
        st.warning(render.md(f"This set is no longer in the workspace ({err}); this page still shows its data."))
        return
    current_project = _project_of(ds.set_id)
    c1, c2 = st.columns(2)
    new_name = c1.text_input("Name", value=ds.name, key=f"ws_name_{ds.set_id}")
    project = c2.text_input(
        "Project (groups sets for the Overview page, e.g. 'WMT21')",
        value=current_project,
        key=f"ws_project_{ds.set_id}",
    )
    try:
        if new_name.strip() and new_name != ds.name:
            store.rename(ds.set_id, new_name)
            state.use_dataset(state.saved_dataset(ds.set_id))
            st.rerun()
        if project.strip() != current_project:
            store.set_project(ds.set_id, project.strip() or None)
    except InputError as err:
        st.error(render.md(str(err)))
    added = st.file_uploader(
        "Add system outputs to this set (only the new systems are scored)",
        accept_multiple_files=True,
        key=f"ws_add_{ds.set_id}",
    )
    if added and st.button("Add them", key=f"ws_add_go_{ds.set_id}"):
        try:
            names = unique_names([f.name for f in added], "system")
            store.add_systems(
                ds.set_id, {n: decode_lines(f.getvalue(), f.name) for n, f in zip(names, added, strict=True)}
            )
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            state.open_set(ds.set_id)
            st.rerun()
    more = st.file_uploader(
        "Add metric scores to this set (COMET, xCOMET, MetricX, mt-metrics-eval, TSV)",
        accept_multiple_files=True,
        key=f"ws_scores_{ds.set_id}",
    )
    if more and st.button("Add the scores", key=f"ws_scores_go_{ds.set_id}"):
        files = [(f.name, f.getvalue()) for f in more]
        try:
            read_score_files([*ds.scores, *files], ds.corpus)  # every line of every system, no name twice
            for name, data in files:
                store.add_scores(ds.set_id, name, data)
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            state.open_set(ds.set_id)
            st.rerun()
    st.download_button(
        "Download this set (one file, to import on another machine)",
        bundle,
        file_name=f"{_file_stem(ds.name)}.mtlens.json.gz",
        mime="application/gzip",
        key=f"ws_bundle_{ds.set_id}",
    )


def _project_of(set_id: str) -> str:
    return next((s.project or "" for s in state.store().list() if s.id == set_id), "")


def _file_stem(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:60] or "mtlens-set"


def saved_sets_panel(ds: state.Dataset) -> None:
    """Every saved set: open, delete; import a bundle."""
    st.subheader("Saved sets")
    try:
        sets = state.store().list()
    except InputError as err:
        st.error(render.md(str(err)))
        return
    bundle = st.file_uploader("Import a set bundle (.mtlens.json.gz)", key="ws_import")
    if bundle is not None and st.session_state.get("ws_imported") != bundle.file_id:
        st.session_state["ws_imported"] = bundle.file_id
        try:
            new_id = state.store().import_bundle(bundle.getvalue())
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            state.open_set(new_id)
            st.rerun()
    if not sets:
        st.caption("No saved sets yet: every upload becomes one.")
        return
    table = pd.DataFrame(
        {
            "name": [s.name for s in sets],
            "language pair": [s.language_pair or "" for s in sets],
            "project": [s.project or "" for s in sets],
            "systems": [len(s.systems) for s in sets],
            "lines": [s.lines for s in sets],
            "created": [s.created.replace("T", " ")[:16] for s in sets],
        }
    )
    event = st.dataframe(table, hide_index=True, on_select="rerun", selection_mode="single-row", key="ws_table")
    rows = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if not rows:
        st.caption("Select a row to open or delete that set.")
        return
    chosen = sets[rows[0]]
    c1, c2, c3 = st.columns([1, 1, 3])
    if c1.button("Open", key="ws_open", disabled=chosen.id == ds.set_id):
        try:
            state.open_set(chosen.id)
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            st.rerun()
    sure = c3.checkbox(f"Yes, delete '{render.md(chosen.name)}' and its data", key="ws_delete_sure")
    if c2.button("Delete", key="ws_delete", disabled=not sure):
        try:
            state.store().delete(chosen.id)
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            if chosen.id == ds.set_id:
                state.use_sample()
            st.rerun()

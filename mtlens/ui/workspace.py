"""The workspace on the home page: the current set (name, project, link, add a system, download),
and the list of saved sets (open, rename, delete, import a bundle).

Who sees and changes what (docs/security.md): on a local server (loopback, no login) the one user
owns everything. On a shared server a visitor's list holds their own sets and those of the projects
they are a member of; a link lets anyone read a set, and only its owner (or the operator, on the
command line) may rename, re-project, add to or delete it.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..core.errors import InputError
from ..service import rankings
from ..service.bundles import export_bundle, import_bundle
from ..service.evaluation import annotations_said
from . import identity, render, state, uploads


def _link(ds: state.Dataset) -> str:
    return f"?set={ds.set_id}"


def quick_link(ds: state.Dataset) -> str:
    """Markdown: the set's quick view (:mod:`mtlens.ui.quick`) with the options, metrics and sort of the
    address, the link to send for a meeting."""
    url = rankings.quick_link({**st.query_params.to_dict(), "set": ds.set_id})
    return (
        f"Quick view: [`{url}`]({url}) shows these Rankings at once in any browser (plain HTML drawn by the "
        "server from the stored scores, with the options in this address), with a link back here."
    )


def current_set_panel(ds: state.Dataset) -> None:
    """Name, project, link, added systems and the bundle of the set shown."""
    if not ds.set_id:
        return
    st.subheader("This set")
    st.caption(
        "The address of every page holds this set's id: a reload, another browser or a colleague with the "
        "link opens the same evaluation. Link: " + render.md(_link(ds))
    )
    st.caption(quick_link(ds))
    if ds.read_only:
        st.caption("The bundled sample is read-only; uploads become sets of their own.")
        return
    ws = state.workspace()
    try:
        current_project = ws.store.project_of(ds.set_id) or ""  # also: is the set still there (cheap)
    except InputError as err:  # deleted by another session, or the store became unreadable
        st.warning(render.md(f"This set is no longer in the workspace ({err}); this page still shows its data."))
        return
    if not state.may_change(ds.set_id):
        st.caption(
            "This set was shared with you by its link: you can read it and download it, but only its owner "
            "can rename, re-project, add to or delete it. Upload or import your own copy to change it."
        )
        _bundle_button(ds)
        return
    c1, c2 = st.columns(2)
    new_name = c1.text_input("Name", value=ds.name, key=f"ws_name_{ds.set_id}")
    project = c2.text_input(
        "Project (groups sets for the Overview page, e.g. 'WMT21')",
        value=current_project,
        key=f"ws_project_{ds.set_id}",
    )
    try:
        if new_name.strip() and new_name != ds.name:
            ws.rename(ds.set_id, new_name)
            state.use_dataset(state.saved_dataset(ds.set_id))
            st.rerun()
        if project.strip() != current_project:
            ws.set_project(ds.set_id, project)
            state.use_dataset(state.saved_dataset(ds.set_id))  # the header names the new project
            st.rerun()
    except InputError as err:
        st.error(render.md(str(err)))
    added = st.file_uploader(
        "Add system outputs to this set (only the new systems are scored)",
        accept_multiple_files=True,
        key=f"ws_add_{ds.set_id}",
    )
    if added and st.button("Add them", key=f"ws_add_go_{ds.set_id}"):
        try:
            ws.add_systems(ds.set_id, [(f.name, f.getvalue()) for f in added])
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
        try:
            ws.add_scores(ds.set_id, [(f.name, f.getvalue()) for f in more])  # all read first, or none saved
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            state.open_set(ds.set_id)
            st.rerun()
    marked = st.file_uploader(
        "Add human ratings to this set (MQM TSV of these hypotheses, or ESA ratings: Appraise CSV, WMT JSONL, Pearmut)",
        key=f"ws_ann_{ds.set_id}",
    )
    said = st.session_state.pop(f"ws_ann_said_{ds.set_id}", None)
    if said:  # what the last file brought, said after the page reran (D12)
        st.success(render.md(said))
    if marked is not None and st.button("Add the annotations", key=f"ws_ann_go_{ds.set_id}"):
        try:
            ann = ws.add_annotations(ds.set_id, marked.name, marked.getvalue())
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            st.session_state[f"ws_ann_said_{ds.set_id}"] = annotations_said(ann)
            state.open_set(ds.set_id)
            st.rerun()
    _bundle_button(ds)


def _bundle_button(ds: state.Dataset) -> None:
    """The set as one bundle file, made when the button is clicked (a deferred download: gzipping a large
    set took 7 s of every home page run when it was made in advance)."""
    set_id = state.saved_id(ds)
    st.download_button(
        "Download this set (one file, to import on another machine)",
        lambda: export_bundle(state.store(), set_id),
        file_name=f"{uploads.slug(ds.name) or 'mtlens-set'}.mtlens.json.gz",
        mime="application/gzip",
        key=f"ws_bundle_{ds.set_id}",
    )


def saved_sets_panel(ds: state.Dataset) -> None:
    """Every saved set: open, delete; import a bundle."""
    st.subheader("Saved sets")
    visitor = identity.visitor()
    if not visitor.admin:
        st.caption(
            f"You are {render.md(visitor.label)} (visitor id `{visitor.id}`): this list shows your sets and those of "
            "the projects you are a member of. Give the id to the server's operator to join a project."
        )
    try:
        sets = state.workspace().sets()
    except InputError as err:
        st.error(render.md(str(err)))
        return
    bundle = st.file_uploader("Import a set bundle (.mtlens.json.gz)", key="ws_import")
    if bundle is not None and st.session_state.get("ws_imported") != bundle.file_id:
        st.session_state["ws_imported"] = bundle.file_id
        try:
            new_id = import_bundle(state.store(), bundle.getvalue(), owner=identity.owner_id())
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
    if rows[0] >= len(sets):  # the list changed under the selection
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
    if not state.may_change(chosen.id):
        c3.caption("Only its owner can delete this set.")
        return
    sure = c3.checkbox(f"Yes, delete '{render.md(chosen.name)}' and its data", key="ws_delete_sure")
    if c2.button("Delete", key="ws_delete", disabled=not sure):
        try:
            state.workspace().delete(chosen.id)
        except InputError as err:
            st.error(render.md(str(err)))
        else:
            if chosen.id == ds.set_id:
                state.use_sample()
            st.rerun()

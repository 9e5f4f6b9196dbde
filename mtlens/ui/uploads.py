"""Uploads of a session: files turned into a dataset (:func:`mtlens.service.inputs.build_corpus`), saved as a set
under an automatic name, and the names of downloads."""

from __future__ import annotations

import contextlib
import dataclasses
import re

import streamlit as st

from ..core.errors import InputError
from ..core.names import auto_set_name
from ..service.evaluation import (
    evaluate,
    evaluate_annotations,
    save,
    with_glossary,
)
from ..service.inputs import build_corpus, check_visitor_corpus, check_visitor_ratings_of, check_visitor_size_of
from . import identity, state
from .state import DATA_KEY, Dataset, store


def slug(name: str) -> str:
    """A set's name as a file name part: letters, digits, "-", "_" (runs of anything else one "-")."""
    out = re.sub(r"-{2,}", "-", "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)).strip("-")
    return out[:60].rstrip("-")


def download_name(kind: str, suffix: str, set_name: str | None) -> str:
    """A download's file name, naming the set it comes from: ``mtlens-scores-WMT21-en-de.csv``."""
    part = slug(set_name or "")
    return f"{kind}-{part}.{suffix}" if part else f"{kind}.{suffix}"


def file_name(kind: str, suffix: str) -> str:
    """:func:`download_name` for the set this session shows."""
    ds = st.session_state.get(DATA_KEY)
    return download_name(kind, suffix, ds.name if ds is not None else None)


def save_upload(ds: Dataset, name: str) -> tuple[Dataset, str | None]:
    """Save an uploaded dataset as a new set; returns it with its id, and a sentence when it could not
    be saved (the session keeps working with the unsaved data)."""
    try:
        ev = save(store(), ds.evaluation(), name, owner=identity.owner_id())
    except InputError as err:
        return ds, f"This upload is not saved in the workspace: {err}"
    return dataclasses.replace(ds, set_id=ev.set_id, name=name, origin="saved"), None


def distinct_name(base: str, replaced: str | None = None) -> str:
    """An automatic name none of this visitor's other sets has: ``base``, else ``base (2)``, ``(3)``... (issue 51:
    every upload got the same name); ``replaced``: the set this upload replaces, whose name is free again."""
    try:
        taken = {s.name for s in state.workspace().sets() if s.id != replaced}
    except InputError:
        return base
    name, k = base, 2
    while name in taken:
        name, k = f"{base} ({k})", k + 1
    return name


def keep_upload(new: Dataset, files: set, shown: Dataset) -> tuple[Dataset, str | None]:
    """Save an upload under its automatic name; returns it and a sentence when it could not be saved.

    The same upload grown by another file (references first, then systems), or shrunk by removing one
    (its X), replaces the set it made a moment ago, so the list does not fill with intermediate states;
    only while that set is still the one shown, still has its automatic name, and one upload's files
    (``(kind, name, size)``) hold all of the other's.
    """
    pair = new.corpus.language_pair or "no language"
    n = len(new.corpus.systems)
    prev = st.session_state.get("mtlens_upload_set")
    same_upload = prev is not None and (prev[1] <= files or files <= prev[1])
    replaced = prev[0] if prev is not None and same_upload and prev[0] == shown.set_id else None
    name = distinct_name(auto_set_name(n, pair, new.corpus.n_lines), replaced)
    new, not_saved = save_upload(new, name)
    if prev is not None and same_upload and new.set_id and prev[0] != new.set_id and prev[0] == shown.set_id:
        with contextlib.suppress(InputError):
            if store().load(prev[0]).info.name == prev[2]:
                store().delete(prev[0], identity.visitor())
    st.session_state["mtlens_upload_set"] = (new.set_id, files, name)
    return new, not_saved


def dataset_from_uploads(
    references,
    systems,
    source=None,
    human=(),
    language_pair: str | None = None,
    scores=(),
    annotations=(),
    documents=None,
    terms=None,
) -> Dataset:
    """Build a dataset from uploaded files (``(name, bytes)`` pairs).

    One ``.tsv`` or ``.xml`` file among the system outputs, with no reference
    file, is read as a file holding everything.

    ``terms``: a glossary ``(name, bytes, JSONL key)``.

    Raises:
        InputError: with a readable message.
    """
    check_visitor_ratings_of(annotations or (), identity.visitor(), what="the annotation files")  # G1, G2: unparsed
    if annotations and not references and not systems:  # a set made from annotations alone
        ev = evaluate_annotations(annotations[0][1], annotations[0][0], language_pair or None, identity.visitor())
        if len(annotations) > 1 or human or scores:
            ev = evaluate(ev.corpus, language_pair or None, human or (), scores or (), annotations)
        return Dataset.of(ev, "upload", tuple(n for n, _ in annotations))
    single = not references and len(systems) == 1 and systems[0][0].lower().endswith((".tsv", ".xml"))
    if single:
        if source is not None:
            raise InputError("a TSV or XML file already holds its source; upload the source only with text files")
    elif not references:
        raise InputError("upload at least one reference file (or one TSV/XML file that holds everything)")
    elif not systems:
        raise InputError("upload at least one system output file")
    if not single:  # counted before anything is decoded: a refused upload costs its bytes only (issue 51)
        texts = [*references, *systems, *([source] if source is not None else [])]
        lines = max(data.count(b"\n") + (not data.endswith(b"\n")) for _, data in texts)
        check_visitor_size_of(lines, len(texts), identity.visitor())
    corpus = build_corpus(
        () if single else references,
        () if single else systems,
        source,
        systems[0] if single else None,
        documents,  # a documents file: every line's document id (and domain)
    )
    check_visitor_corpus(corpus, identity.visitor(), "the upload")  # issue 51: 3 x 200,000 lines, 3.7 GB
    files = tuple(
        n for n, _ in [*references, *systems, *([source] if source else []), *([documents] if documents else [])]
    )
    # the language decided and the side files validated now, so a bad file is reported on the home page
    ev = evaluate(corpus, language_pair or None, human or (), scores or (), annotations or ())
    if terms is not None:  # a glossary (issue 60), read against the set: a bad one is the upload's one sentence
        ev = with_glossary(ev, terms[1], terms[0], terms[2] or None)
    return Dataset.of(ev, "upload", files)

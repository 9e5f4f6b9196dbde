"""The home page: load references and system outputs (or the bundled sample) into the session.

Drawn by ``app.py`` (Streamlit runs that file as every session's home page)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..core.errors import InputError
from ..core.language import TOKENIZER_RULE
from . import render, scorers_panel, state, uploads, workspace
from .guard import guard
from .widgets import dataset_caption


def page() -> None:
    with guard():
        st.set_page_config(page_title="mtlens", page_icon="🔎", layout="wide")
        st.title("mtlens: compare machine translation systems")
        st.write(
            "Upload the reference translation(s) and the outputs of several MT systems (plain text, one segment "
            "per line), or one TSV/WMT XML file that holds everything. Scores equal sacrebleu 2.6.0's."
        )

        ds = state.current()

        col1, col2 = st.columns(2)
        with col1:
            refs = st.file_uploader(
                "References",
                type=["txt", "ref", "tsv", "xml"],
                accept_multiple_files=True,
                key="up_refs",
                help="One file per reference translation, line i of each aligned with line i of every system.",
            )
        with col2:
            syss = st.file_uploader(
                "System outputs",
                accept_multiple_files=True,
                key="up_systems",
                help="One file per system (the file name is the system name), or one .tsv / .xml file with everything.",
            )
        lang_input = st.text_input(
            "Language pair (optional, e.g. en-zh)",
            key="up_lang",
            placeholder="detected from the references",
            help=f"Sets the word BLEU tokenizer as sacrebleu's -l does ({TOKENIZER_RULE}). Leave empty to detect "
            "the target language from the references' script.",
        ).strip()
        with st.expander("Optional: source text, documents and human scores"):
            src = st.file_uploader("Source", key="up_source")
            docs = st.file_uploader(
                "Documents (one 'doc_id' or 'doc_id<TAB>domain' per line)",
                key="up_docs",
                help="Every line's document (and domain), aligned with the references: the pages can then resample "
                "whole documents and score each domain. WMT XML carries them already.",
            )
            human = st.file_uploader(
                "Human scores (TSV: system, metric, score; or system, line, metric, score)",
                key="up_human",
                accept_multiple_files=True,
            )
            metric_scores = st.file_uploader(
                "Metric scores (comet-score JSON or text, MetricX JSONL, mt-metrics-eval .seg.score, TSV: system, line, ...)",
                key="up_scores",
                accept_multiple_files=True,
                help="Scores of COMET, xCOMET, MetricX... computed elsewhere; each file becomes a metric beside BLEU and chrF.",
            )
            glossary = st.file_uploader(
                "Glossary (TSV: source<TAB>target; or JSONL, one object of terms per line, as WMT25's)",
                type=["tsv", "txt", "jsonl", "json"],
                key="up_terms",
                help="Scores the term success rate (term) and consistency, and lists the terms each system misses.",
            )
            terms_key = st.text_input("A JSONL glossary's key of each line's terms", "terms", key="up_terms_key")
            annotations = st.file_uploader(
                "Human error annotations (MQM TSV: system, doc, doc_id, seg_id, rater, source, target with <v> spans, "
                "category, severity[, comment])",
                key="up_annotations",
                accept_multiple_files=True,
                help="Alone, an annotation file makes a set of its hypotheses (no reference: the human views and MQM "
                "work, lexical metrics need a reference). With references and systems, it annotates their hypotheses.",
            )

        given = [("R", f) for f in refs or []] + [("S", f) for f in syss or []]
        given += [("SRC", src)] if src else []
        given += [("DOC", docs)] if docs else []
        given += [("H", f) for f in human or []]
        given += [("M", f) for f in metric_scores or []]
        given += [("A", f) for f in annotations or []]
        given += [("T", glossary)] if glossary else []
        signature: tuple[tuple, ...] = tuple((kind, f.name, f.size, getattr(f, "file_id", "")) for kind, f in given)
        if signature:
            signature += (("LANG", lang_input), ("TERMS_KEY", terms_key))

        if signature and signature != st.session_state.get(state.UPLOAD_SIG_KEY):
            # No streamlit call between reading the files and recording the outcome: a rerun triggered by
            # another upload cannot interrupt this block and leave the new files unprocessed.
            try:
                new = uploads.dataset_from_uploads(
                    [(f.name, f.getvalue()) for f in refs or []],
                    [(f.name, f.getvalue()) for f in syss or []],
                    (src.name, src.getvalue()) if src else None,
                    [(f.name, f.getvalue()) for f in human or []],
                    lang_input or None,
                    [(f.name, f.getvalue()) for f in metric_scores or []],
                    [(f.name, f.getvalue()) for f in annotations or []],
                    (docs.name, docs.getvalue()) if docs else None,
                    (glossary.name, glossary.getvalue(), terms_key) if glossary else None,
                )
            except InputError as err:
                st.session_state["mtlens_upload_error"] = str(err)
            else:
                st.session_state.pop("mtlens_upload_error", None)
                files = {
                    f[:3] for f in signature if f[0] not in ("LANG", "TERMS_KEY")
                }  # kind, name, size: the same file re-uploaded
                new, not_saved = uploads.keep_upload(new, files, ds)
                st.session_state["mtlens_not_saved"] = not_saved
                st.session_state["mtlens_saved_as"] = new.name if new.set_id and not not_saved else None
                state.use_dataset(new, uploaded=True)
                ds = new
            st.session_state[state.UPLOAD_SIG_KEY] = signature
        elif not signature:
            st.session_state.pop("mtlens_upload_error", None)

        error = st.session_state.get("mtlens_upload_error")
        if error:
            st.error(
                f"Those files could not be used: {render.md(error)}. The data below is still the previous dataset."
            )

        if st.session_state.get("mtlens_not_saved"):
            st.warning(render.md(st.session_state["mtlens_not_saved"]))
        elif st.session_state.get("mtlens_saved_as") and ds.origin != "sample":  # issue 51: say so, and where
            st.success(
                render.md(
                    f"Saved in your workspace as '{st.session_state['mtlens_saved_as']}': every upload is kept as a "
                    "set (rename or delete it under Saved sets; its link is this page's address)."
                )
            )
        if ds.origin != "sample" and st.button("Go back to the bundled sample data", key="go_sample"):
            state.use_sample()
            st.rerun()

        st.subheader("Dataset")
        dataset_caption(ds)
        c = ds.corpus
        st.dataframe(
            dataset_table(ds),
            hide_index=True,
            column_config={
                "words": st.column_config.TextColumn(
                    help="space-separated tokens; - where the target language is written without spaces"
                )
            },
        )
        if ds.language is not None:
            st.caption("Language: " + render.md(ds.language.describe()) + ". Change it with the language pair above.")
            for w in ds.language.warnings():
                st.warning(render.md(w))
        if c.source is not None:
            st.caption(f"Source: {len(c.source)} lines.")
        if ds.human:
            st.caption("Human scores: " + render.md(", ".join(name for name, _ in ds.human)))
        if ds.scores:
            st.caption("Imported metric scores: " + render.md(", ".join(name for name, _ in ds.scores)))
        if c.warnings:
            st.markdown("**Notes on the data** (scores are computed on the text as it is):")
            for w in c.warnings:
                st.warning(render.md(w))
        st.info("Open **Rankings** in the sidebar to see the scores.")

        workspace.current_set_panel(ds)
        workspace.saved_sets_panel(ds)
        scorers_panel.panel()


def dataset_table(ds: state.Dataset) -> pd.DataFrame:
    """The home page's list of references and systems: lines, words and characters (spaces not counted).

    Words are space-separated tokens; for a target written without spaces (Chinese, Japanese, Thai...)
    there is no such count and the column says "-" (the characters column is the size to read there)."""
    c = ds.corpus
    streams = [*c.references.values(), *c.systems.values()]
    unspaced = ds.language is not None and ds.language.without_spaces
    return pd.DataFrame(
        {
            "kind": ["reference"] * len(c.references) + ["system"] * len(c.systems),
            "name": list(c.references) + list(c.systems),
            "lines": [len(v) for v in streams],
            "words": ["-" if unspaced else str(sum(len(x.split()) for x in v)) for v in streams],
            "characters": [sum(len(x) - x.count(" ") for x in v) for v in streams],
        }
    )

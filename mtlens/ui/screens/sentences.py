"""The sentences: sort and filter lines by score or by the difference between two systems, then see why.

The body of ``pages/2_Sentences.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...analysis.correlation import pearson
from ...analysis.sentences import sentence_table, sort_options
from ...core.errors import InputError
from ...exports import numbers
from ...scores.sources import JUDGE_KIND, source_of
from ...service.analyses import line_evidence, tbleu_rows
from .. import annotated, cached, cached_checks, documents, export, links, render, views
from ..widgets import open_screen
from . import presentation

#: the raters' MQM spans among the sources of error spans a reader toggles
HUMAN_MQM = "human MQM (raters)"


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Sentences")
    c = ds.corpus
    systems = list(c.system_names)
    ref_names = list(c.reference_names)

    anns = cached.mqm_annotations(ds)
    choices = annotated.annotation_choices(anns) if anns else {}
    # a shared link can point at one sentence: ?set=...&a=SYSTEM&b=SYSTEM&line=N&metric=M (and the filters)
    links.from_link(
        {
            "a": ("sent_a", systems),
            "b": ("sent_b", systems),
            "metric": ("sent_metric", cached.metric_names(ds, True)),
            **{k: (f"sent_f_{k}", v) for k, v in choices.items()},
            **documents.document_link_choices(c),
        },
        {"line": ("sent_line", c.n_lines)},
    )
    col1, col2, col3 = st.columns(3)
    sys_a = col1.selectbox("System A", systems, key="sent_a")
    others = ["(none)"] + [s for s in systems if s != sys_a]
    sys_b: str | None = col2.selectbox("Compare with system B", others, index=1 if len(others) > 1 else 0, key="sent_b")
    sys_b = None if sys_b == "(none)" else sys_b
    metric = col3.selectbox("Sentence metric", cached.metric_names(ds, sentence=True), key="sent_metric")

    result = cached.metric_result(ds, metric, opts)
    score_a = result.sentence_scores(sys_a)
    score_b = result.sentence_scores(sys_b) if sys_b else None
    sorts = sort_options(sys_b is not None)
    f1, f2, f3 = st.columns([2, 2, 1])
    sort = f1.selectbox("Sort", sorts, index=3 if sys_b else 1, key="sent_sort")
    query = f2.text_input("Only lines containing (in A, B or a reference)", key="sent_query")
    page_size = f3.selectbox("Lines per page", [25, 50, 100], key="sent_page_size")

    view = sentence_table(c, result, sys_a, sys_b, sort if sort in sorts else sorts[0], query)
    if anns:
        st.caption("Only lines whose human annotations (of system A) match:")
        fcols = st.columns(4)
        picked = {
            k: col.selectbox(k.capitalize(), v, key=f"sent_f_{k}")
            for col, (k, v) in zip(fcols, choices.items(), strict=True)
        }
        allowed = annotated.annotated_lines(anns, sys_a, **picked)
        if allowed is not None:
            view = view[view["line"].isin(allowed)]
        links.to_link(**{k: (None if v == views.ANY else v) for k, v in picked.items()})

    if c.documents is not None:  # documents (and domains): filter, or open one document in order
        d1, d2 = st.columns(2)
        domain = (
            d1.selectbox("Domain", documents.domain_choices(c), key="sent_domain")
            if c.domains is not None
            else views.ANY
        )
        document = d2.selectbox("Document", documents.document_choices(c, domain), key="sent_doc")
        view = documents.document_filter(view, c, domain, document)
        links.to_link(domain=None if domain == views.ANY else domain, doc=None if document == views.ANY else document)
        if document != views.ANY:
            st.caption(render.md(documents.document_summary(c, result, document, sys_a, sys_b)))

    n_pages = max(1, -(-len(view) // page_size))
    page = st.number_input(f"Page (of {n_pages})", 1, n_pages, 1, key="sent_page")
    shown = view.iloc[(page - 1) * page_size : page * page_size]
    st.caption(f"{len(view)} of {c.n_lines} lines; click a row to inspect it.")
    event = export.table(
        name="mtlens-sentences",
        df=shown,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key="sent_table",
        places={"B - A": views.metric_decimals(metric, score_a)},
    )
    rows = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if rows:
        st.session_state["sent_line"] = int(shown.iloc[rows[0]]["line"])
    if st.toggle(f"Scatter: {metric} against another metric, one point per line of {sys_a}", key="sent_scatter_on"):
        other_metric = st.selectbox(
            "Other metric",
            [m for m in cached.metric_names(ds, sentence=True) if m != metric],
            key="sent_scatter_metric",
        )
        other_scores = cached.metric_result(ds, other_metric, opts).sentence_scores(sys_a)
        scatter = go.Figure(
            go.Scattergl(
                x=score_a,
                y=other_scores,
                mode="markers",
                customdata=list(range(1, c.n_lines + 1)),
                hovertemplate=f"line %{{customdata}}: %{{x:{views.hover_format(metric, score_a)}}} / "
                f"%{{y:{views.hover_format(other_metric, other_scores)}}}<extra></extra>",
                marker={"opacity": 0.6},
            )
        )
        scatter.update_layout(xaxis_title=metric, yaxis_title=other_metric, height=420, margin={"t": 20})
        export.chart(scatter, "sent_scatter", f"mtlens-{metric}-vs-{other_metric}")
        st.caption(f"Pearson r over the lines: {numbers.shown(pearson(score_a, other_scores), numbers.UNIT_DECIMALS)}")
    default_line = int(shown.iloc[0]["line"]) if len(shown) else 1
    # a domain or document is chosen: the line inspected is one of its lines (issue 51, D2: it kept showing a
    # line of another document under the document's table)
    filtered = c.documents is not None and len(view) < c.n_lines and len(shown)
    if filtered and st.session_state.get("sent_line") not in set(int(x) for x in view["line"]):
        st.session_state["sent_line"] = st.session_state["sent_line_input"] = default_line
    line_no = st.number_input(
        "Line", 1, c.n_lines, st.session_state.get("sent_line", default_line), key="sent_line_input"
    )
    st.session_state["sent_line"] = int(line_no)
    i = int(line_no) - 1
    links.to_link(a=sys_a, b=sys_b, metric=metric, line=int(line_no))

    st.subheader(f"Line {line_no}")
    shown_systems = [sys_a, sys_b] if sys_b else [sys_a]
    why_not = presentation.may_pin(ds)
    if why_not is None:
        is_pinned = any(p.line == i and list(p.systems) == shown_systems for p in presentation.pins(ds))
        p1, p2 = st.columns([3, 2])  # room for "Pin for the presentation" on one line
        note = p1.text_input("Note for the presentation (optional)", key=f"sent_pin_note_{i}", max_chars=500)
        try:
            if is_pinned and p2.button("Unpin", key="sent_unpin", help="remove it from the presentation"):
                presentation.unpin(ds, i, shown_systems)
                st.rerun()
            if not is_pinned and p2.button("Pin for the presentation", key="sent_pin", icon=":material/push_pin:"):
                presentation.pin(ds, i, shown_systems, metric, note)
                st.rerun()
        except InputError as err:
            st.error(str(err))
        if is_pinned:
            st.caption("Pinned: this sentence is a slide of the presentation and a section of the HTML report.")
    else:
        st.caption(why_not)
    st.markdown(render.STYLE, unsafe_allow_html=True)
    order, unit, char_n = 2, "words (BLEU)", 3
    if c.references:  # the highlight controls act on matches against a reference: none without one
        h1, h2, h3 = st.columns([1, 1, 2])
        order = h1.slider("n-gram order to highlight", 1, 4, 2, key="sent_order")
        unit = h2.radio("Units", ["words (BLEU)", "characters (chrF)"], key="sent_unit")
        char_n = h3.slider("character n-gram order", 1, 6, 3, key="sent_char_order") if unit.startswith("char") else 3

    if c.source is not None:
        st.markdown("**Source**")
        st.markdown(render.plain(c.source[i]), unsafe_allow_html=True)

    if not c.references:
        st.info("This set has no reference translation: word and character matches, TER and tBLEU need one.")
        for name in [sys_a, sys_b] if sys_b else [sys_a]:
            st.markdown(f"**{render.md(name)}**")
            st.markdown(render.plain(c.systems[name][i]), unsafe_allow_html=True)
    else:
        evidence = line_evidence(ds.corpus, opts, [sys_a, sys_b] if sys_b else [sys_a], i)
        seg_refs = evidence["references"]
        m_a = evidence["ngrams"][sys_a]
        m_b = evidence["ngrams"][sys_b] if sys_b else None

        st.markdown(f"**References** (yellow: n-grams that {render.md(sys_a)} (A) did not produce)")
        for k, name in enumerate(ref_names):
            st.markdown(f"<span class='mtl-label'>{render.escape(name)}</span>", unsafe_allow_html=True)
            st.markdown(render.ngram_reference(m_a, order, k), unsafe_allow_html=True)

        places = views.metric_decimals(metric, score_a)
        scores = f"{metric} = {score_a[i]:.{places}f}"
        if unit.startswith("word"):
            if sys_b:
                assert m_b is not None and score_b is not None  # system B chosen: its matches and scores
                st.markdown(
                    render.legend(
                        [
                            ("matched by both (confirmed)", "confirmed"),
                            ("only B (improving)", "improving"),
                            ("only A (worsening)", "worsening"),
                        ]
                    ),
                    unsafe_allow_html=True,
                )
                html_a, html_b = render.ngram_pair(m_a, m_b, order)
                st.markdown(f"**A: {render.md(sys_a)}** ({scores})")
                st.markdown(html_a, unsafe_allow_html=True)
                st.markdown(f"**B: {render.md(sys_b)}** ({metric} = {score_b[i]:.{places}f})")
                st.markdown(html_b, unsafe_allow_html=True)
            else:
                st.markdown(
                    render.legend([("in a matched n-gram", "matched"), ("unmatched", "unmatched")]),
                    unsafe_allow_html=True,
                )
                st.markdown(f"**{render.md(sys_a)}** ({scores}); hover a word to see which reference matched it")
                st.markdown(render.ngram_hypothesis(m_a, order, ref_names), unsafe_allow_html=True)
        else:
            st.markdown(
                render.legend([("in a matched character n-gram", "matched"), ("unmatched", "unmatched")]),
                unsafe_allow_html=True,
            )
            for name in [sys_a, sys_b] if sys_b else [sys_a]:
                st.markdown(f"**{render.md(name)}**")
                st.markdown(
                    render.char_hypothesis(c.systems[name][i], seg_refs, char_n, opts.lowercase), unsafe_allow_html=True
                )

    spanned = {m: imp for m, (imp, _) in cached.imported(ds).items() if imp.spans}
    sources = [*spanned, *([HUMAN_MQM] if anns else [])]
    if len(sources) > 1:  # toggle each source of error spans (an LLM judge's, xCOMET's, the raters')
        shown_sources = st.multiselect("Error spans from", sources, default=sources, key="sent_span_sources")
    else:
        shown_sources = sources
    for m_name, imp_scores in spanned.items():
        if m_name not in shown_sources:
            continue
        if m_name == "esa":
            what = "marked by the ESA raters (minor, major; omissions are counted in the ratings, not placed)"
        elif source_of(m_name).kind == JUDGE_KIND:
            what = "named by the LLM judge (minor, major, critical; hover for the category)"
        else:
            what = "(minor, major, critical; hover for the confidence)"
        st.markdown(f"**{render.md(m_name)} error spans** {what}")
        st.markdown(
            render.legend([("minor", "err-minor"), ("major", "err-major"), ("critical", "err-critical")]),
            unsafe_allow_html=True,
        )
        for name in [sys_a, sys_b] if sys_b else [sys_a]:
            line_spans = imp_scores.spans.get(name, [])
            spans_i = line_spans[i] if i < len(line_spans) else []
            with st.container(key=f"spans_{views.safe_key(m_name)}_{views.safe_key(name)}"):
                st.markdown(f"*{render.md(name)}*: {len(spans_i)} error span(s)")
                st.markdown(render.error_spans(c.systems[name][i], spans_i), unsafe_allow_html=True)

    _checks_on_line(ds, [sys_a, sys_b] if sys_b else [sys_a], i)

    if anns and HUMAN_MQM in shown_sources:
        st.markdown("**What human raters marked** (MQM; hover a span for its category, severity, rater and comment)")
        st.markdown(
            render.legend([("minor", "err-minor"), ("major", "err-major"), ("critical", "err-critical")]),
            unsafe_allow_html=True,
        )
        for name in [sys_a, sys_b] if sys_b else [sys_a]:
            for ann in anns:
                seg = annotated.annotated_segment(ann, name, i)
                if seg is None:
                    st.caption(f"{render.md(name)}: not rated in {render.md(ann.name)}")
                    continue
                st.markdown(f"*{render.md(name)}* ({render.md(seg.doc)}, segment {render.md(seg.seg_id)})")
                for rater in seg.raters:
                    mine = [e for e in seg.errors if e.by == rater]
                    with st.container(
                        key=f"mqm_{ann.seg_ids.index(seg.seg_id)}_{views.safe_key(name)}_{views.safe_key(rater)}"
                    ):
                        st.markdown(
                            f"<span class='mtl-label'>{render.escape(rater)}: {len(mine)} error(s)</span>"
                            + render.mqm_line(seg.hypothesis, mine),
                            unsafe_allow_html=True,
                        )
                        unplaced = [e for e in mine if e.start is None]
                        if unplaced:
                            st.caption(
                                "Without a span: "
                                + "; ".join(render.md(f"{e.severity} {e.category}") for e in unplaced)
                            )
    if not c.references:
        st.stop()
    st.markdown("**TER alignment** against the best reference")
    st.markdown(
        render.legend(
            [
                ("shifted (underlined)", "shift"),
                ("substitution", "substitution"),
                ("insertion", "insertion"),
                ("deletion", "deletion"),
                ("match", "match"),
            ]
        ),
        unsafe_allow_html=True,
    )
    for name in [sys_a, sys_b] if sys_b else [sys_a]:
        a = evidence["ter"][name]
        if isinstance(a, str):  # past TER's bound: the sentence instead of the alignment
            st.info(render.md(f"{name}: {a}"))
            continue
        counts = a.counts
        st.markdown(
            f"*{render.md(name)}*: {a.edits} edits ({counts['shift']} shifts, {counts['substitution']} substitutions, "
            f"{counts['insertion']} insertions, {counts['deletion']} deletions) against "
            f"{render.md(ref_names[a.reference])}, TER = {a.ter:.{views.metric_decimals('ter')}f}"
        )
        st.markdown(render.ter_alignment(a), unsafe_allow_html=True)

    # drawn only while open (a collapsed expander runs nothing): the matching and its table were a sixth of every run
    # of this page, row clicks included, for a section most visits never open (docs/decisions.md, "Serving many
    # visitors")
    corrections_box = st.expander(
        f"tBLEU corrections (epsilon = {opts.tbleu_epsilon:.2f})", key="sent_tbleu_open", on_change="rerun"
    )
    if corrections_box.open:
        with corrections_box:
            tbleu_corrections(ds, opts, [sys_a, sys_b] if sys_b else [sys_a], i)


def tbleu_corrections(ds, opts, systems: list[str], i: int) -> None:
    """tBLEU's corrections of line ``i`` of each of ``systems``: each hypothesis word matched to a reference word."""
    st.caption(
        "Each hypothesis word matched to a reference word (minimum-cost matching on the affix distance); "
        "words within epsilon are replaced by the reference word and weighted 1 - distance."
    )
    for name in systems:
        rows = tbleu_rows(ds.corpus, opts, name, i)
        st.markdown(f"*{render.md(name)}*")
        if rows:
            export.table(
                pd.DataFrame(rows), name=f"mtlens-tbleu-corrections-{name}", hide_index=True, key=f"tb_corr_{name}"
            )
        else:
            st.caption("No word pair shares a substring.")


def _checks_on_line(ds, systems, i: int) -> None:
    """The translation checks a line fails (issue 60), beside the judges' and the raters' spans: each failing check
    with what it found, placed spans marked in the output."""
    found = cached_checks.checks(ds)
    failing = [
        (name, m, imp.spans[name][i])
        for m, (imp, _) in found.items()
        for name in systems
        if imp.spans.get(name) and imp.spans[name][i]
    ]
    if not found:
        return
    st.markdown("**Translation checks on this line**")
    with st.container(key="sent_checks"):
        if not failing:
            st.caption(f"{render.md(', '.join(systems))}: every check passes on this line.")
        for name, m, spans in failing:
            placed = [x for x in spans if x.start is not None]
            lost = [x.text for x in spans if x.start is None]
            st.markdown(
                f"*{render.md(name)}* fails **{render.md(m)}**"
                + (f": lost {render.md(', '.join(lost))}" if lost else "")
            )
            if placed:
                st.markdown(render.error_spans(ds.corpus.systems[name][i], placed), unsafe_allow_html=True)

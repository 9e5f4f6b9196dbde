"""The two systems side by side: the n-grams each gets right, scores by bucket with paired tests, largest differences.

The body of ``pages/6_Compare_two_systems.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...analysis import policy
from ...analysis.policy import ALPHA, MIN_TEST_LINES, P_DEFINITIONS, test_wording
from ...core.errors import InputError
from ...core.options import Options
from ...exports.checks import one_fails
from ...exports.numbers import share
from ...service import judging
from ...service.inputs import decode_lines
from .. import cached, cached_checks, cached_pairs, documents, export, links, render, state, views
from ..views import metric_decimals
from ..widgets import Steps, open_screen, require_reference


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Compare two systems")
    require_reference(ds, "This page")
    c = ds.corpus
    systems = list(c.system_names)
    if len(systems) < 2:
        st.info("This page needs at least two systems.")
        st.stop()
    sentence_metrics = cached.metric_names(ds, sentence=True)
    links.from_link({"a": ("cmp_a", systems), "b": ("cmp_b", systems), "metric": ("cmp_metric", sentence_metrics)})
    k1, k2, k3 = st.columns(3)
    a = k1.selectbox("System A", systems, key="cmp_a")
    b = k2.selectbox("System B", [s for s in systems if s != a], key="cmp_b")
    metric = k3.selectbox("Metric for buckets and differences", sentence_metrics, key="cmp_metric")
    links.to_link(a=a, b=b, metric=metric)
    named = [m for m, _ in cached.imported(ds).values() if m.categories]  # LLM judges' errors by category
    steps = Steps(
        ["scores", "n-grams", "buckets by length", "buckets by word frequency", "largest differences"]
        + (["errors named"] if named else [])
    )
    steps.next()
    corpus_scores = cached.metric_result(ds, metric, opts).scores
    st.markdown(render.md(agreement_sentence(metric, a, b, corpus_scores[a], corpus_scores[b])))
    if cached.can_test(ds):
        st.caption(render.md(pair_power_sentence(ds, metric, a, b, opts)))

    # --- n-grams
    st.subheader("N-grams one system gets right more often")
    st.caption(
        "Matched in a reference with BLEU's clipping, summed over the corpus; "
        "score = (A + 1) / (A + B + 2): above 0.5 A gets it right more often."
    )
    steps.next()
    diff = cached_pairs.ngram_differences(ds, a, b, opts)
    diff = diff[diff["matched_a"] + diff["matched_b"] >= 2]  # n-grams matched at least twice
    n_sel = st.multiselect("n", [1, 2, 3, 4], default=[1, 2, 3, 4], key="cmp_n")
    top = st.slider("rows", 5, 100, 20, key="cmp_top")
    d = diff[diff["n"].isin(n_sel)]
    cols = ["ngram", "n", "matched_a", "matched_b", "score"]
    t1, t2 = st.columns(2)
    better_a = d.sort_values(["score", "matched_a"], ascending=[False, False]).head(top)
    better_b = d.sort_values(["score", "matched_b"], ascending=[True, False]).head(top)
    t1.markdown(f"**{render.md(a)} (A) better**")
    ev_a = t1.dataframe(
        better_a[cols], hide_index=True, on_select="rerun", selection_mode="single-row", key="cmp_tab_a"
    )
    t2.markdown(f"**{render.md(b)} (B) better**")
    ev_b = t2.dataframe(
        better_b[cols], hide_index=True, on_select="rerun", selection_mode="single-row", key="cmp_tab_b"
    )

    def _examples(row, lines_col):
        lines = row[lines_col][:5]
        if not lines:
            return
        st.markdown(f"Example lines for *{render.md(row['ngram'])}*: " + ", ".join(map(str, lines)))
        for ln in lines[:3]:
            with st.expander(f"line {ln}"):
                st.text(
                    f"ref: {c.reference_streams()[0][ln - 1]}\nA:   {c.systems[a][ln - 1]}\nB:   {c.systems[b][ln - 1]}"
                )
                if st.button("Open in Sentences", key=f"open_{lines_col}_{ln}"):
                    st.session_state.update({"sent_a": a, "sent_b": b, "sent_line": ln, "sent_line_input": ln})
                    st.switch_page("pages/2_Sentences.py")

    for ev, table, col in ((ev_a, better_a, "lines_a"), (ev_b, better_b, "lines_b")):
        if ev is not None and ev.selection.rows:
            _examples(table.iloc[ev.selection.rows[0]], col)

    # --- buckets
    st.subheader("Scores by bucket, each with a paired bootstrap test (B against A)")
    freq_file = st.file_uploader(
        "Word frequencies from (optional): a text file such as the training data's target side",
        type=None,
        key="cmp_freq",
        help="Without it, word frequencies are counted in the first reference (and no word is 'unseen').",
    )
    frequency = None
    if freq_file is not None:
        try:
            frequency = frequency_corpus(freq_file.getvalue(), freq_file.name)
        except InputError as err:
            st.error(str(err))
    drawn = []
    for kind in ("length", "frequency"):
        steps.next()
        res = cached_pairs.buckets(ds, kind, metric, a, b, opts, frequency if kind == "frequency" else None)
        drawn.append(res.n_boot)
        title = (
            f"{metric} by reference length (words)"
            if kind == "length"
            else f"word F-measure by word frequency in {res.frequency_source}"
        )
        df = pd.DataFrame(
            {
                "bucket": [r.bucket for r in res.rows],
                "lines": [r.lines for r in res.rows],
                "A": [r.a for r in res.rows],
                "B": [r.b for r in res.rows],
                "B - A": [r.delta for r in res.rows],
                "p": [r.p_value for r in res.rows],
                "p (Holm)": [r.p_holm for r in res.rows],
                "test": [
                    ("significant" if r.significant else "not significant") if r.tested else "too few lines"
                    for r in res.rows
                ],
            }
        )
        if kind == "frequency":
            df.insert(2, "reference words", [r.words for r in res.rows])
        fig = go.Figure(
            [
                go.Bar(name=f"A: {a}", x=df["bucket"], y=df["A"]),
                go.Bar(name=f"B: {b}", x=df["bucket"], y=df["B"]),
            ]
        )
        fig.update_layout(
            title=title,
            barmode="group",
            height=360,
            margin={"t": 40},
            xaxis_title=title.split(" by ", 1)[1],
            yaxis_title=title.split(" by ")[0],
        )
        for r in res.rows:
            if r.significant:
                fig.add_annotation(x=r.bucket, y=max(r.a, r.b), text="*", showarrow=False, yshift=12, font={"size": 18})
        export.chart(fig, f"cmp_{kind}")
        export.table(
            name=f"mtlens-buckets-{kind}",
            df=df,
            hide_index=True,
            places=dict.fromkeys(("A", "B", "B - A"), views.metric_decimals(metric)),
        )
    st.caption(
        f"* significant: Holm-corrected p < {ALPHA:g} over the tested buckets of the chart. Buckets with fewer "
        f"than {MIN_TEST_LINES} lines are not tested. Test: {test_wording('bootstrap', drawn)}; "
        f"p: {P_DEFINITIONS['bootstrap']}."
    )

    # --- slices (issue 35): opened on request, it tests about twenty slices
    slice_box = st.expander(
        "Slices: the kinds of lines where the two differ most (domain, document, length, digits, names, punctuation)",
        key="cmp_slices_open",
        on_change="rerun",
    )
    if slice_box.open:
        with slice_box:
            resample = "segments"
            if c.documents is not None:
                resample = st.radio("Resample", ["segments", "documents"], horizontal=True, key="cmp_slices_resample")
            doc = cached_pairs.slices(ds, metric, a, b, opts, resample)
            export.table(
                name="mtlens-slices",
                df=slices_table(doc),
                hide_index=True,
                key="cmp_slices_table",
                places=dict.fromkeys(
                    ("A", "B", "B - A"), views.metric_decimals(metric, [doc["slices"][0]["a"]] if doc["slices"] else [])
                ),
            )
            st.caption(
                f"Each slice's {metric} over its lines; B - A with a paired bootstrap test ({doc['resamples']:,} "
                f"resamples), Holm-corrected over the slices tested; slices under {doc['min_lines']} lines are not "
                "tested. Largest differences first."
            )

    _checks_differ(ds, a, b)

    # --- largest differences
    st.subheader("Where the two differ most")
    steps.next()
    res = cached.metric_result(ds, metric, opts)
    sa, sb = res.sentence_scores(a), res.sentence_scores(b)
    keep = None
    if c.documents is not None:  # the list kept to a domain or a document, as on the Sentences page
        d1, d2 = st.columns(2)
        domain = (
            d1.selectbox("Domain", documents.domain_choices(c), key="cmp_domain")
            if c.domains is not None
            else views.ANY
        )
        document = d2.selectbox("Document", documents.document_choices(c, domain), key="cmp_doc")
        keep = documents.lines_of(c, domain, document)
    order = largest_differences(sa, sb, keep)
    export.table(
        name="mtlens-largest-differences",
        df=pd.DataFrame(
            {
                "line": order + 1,
                f"{metric} A": sa[order],
                f"{metric} B": sb[order],
                "B - A": (sb - sa)[order],
                "A": [c.systems[a][i][:100] for i in order],
                "B": [c.systems[b][i][:100] for i in order],
            }
        ),
        hide_index=True,
    )
    if named:
        steps.next()
        _error_categories(named, a, b)
    steps.done()
    if st.button("Inspect these lines in Sentences (sorted by |B - A|)", key="cmp_to_sentences"):
        st.session_state.update({"sent_a": a, "sent_b": b, "sent_metric": metric, "sent_sort": "largest |B - A|"})
        st.switch_page("pages/2_Sentences.py")


def _checks_differ(ds: state.Dataset, a: str, b: str) -> None:
    """The translation checks (issue 60): the lines where one of the two fails a check and the other passes."""
    found = cached_checks.checks(ds)
    if not found:
        return
    st.subheader("Lines where one fails a translation check and the other passes")
    names = [m for m, (_, r) in found.items() if not r.higher_is_better]
    counts = {m: len(one_fails(found[m][1], a, b, ds.corpus.systems[a], ds.corpus.systems[b])) for m in names}
    picked = st.selectbox(
        "Check", names, key="cmp_check", format_func=lambda m: f"{m} ({counts[m]} line{'s' * (counts[m] != 1)})"
    )
    rows = one_fails(found[picked][1], a, b, ds.corpus.systems[a], ds.corpus.systems[b])
    with st.container(key="cmp_checks"):
        if rows:
            export.table(pd.DataFrame(rows), name=f"mtlens-{picked.replace(':', '-')}-differs", hide_index=True)
        else:
            st.caption(f"{render.md(a)} and {render.md(b)} fail {render.md(picked)} on the same lines.")


def _error_categories(named, a: str, b: str) -> None:
    """Each LLM judge's errors in A and B by category and severity (counted over the lines it scored)."""
    st.subheader("Errors the LLM judges named, by category")
    for metric in named:
        rows = judging.error_categories(metric, [a, b])
        if not rows:
            st.caption(render.md(f"{metric.name} named no error in either system."))
            continue
        export.table(name=f"mtlens-error-categories-{metric.name.replace(':', '-')}", df=pd.DataFrame(rows),
                     hide_index=True)  # fmt: skip
        st.caption(
            render.md(
                f"{metric.name}: every error it named (placed in the line or not), per 100 of the lines it scored "
                f"({metric.rated.get(a, 0):,} of A's, {metric.rated.get(b, 0):,} of B's)."
            )
        )


def frequency_corpus(data: bytes, name: str) -> tuple[tuple[str, ...], str]:
    """An uploaded frequency corpus: its lines and its name (an InputError for a bad file)."""
    return tuple(decode_lines(data, name)), name


def agreement_sentence(metric: str, a: str, b: str, score_a: float, score_b: float) -> str:
    """One sentence on a difference of two corpus scores and what it means to humans (plain text)."""
    from ...analysis.agreement import human_agreement

    delta = score_b - score_a
    est = human_agreement(metric, delta)
    where = (
        f"humans agree with a {metric} difference of this size on about {share(est)} of system pairs (Kocmi et al. 2024)"
        if est is not None
        else f"{metric} has no published fit of how often humans agree with its differences"
    )
    return f"{metric}: {b} − {a} = {delta:+.{metric_decimals(metric, [score_a, score_b])}f}; {where}."


def largest_differences(sa, sb, keep: set[int] | None = None, top: int = 20):
    """The (0-based) lines where two systems' sentence scores differ most, among ``keep`` (1-based) if given."""
    import numpy as np

    gap = np.abs(np.asarray(sb) - np.asarray(sa))
    candidates = np.arange(len(gap)) if keep is None else np.asarray(sorted(i - 1 for i in keep), dtype=np.int64)
    return candidates[np.argsort(gap[candidates], kind="stable")[::-1][:top]]


def slices_table(doc: dict) -> pd.DataFrame:
    """The slices of Compare two systems (:func:`mtlens.analysis.slices.slices`) as a table."""
    return pd.DataFrame(
        [
            {
                "slice": r["slice"],
                "kind": r["kind"],
                "lines": r["lines"],
                "A": r["a"],
                "B": r["b"],
                "B - A": r["delta"],
                "p": r["p_value"],
                "p (Holm)": r["p_holm"],
                "significant": r["significant"],
            }
            for r in doc["slices"]
        ]
    )


def pair_power_sentence(ds: state.Dataset, metric: str, a: str, b: str, opts: Options) -> str:
    """What this test set can detect for the two systems (Compare two systems)."""
    result = cached.metric_result(ds, metric, opts)
    mdd = cached_pairs.pair_power(ds, metric, a, b, opts)
    places = metric_decimals(metric, list(result.scores.values()))
    delta = result.scores[b] - result.scores[a]
    verdict = "larger" if abs(delta) >= mdd else "smaller"
    return (
        f"With {ds.corpus.n_lines:,} lines this test set detects a difference of {mdd:.{places}f} or more between these "
        f"two systems with {share(policy.POWER)} power (paired bootstrap, alpha {ALPHA:g}); their difference, {delta:+.{places}f}, is {verdict}."
    )

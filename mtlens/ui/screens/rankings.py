"""The rankings: every system by every metric, with signatures, confidence intervals, clusters and exports.

The body of ``pages/1_Rankings.py`` (the page itself only sets the page up and calls :func:`page`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...analysis.autorank import autorank
from ...analysis.pitfalls import neural_names
from ...core.options import Options
from ...exports.checks import checks_rows
from ...exports.excel import result_sheets, to_xlsx
from ...exports.html import build_html_report
from ...exports.numbers import ERROR_BAR_COLOUR
from ...exports.tables import best_first, to_csv, to_latex
from ...service import judging
from ...service.rankings import LARGE, METRICS_PARAM, SORT_PARAM, clusters_note, default_metrics
from ...service.rankings import link_params as rankings_link
from ...service.rankings import table as ranking_table
from ...service.results import MetricResult, options_key
from ...service.run_facts import cost_axes
from .. import cached, cached_checks, costs, export, links, render, state, uploads, views, workspace
from ..neural_panel import judges_panel
from ..neural_panel import panel as neural_panel
from ..widgets import open_screen
from .presentation import pins


def page() -> None:
    """Draw the page (inside the page guard)."""
    ds, opts = open_screen("Rankings")
    neural_panel(ds)
    judges_panel(ds)

    size = ds.corpus.n_lines * len(ds.corpus.systems)
    names = cached.metric_names(ds, with_checks=True)
    metrics_key = f"rank_metrics_{size > LARGE}_{len(names)}"  # a metric that appears (a finished job) is shown
    links.from_link({SORT_PARAM: ("rank_sort", names)}, lists={METRICS_PARAM: (metrics_key, names)})
    defaults = default_metrics(names, size)
    chosen = st.multiselect(
        "Metrics",
        names,
        default=None if metrics_key in st.session_state else defaults,
        key=metrics_key,
        help="TER and tBLEU take about a minute per 100,000 system lines; they are opt-in for large uploads.",
    )
    if size > LARGE:
        st.caption(f"{size:,} system lines: TER and tBLEU are not computed unless you add them above.")
    shown_metrics = [m for m in names if m in chosen] or ["bleu"]
    sort_by = st.selectbox("Sort by", shown_metrics, key="rank_sort")
    links.to_link(**rankings_link(shown_metrics, defaults, sort_by))  # what differs from the defaults
    resample = "segments"
    if ds.corpus.documents is not None:  # intervals and clusters over whole documents, on request
        links.from_link({"resample": ("rank_resample", ["segments", "documents"])})
        resample = st.radio(
            "Intervals and clusters resample",
            ["segments", "documents"],
            horizontal=True,
            key="rank_resample",
            help="Segments: sacrebleu's way. Documents: whole documents are drawn (their segments are correlated).",
        )
        links.to_link(resample=None if resample == "segments" else resample)

    placeholder = st.empty()
    bar = st.progress(0.0, text="Scoring…")
    results: dict[str, MetricResult] = {}
    testable = cached.can_test(ds)
    tested = not testable or cached.comparison_key(ds, sort_by, opts, resample=resample) in cached.COMPARISONS
    groups = cached.metric_groups(shown_metrics)
    for k, group in enumerate(groups):  # the table grows: the fast metrics, then the slow ones, then the test
        bar.progress(len(results) / len(shown_metrics), text=f"Scoring {', '.join(group)}…")
        results.update(cached.metric_results(ds, group, opts))
        results = {m: results[m] for m in shown_metrics if m in results}
        if not (tested and cached.scored(ds, [m for g in groups[k + 1 :] for m in g], opts)):
            # more to wait for: the table so far (with nothing left, only the final table is drawn: each costs the server)
            placeholder.dataframe(export.numbers(ranking_table(results, sort_by)), hide_index=True)
    metrics = list(results)
    cmp = None
    if testable:
        cmp = cached.comparison(
            ds, sort_by, opts, progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg), resample=resample
        )
    bar.empty()
    facts = cached.run_facts(ds)
    tuned = {n: f["tuned_on"] for n, f in facts.items()}
    table = ranking_table(results, sort_by, cmp, tuned)
    marks = costs.tuned_note(results, facts)
    placeholder.dataframe(costs.shade(export.numbers(table), table, marks), hide_index=True, key="rank_table")
    if len(ds.corpus.systems) > 1 and not testable:
        st.info(cached.too_few_lines(ds))
    st.caption(clusters_note(metrics, cmp))
    for note in cmp.notes if cmp is not None else ():  # the test's power: resamples for the number of pairs
        st.caption(render.md(note[0].upper() + note[1:] + "."))
    checked = cached.reference_notes(ds)
    if checked:  # a bad reference misleads every reference-based metric at once (issue 50)
        with st.container(key="rank_reference"):
            st.warning(
                render.md("Is the reference the problem? " + " ".join(n[0].upper() + n[1:] + "." for n in checked))
            )
    checks_table(ds)
    traps = cached.pitfalls(ds, metrics)
    if traps is not None and traps.any:  # before anyone reads a neural score (Zouhar et al. 2024)
        with st.container(key="rank_pitfalls"):
            st.warning(render.md(traps.headline(neural_names(metrics))))
            if traps.rows():
                counts = pd.DataFrame(traps.rows())
                places = {c: 0 for c in counts.columns if c != "system"}
                export.table(counts, name="mtlens-pitfalls", hide_index=True, key="rank_pitfalls_table", places=places)
                st.caption(render.md(traps.caption()))
    for m_name, (imp_scores, _) in cached.imported(ds).items():
        if imp_scores.spans:
            st.markdown(f"**{render.md(m_name)} error spans per system**")
            counts = span_counts(ds, imp_scores.spans)
            export.table(counts, name=f"mtlens-{m_name}-spans", hide_index=True, key=f"rank_spans_{m_name}")
        if imp_scores.usage and m_name in results:  # an LLM judge: what its scores cost
            st.markdown(f"**{render.md(m_name)}: tokens and cost per system**")
            file = f"mtlens-{m_name.replace(':', '-')}-cost"
            export.table(pd.DataFrame(judging.usage_rows(imp_scores)), name=file, hide_index=True, key=f"rank_{file}")
            total = [n for n in imp_scores.notes if "the answers behind these scores" in n]
            if total:
                st.caption(
                    render.md(total[0] + " (each answer once; a system's row counts every answer it stands on).")
                )
    priced = {n: f["cost"] for n, f in facts.items()}
    if cost_axes(priced):  # at least two systems say what they cost (or how fast they are)
        with st.expander("Quality against cost (Pareto front)", expanded=True, key="rank_cost_open"):
            metric = st.selectbox("Quality", metrics, index=metrics.index(sort_by), key="rank_cost_metric")
            r = results[metric]
            costs.pareto_chart(r.scores, priced, metric, r.higher_is_better, "rank_pareto")
    if ds.set_id:
        st.caption(workspace.quick_link(ds))
    st.markdown("**Signatures**")
    # plain preformatted text: st.code's highlighter is a 1.6 MB script a new browser session would load first
    st.container(key="rank_signatures").text("\n".join(f"{m}: {r.signature}" for m, r in results.items()))

    c1, c2, c3, c4 = st.columns(4)
    files = exports(ds, results, sort_by, cmp)
    c1.download_button(
        "Download CSV",
        files["csv"](),
        file_name=uploads.file_name("mtlens-scores", "csv"),
        mime="text/csv",
        key="dl_csv",
    )
    c2.download_button(
        "Download LaTeX",
        files["tex"](),
        file_name=uploads.file_name("mtlens-scores", "tex"),
        mime="text/x-tex",
        key="dl_latex",
    )

    c4.download_button(
        "Download Excel",
        files["xlsx"],
        file_name=uploads.file_name("mtlens-scores", "xlsx"),
        mime=export.XLSX_MIME,
        key="dl_xlsx",
        help="one sheet per table: scores, signatures, the sentence table (one column per metric), intervals",
    )
    # a prepared report belongs to the data, the human files, the options and the metrics it was made from
    prepared_for = report_key(ds, opts, results)
    if c3.button(
        "Prepare HTML report", key="rank_report_make", help="one file with tables, charts, clusters, signatures"
    ):
        with st.spinner("Bootstrap intervals for every metric…"):
            st.session_state["rank_report"] = (prepared_for, html_report(ds, opts, results, testable))
    prepared = st.session_state.get("rank_report")
    if prepared and prepared[0] == prepared_for:
        c3.download_button(
            "Download HTML report",
            prepared[1],
            file_name=uploads.file_name("mtlens-report", "html"),
            mime="text/html",
            key="dl_report",
        )

    # the two sections below are drawn only while open (a collapsed expander runs nothing): a chart loads
    # plotly.js in the browser, about a second of a new browser session's first visit (docs/decisions.md,
    # "Reopening a set")
    auto_box = st.expander(
        "AutoRank: several metrics in one ranking (as WMT24)", key="rank_auto_open", on_change="rerun"
    )
    if auto_box.open:
        with auto_box:
            picked = st.multiselect(
                "Metrics to aggregate", metrics, default=[m for m in metrics if m in ("chrf", "ter")], key="rank_auto"
            )
            if picked:
                auto = autorank_table(results, picked)
                export.table(auto, name="mtlens-autorank", hide_index=True, key="rank_auto_table")
                st.caption(
                    "Each metric's system scores rescaled linearly so that the best system gets 1 and the worst N; the "
                    "AutoRank is their mean (lower is better). The table shows every input."
                )
    if ds.corpus.domains is not None:  # WMT XML with domains (or a documents file): each domain on its own
        domain_box = st.expander(
            "By domain: every metric on each domain's lines", key="rank_domain_open", on_change="rerun"
        )
        if domain_box.open:
            with domain_box:
                export.table(
                    domain_table(ds, results, sort_by),
                    name="mtlens-domains",
                    hide_index=True,
                    key="rank_domain_table",
                )
                st.caption(
                    "Each domain's score is the metric over that domain's lines alone (the same number sacrebleu "
                    "gives for those lines); systems in the order of the whole set's ranking."
                )
    chart_box = st.expander("Chart: scores with 95% confidence intervals", key="rank_chart_open", on_change="rerun")
    if chart_box.open:
        with chart_box:
            chart_metric = st.selectbox("Metric", metrics, key="rank_chart_metric")
            r = results[chart_metric]
            names = best_first(r)
            ci = None
            if testable:
                ccmp = cached.comparison(ds, chart_metric, opts, resample=resample)
                ci = [ccmp.systems[n].ci for n in names]
            fig = go.Figure(
                go.Bar(
                    x=list(names),
                    y=[r.scores[n] for n in names],
                    error_y={"type": "data", "array": ci, "visible": ci is not None, "color": ERROR_BAR_COLOUR},
                    marker_color="#4C78A8",
                    hovertemplate=f"%{{x}}: %{{y:{views.hover_format(chart_metric, r.scores.values())}}}<extra></extra>",
                )
            )
            fig.update_layout(xaxis_title="system", yaxis_title=chart_metric, height=380, margin={"t": 20, "b": 40})
            export.chart(fig, "rank_chart", f"mtlens-{chart_metric}")


def checks_table(ds: state.Dataset) -> None:
    """The translation checks beside the metrics (issue 60): each system's percent of lines failing each check the
    set can run (and the term success rate with a glossary); nothing without a source."""
    found = cached_checks.checks(ds)
    if not found:
        return
    results = {m: r for m, (_, r) in found.items()}
    with st.container(key="rank_checks"):
        st.markdown("**Translation checks**: percent of each system's lines failing (lower is better)")
        table = pd.DataFrame(checks_rows(results))
        export.table(
            table, name="mtlens-checks", hide_index=True, key="rank_checks_table", places=dict.fromkeys(results, 2)
        )
        st.caption(
            "A line fails a check when a number, placeholder, tag, URL of the source is lost, when it is left "
            "untranslated, in another language, empty, looping, or far off the usual length; term: the glossary's "
            "term success rate (higher is better). Add a check to the metrics above to rank and test with it."
        )
        if "term" in found:
            with st.expander("Terms: which each system misses", key="rank_terms_open"):
                rows = cached_checks.term_rows(ds)
                flat = [
                    {k: v for k, v in r.items() if k != "missed"}
                    | {f"missed by {s}": n for s, n in r["missed"].items()}
                    for r in rows
                ]
                export.table(pd.DataFrame(flat), name="mtlens-terms", hide_index=True, key="rank_terms_table")


def span_counts(ds: state.Dataset, spans: dict) -> pd.DataFrame:
    """Imported error spans per system and severity."""
    from ..render import SEVERITIES

    return pd.DataFrame(
        [
            {
                "system": s,
                **{sev: sum(sp.severity == sev for line in spans.get(s, []) for sp in line) for sev in SEVERITIES},
            }
            for s in ds.corpus.system_names
        ]
    )


def exports(ds: state.Dataset, results: dict, sort_by: str, cmp=None) -> dict[str, Callable[[], bytes | str]]:
    """The Rankings downloads (file suffix -> a function making the file): CSV, LaTeX and Excel."""
    comparisons = {sort_by: cmp} if cmp else None
    return {
        "csv": lambda: to_csv(results, by=sort_by),
        "tex": lambda: to_latex(results, by=sort_by),
        "xlsx": lambda: to_xlsx(result_sheets(ds.corpus, results, comparisons, by=sort_by)),
    }


def report_key(ds: state.Dataset, opts: Options, results: dict) -> tuple:
    """What a prepared HTML report depends on: the data, the human files, the metrics and their options."""
    return (ds.fingerprint, ds.human_fingerprint, tuple((m, options_key(m, opts)) for m in results))


def html_report(ds: state.Dataset, opts: Options, results: dict, testable: bool) -> str:
    comps = {m: cached.comparison(ds, m, opts) for m in results} if testable else {}
    return build_html_report(
        ds.corpus, results, comps, ds.name or "mtlens report", pins(ds), reference_notes=cached.reference_notes(ds)
    )


def autorank_table(results: dict, picked: Sequence[str]) -> pd.DataFrame:
    agg = autorank({m: results[m].scores for m in picked}, {m: results[m].higher_is_better for m in picked})
    return pd.DataFrame([{"system": s, **v} for s, v in agg.items()]).sort_values("autorank", kind="stable")


def domain_table(ds: state.Dataset, results: dict, sort_by: str) -> pd.DataFrame:
    """Rankings by domain: one row per system, one column per domain and metric (``news bleu``), and each
    domain's significance cluster on the sort metric (its own paired bootstrap over its lines)."""
    from ...analysis.groups import group_clusters, group_scores
    from ...analysis.groups import labels_for as groups_labels
    from ...analysis.policy import SEED

    groups = group_scores(results, groups_labels(ds.corpus, "domain"))
    r = results[sort_by]
    clusters = group_clusters(r, groups, SEED)
    order = best_first(r)
    rows = []
    for s in order:
        row: dict[str, object] = {"system": s}
        for g in groups:
            for m in results:
                row[f"{g.name} {m} ({len(g.lines):,} lines)"] = g.scores[m][s]
            row[f"{g.name} cluster ({sort_by})"] = clusters[g.name][s]
        rows.append(row)
    return pd.DataFrame(rows)

"""View functions: what a page draws, computed from the session's data (docs/architecture.md).

Pages read widgets, call these (and the cached wrappers in :mod:`mtlens.ui.cached`), and draw what they
return; they import nothing of the core but :mod:`mtlens.core.errors` (a test keeps it so). The tables here
are pandas frames ready for ``st.dataframe``; the evidence of one line is typed results of the core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from ..core.errors import InputError
from ..core.options import Options
from ..service import comparisons
from ..service import presentation as report
from ..service.analyses import (
    autorank,
    merge_correlations,
    ngram_matches,
    pearson,
    segment_pairs,
    sentence_table,
    sort_options,
    ter_alignment,
)
from ..service.comparisons import (
    ALPHA,
    ALPHA_CHOICES,
    CI_RESAMPLES,
    MAX_SAMPLES,
    MIN_TEST_LINES,
    P_DEFINITIONS,
    SEED,
    test_wording,
)
from ..service.evaluation import options_for
from ..service.inputs import decode_lines
from ..service.presentation import (
    NOT_SIGNIFICANT_COLOUR,
    SIGNIFICANT_COLOUR,
    SLIDE_CSS,
    build_html_report,
    p_text,
    presentation_slides,
)
from ..service.rankings import LARGE, METRICS_PARAM, SORT_PARAM, clusters_note, default_metrics
from ..service.rankings import link_params as rankings_link
from ..service.rankings import table as ranking_table
from ..service.results import REGISTRY, make_metric, metric_names, options_key
from ..service.runs import families
from . import cached, state

__all__ = [
    "ALPHA",
    "ALPHA_CHOICES",
    "CI_RESAMPLES",
    "LARGE",
    "MAX_SAMPLES",
    "METRICS_PARAM",
    "MIN_TEST_LINES",
    "P_DEFINITIONS",
    "SEED",
    "SLIDE_CSS",
    "SORT_PARAM",
    "autorank_table",
    "best_m_marks",
    "clusters_note",
    "correlation_table",
    "dataset_table",
    "default_metrics",
    "exports",
    "frequency_corpus",
    "hover_format",
    "html_report",
    "line_evidence",
    "may_pin",
    "merge_correlations",
    "metric_clusters_table",
    "metric_decimals",
    "overview",
    "overview_note",
    "p_text",
    "pearson",
    "pin",
    "pins",
    "presentation",
    "ranking_table",
    "rankings_link",
    "report_key",
    "segment_pairs",
    "sentence_table",
    "significance_colorscale",
    "significance_exports",
    "sort_options",
    "span_counts",
    "tbleu_rows",
    "test_wording",
    "unpin",
]


# --------------------------------------------------------------------------- Rankings
def span_counts(ds: state.Dataset, spans: dict) -> pd.DataFrame:
    """Imported error spans per system and severity."""
    from .render import SEVERITIES

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
        "csv": lambda: report.to_csv(results, by=sort_by),
        "tex": lambda: report.to_latex(results, by=sort_by),
        "xlsx": lambda: report.to_xlsx(report.result_sheets(ds.corpus, results, comparisons, by=sort_by)),
    }


def report_key(ds: state.Dataset, opts: Options, results: dict) -> tuple:
    """What a prepared HTML report depends on: the data, the human files, the metrics and their options."""
    return (ds.fingerprint, ds.human_fingerprint, tuple((m, options_key(m, opts)) for m in results))


def html_report(ds: state.Dataset, opts: Options, results: dict, testable: bool) -> str:
    comps = {m: cached.comparison(ds, m, opts) for m in results} if testable else {}
    return build_html_report(ds.corpus, results, comps, ds.name or "mtlens report", pins(ds))


# --------------------------------------------------------------------------- pins and the presentation
def pins(ds: state.Dataset) -> list:
    """The set's pinned sentences (:class:`mtlens.storage.store.Pin`); none for the sample or an unsaved upload."""
    if not ds.set_id or ds.read_only:
        return []
    try:
        return state.store().pins(ds.set_id)
    except InputError:
        return []


def may_pin(ds: state.Dataset) -> str | None:
    """None when this visitor may pin sentences of the set, else why not (one sentence)."""
    if not ds.set_id or ds.read_only:
        return "Pins are kept with a saved set: the bundled sample is read-only (upload your files to pin sentences)."
    if state.may_change(ds.set_id):
        return None
    return "Only the set's owner pins sentences; this link shows the set read-only."


def pin(ds: state.Dataset, line: int, systems: Sequence[str], metric: str, note: str) -> None:
    from ..service.sets import Pin
    from . import identity

    state.store().pin(ds.set_id, Pin(line, tuple(systems), metric, note), identity.visitor())


def unpin(ds: state.Dataset, line: int, systems: Sequence[str]) -> None:
    from . import identity

    state.store().unpin(ds.set_id, line, systems, identity.visitor())


def presentation(ds: state.Dataset, opts: Options, metric: str) -> list[tuple[str, str]]:
    """The presentation's slides (title, HTML) for ``metric``: ranking, significance matrix, pinned sentences."""
    wanted = {metric, *(p.metric for p in pins(ds))}
    results = cached.metric_results(ds, [m for m in cached.metric_names(ds) if m in wanted], opts)
    results = {metric: results.pop(metric), **results}
    cmp = cached.comparison(ds, metric, opts) if cached.can_test(ds) else None
    history = None
    if metric in REGISTRY and families(state.store(), ds.set_id):  # a set with runs of a family: their history
        history = cached.history(ds, None, [metric], None, opts)
    return presentation_slides(ds.corpus, results, cmp, pins(ds), history)


def autorank_table(results: dict, picked: Sequence[str]) -> pd.DataFrame:
    agg = autorank({m: results[m].scores for m in picked}, {m: results[m].higher_is_better for m in picked})
    return pd.DataFrame([{"system": s, **v} for s, v in agg.items()]).sort_values("autorank", kind="stable")


# --------------------------------------------------------------------------- Sentences
def line_evidence(ds: state.Dataset, opts: Options, systems: Sequence[str], i: int) -> dict:
    """The machine evidence of line ``i`` for each system: word n-gram matches (BLEU's tokenizer and
    options) and the TER alignment against the best reference."""
    c = ds.corpus
    seg_refs = [r[i] for r in c.reference_streams()]
    bleu, ter = make_metric("bleu", opts), make_metric("ter", opts)
    return {
        "references": seg_refs,
        "ngrams": {s: ngram_matches(c.systems[s][i], seg_refs, bleu, max_order=4) for s in systems},
        "ter": {s: _alignment_or_sentence(c.systems[s][i], seg_refs, ter) for s in systems},
    }


def _alignment_or_sentence(line: str, refs: Sequence[str], ter):
    """The TER alignment, or the sentence why this line is past TER's bound (the page says it)."""
    try:
        return ter_alignment(line, refs, ter)
    except InputError as err:
        return str(err)


def tbleu_rows(ds: state.Dataset, opts: Options, system: str, i: int) -> list[dict]:
    """tBLEU's corrections of one line: each hypothesis word within the affix distance of its matched
    reference word."""
    c = ds.corpus
    seg_refs = [r[i] for r in c.reference_streams()]
    per_ref = make_metric("tbleu", opts).corrections(c.systems[system][i], seg_refs)
    return [
        {
            "reference": c.reference_names[k],
            "hypothesis word": x.hyp_word,
            "reference word": x.ref_word,
            "affix distance": x.distance,
            "replaced": x.replaced,
            "weight": x.weight,
        }
        for k, corr in enumerate(per_ref)
        for x in corr
        if x.distance < 1
    ]


# --------------------------------------------------------------------------- Significance, Compare
def significance_exports(metric: str, cmp) -> dict[str, str]:
    return {"csv": report.comparisons_to_csv({metric: cmp}), "tex": report.comparisons_to_latex({metric: cmp})}


def frequency_corpus(data: bytes, name: str) -> tuple[tuple[str, ...], str]:
    """An uploaded frequency corpus: its lines and its name (an InputError for a bad file)."""
    return tuple(decode_lines(data, name)), name


# --------------------------------------------------------------------------- Overview
def overview_note(long) -> str:
    """The Overview's caption: how each set was scored, and the test its clusters come from, naming the
    resamples the sets' tests drew (one count, or the range; the download's ``resamples`` column has each)."""
    drawn = [int(n) for n in long["resamples"].dropna()] if "resamples" in long else []
    test = (
        comparisons.test_wording("bootstrap", drawn)
        if drawn
        else f"no set had the {comparisons.MIN_TEST_LINES} lines a test needs"
    )
    return (
        "Each set is scored with the options of the sidebar and its own language's tokenizer and TER defaults. "
        "Cluster: systems in score order, split only where every system above is significantly better than every "
        f"system below ({test})."
    )


def overview_metrics() -> list[str]:
    return list(metric_names())


def overview(sets, metric: str, opts: Options, progress: Callable[[float, str], None], warn: Callable[[str], None]):
    """Systems by saved set for one metric, each set scored with its own language's defaults, with its
    significance clusters. Returns ``(long, shown)``: one row per (set, system) with the set's id, and the
    systems x sets table (columns labelled by name, with the start of the id where names repeat)."""
    rows = []
    for k, info in enumerate(sets):
        progress(k / max(len(sets), 1), f"Scoring {info.name}…")
        try:
            sds = state.saved_dataset(info.id)
        except InputError as err:
            warn(f"{info.name}: {err}")
            continue
        set_opts = options_for(sds.language, opts)
        try:
            result = cached.metric_result(sds, metric, set_opts)
        except InputError as err:  # e.g. a set made from annotations has no reference for BLEU
            warn(f"{info.name}: {err}")
            continue
        cluster, drawn = {}, None
        if cached.can_test(sds):
            cmp = cached.comparison(sds, metric, set_opts)
            cluster = {n: i + 1 for i, group in enumerate(cmp.clusters) for n in group}
            drawn = cmp.n
        for system, value in result.scores.items():
            rows.append(
                {
                    "set id": info.id,
                    "set": info.name,
                    "language pair": info.language_pair or "",
                    "system": system,
                    metric: value,
                    "cluster": cluster.get(system),
                    "resamples": drawn,
                }
            )
    long = pd.DataFrame(rows)
    if long.empty:
        return long, long
    labels = report.set_labels([(info.id, info.name) for info in sets])
    wide = long.pivot_table(index="system", columns="set id", values=metric, aggfunc="first")
    clusters = long.pivot_table(index="system", columns="set id", values="cluster", aggfunc="first", dropna=False)
    clusters = clusters.reindex(index=wide.index, columns=wide.columns)  # sets without tests have no cluster
    places = metric_decimals(metric, long[metric])
    shown = pd.DataFrame(
        {
            col: [
                "" if pd.isna(v) else f"{v:.{places}f}" + ("" if pd.isna(k) else f" ({int(k)})")
                for v, k in zip(wide[col], clusters[col], strict=True)
            ]
            for col in wide.columns
        },
        index=wide.index,
    ).rename(columns=labels)
    return long, shown


# --------------------------------------------------------------------------- human annotations
ANY = "(any)"


def annotation_choices(anns) -> dict[str, list[str]]:
    """The values the Sentences page filters annotated lines by: category, severity, rater, document."""
    cats, sevs, raters, docs = set(), set(), set(), set()
    for ann in anns:
        for seg in ann.segments.values():
            docs.add(seg.doc)
            raters.update(seg.raters)
            for e in seg.errors:
                cats.add(e.category)
                sevs.add(e.severity)
    return {
        "category": [ANY, *sorted(cats)],
        "severity": [ANY, *sorted(sevs)],
        "rater": [ANY, *sorted(raters)],
        "document": [ANY, *sorted(docs)],
    }


def annotated_lines(anns, system: str, category=ANY, severity=ANY, rater=ANY, document=ANY) -> set[int] | None:
    """Line numbers (1-based) of ``system`` whose annotations match the filter (None: no filter set). A line
    matches when it is in the document and one error matches category, severity and rater together."""
    if (category, severity, rater, document) == (ANY, ANY, ANY, ANY):
        return None
    lines = set()
    for ann in anns:
        for k, seg_id in enumerate(ann.seg_ids, start=1):
            seg = ann.segments.get((system, seg_id))
            if seg is None or (document != ANY and seg.doc != document):
                continue
            if (category, severity, rater) == (ANY, ANY, ANY) or any(
                (category == ANY or e.category == category)
                and (severity == ANY or e.severity == severity)
                and (rater == ANY or e.rater == rater)
                for e in seg.errors
            ):
                lines.add(k)
    return lines


def annotated_segment(ann, system: str, i: int):
    """The annotated segment of line ``i`` (0-based) of ``system``, or None when it was not rated."""
    return ann.segments.get((system, ann.seg_ids[i])) if i < len(ann.seg_ids) else None


def safe_key(text: str) -> str:
    """A widget or container key made of letters, digits, ``-`` and ``_`` only (for a CSS class)."""
    import hashlib

    clean = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in text)[:40]
    return f"{clean}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"


def annotation_summaries(anns) -> dict[str, pd.DataFrame]:
    """The Annotations page's tables: error counts (long), per-100 pivot, document scores, rater agreement."""
    from ..service.analyses import document_scores, error_counts, rater_agreement

    counts = pd.DataFrame([{"file": a.name, **r} for a in anns for r in error_counts(a)])
    docs = pd.DataFrame([{"file": a.name, **r} for a in anns for r in document_scores(a)])
    agreement = pd.DataFrame([{"file": a.name, **r} for a in anns for r in rater_agreement(a)])
    per100 = (
        counts.pivot_table(index=["system", "category"], columns="severity", values="per 100 segments", aggfunc="sum")
        .fillna(0.0)
        .reset_index()
        if not counts.empty
        else counts
    )
    doc_table = (
        docs.pivot_table(index="system", columns="document", values="mqm", aggfunc="mean").reset_index()
        if not docs.empty
        else docs
    )
    return {"counts": counts, "per100": per100, "documents": doc_table, "agreement": agreement}


def metric_disagreements(ds: state.Dataset, anns, metric: str, system: str, opts: Options) -> pd.DataFrame:
    """The lines of ``system`` where ``metric`` and MQM disagree most (the first annotation file)."""
    from ..service.analyses import disagreements

    result = cached.metric_result(ds, metric, opts)
    scores = result.sentence_scores(system)
    if not result.higher_is_better:
        scores = -scores
    rows = disagreements(anns[0], system, scores)
    return pd.DataFrame(rows)


def span_overlaps(ds: state.Dataset, anns) -> pd.DataFrame:
    """Character-level precision, recall and F1 of every imported metric's error spans against the raters'."""
    from ..service.analyses import span_overlap

    rows = []
    for name, (imp, _) in cached.imported(ds).items():
        if imp.spans:
            rows.append({"metric": name, **span_overlap(anns[0], imp.spans)})
    return pd.DataFrame(rows)


def significance_colorscale(alpha: float) -> list[list]:
    """A plotly colour scale for p-values in 0..1 with a hard step at ``alpha``: every significant cell one
    saturated colour (darker the smaller p), every other cell the same pale grey, so p = 0.057 never looks
    like p = 0.006."""
    a = min(max(float(alpha), 1e-9), 1.0)
    return [
        [0.0, "#0b4f22"],
        [a * 0.999, SIGNIFICANT_COLOUR],
        [a, NOT_SIGNIFICANT_COLOUR],
        [1.0, NOT_SIGNIFICANT_COLOUR],
    ]


def best_m_marks(best, pooled: pd.DataFrame, criteria: Sequence[tuple[str, str]]) -> list[dict]:
    """The labels of the best M on the Words vs characters sweep: one per distinct M (criteria that agree
    share it, "best M=21: Pearson r, Cohen's kappa"), at the highest of their points; labels of nearby
    M (within 3) alternate above and below so they never overlap.

    ``criteria``: (column of ``pooled`` and attribute of ``best``, display name)."""
    groups: dict[int, list[tuple[str, str]]] = {}
    for col, name in criteria:
        b = getattr(best, col)
        if b is not None:
            groups.setdefault(int(b), []).append((col, name))
    marks, last = [], None
    for m in sorted(groups):
        ys = [float(pooled.loc[pooled["char_order"] == m, col].iloc[0]) for col, _ in groups[m]]
        below = last is not None and m - last["x"] <= 3 and last["textposition"] == "top center"
        mark = {
            "x": m,
            "y": max(ys),
            "text": f"best M={m}: " + ", ".join(name for _, name in groups[m]),
            "textposition": "bottom center" if below else "top center",
        }
        marks.append(mark)
        last = mark
    return marks


def hover_format(metric: str, values=()) -> str:
    """The d3 format of a metric's numbers in a chart's hover (:func:`mtlens.exports.numbers.hover_format`)."""
    from ..service.results import hover_format as rule

    return rule(metric, values)


def metric_decimals(metric: str, values=()) -> int:
    """The decimals of a metric's scores in every table (:func:`mtlens.exports.numbers.decimals`)."""
    from ..service.results import decimals

    return decimals(metric, values)


AGREEMENT_HELP = (
    "Estimated share of system pairs with a difference of this size on which human judges agree with the "
    "metric (Kocmi et al. 2024, 'Navigating the Metrics Maze'; their published fits). '-' where the metric "
    "has no published fit."
)


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


def correlation_table(corr) -> pd.DataFrame:
    """The Human correlation table: one row per metric, level and human score type, intervals as text
    ("[lo, hi]" with the correlations' decimals, "-" where undefined)."""
    from dataclasses import asdict

    from ..service.results import decimals

    rows = pd.DataFrame([asdict(r) for r in corr.rows])
    d = decimals("pearson", [0.0])
    for k in ("pearson", "spearman", "kendall"):
        rows[f"{k} 95% CI"] = [f"[{a:.{d}f}, {b:.{d}f}]" if a == a else "-" for a, b in rows[f"{k}_ci"]]
    return rows.drop(columns=["pearson_ci", "spearman_ci", "kendall_ci"])


def metric_clusters_table(mc) -> pd.DataFrame:
    """The PERM-BOTH clusters of :func:`mtlens.analysis.human.metric_clusters`, best metric first; p is the
    Holm-corrected p-value that the metric correlates better than the next one below."""
    nxt = dict(zip(mc.metrics, mc.metrics[1:], strict=False))
    return pd.DataFrame(
        {
            "metric": mc.metrics,
            "pearson (sign-adjusted)": [mc.pearson[m] for m in mc.metrics],
            "cluster": [mc.cluster[m] for m in mc.metrics],
            "p vs next": [mc.p[(m, nxt[m])] if m in nxt else None for m in mc.metrics],
        }
    )


def pairs_table(cmp) -> pd.DataFrame:
    """The Significance page's pairs: delta, p-values, and what the delta means to humans."""
    from ..service.analyses import human_agreement

    return pd.DataFrame(
        [
            {
                "a": p.a,
                "b": p.b,
                "delta (a - b)": p.delta,
                "p": p.p_value,
                "p (Holm)": p.p_holm,
                "significant": p.significant,
                "humans agree (est.)": human_agreement(p.metric, p.delta),
                "min. detectable": p.min_detectable_delta,
            }
            for p in cmp.pairs
        ]
    )


#: what the pairs table's "min. detectable" column says
DETECTABLE_HELP = (
    "The smallest difference this test set detects with 80% power at Holm's strictest level (alpha divided "
    "by the number of pairs), from the bootstrap's standard error of the delta (docs/decisions.md)."
)


def segments_needed_table(cmp, delta: float, n_lines: int) -> pd.DataFrame:
    """For each pair: the lines a test set of this kind needs to detect ``delta`` with 80% power."""
    from ..service.analyses import segments_needed

    rows = []
    for p in cmp.pairs:
        need = segments_needed(p.se, n_lines, delta, cmp.alpha, len(cmp.pairs))
        rows.append({"a": p.a, "b": p.b, "min. detectable": p.min_detectable_delta, "lines needed": need})
    return pd.DataFrame(rows)


def agreement_sentence(metric: str, a: str, b: str, score_a: float, score_b: float) -> str:
    """One sentence on a difference of two corpus scores and what it means to humans (plain text)."""
    from ..service.analyses import human_agreement

    delta = score_b - score_a
    est = human_agreement(metric, delta)
    where = (
        f"humans agree with a {metric} difference of this size on about {est:.0%} of system pairs (Kocmi et al. 2024)"
        if est is not None
        else f"{metric} has no published fit of how often humans agree with its differences"
    )
    return f"{metric}: {b} − {a} = {delta:+.{metric_decimals(metric, [score_a, score_b])}f}; {where}."


def domain_table(ds: state.Dataset, results: dict, sort_by: str) -> pd.DataFrame:
    """Rankings by domain: one row per system, one column per domain and metric (``news bleu``), and each
    domain's significance cluster on the sort metric (its own paired bootstrap over its lines)."""
    from ..service.analyses import group_clusters, group_scores, groups_labels
    from ..service.rankings import SEED

    groups = group_scores(results, groups_labels(ds.corpus, "domain"))
    r = results[sort_by]
    clusters = group_clusters(r, groups, SEED)
    order = sorted(r.scores, key=lambda n: r.scores[n], reverse=r.higher_is_better)
    rows = []
    for s in order:
        row = {"system": s}
        for g in groups:
            for m in results:
                row[f"{g.name} {m} ({len(g.lines):,} lines)"] = g.scores[m][s]
            row[f"{g.name} cluster ({sort_by})"] = clusters[g.name][s]
        rows.append(row)
    return pd.DataFrame(rows)


def document_link_choices(corpus) -> dict:
    """The Sentences page's document filters as link parameters (``domain``, ``doc``)."""
    if corpus.documents is None:
        return {}
    out = {"doc": ("sent_doc", list(dict.fromkeys(corpus.documents)))}
    if corpus.domains is not None:
        out["domain"] = ("sent_domain", domain_choices(corpus))
    return out


def domain_choices(corpus) -> list[str]:
    from ..service.analyses import groups_labels

    return [ANY, *dict.fromkeys(groups_labels(corpus, "domain"))]


def document_choices(corpus, domain: str) -> list[str]:
    """The documents (in order of appearance), of one domain when one is chosen."""
    from ..service.analyses import groups_labels

    if domain == ANY or corpus.domains is None:
        return [ANY, *dict.fromkeys(corpus.documents)]
    labels = groups_labels(corpus, "domain")
    return [ANY, *dict.fromkeys(d for d, g in zip(corpus.documents, labels, strict=True) if g == domain)]


def lines_of(corpus, domain: str, document: str) -> set[int] | None:
    """The lines (1-based) of a domain and/or a document; None for every line."""
    from ..service.analyses import groups_labels

    keep = None
    if domain != ANY and corpus.domains is not None:
        labels = groups_labels(corpus, "domain")
        keep = {i + 1 for i, g in enumerate(labels) if g == domain}
    if document != ANY and corpus.documents is not None:
        lines = {i + 1 for i, d in enumerate(corpus.documents) if d == document}
        keep = lines if keep is None else keep & lines
    return keep


def document_filter(view: pd.DataFrame, corpus, domain: str, document: str) -> pd.DataFrame:
    """The line table kept to a domain and/or a document; one document is shown in its own order (its
    segments as they stand in the document), whatever the sort."""
    keep = lines_of(corpus, domain, document)
    if keep is None:
        return view
    view = view[view["line"].isin(keep)]
    return view.sort_values("line") if document != ANY else view


def largest_differences(sa, sb, keep: set[int] | None = None, top: int = 20):
    """The (0-based) lines where two systems' sentence scores differ most, among ``keep`` (1-based) if given."""
    import numpy as np

    gap = np.abs(np.asarray(sb) - np.asarray(sa))
    candidates = np.arange(len(gap)) if keep is None else np.asarray(sorted(i - 1 for i in keep), dtype=np.int64)
    return candidates[np.argsort(gap[candidates], kind="stable")[::-1][:top]]


def document_summary(corpus, result, document: str, a: str, b: str | None) -> str:
    """One sentence: the document's lines and the systems' scores on them (the metric over those lines)."""
    from ..service.analyses import restricted
    from ..service.results import metric_label

    lines = [i for i, d in enumerate(corpus.documents) if d == document]
    scores = restricted(result, lines).scores
    places = metric_decimals(result.metric, list(scores.values()))
    shown = ", ".join(f"{s} {scores[s]:.{places}f}" for s in ([a, b] if b else [a]))
    return f"Document {document}: {len(lines)} lines in document order; {metric_label(result.metric)} on them: {shown}."


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
    from ..service.analyses import pair_power

    result = cached.metric_result(ds, metric, opts)
    mdd = pair_power(result, a, b, seed=SEED)
    places = metric_decimals(metric, list(result.scores.values()))
    delta = result.scores[b] - result.scores[a]
    verdict = "larger" if abs(delta) >= mdd else "smaller"
    return (
        f"With {ds.corpus.n_lines:,} lines this test set detects a difference of {mdd:.{places}f} or more between these "
        f"two systems with {comparisons.policy.POWER:.0%} power (paired bootstrap, alpha {ALPHA:g}); their difference, {delta:+.{places}f}, is {verdict}."
    )

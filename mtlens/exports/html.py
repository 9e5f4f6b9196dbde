"""A standalone HTML report for meetings: one file that opens offline (plotly.js embedded).

Holds the dataset summary, the ranking table, one bar chart per metric with bootstrap 95%
intervals, the significance clusters and every signature. All user text (system names, file
names, notes) is HTML-escaped; plotly receives it as data, never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import plotly.graph_objects as go
import plotly.io as pio

from ..analysis.pitfalls import neural_names
from ..analysis.policy import MIN_TEST_LINES
from ..analysis.significance import Comparison
from ..core.corpus import Corpus
from ..scores.results import MetricResult
from ..version import __version__
from .figures import describe_figure, safe_figure
from .numbers import ERROR_BAR_COLOUR, decimals, direction_note, share, shown
from .tables import best_first

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}
th:first-child,td:first-child,td.name{text-align:left}code{font-size:0.85rem}.note{color:#8a5a00}
.cl{display:inline-block;margin:2px 6px 2px 0;padding:2px 8px;border-radius:10px;background:#eef}
"""


#: significant (p < alpha after Holm) and not, in the heatmap, the presentation and the report
SIGNIFICANT_COLOUR = "#1a7f37"
NOT_SIGNIFICANT_COLOUR = "#eaeef2"

#: the presentation's look (large type, full width), in the dashboard and in the offline report
SLIDE_CSS = """
.mtl-slide{font-size:1.45rem;line-height:1.5;color:inherit}
.mtl-slide h2{font-size:2.2rem;margin:0 0 .6rem 0}
.mtl-slide table{border-collapse:collapse;margin:.5rem 0;width:100%}
.mtl-slide th,.mtl-slide td{padding:.3rem .8rem;text-align:right;border:none}
.mtl-slide th:nth-child(2),.mtl-slide td:nth-child(2){text-align:left}
.mtl-slide tr.mtl-cut td{border-top:3px solid currentColor}
.mtl-slide .mtl-p{text-align:center;color:#1b1b1b}
.mtl-slide .mtl-sig{background:SIG;color:#fff}.mtl-slide .mtl-ns{background:NOTSIG}
.mtl-slide .mtl-note{font-style:italic;opacity:.8}
.mtl-slide .mtl-hyp{margin:.4rem 0}.mtl-slide .mtl-who{font-weight:600}
""".replace("NOTSIG", NOT_SIGNIFICANT_COLOUR).replace("SIG", SIGNIFICANT_COLOUR)


def rank_ranges(cmp: Comparison) -> dict[str, tuple[int, int]]:
    """WMT findings' rank range of every system (:func:`mtlens.analysis.autorank.rank_ranges`), from the
    comparison's Holm-corrected pairs; the winner of a significant pair is the one ranked higher."""
    from ..analysis.autorank import rank_ranges as ranges_from_wins

    pos = {s: k for k, s in enumerate(cmp.ranking)}
    beats = {(p.a, p.b) if pos[p.a] < pos[p.b] else (p.b, p.a) for p in cmp.pairs if p.significant}
    return {s: (lo, hi) for s, (lo, hi, _, _) in ranges_from_wins(cmp.ranking, beats).items()}


def p_text(p: float) -> str:
    """A p-value as tables show it (:func:`mtlens.exports.numbers.decimals`: three decimals; "< 0.001" below)."""

    d = decimals("p")
    return f"< {10**-d:.{d}f}" if p < 10**-d else f"{p:.{d}f}"


def presentation_slides(
    corpus: Corpus, results: Mapping[str, MetricResult], cmp: Comparison | None, pins=(), history: dict | None = None
) -> list[tuple[str, str]]:
    """The presentation, as (title, HTML) slides: the ranking as WMT findings tables draw it (rank ranges,
    clusters separated by rules, each adjacent delta with the share of humans expected to agree, Kocmi et
    al. 2024), the significance matrix, the runs over time when ``history`` (a set's history as JSON,
    :func:`mtlens.service.runs.history_to_dict`) has a family, then each pinned sentence
    (:class:`mtlens.storage.store.Pin`). User text is escaped. Numbers with their decimals (:func:`mtlens.exports.numbers.decimals`)."""
    from ..analysis.agreement import human_agreement
    from ..metrics import label as metric_label

    slides = []
    metric = cmp.metric if cmp is not None else next(iter(results))
    r = results[metric]
    order = cmp.ranking if cmp is not None else best_first(r)
    d = decimals(metric, r.scores.values())
    ranges = rank_ranges(cmp) if cmp is not None else {s: (k + 1, k + 1) for k, s in enumerate(order)}
    cluster_of = {s: k for k, cl in enumerate(cmp.clusters) for s in cl} if cmp is not None and cmp.clusters else {}
    rows = []
    for k, s in enumerate(order):
        lo, hi = ranges[s]
        rank = f"{lo}" if lo == hi else f"{lo}–{hi}"
        if k + 1 < len(order):
            delta = r.scores[s] - r.scores[order[k + 1]]
            agree = human_agreement(metric, delta)
            nxt = f"{delta:+.{d}f}", share(agree)
        else:
            nxt = "", ""
        cut = k > 0 and cluster_of and cluster_of.get(s) != cluster_of.get(order[k - 1])
        tr = "<tr class='mtl-cut'>" if cut else "<tr>"
        rows.append(
            f"{tr}<td>{rank}</td><td>{escape(s)}</td>"
            f"<td>{r.scores[s]:.{d}f}</td><td>{nxt[0]}</td><td>{nxt[1]}</td></tr>"
        )
    label = escape(metric_label(metric))
    slides.append(
        (
            f"Ranking by {metric_label(metric)}",
            f"<div class='mtl-slide'><h2>Ranking by {label}</h2><table><tr><th>rank</th><th>system</th>"
            f"<th>{label}</th><th>Δ to next</th><th>humans agree (est.)</th></tr>{''.join(rows)}</table>"
            "<p class='mtl-note'>Rank range: (systems significantly better) + 1 … N − (systems it is significantly "
            "better than); a rule separates clusters. Humans agree: the share of system pairs with a delta this "
            "size on which human judges agree with the metric (Kocmi et al. 2024); - where the metric has no "
            "published fit.</p></div>",
        )
    )
    if cmp is not None:
        names, matrix = cmp.p_matrix(adjusted=True)
        head = "".join(f"<th>{escape(n)}</th>" for n in names)
        body = []
        for i, a in enumerate(names):
            cells = []
            for j in range(len(names)):
                v = matrix[i][j]
                if i == j or v != v:
                    cells.append("<td></td>")
                else:
                    cls = "mtl-sig" if v < cmp.alpha else "mtl-ns"
                    cells.append(f"<td class='mtl-p {cls}'>{escape(p_text(float(v)))}</td>")
            body.append(f"<tr><td></td><td>{escape(a)}</td>{''.join(cells)}</tr>")
        slides.append(
            (
                "Significance",
                f"<div class='mtl-slide'><h2>Which differences are significant ({label})</h2>"
                f"<table><tr><th></th><th></th>{head}</tr>{''.join(body)}</table><p class='mtl-note'>"
                f"Holm-corrected p-values of {escape(cmp.test)} ({cmp.n} resamples); coloured: p &lt; {cmp.alpha:g}.</p>"
                + "".join(f"<p class='mtl-note'>{escape(note[0].upper() + note[1:])}.</p>" for note in cmp.notes)
                + "</div>",
            )
        )
    if history and any(r["family"] for r in history["runs"]) and metric in history["metrics"]:
        from .history import history_slide

        slides.append(history_slide(history, metric))
    for pin in pins:
        i = pin.line
        if not 0 <= i < corpus.n_lines:
            continue
        pr = results.get(pin.metric)
        parts = [f"<div class='mtl-slide'><h2>Line {i + 1}</h2>"]
        if pin.note:
            parts.append(f"<p class='mtl-note'>{escape(pin.note)}</p>")
        if corpus.source is not None:
            parts.append(f"<div class='mtl-hyp'><span class='mtl-who'>Source</span>: {escape(corpus.source[i])}</div>")
        for name, lines in corpus.references.items():
            parts.append(f"<div class='mtl-hyp'><span class='mtl-who'>{escape(name)}</span>: {escape(lines[i])}</div>")
        for s in pin.systems:
            if s not in corpus.systems:
                continue
            score = ""
            if pr is not None and pr.scorer.sentence_level:
                v = float(pr.sentence_scores(s)[i])
                score = f" ({escape(metric_label(pin.metric))} {v:.{decimals(pin.metric, [v])}f})"
            parts.append(
                f"<div class='mtl-hyp'><span class='mtl-who'>{escape(s)}</span>{score}: {escape(corpus.systems[s][i])}</div>"
            )
        parts.append("</div>")
        slides.append((f"Line {i + 1}", "".join(parts)))
    return slides


#: the report's presentation: one slide at a time, arrow keys (or PageUp/PageDown) move, Esc leaves
_PRESENT_JS = """
<script>
(function(){
  var slides = Array.prototype.slice.call(document.querySelectorAll('section.mtl-present'));
  var k = -1;
  function show(i){ k = Math.max(0, Math.min(slides.length - 1, i));
    document.body.classList.add('presenting');
    slides.forEach(function(s, j){ s.style.display = j === k ? 'block' : 'none'; }); }
  function stop(){ k = -1; document.body.classList.remove('presenting');
    slides.forEach(function(s){ s.style.display = ''; }); }
  var b = document.getElementById('mtl-present'); if (b) b.onclick = function(){ show(0); };
  document.addEventListener('keydown', function(e){
    if (k < 0) return;
    if (e.key === 'ArrowRight' || e.key === 'PageDown' || e.key === ' ') { show(k + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || e.key === 'PageUp') { show(k - 1); e.preventDefault(); }
    else if (e.key === 'Escape') { stop(); }
  });
})();
</script>
"""

#: the charts of an offline report (and of the dashboard) never offer to upload anything
PLOTLY_CONFIG = {"showSendToCloud": False, "displaylogo": False, "plotlyServerURL": ""}


def build_html_report(
    corpus: Corpus,
    results: Mapping[str, MetricResult],
    comparisons: Mapping[str, Comparison] | None = None,
    title: str = "mtlens report",
    pins=(),
    history: dict | None = None,
    pitfalls=None,
    reference_notes=(),
    terms=(),
) -> str:
    """The report as one HTML string (about 5 MB, most of it plotly.js); it ends with the presentation
    (:func:`presentation_slides` for the first metric, with the pinned sentences ``pins``), which the
    *Present* button shows one slide at a time (arrow keys, Esc). ``terms``: a glossary's per-term table
    (:func:`mtlens.service.results.term_rows`), shown as the terms each system misses."""
    comparisons = comparisons or {}
    metrics = list(results)
    neural = set(neural_names(metrics))
    first = results[metrics[0]]
    order = best_first(first)
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{_CSS}{SLIDE_CSS}body.presenting>*:not(section){{display:none}}"
        "body.presenting{max-width:none;margin:2rem 4rem}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    parts.append("<h2>Dataset</h2><ul>")
    parts.append(
        f"<li>{len(corpus.systems)} systems, {corpus.n_lines} lines, {len(corpus.references)} reference(s): "
        + ", ".join(escape(n) for n in corpus.reference_names)
        + "</li>"
    )
    parts.append("<li>systems: " + ", ".join(escape(n) for n in corpus.system_names) + "</li>")
    if corpus.language_pair:
        parts.append(f"<li>language pair: {escape(corpus.language_pair)}</li>")
    parts.append("</ul>")
    if corpus.warnings:  # what reading the files found: facts about the data, not alarms
        parts.append("<details><summary>Notes on the data (scores are computed on the text as it is)</summary><ul>")
        parts += [f"<li>{escape(w)}</li>" for w in corpus.warnings]
        parts.append("</ul></details>")

    parts.append(f"<h2>Ranking (by {escape(metrics[0])})</h2><table><tr><th>#</th><th>system</th>")
    parts += [f"<th>{escape(m)}</th>" for m in metrics]
    parts.append("</tr>")
    places = {m: decimals(m, results[m].scores.values()) for m in metrics}  # as every table shows them
    for i, n in enumerate(order, start=1):
        cells = []
        for m in metrics:
            c = comparisons.get(m)
            ci = f" ± {shown(c.systems[n].ci, places[m])}" if c is not None else ""
            cells.append(f"<td>{shown(results[m].scores[n], places[m])}{ci}</td>")
        parts.append(f"<tr><td>{i}</td><td class='name'>{escape(n)}</td>{''.join(cells)}</tr>")
    notes = ("± : half-width of the bootstrap 95% interval." if comparisons else "", direction_note(metrics))
    parts.append("</table>" + "".join(f"<p>{escape(t)}</p>" for t in notes if t))
    parts += _groups_html(corpus, results, order, places)

    if pitfalls is not None and pitfalls.any:  # before anyone reads a neural score (Zouhar et al. 2024)
        parts.append(pitfalls_html(pitfalls, [m for m in metrics if m in neural]))
    if reference_notes:  # a bad reference misleads every reference-based metric at once (issue 50)
        parts.append("<h2>Reference quality</h2><ul class='mtl-reference'>")
        parts += [f"<li>{escape(n[0].upper() + n[1:])}.</li>" for n in reference_notes]
        parts.append("</ul>")
    if terms:
        parts.append(terms_html(terms))
    if not comparisons and len(corpus.systems) > 1:
        parts.append(
            f"<p>No significance tests: they need at least {MIN_TEST_LINES} lines, "
            f"this test set has {corpus.n_lines}.</p>"
        )
    if comparisons:
        parts.append("<h2>Significance clusters</h2>")
        for m, c in comparisons.items():
            if c.clusters:
                cl = " ".join(
                    f"<span class='cl'>{k}: {escape(', '.join(g))}</span>" for k, g in enumerate(c.clusters, 1)
                )
                parts.append(f"<p><b>{escape(m)}</b>: {cl}</p>")
        any_c = next(iter(comparisons.values()))
        parts.append(
            f"<p>Rule: systems in score order, split only where every system above is significantly better "
            f"than every system below (Holm-corrected p &lt; {any_c.alpha}). Test: <code>{escape(any_c.signature)}</code></p>"
        )

    parts.append("<h2>Charts</h2>")
    include = True
    for m in metrics:
        r = results[m]
        names = best_first(r)
        c = comparisons.get(m)
        fig = go.Figure(
            go.Bar(
                x=names,
                y=[r.scores[n] for n in names],
                marker_color="#4C78A8",
                error_y={"type": "data", "array": [c.systems[n].ci for n in names], "color": ERROR_BAR_COLOUR}
                if c
                else None,
            )
        )
        fig.update_layout(title=m, height=360, margin={"t": 40, "b": 40}, xaxis_title="system", yaxis_title=m)
        described = escape(describe_figure(fig))
        safe_figure(fig)
        chart = pio.to_html(fig, full_html=False, include_plotlyjs=include, config=PLOTLY_CONFIG)
        parts.append(
            f"<figure role='img' aria-label='{described}'>{chart}<figcaption>{described}</figcaption></figure>"
        )
        include = False  # plotly.js once, inline: the file works offline

    parts.append("<h2>Signatures</h2><ul>")
    parts += [f"<li><b>{escape(m)}</b>: <code>{escape(r.signature)}</code></li>" for m, r in results.items()]
    parts.append("</ul>")
    slides = presentation_slides(corpus, results, comparisons.get(metrics[0]), pins, history)
    parts.append("<h2>Presentation</h2><p><button id='mtl-present'>Present</button> (arrow keys move, Esc leaves)</p>")
    parts += [f"<section class='mtl-present'>{html}</section>" for _, html in slides]
    parts.append(_PRESENT_JS)
    parts.append(f"<p>Made with mtlens {escape(__version__)}.</p></body></html>")
    return "".join(parts)


#: the most documents the report lists one by one (the rest are in ``mtlens score --by document``'s output)
REPORT_DOCUMENTS = 500


def _groups_html(corpus: Corpus, results, order, places) -> list[str]:
    """The scores per domain (a table) and per document (folded, at most :data:`REPORT_DOCUMENTS`) of a test set
    that has them (issue 51: the report omitted them), each a corpus score over the group's lines as
    ``mtlens score --by`` gives it (:func:`mtlens.analysis.groups.group_scores`)."""
    from ..analysis.groups import group_scores, labels_for

    parts = []
    for by in ("domain", "document"):
        if (corpus.domains if by == "domain" else corpus.documents) is None:
            continue
        groups = group_scores(results, labels_for(corpus, by))
        shown_groups = groups if by == "domain" else groups[:REPORT_DOCUMENTS]
        head = f"<h2>By {by} ({len(groups):,} {by}s)</h2>"
        rows = ["<table><tr><th>" + by + "</th><th>lines</th><th>metric</th>"]
        rows += [f"<th>{escape(n)}</th>" for n in order]
        rows.append("</tr>")
        for g in shown_groups:
            for m in results:
                cells = "".join(f"<td>{shown(g.scores[m][n], places[m])}</td>" for n in order)
                rows.append(
                    f"<tr><td class='name'>{escape(g.name)}</td><td>{len(g.lines)}</td><td>{escape(m)}</td>{cells}</tr>"
                )
        rows.append("</table>")
        more = (
            f"<p>The first {REPORT_DOCUMENTS:,} documents of {len(groups):,}; every one: "
            "<code>python -m mtlens score --by document</code>.</p>"
            if len(groups) > len(shown_groups)
            else ""
        )
        note = f"<p>Each {by}'s score is the metric's corpus score over its lines.</p>"
        if by == "domain":
            parts += [head, *rows, note]
        else:
            parts += [head, "<details><summary>Scores of every document</summary>", *rows, more, note, "</details>"]
    return parts


def pitfalls_html(pitfalls, metrics) -> str:
    """The COMET pitfalls as a section: the set-wide notes, then each flagged system's counts."""
    parts = ["<h2>Before reading the neural scores</h2>"]
    parts.append(f"<p class='warn'>{escape(pitfalls.headline(metrics))}</p>")
    rows = pitfalls.rows()
    if rows:
        heads = list(rows[0])
        parts.append("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in heads) + "</tr>")
        for r in rows:
            cells = "".join(
                f"<td class='name'>{escape(str(r[h]))}</td>" if h == "system" else f"<td>{shown(r[h], 0)}</td>"
                for h in heads
            )
            parts.append(f"<tr>{cells}</tr>")
        parts.append(f"</table><p>{escape(pitfalls.caption())}</p>")
    return "".join(parts)


def terms_html(rows, shown_rows: int = 50) -> str:
    """The glossary's terms each system misses (issue 60), the most missed first (the first ``shown_rows``)."""
    systems = list(rows[0]["missed"])
    head = "".join(f"<th>missed by {escape(s)}</th>" for s in systems)
    parts = [f"<h2>Terms each system misses</h2><table><tr><th>source</th><th>target</th><th>counted</th>{head}</tr>"]
    for r in rows[:shown_rows]:
        cells = "".join(f"<td>{r['missed'][s]:,}</td>" for s in systems)
        parts.append(
            f"<tr><td class='name'>{escape(r['source'])}</td><td class='name'>{escape(r['target'])}</td>"
            f"<td>{r['counted']:,}</td>{cells}</tr>"
        )
    more = f" (the first {shown_rows} of {len(rows):,})" if len(rows) > shown_rows else ""
    return "".join(parts) + f"</table><p>Terms counted where their source form occurs in the source line{more}.</p>"

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

from .corpus import Corpus
from .scoring import MetricResult
from .significance import MIN_TEST_LINES, Comparison
from .version import __version__

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}
th:first-child,td:first-child,td.name{text-align:left}code{font-size:0.85rem}.note{color:#8a5a00}
.cl{display:inline-block;margin:2px 6px 2px 0;padding:2px 8px;border-radius:10px;background:#eef}
"""


#: the charts of an offline report (and of the dashboard) never offer to upload anything
PLOTLY_CONFIG = {"showSendToCloud": False, "displaylogo": False, "plotlyServerURL": ""}


def build_html_report(
    corpus: Corpus,
    results: Mapping[str, MetricResult],
    comparisons: Mapping[str, Comparison] | None = None,
    title: str = "mtlens report",
) -> str:
    """The report as one HTML string (about 5 MB, most of it plotly.js)."""
    comparisons = comparisons or {}
    metrics = list(results)
    first = results[metrics[0]]
    order = sorted(first.scores, key=lambda n: first.scores[n], reverse=first.higher_is_better)
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>",
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
    for w in corpus.warnings:
        parts.append(f"<p class='note'>{escape(w)}</p>")

    parts.append(f"<h2>Ranking (by {escape(metrics[0])})</h2><table><tr><th>#</th><th>system</th>")
    parts += [f"<th>{escape(m)}</th>" for m in metrics]
    parts.append("</tr>")
    for i, n in enumerate(order, start=1):
        cells = []
        for m in metrics:
            c = comparisons.get(m)
            ci = f" ± {c.systems[n].ci:.2f}" if c is not None else ""
            cells.append(f"<td>{results[m].scores[n]:.2f}{ci}</td>")
        parts.append(f"<tr><td>{i}</td><td class='name'>{escape(n)}</td>{''.join(cells)}</tr>")
    parts.append("</table><p>± : half-width of the bootstrap 95% interval. TER: lower is better.</p>")

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
        names = sorted(r.scores, key=lambda n: r.scores[n], reverse=r.higher_is_better)
        c = comparisons.get(m)
        fig = go.Figure(
            go.Bar(
                x=names,
                y=[r.scores[n] for n in names],
                marker_color="#4C78A8",
                error_y={"type": "data", "array": [c.systems[n].ci for n in names]} if c else None,
            )
        )
        fig.update_layout(title=m, height=360, margin={"t": 40, "b": 40})
        safe_figure(fig)
        parts.append(pio.to_html(fig, full_html=False, include_plotlyjs=include, config=PLOTLY_CONFIG))
        include = False  # plotly.js once, inline: the file works offline

    parts.append("<h2>Signatures</h2><ul>")
    parts += [f"<li><b>{escape(m)}</b>: <code>{escape(r.signature)}</code></li>" for m, r in results.items()]
    parts.append(f"</ul><p>Made with mtlens {escape(__version__)}.</p></body></html>")
    return "".join(parts)


#: trace fields whose strings plotly draws as its own markup (``<a href>``, ``<b>``, ``<br>``...)
_TEXT_FIELDS = ("x", "y", "text", "hovertext", "name", "customdata", "labels", "legendgroup")


def _escape_any(value):
    if isinstance(value, str):
        return escape(value, quote=False)
    if isinstance(value, (list, tuple)):
        return [_escape_any(v) for v in value]
    if getattr(value, "dtype", None) is not None and value.dtype.kind in "OU":
        return [_escape_any(v) for v in value.tolist()]
    return value


def safe_figure(fig):
    """Escape the user text a figure holds (system names, sentences), in place, so plotly draws
    ``<a href=...>`` as text and never as a link; plotly turns ``&lt;`` back into ``<`` on screen.
    Every chart of the dashboard and the report passes here (``mtlens.ui.export.chart``).

    Example:
        >>> import plotly.graph_objects as go
        >>> safe_figure(go.Figure(go.Bar(x=["<a href='x'>A</a>", "B"], y=[1, 2]))).data[0].x
        ("&lt;a href='x'&gt;A&lt;/a&gt;", 'B')
    """
    for trace in fig.data:
        for field in _TEXT_FIELDS:
            if field in trace and trace[field] is not None:
                trace[field] = _escape_any(trace[field])
    title = fig.layout.title.text
    if isinstance(title, str):
        fig.layout.title.text = escape(title, quote=False)
    return fig

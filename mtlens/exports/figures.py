"""Charts as every face draws them: the user text a figure holds escaped (:func:`safe_figure`) and the figure in
words (:func:`describe_figure`, its text alternative). Every chart of the dashboard and of the report passes here."""

from __future__ import annotations

from html import escape

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


#: at most this many values a chart's text alternative reads out per series (the rest: the table and the CSV)
DESCRIBED_VALUES = 12


def _value(v) -> str:
    return f"{v:.4g}" if isinstance(v, int | float) and not isinstance(v, bool) else str(v)


def describe_figure(fig) -> str:
    """A chart's text alternative (issue 51: charts had no text for who cannot see them): its title, its axes'
    titles, and per series its kind, name and size, with its values when they are few (a bar chart's bars).
    Plain text, from the figure before :func:`safe_figure` escapes it; the caller escapes it for its markup.

    Example:
        >>> import plotly.graph_objects as go
        >>> f = go.Figure(go.Bar(x=["A", "B"], y=[31.25, 30.0], name="BLEU"))
        >>> describe_figure(f.update_layout(xaxis_title="system", yaxis_title="BLEU"))
        'Chart, x axis: system, y axis: BLEU. bars BLEU (2): A 31.25, B 30.'
    """
    layout = fig.layout
    head = ["Chart" + (f" '{layout.title.text}'" if layout.title.text else "")]
    for name in ("xaxis", "yaxis"):
        axis = getattr(layout, name)
        if axis.title.text:
            head.append(f"{name[0]} axis: {axis.title.text}")
    series = []
    for t in fig.data:
        kind = {"bar": "bars", "heatmap": "heat map", "scatter": "points", "scattergl": "points"}.get(t.type, t.type)
        if t.type in ("scatter", "scattergl") and t.mode and "lines" in t.mode and "markers" not in t.mode:
            kind = "line"
        if t.type == "heatmap":
            rows = list(t.y) if t.y is not None else []
            series.append(f"{kind} of {len(rows)} x {len(list(t.x) if t.x is not None else [])} cells")
            continue
        xs = list(t.x) if t.x is not None else []
        ys = list(t.y) if t.y is not None else []
        label = f"{kind}{' ' + t.name if t.name else ''} ({len(ys)})"
        if t.type == "bar" and 0 < len(ys) <= DESCRIBED_VALUES:
            label += ": " + ", ".join(f"{x} {_value(y)}" for x, y in zip(xs, ys, strict=False))
        series.append(label)
    return ", ".join(head) + ". " + "; ".join(series) + "."


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

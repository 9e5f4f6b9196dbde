"""Exports of score tables: JSON-ready dicts, CSV, LaTeX and plain-text tables.

Every export carries the metric signatures (CSV, being a bare table, keeps one
full-precision column per metric, and a signature column only beside a computed neural metric's; the
other signatures are in the JSON/LaTeX/table forms).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping

import numpy as np

from ..metrics import REGISTRY
from ..scores.results import MetricResult
from ..scores.sources import CHECKS_FAMILY, source_of
from .numbers import counted, decimals, shown


def results_to_dict(results: Mapping[str, MetricResult], sentence_level: bool = False) -> dict:
    """The command line's JSON object.

    ``{"signatures": {metric: str}, "systems": [{"name", "scores", "details"[, "sentences", "spans"]}]}``; with the
    sentences, ``spans``: per metric that marks spans (a check, the terms, xCOMET, a judge), per line, each span's
    ``start``, ``end`` (None for an omission), ``severity``, ``category`` and ``text``.
    """
    first = next(iter(results.values()))
    systems = []
    for name in first.scores:
        entry = {
            "name": name,
            "scores": {m: r.scores[name] for m, r in results.items()},
            "details": {m: r.details[name] for m, r in results.items()},
        }
        if sentence_level:
            entry["sentences"] = {m: [float(x) for x in r.sentence_scores(name)] for m, r in results.items()}
            marked = {m: r.spans(name) for m, r in results.items()}
            if any(marked.values()):
                entry["spans"] = {m: [[_span(x) for x in line] for line in v] for m, v in marked.items() if v}
        systems.append(entry)
    return {"signatures": {m: r.signature for m, r in results.items()}, "systems": systems}


def _span(span) -> dict:
    return {
        "start": span.start,
        "end": span.end,
        "severity": span.severity,
        "category": span.category,
        "text": span.text,
    }


def json_safe(obj):
    """A copy of ``obj`` where NaN and infinities (not valid JSON) become None and numpy scalars floats."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def dumps(obj) -> str:
    """Strict JSON (no NaN), full-precision floats, UTF-8 text kept as is."""
    return json.dumps(json_safe(obj), ensure_ascii=False, indent=1, allow_nan=False)


def to_json(results: Mapping[str, MetricResult], sentence_level: bool = False) -> str:
    return dumps(results_to_dict(results, sentence_level))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell a spreadsheet will not run as a formula (OWASP, CSV injection): text that starts with
    ``= + - @``, a tab or a carriage return gets a leading ``'``; numbers (also negative ones written
    as text) stay as they are.

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("@SUM(A1)"), csv_cell("-0.25"), csv_cell("-x"), csv_cell(3)
    ("'=HYPERLINK(1)", "'@SUM(A1)", '-0.25', "'-x", 3)
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


class _Writer:
    """``csv.writer`` whose every cell passes :func:`csv_cell`."""

    def __init__(self, buf):
        self._w = csv.writer(buf, lineterminator="\n")

    def writerow(self, row):
        self._w.writerow([csv_cell(v) for v in row])


def frame_to_csv(df) -> str:
    """A pandas table as CSV (full precision), every text cell and header neutralised (:func:`csv_cell`)."""
    buf = io.StringIO()
    w = _Writer(buf)
    w.writerow([str(c) for c in df.columns])
    for row in df.itertuples(index=False):
        w.writerow(["" if v is None or (isinstance(v, float) and v != v) else v for v in row])
    return buf.getvalue()


def ranked(results: Mapping[str, MetricResult], by: str | None = None) -> list[str]:
    """The systems best first by metric ``by`` (default: the first metric); the order of every ranked
    export (CSV, LaTeX, Excel, the terminal table) and of the Rankings page."""
    return best_first(results[by] if by in results else next(iter(results.values())))


def best_first(r: MetricResult) -> list[str]:
    """One metric's systems best first, a system without a score (NaN: no human rated it) last.

    >>> from types import SimpleNamespace as S
    >>> best_first(S(scores={"a": 1.0, "b": float("nan"), "c": 3.0}, higher_is_better=True))
    ['c', 'a', 'b']
    """
    sign = -1.0 if r.higher_is_better else 1.0
    return sorted(
        r.scores, key=lambda n: (r.scores[n] != r.scores[n], sign * r.scores[n] if r.scores[n] == r.scores[n] else 0.0)
    )


def computed_by_model(result: MetricResult) -> bool:
    """Whether a metric's scores were computed here by a registered neural checkpoint (their signature names
    the model: :func:`mtlens.neural.models.signature_fields`), told by the scores themselves, not their text."""
    imported = getattr(result.scorer, "imported", None)
    return bool(imported is not None and imported.model and source_of(result.metric).family != CHECKS_FAMILY)


def to_csv(results: Mapping[str, MetricResult], sentence_level: bool = False, by: str | None = None) -> str:
    """``rank,system`` plus one full-precision column per metric (its key, as in JSON and ``--metrics``),
    systems best first by ``by`` (default: the first metric); rank is the position in that order.

    With ``sentence_level``, one row per system and line (``system,line,<metrics>``).
    """
    buf = io.StringIO()
    w = _Writer(buf)
    metrics = list(results)
    first = next(iter(results.values()))
    # a neural score is never read without its model: "<metric> signature" right after its column
    # (sacreCOMET's point, Zouhar et al. 2024); the other metrics' signatures are in the JSON/LaTeX/table forms
    signed = {m: results[m].signature for m in metrics if computed_by_model(results[m])}
    # an LLM judge's tokens and cost per system, after its column (a system's, not a line's: not sentence-level)
    paid = set() if sentence_level else {m for m in metrics if usage(results[m])}
    heads = [
        h
        for m in metrics
        for h in ((m, f"{m} signature") if m in signed else (m,))
        + (tuple(f"{m} {u}" for u in USAGE) if m in paid else ())
    ]

    def cells(values, name=None) -> list:
        out = []
        for m, v in zip(metrics, values, strict=True):
            out += [v, signed[m]] if m in signed else [v]
            if m in paid:
                out += ["" if name is None else _usage_cell(usage(results[m]).get(name, {}).get(u)) for u in USAGE]
        return out

    if sentence_level:
        w.writerow(["system", "line", *heads])
        for name in first.scores:
            cols = [results[m].sentence_scores(name) for m in metrics]
            for i in range(len(cols[0])):
                w.writerow([name, i + 1, *cells([_csv_number(c[i]) for c in cols])])
    else:
        w.writerow(["rank", "system", *heads])
        for k, name in enumerate(ranked(results, by), start=1):
            w.writerow([k, name, *cells([_csv_number(results[m].scores[name]) for m in metrics], name)])
    return buf.getvalue()


#: the usage a paid model's scores carry per system (an LLM judge's), as columns
USAGE = ("prompt_tokens", "completion_tokens", "cost_usd")


def usage(result: MetricResult) -> dict[str, dict]:
    """system -> tokens and cost behind a metric's scores (an LLM judge's), empty for every other metric."""
    imported = getattr(result.scorer, "imported", None)
    return getattr(imported, "usage", None) or {}


def _csv_number(value) -> str:
    """A score in a CSV at full precision; an empty cell where there is none (a line no human rated), as every CSV of
    mtlens writes a missing value (issue 58, D16: ``nan`` here, ``None`` and ``-`` elsewhere)."""
    v = float(value)
    return repr(v) if math.isfinite(v) else ""


def _usage_cell(value) -> str:
    return "" if value is None else (str(value) if isinstance(value, int) else repr(float(value)))


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _label(metric: str) -> str:
    cls = REGISTRY.get(metric)
    return (cls.latex or latex_escape(cls.label or metric)) if cls else latex_escape(metric)


def _places(results: Mapping[str, MetricResult], digits: int | None) -> dict[str, int]:
    return {m: digits if digits is not None else decimals(m, r.scores.values()) for m, r in results.items()}


def to_latex(results: Mapping[str, MetricResult], digits: int | None = None, by: str | None = None) -> str:
    """A booktabs table, systems best first by ``by`` (default: the first metric), best score per column
    in bold; each metric with its decimals (:func:`mtlens.exports.numbers.decimals`) unless ``digits`` is given."""
    metrics = list(results)
    order = ranked(results, by)
    places = _places(results, digits)
    best = {}
    for m, r in results.items():
        pick = max if r.higher_is_better else min
        best[m] = round(pick(r.scores.values()), places[m])
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{l" + "r" * len(metrics) + "}",
        r"\toprule",
        "System & " + " & ".join(_label(m) for m in metrics) + r" \\",
        r"\midrule",
    ]
    for name in order:
        cells = []
        for m in metrics:
            v = round(results[m].scores[name], places[m])
            cell = f"{v:.{places[m]}f}"
            cells.append(rf"\textbf{{{cell}}}" if v == best[m] else cell)
        lines.append(latex_escape(name) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    sigs = "; ".join(rf"{_label(m)}: \texttt{{{latex_escape(r.signature)}}}" for m, r in results.items())
    lines += [rf"\caption{{Signatures: {sigs}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_table(results: Mapping[str, MetricResult], digits: int | None = None) -> str:
    """A plain-text table for the terminal (systems best first by the first metric, each metric with its
    decimals), then the signatures."""
    metrics = list(results)
    order = ranked(results)
    places = _places(results, digits)
    header = ["system", *metrics]
    rows = [[n, *(shown(results[m].scores[n], places[m]) for m in metrics)] for n in order]  # a missing score: -
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(  # noqa: E731
        str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
    )
    out = [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows), ""]
    out += [f"{m}: {r.signature}" for m, r in results.items()]
    return "\n".join(out) + "\n"


def table_to_latex(columns: list[str], rows: list[list], digits: int | None = None) -> str:
    """Any table as a booktabs LaTeX tabular (text escaped; floats with the decimals of their column,
    :func:`mtlens.exports.numbers.decimals`, or ``digits``; "--" where a value is missing)."""
    places = [
        digits
        if digits is not None
        else decimals(str(c), [r[i] for r in rows if isinstance(r[i], (float, np.floating))])
        for i, c in enumerate(columns)
    ]

    def cell(v, d):
        if v is None:
            return "--"
        if isinstance(v, (float, np.floating)):
            return "--" if not math.isfinite(float(v)) else f"{float(v):.{d}f}"
        if isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        return latex_escape(str(v))

    align = "".join(
        "r" if all(isinstance(r[i], (int, float, np.number)) for r in rows) and rows else "l"
        for i in range(len(columns))
    )
    out = [
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(str(c)) for c in columns) + r" \\",
        r"\midrule",
    ]
    out += [" & ".join(cell(v, d) for v, d in zip(r, places, strict=True)) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def set_labels(sets) -> dict[str, str]:
    """Column labels for sets given as ``(id, name)``: the name, and where names repeat, the name with
    the first characters of the id, so two sets never share a column.

    >>> set_labels([("a1b2c3d4e5", "WMT"), ("f6e5d4c3b2", "WMT"), ("0123456789", "TED")])
    {'a1b2c3d4e5': 'WMT (a1b2c3d4)', 'f6e5d4c3b2': 'WMT (f6e5d4c3)', '0123456789': 'TED'}
    """
    sets = list(sets)
    names = [n for _, n in sets]
    return {i: (f"{n} ({i[:8]})" if names.count(n) > 1 else n) for i, n in sets}


def groups_to_dict(groups, by: str) -> dict:
    """``score --by domain|document --format json``: ``{"by", "groups": [{"group", "lines", "scores": [{"system",
    "metric", "score"}]}]}`` (full precision)."""
    return {
        "by": by,
        "groups": [
            {
                "group": g.name,
                "lines": len(g.lines),
                "scores": [
                    {"system": s, "metric": m, "score": v} for m, by_sys in g.scores.items() for s, v in by_sys.items()
                ],
            }
            for g in groups
        ],
    }


def groups_to_table(groups, by: str) -> str:
    """One table per group: systems by the first metric, one column per metric (the table's decimals)."""
    from .numbers import decimals

    parts = []
    for g in groups:
        metrics = list(g.scores)
        systems = sorted(g.scores[metrics[0]], key=lambda s: -g.scores[metrics[0]][s])
        rows = [["system", *metrics]]
        rows += [[s, *(shown(g.scores[m][s], decimals(m, g.scores[m].values())) for m in metrics)] for s in systems]
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        lines = [
            "  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in rows
        ]
        parts.append(f"{by} {g.name} ({counted(len(g.lines), 'line')})\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"

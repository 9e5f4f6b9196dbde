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
import re
from collections.abc import Mapping

import numpy as np

from ..analysis.agreement import human_agreement
from ..analysis.significance import Comparison
from ..metrics import REGISTRY
from ..runtime.scoring import MetricResult
from .numbers import UNIT_DECIMALS, decimals, shown


def results_to_dict(results: Mapping[str, MetricResult], sentence_level: bool = False) -> dict:
    """The command line's JSON object.

    ``{"signatures": {metric: str}, "systems": [{"name", "scores", "details"[, "sentences"]}]}``
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
        systems.append(entry)
    return {"signatures": {m: r.signature for m, r in results.items()}, "systems": systems}


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
    r = results[by] if by in results else next(iter(results.values()))
    return sorted(r.scores, key=lambda n: r.scores[n], reverse=r.higher_is_better)


def computed_by_model(result: MetricResult) -> bool:
    """Whether a metric's scores were computed here by a registered neural checkpoint (their signature names
    the model: :func:`mtlens.neural.models.signature_fields`), told by the scores themselves, not their text."""
    imported = getattr(result.scorer, "imported", None)
    return bool(imported is not None and imported.model)


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
    heads = [h for m in metrics for h in ((m, f"{m} signature") if m in signed else (m,))]

    def cells(values) -> list:
        return [x for m, v in zip(metrics, values, strict=True) for x in ((v, signed[m]) if m in signed else (v,))]

    if sentence_level:
        w.writerow(["system", "line", *heads])
        for name in first.scores:
            cols = [results[m].sentence_scores(name) for m in metrics]
            for i in range(len(cols[0])):
                w.writerow([name, i + 1, *cells([repr(float(c[i])) for c in cols])])
    else:
        w.writerow(["rank", "system", *heads])
        for k, name in enumerate(ranked(results, by), start=1):
            w.writerow([k, name, *cells([repr(results[m].scores[name]) for m in metrics])])
    return buf.getvalue()


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
    rows = [[n, *(f"{results[m].scores[n]:.{places[m]}f}" for m in metrics)] for n in order]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(  # noqa: E731
        str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
    )
    out = [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows), ""]
    out += [f"{m}: {r.signature}" for m, r in results.items()]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- significance
def comparisons_to_dict(comparisons: Mapping[str, Comparison]) -> dict:
    """The ``compare`` command's JSON object."""
    first = next(iter(comparisons.values()))
    names = list(first.systems)
    return {
        "signature": first.signature,
        "signatures": {m: c.metric_signature for m, c in comparisons.items()},
        "systems": [
            {
                "name": n,
                "scores": {
                    m: {
                        "score": c.systems[n].score,
                        "mean": c.systems[n].mean,
                        "ci": c.systems[n].ci,
                        "low": c.systems[n].low,
                        "high": c.systems[n].high,
                    }
                    for m, c in comparisons.items()
                },
            }
            for n in names
        ],
        "pairs": [
            {
                "a": p.a,
                "b": p.b,
                "metric": p.metric,
                "delta": p.delta,
                "p_value": p.p_value,
                "p_holm": p.p_holm,
                "significant": p.significant,
                # the estimated accuracy of humans agreeing with this delta (Kocmi et al. 2024); None: no fit
                "human_agreement": human_agreement(p.metric, p.delta),
                # the smallest |delta| the test set detects with 80% power (docs/decisions.md); None: unknown
                "min_detectable_delta": p.min_detectable_delta if math.isfinite(p.min_detectable_delta) else None,
            }
            for c in comparisons.values()
            for p in c.pairs
        ],
        "resample": first.resample,
        "clusters": {m: c.clusters for m, c in comparisons.items()},
        "resamples": {m: c.n for m, c in comparisons.items()},
        "notes": {m: list(c.notes) for m, c in comparisons.items() if c.notes},
    }


def comparisons_to_csv(comparisons: Mapping[str, Comparison]) -> str:
    """One row per tested pair: ``metric,a,b,delta,p_value,p_holm,significant`` (full precision)."""
    buf = io.StringIO()
    w = _Writer(buf)
    w.writerow(["metric", "a", "b", "delta", "p_value", "p_holm", "significant"])
    for c in comparisons.values():
        for p in c.pairs:
            w.writerow([p.metric, p.a, p.b, repr(p.delta), repr(p.p_value), repr(p.p_holm), p.significant])
    return buf.getvalue()


def comparisons_to_table(comparisons: Mapping[str, Comparison], digits: int | None = None) -> str:
    """Plain text: per metric, systems with mean +- CI and cluster, then the pairs (scores with the
    metric's decimals, p-values with three: :func:`mtlens.exports.numbers.decimals`)."""
    out = []
    pd_ = decimals("p")
    for m, c in comparisons.items():
        d = digits if digits is not None else decimals(m, [s.score for s in c.systems.values()])
        cluster_of = {n: i + 1 for i, cl in enumerate(c.clusters) for n in cl}
        out.append(f"== {m} ({c.test}, n={c.n}) ==")
        out += [f"note: {note}" for note in c.notes]  # the resamples for the number of pairs
        width = max(len(n) for n in c.ranking)
        for n in c.ranking:
            s = c.systems[n]
            cl = f"  cluster {cluster_of[n]}" if n in cluster_of else ""
            out.append(f"{n.ljust(width)}  {s.score:7.{d}f}  (μ = {s.mean:.{d}f} ± {s.ci:.{d}f}){cl}")
        out.append("")
        out.append(f"{'a'.ljust(width)}  {'b'.ljust(width)}  {'delta':>7}  {'p':>7}  {'p_holm':>7}")
        for p in c.pairs:
            star = "  *" if p.significant else ""
            out.append(
                f"{p.a.ljust(width)}  {p.b.ljust(width)}  {p.delta:7.{d}f}  {p.p_value:7.{pd_}f}  {p.p_holm:7.{pd_}f}{star}"
            )
        out.append(f"signature: {c.metric_signature}")
        out.append("")
    first = next(iter(comparisons.values()))
    out.append(f"* significant at alpha = {first.alpha} after Holm's correction")
    out.append(f"test signature: {first.signature}")
    return "\n".join(out) + "\n"


def comparisons_to_latex(comparisons: Mapping[str, Comparison], digits: int | None = None) -> str:
    """One booktabs table per metric: systems in rank order, mean +- CI (the metric's decimals), a rule
    between clusters."""
    parts = []
    for m, c in comparisons.items():
        d = digits if digits is not None else decimals(m, [s.score for s in c.systems.values()])
        ends = set()
        acc = 0
        for cl in c.clusters[:-1]:
            acc += len(cl)
            ends.add(acc)
        lines = [r"\begin{tabular}{rlr}", r"\toprule", rf"Rank & System & {_label(m)} \\", r"\midrule"]
        for i, n in enumerate(c.ranking, start=1):
            s = c.systems[n]
            lines.append(rf"{i} & {latex_escape(n)} & {s.score:.{d}f} $\pm$ {s.ci:.{d}f} \\")
            if i in ends:
                lines.append(r"\midrule")
        lines += [r"\bottomrule", r"\end{tabular}"]
        parts.append("\n".join(lines))
    first = next(iter(comparisons.values()))
    caption = rf"\caption{{Clusters separated by rules ({latex_escape(first.signature)})}}"
    return "\\begin{table}[t]\n\\centering\n" + "\n\\quad\n".join(parts) + "\n" + caption + "\n\\end{table}\n"


# --------------------------------------------------------------------------- analyses
def _f(x, digits=3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def analysis_to_table(doc: dict) -> str:
    """Plain-text summary of the ``analyze`` command's results."""
    out = [
        f"== words vs characters: BLEU_w{doc['word_order']} against BLEU_cM ==",
        "best M (pearson / kappa / analogical >= 90%):",
    ]
    for name, b in doc["best"].items():
        out.append(f"  {name}: {b['pearson']} / {b['kappa']} / {b['analogical']}")
    out.append("")
    out.append("M    pearson  kappa  analogical   (all systems pooled)")
    for r in doc["pooled"]:
        out.append(f"{r['char_order']:<4} {_f(r['pearson']):>7}  {_f(r['kappa']):>5}  {_f(r['analogical']):>10}")
    out.append("")
    m = doc["ranking_char_order"]
    out.append(
        f"system ranking: BLEU_w{doc['word_order']} vs BLEU_c{m} (agree: {'yes' if doc['rankings_agree'] else 'no'})"
    )
    for r in doc["ranking"]:
        out.append(
            f"  {r['rank_w']:>2}. {r['system']:<24} {r['bleu_w']:6.2f}   rank {r['rank_c']:>2} by BLEU_c{m} {r['bleu_c']:6.2f}"
        )
    if "human_correlation" in doc:
        out.append("")
        out.append("== correlation with human judgments ==")
        out.append("metric   level    human    n      pearson          spearman         kendall")
        for r in doc["human_correlation"]:
            cells = []
            for k in ("pearson", "spearman", "kendall"):
                lo, hi = r[f"{k}_ci"]
                cells.append(f"{_f(r[k])} [{_f(lo, 2)},{_f(hi, 2)}]")
            out.append(f"{r['metric']:<8} {r['level']:<8} {r['human']:<8} {r['n']:<6} " + "  ".join(cells))
        for key, names in doc.get("missing", {}).items():
            if names:
                out.append(f"no human score ({key}) for: {', '.join(names)}")
        for note in doc.get("notes", []):
            out.append(f"note: {note}")
    if "tbleu_sweep" in doc:
        sw = doc["tbleu_sweep"]
        out.append("")
        out.append("== tBLEU threshold sweep ==")
        out.append("epsilon " + " ".join(f"{e:>6.2f}" for e in sw["epsilons"]))
        for name, vals in sw["scores"].items():
            out.append(f"{name[:7]:<7} " + " ".join(f"{v:6.2f}" for v in vals))
        for h, corr in sw["correlation"].items():
            out.append(f"r({h[:5]}) " + " ".join(f"{_f(v, 2):>6}" for v in corr["pearson"]))
    return "\n".join(out) + "\n"


def _p_cell(r: dict) -> str:
    if r["p_value"] is None:
        return "too few lines"
    return f"{shown(r['p_value'], UNIT_DECIMALS)} ({shown(r['p_holm'], UNIT_DECIMALS)})"


def pair_to_table(doc: dict) -> str:
    """Plain-text summary of ``analyze --pair A B``, with the pages' decimals (the metric's own for scores,
    :data:`~mtlens.exports.numbers.UNIT_DECIMALS` for p-values: :func:`mtlens.exports.numbers.decimals`)."""
    bk = doc["buckets"]
    d = decimals(doc["metric"])  # the word F-measure (0-100) is shown as the metric beside it, as on the page
    out = [f"== {doc['a']} (A) vs {doc['b']} (B) =="]
    for kind, title in (
        ("length", f"{doc['metric']} by reference length"),
        ("frequency", "word F-measure by frequency"),
    ):
        out.append(f"{title}:")
        out.append(f"  {'bucket':<34} {'lines':>6} {'A':>7} {'B':>7} {'B - A':>7}  p (Holm)")
        for r in bk[kind]:
            star = " *" if r["significant"] else ""
            out.append(
                f"  {r['bucket']:<34} {r['lines']:>6} {r['a']:7.{d}f} {r['b']:7.{d}f} {r['delta']:7.{d}f}  "
                f"{_p_cell(r)}{star}"
            )
    out.append(
        f"* Holm-corrected p < {bk['alpha']:g} ({bk['resamples']:,} resamples); buckets with fewer than "
        f"{bk['min_lines']} lines are not tested. Frequencies from: {bk['frequency_source']}. p: {bk['p_value']}"
    )
    out.append(
        "matched n-grams per order (A / B): "
        + ", ".join(f"{r['n']}: {r['matched_a']} / {r['matched_b']}" for r in doc["ngrams"]["by_order"])
    )
    if "slices" in doc:
        sl = doc["slices"]
        out.append(f"slices by {sl['metric']}, largest differences first:")
        out.append(f"  {'slice':<48} {'lines':>6} {'A':>7} {'B':>7} {'B - A':>7}  p (Holm)")
        ds = decimals(sl["metric"])
        for r in sl["slices"]:
            star = " *" if r["significant"] else ""
            out.append(
                f"  {r['slice'][:48]:<48} {r['lines']:>6} {r['a']:7.{ds}f} {r['b']:7.{ds}f} {r['delta']:7.{ds}f}  "
                f"{_p_cell(r)}{star}"
            )
        out.append(
            f"* Holm-corrected p < {sl['alpha']:g} over the slices tested ({sl['resamples']:,} resamples); slices "
            f"under {sl['min_lines']} lines are not tested."
        )
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


# --------------------------------------------------------------------------- Excel
_SHEET_BAD = re.compile(r"[\[\]:*?/\\]")


def to_xlsx(sheets: Mapping) -> bytes:
    """A workbook with one sheet per table (XlsxWriter). Cell text is never read as a formula or a link
    (a hypothesis starting with "=" stays text), floats keep full precision."""
    import pandas as pd

    buf = io.BytesIO()
    options = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False}
    with pd.ExcelWriter(buf, engine="xlsxwriter", engine_kwargs={"options": options}) as writer:
        used: set[str] = set()
        for name, df in sheets.items():
            title = _SHEET_BAD.sub("-", str(name))[:31] or "sheet"
            base, k = title, 2
            while title.lower() in used:
                title = f"{base[:28]}-{k}"
                k += 1
            used.add(title.lower())
            df.to_excel(writer, sheet_name=title, index=False)
    return buf.getvalue()


def result_sheets(
    corpus, results: Mapping[str, MetricResult], comparisons: Mapping | None = None, by: str | None = None
) -> dict:
    """The tables of a scoring run as DataFrames: scores (ranked as :func:`to_csv`), signatures, the sentence table (one row per
    system and line, one column per metric, with the hypothesis) and, with comparisons, intervals and
    clusters."""
    import pandas as pd

    first = next(iter(results.values()))
    systems = list(first.scores)
    order = ranked(results, by)
    sheets = {
        "scores": pd.DataFrame(
            {
                "rank": range(1, len(order) + 1),
                "system": order,
                **{m: [r.scores[s] for s in order] for m, r in results.items()},
            }
        ),
        "signatures": pd.DataFrame({"metric": list(results), "signature": [r.signature for r in results.values()]}),
    }
    rows = {"system": [], "line": []}
    per_metric = {m: [] for m in results}
    hyps = []
    for s in systems:
        n = corpus.n_lines
        rows["system"] += [s] * n
        rows["line"] += list(range(1, n + 1))
        for m, r in results.items():
            per_metric[m] += r.sentence_scores(s).tolist() if r.scorer.sentence_level else [float("nan")] * n
        hyps += list(corpus.systems[s])
    sheets["sentences"] = pd.DataFrame({**rows, **per_metric, "hypothesis": hyps})
    if comparisons:
        rows_ci = []
        for m, c in comparisons.items():
            cluster_of = {x: k + 1 for k, group in enumerate(c.clusters) for x in group}
            for s, ci in c.systems.items():
                rows_ci.append({"metric": m, "system": s, "score": ci.score, "ci": ci.ci, "cluster": cluster_of.get(s)})
        sheets["intervals"] = pd.DataFrame(rows_ci)
    return sheets


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
    from .numbers import decimals, shown

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
        parts.append(f"{by} {g.name} ({len(g.lines):,} lines)\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"

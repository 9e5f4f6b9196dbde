"""Exports of significance tests: JSON, CSV, LaTeX and the command line's plain-text table (``compare``)."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping

from ..analysis.agreement import human_agreement
from ..analysis.significance import Comparison, missing_what
from .numbers import ABSENT, decimals
from .tables import (
    _label,
    _Writer,
    latex_escape,
)


def comparisons_to_dict(comparisons: Mapping[str, Comparison]) -> dict:
    """The ``compare`` command's JSON object."""
    first = next(iter(comparisons.values()))
    names = list(first.systems)
    return {
        "signature": first.signature,
        "signatures": {m: c.metric_signature for m, c in comparisons.items()},
        "tests": {m: c.signature for m, c in comparisons.items()},
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
    """One row per tested pair: ``metric,a,b,delta,p_value,p_holm,significant,human_agreement,min_detectable_delta``
    (full precision; the last two empty where there is no value), the columns the Significance page shows."""
    buf = io.StringIO()
    w = _Writer(buf)
    w.writerow(
        ["metric", "a", "b", "delta", "p_value", "p_holm", "significant", "human_agreement", "min_detectable_delta"]
    )
    for c in comparisons.values():
        for p in c.pairs:
            agree = human_agreement(p.metric, p.delta)
            mdd = p.min_detectable_delta if math.isfinite(p.min_detectable_delta) else None
            w.writerow(
                [
                    p.metric,
                    p.a,
                    p.b,
                    repr(p.delta),
                    repr(p.p_value),
                    repr(p.p_holm),
                    p.significant,
                    "" if agree is None else repr(agree),
                    "" if mdd is None else repr(mdd),
                ]
            )
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
            if not math.isfinite(s.score):  # no scores: never tested (issue 58)
                out.append(f"{n.ljust(width)}  {ABSENT:>7}  ({missing_what(m)}: not tested)")
                continue
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
    exact = next((c for c in comparisons.values() if c.test != first.test), None)
    if exact is not None:  # a translation check's McNemar test beside the metrics' resampling test (issue 60)
        out.append(f"test signature ({exact.test}): {exact.signature}")
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

"""The translation checks and the terms as tables a page, the report and the exports share (issue 60): the checks
table beside the metrics (Rankings), and the lines where one of two systems fails a check and the other passes
(Compare two systems)."""

from __future__ import annotations

from collections.abc import Mapping

from ..scores.results import MetricResult


def checks_rows(results: Mapping[str, MetricResult]) -> list[dict]:
    """One row per system (the fewest failures first, summed over the checks): each check's percent of lines failing
    and the terms' rates as their results give them."""
    first = next(iter(results.values()), None)
    if first is None:
        return []
    rows = [{"system": s, **{m: r.scores[s] for m, r in results.items()}} for s in first.scores]
    checks = [m for m, r in results.items() if not r.higher_is_better]
    return sorted(rows, key=lambda row: sum(row[m] for m in checks))


def one_fails(result: MetricResult, a: str, b: str, lines_a, lines_b, limit: int = 200) -> list[dict]:
    """The lines where exactly one of ``a`` and ``b`` fails the check ``result`` (at most ``limit``): the line
    (1-based), which system fails, what failed (the failure's spans as text), and both outputs."""
    fa, fb = result.sentence_scores(a), result.sentence_scores(b)
    spans_a, spans_b = result.spans(a), result.spans(b)
    out = []
    for i, (x, y) in enumerate(zip(fa, fb, strict=True)):
        if (x > 0) == (y > 0):
            continue
        who, spans = (a, spans_a) if x > 0 else (b, spans_b)
        what = "; ".join(s.text for s in spans[i]) if spans else ""
        out.append({"line": i + 1, "fails": who, "what": what, a: lines_a[i], b: lines_b[i]})
        if len(out) == limit:
            break
    return out

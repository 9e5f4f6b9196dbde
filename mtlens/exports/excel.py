"""Excel workbooks (XlsxWriter): one sheet per table, text cells never turned into formulas."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping

from ..scores.results import MetricResult
from .tables import (
    ranked,
)

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

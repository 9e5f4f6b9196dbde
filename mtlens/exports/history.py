"""A set's history of runs for people: one row per run (time order) with, per metric, its score, its 95%
interval, the step to the previous run of its family (delta, p after Holm, significant or not, human
agreement) and the delta to a chosen baseline; from the history's JSON form
(:func:`mtlens.service.runs.history_to_dict`), so the command line, the page and the exports show the same."""

from __future__ import annotations

from .numbers import ABSENT, UNIT_DECIMALS, decimals, shown


def _signed(v, places: int) -> str:
    text = shown(v, places)
    return f"+{text}" if v is not None and text != ABSENT and float(v) > 0 else text


def history_rows(doc: dict) -> list[dict]:
    """Rows of strings, in time order; column names are those of the page and the exports."""
    rows = []
    for run in doc["runs"]:
        row = {"run": run["name"], "family": run["family"] or ABSENT, "made (UTC)": run["at"].replace("+00:00", "")}
        for m in doc["metrics"]:
            values = [r["scores"].get(m) for r in doc["runs"]]
            places = decimals(m, [v for v in values if v is not None])
            row[m] = shown(run["scores"].get(m), places)
            low, high = run["ci95"].get(m, [None, None])
            row[f"{m} 95% CI"] = ABSENT if low is None else f"{shown(low, places)}-{shown(high, places)}"
            step = run["step"].get(m)
            if step is None:
                row[f"{m} step"] = ABSENT
                row[f"{m} step p (Holm)"] = ABSENT
                row[f"{m} step humans agree (est.)"] = ABSENT
            else:
                mark = " *" if step["significant"] else ""
                row[f"{m} step"] = _signed(step["delta"], places + 1) + mark
                row[f"{m} step p (Holm)"] = shown(step["p_holm"], UNIT_DECIMALS)
                row[f"{m} step humans agree (est.)"] = shown(step["human_agreement"], UNIT_DECIMALS)
            if doc.get("baseline"):
                row[f"{m} vs {doc['baseline']}"] = _signed(run["delta_to_baseline"].get(m), places + 1)
        rows.append(row)
    return rows


def history_to_table(doc: dict) -> str:
    rows = history_rows(doc)
    if not rows:
        return "the set has no runs\n"
    head = list(rows[0])
    table = [head, *[[r[h] for h in head] for r in rows]]
    widths = [max(len(str(r[k])) for r in table) for k in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table]
    foot = [
        "",
        "step: delta to the previous run of the same family; * significant after Holm's correction over the steps "
        f"shown ({doc['test']}); p: two-sided paired bootstrap p-value.",
    ]
    foot += [f"note: {n}" for n in doc.get("notes", [])]
    return "\n".join(lines + foot) + "\n"

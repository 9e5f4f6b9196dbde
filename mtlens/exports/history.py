"""A set's history of runs for people: one row per run (time order) with, per metric, its score, its 95%
interval, the step to the previous run of its family (delta, p after Holm, significant or not, human
agreement) and the delta to a chosen baseline; from the history's JSON form
(:func:`mtlens.service.runs.history_to_dict`), so the command line, the page and the exports show the same."""

from __future__ import annotations

from .numbers import ABSENT, ERROR_BAR_COLOUR, UNIT_DECIMALS, decimals, shown


def _signed(v, places: int) -> str:
    text = shown(v, places)
    return f"+{text}" if v is not None and text != ABSENT and float(v) > 0 else text


def _places(doc: dict, metric: str) -> int:
    """The decimals of ``metric`` in a history (one rule: :func:`mtlens.exports.numbers.decimals`)."""
    return decimals(metric, [r["scores"].get(metric) for r in doc["runs"] if r["scores"].get(metric) is not None])


def history_rows(doc: dict) -> list[dict]:
    """Rows of strings, in time order; column names are those of the page and the exports."""
    rows = []
    places_of = {m: _places(doc, m) for m in doc["metrics"]}
    for run in doc["runs"]:
        row = {"run": run["name"], "family": run["family"] or ABSENT, "made (UTC)": run["at"].replace("+00:00", "")}
        for m in doc["metrics"]:
            places = places_of[m]
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
            if m in doc.get("computed_by_model", ()):  # a neural score is never shown without its model
                row[f"{m} signature"] = doc["signatures"][m]
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
    foot += [f"signature: {m}: {sig}" for m, sig in doc.get("signatures", {}).items()]
    foot += [f"note: {n}" for n in doc.get("notes", [])]
    return "\n".join(lines + foot) + "\n"


def history_figure(doc: dict, metric: str):
    """Per family, the runs of ``metric`` over time: a line through the scores, the 95% band around it, and a
    marker on every step that was significant (its delta, p after Holm and human agreement on hover). Runs
    without a family are single points. User text is escaped by the caller (:func:`mtlens.exports.figures.safe_figure`)."""
    import plotly.graph_objects as go

    from ..metrics import label

    fig = go.Figure()
    groups: dict[str, list[dict]] = {}
    for run in doc["runs"]:
        groups.setdefault(run["family"] or "", []).append(run)
    places = _places(doc, metric)
    for family, runs in groups.items():
        x = [r["at"] for r in runs]
        y = [r["scores"].get(metric) for r in runs]
        low = [r["ci95"].get(metric, [None, None])[0] for r in runs]
        high = [r["ci95"].get(metric, [None, None])[1] for r in runs]
        name = family or "runs without a family"
        if family and all(v is not None for v in low + high):
            fig.add_trace(
                go.Scatter(
                    x=x + x[::-1],
                    y=high + low[::-1],
                    mode="lines",  # plotly's default below 20 points draws a marker at every corner of the band
                    fill="toself",
                    line={"width": 0},
                    opacity=0.2,
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=name,
                    name=f"{name} 95% CI",
                )
            )
        detail = [
            shown(r["scores"].get(metric), places)
            + ("" if lo is None else f" [{shown(lo, places)}, {shown(hi, places)}]")
            for r, lo, hi in zip(runs, low, high, strict=True)
        ]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines+markers" if family else "markers",
                name=name,
                legendgroup=name,
                text=[r["name"] for r in runs],
                customdata=detail,
                hovertemplate="%{text}<br>%{customdata}<extra></extra>",
                error_y=None
                if family or any(v is None for v in low + high)
                else {
                    "type": "data",
                    "symmetric": False,
                    "array": [h - v for h, v in zip(high, y, strict=True)],
                    "arrayminus": [v - lo for v, lo in zip(y, low, strict=True)],
                    "color": ERROR_BAR_COLOUR,
                },
            )
        )
        steps = [(r, r["step"][metric]) for r in runs if r["step"].get(metric, {}).get("significant")]
        if steps:
            fig.add_trace(
                go.Scatter(
                    x=[r["at"] for r, _ in steps],
                    y=[r["scores"][metric] for r, _ in steps],
                    mode="markers",
                    marker={"symbol": "star", "size": 16, "line": {"width": 1}},
                    name=f"{name}: significant step",
                    legendgroup=name,
                    text=[f"{r['name']} vs {s['previous']}" for r, s in steps],
                    customdata=[
                        f"{_signed(s['delta'], places + 1)}, p (Holm) {shown(s['p_holm'], UNIT_DECIMALS)}, humans "
                        f"agree (est.) {shown(s['human_agreement'], UNIT_DECIMALS)}"
                        for _, s in steps
                    ],
                    hovertemplate="%{text}<br>step %{customdata}<extra></extra>",
                )
            )
    fig.update_layout(
        height=360,
        margin={"t": 30, "b": 40},
        yaxis_title=label(metric),
        xaxis_title="made (UTC)",
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def history_slide(doc: dict, metric: str) -> tuple[str, str]:
    """The presentation's slide: each family's runs in time order with their score and their step (a
    significant step marked), as (title, HTML); user text is escaped."""
    from html import escape

    from ..metrics import label

    rows = []
    places = _places(doc, metric)
    for run in doc["runs"]:
        step = run["step"].get(metric)
        cls = " class='mtl-sig'" if step and step["significant"] else ""
        delta = "" if step is None else _signed(step["delta"], places + 1) + (" *" if step["significant"] else "")
        agree = "" if step is None else shown(step["human_agreement"], UNIT_DECIMALS)
        rows.append(
            f"<tr><td>{escape(run['family'] or ABSENT)}</td><td>{escape(run['name'])}</td>"
            f"<td>{escape(run['at'][:16].replace('T', ' '))}</td><td>{shown(run['scores'].get(metric), places)}</td>"
            f"<td{cls}>{escape(delta)}</td><td>{escape(agree)}</td></tr>"
        )
    name = escape(label(metric))
    html = (
        f"<div class='mtl-slide'><h2>Runs over time: {name}</h2><table><tr><th>family</th><th>run</th>"
        f"<th>made (UTC)</th><th>{name}</th><th>step</th><th>humans agree (est.)</th></tr>{''.join(rows)}</table>"
        "<p class='mtl-note'>Step: the change from the previous run of the same family; * significant after Holm's "
        "correction over the steps (paired bootstrap). Humans agree: the share of judges expected to agree with a "
        "delta this size (Kocmi et al. 2024).</p></div>"
    )
    return f"Runs over time: {label(metric)}", html

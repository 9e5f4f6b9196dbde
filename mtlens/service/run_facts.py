"""A run's facts as the faces call them (issue 50): what it was tuned on, what it cost and how fast it was, read from
its metadata (``add``'s flags, a bundle's runs, the History page's form) and checked; the axes and the Pareto front
of quality against cost, and the marks of the scores a tuning inflates. The runs themselves and their history are
:mod:`mtlens.service.runs`."""

from __future__ import annotations

from ..core.errors import InputError

__all__ = [
    "COST_AXES",
    "FACT_FLAGS",
    "checked_facts",
    "cost_axes",
    "costs_of",
    "facts_meta",
    "families_line",
    "pareto_points",
    "run_facts",
    "tuned_marks",
]

#: the run flags of ``add`` that are kept as metadata (issue 50): flag's destination -> metadata key
FACT_FLAGS = {
    "tuned_on": "tuned_on",
    "price_in": "price_in",
    "price_out": "price_out",
    "tokens_in": "tokens_in",
    "tokens_out": "tokens_out",
    "cost": "cost_usd",
    "seconds_per_segment": "seconds_per_segment",
    "tokens_per_second": "tokens_per_second",
}


def facts_meta(tuned_on=None, cost=None, price_in=None, price_out=None, seconds_per_segment=None) -> dict[str, str]:
    """The metadata of a form's run facts (empty fields left out); :func:`checked_facts` checks them."""
    given = {"tuned_on": (tuned_on or "").strip() or None, "cost_usd": cost, "price_in": price_in,
             "price_out": price_out, "seconds_per_segment": seconds_per_segment}  # fmt: skip
    return {k: str(v) for k, v in given.items() if v is not None}


def checked_facts(meta) -> dict[str, str]:
    """A run's metadata with its facts checked: ``tuned_on`` read as metric families (kept sorted), the cost and
    speed keys as numbers (:mod:`mtlens.analysis.costs`); one sentence naming what is wrong."""
    from ..analysis.costs import check_cost_meta
    from ..analysis.families import tuned_families, tuned_text

    meta = dict(meta or {})
    if "tuned_on" in meta:
        meta["tuned_on"] = tuned_text(tuned_families(meta["tuned_on"]))
        if not meta["tuned_on"]:
            del meta["tuned_on"]
    return check_cost_meta(meta)


def run_facts(store, set_id: str, corpus) -> dict[str, dict]:
    """Each system's tuned-on families and cost (:class:`mtlens.analysis.costs.RunCost`) from its run's metadata:
    ``{name: {"tuned_on": frozenset, "cost": RunCost}}``."""
    from ..analysis.costs import run_cost
    from ..analysis.families import tuned_families

    runs = {r.name: r for r in store.runs(set_id)} if set_id else {}
    out = {}
    for name in corpus.system_names:
        meta = runs[name].meta if name in runs else {}
        try:
            tuned = tuned_families(meta.get("tuned_on"))
        except InputError:  # a damaged or hand-edited store: read as nothing said
            tuned = frozenset()
        out[name] = {"tuned_on": tuned, "cost": run_cost(meta, corpus.source, corpus.systems[name])}
    return out


#: the axes quality is drawn against: label -> the :class:`mtlens.analysis.costs.RunCost` field
COST_AXES = {"cost (US$ for this test set)": "usd", "latency (s per segment)": "seconds_per_segment"}


def cost_axes(costs: dict) -> dict[str, str]:
    """The axes at least two systems say a value for (``costs``: name -> RunCost)."""
    return {
        label: attr
        for label, attr in COST_AXES.items()
        if sum(getattr(c, attr) is not None for c in costs.values()) >= 2
    }


def pareto_points(scores: dict[str, float], costs: dict, higher_is_better: bool, attr: str, metric: str = "score"):
    """``(rows, front)``: one row per system with a value on the axis (``{"system", metric, axis, "on the front"}``)
    and the front's systems, cheapest first (:func:`mtlens.analysis.costs.pareto_front`)."""
    from ..analysis.costs import pareto_front

    label = next(k for k, v in COST_AXES.items() if v == attr)
    known = {n: getattr(c, attr) for n, c in costs.items() if getattr(c, attr) is not None and n in scores}
    front = pareto_front({n: (float(scores[n]), v) for n, v in known.items()}, higher_is_better)
    rows = [{"system": n, metric: float(scores[n]), label: v, "on the front": n in front} for n, v in known.items()]
    return rows, front


def families_line(metrics) -> str:
    """The metric families of ``metrics``, in one line (:func:`mtlens.analysis.families.families_text`)."""
    from ..analysis.families import families_text

    return families_text(metrics)


def tuned_marks(results: dict, facts: dict) -> tuple[dict[tuple[str, str], bool], list[str]]:
    """The (system, metric) scores of a family the system was tuned on, as its tuning inflates them
    (:func:`mtlens.analysis.families.tainted`), and a sentence per tuned system."""
    from ..analysis.families import family_of, tainted, tuned_text

    marks, sentences = {}, []
    for system, f in facts.items():
        if not f["tuned_on"]:
            continue
        hit = [m for m in results if family_of(m) in tainted(f["tuned_on"])]
        marks.update({(system, m): True for m in hit})
        sentences.append(
            f"{system} was tuned on {tuned_text(f['tuned_on'])}: "
            + (f"its {', '.join(hit)} scores are of families that tuning inflates (shaded)" if hit
               else "none of these metrics is of a family that tuning inflates")
        )  # fmt: skip
    return marks, sentences


def costs_of(doc: dict) -> dict:
    """The runs' costs of a history's JSON (:func:`history_to_dict`), as :class:`mtlens.analysis.costs.RunCost`."""
    from ..analysis.costs import RunCost

    return {r["name"]: RunCost(**r["cost"]) for r in doc["runs"] if r.get("cost")}

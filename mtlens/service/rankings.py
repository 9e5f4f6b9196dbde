"""The Rankings of a set: which metrics it shows by default, its table, its significance test, and the
whole of it computed from a saved set's stored statistics.

The dashboard's Rankings page (``pages/1_Rankings.py``) and the quick view of a saved set
(:mod:`mtlens.ui.quick`, plain HTML drawn on the server) both take every decision from here, so the
two show the same table for the same set.

Example:
    >>> default_metrics(["bleu", "ter", "chrf"], size=1_000)
    ['bleu', 'ter', 'chrf']
    >>> default_metrics(["bleu", "ter", "chrf", "comet"], size=LARGE + 1)  # TER, tBLEU opt-in when large
    ['bleu', 'chrf', 'comet']
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from urllib.parse import urlencode

import numpy as np
import pandas as pd

from ..analysis.policy import ALPHA, DEFAULT_SAMPLES, MIN_TEST_LINES, SEED, test_wording
from ..analysis.significance import Comparison
from ..core.kept import BoundedCache
from ..core.options import DEFAULTS, OPTION_PARAM, SPECS, read_link
from ..exports import tables as report
from ..exports.numbers import column_decimals, direction_note
from ..metrics import REGISTRY
from ..scores.results import MetricResult
from .comparisons import can_test

__all__ = [
    "LARGE",
    "METRICS_PARAM",
    "QUICK_PATH",
    "RESAMPLES",
    "SORT_PARAM",
    "TEST",
    "VIEW_PARAMS",
    "Rankings",
    "clusters_note",
    "comparison",
    "default_metrics",
    "fast",
    "from_link",
    "link_params",
    "quick_link",
    "saved",
    "table",
    "to_html",
    "too_few_lines",
    "view_params",
]

#: above this many system lines (lines x systems) the slow metrics (TER, tBLEU) are opt-in: about a minute
#: per 100,000 system lines when nothing is stored
LARGE = 30_000
#: the Rankings' significance test: paired bootstrap, its resamples (None: the policy's count for the number
#: of pairs, :func:`mtlens.analysis.policy.resample_count`), the policy's seed and level (Holm-corrected)
TEST, RESAMPLES = "bootstrap", None


def clusters_note(metrics: Sequence[str], cmp: Comparison | None = None) -> str:
    """The clusters' rule under the table, naming the resamples the test drew (``cmp``; without one, the rule
    that chooses them), with the direction of the metrics shown that go down (TER)."""
    if cmp is not None:
        test = test_wording(cmp.test, cmp.n, cmp.alpha)
    else:
        test = (
            f"paired bootstrap, {DEFAULT_SAMPLES['bootstrap']:,} resamples or more when there are many systems; "
            f"Holm-corrected p < {ALPHA:g}"
        )
    rule = (
        "Clusters: systems in score order, split only where every system above is significantly better than every "
        f"system below ({test})."
    )
    return " ".join(t for t in (rule, direction_note(metrics)) if t)


def fast(names: Sequence[str]) -> list[str]:
    """``names`` without the slow built-in metrics (TER, tBLEU); metrics read from files are never slow."""
    return [m for m in names if not (m in REGISTRY and REGISTRY[m].slow)]


def default_metrics(names: Sequence[str], size: int) -> list[str]:
    """The metrics the Rankings show before anyone picks: all of them, or the fast ones above
    :data:`LARGE` system lines; the translation checks and terms have their own table (issue 60), so they are
    offered, not shown first."""
    from ..scores.sources import CHECKS_FAMILY, source_of

    names = [n for n in names if source_of(n).family != CHECKS_FAMILY]
    return list(names) if size <= LARGE else fast(names)


#: where the server answers with a saved set's quick view (mtlens.ui.quick): ``QUICK_PATH?set=ID&...``
QUICK_PATH = "/quick/rankings"
#: the Rankings' own link parameters: the metrics shown (comma-separated, only when they are not the
#: defaults) and the metric they are sorted by (only when it is not the first)
METRICS_PARAM, SORT_PARAM = "metrics", "sort"


#: what a Rankings link may say: the set, its options, the metrics shown and the sort, in that order
VIEW_PARAMS = ("set", *(OPTION_PARAM + name for name in SPECS), METRICS_PARAM, SORT_PARAM)


def view_params(params) -> dict[str, str]:
    """The parameters of a link (a mapping of strings) that name a Rankings view (:data:`VIEW_PARAMS`)."""
    return {k: str(params[k]) for k in VIEW_PARAMS if params.get(k) is not None}


def quick_link(params) -> str:
    """The quick view of the set and view a link's parameters name, relative to the server's root
    (``quick/rankings?set=ID&...``)."""
    return f"{QUICK_PATH.lstrip('/')}?{urlencode(view_params(params))}"


def link_params(shown: Sequence[str], default: Sequence[str], sort_by: str) -> dict[str, str | None]:
    """What the Rankings write into their link (None: the parameter is left out)."""
    return {
        METRICS_PARAM: None if set(shown) == set(default) else ",".join(shown),
        SORT_PARAM: None if sort_by == shown[0] else sort_by,
    }


def from_link(params, names: Sequence[str], size: int) -> tuple[list[str], str]:
    """The metrics shown and the sort metric a link's parameters ask for, among ``names`` (in their
    order); what does not fit is ignored: the defaults, sorted by the first metric.

    >>> from_link({"metrics": "chrf,nonsense,bleu", "sort": "chrf"}, ["bleu", "chrf", "ter"], 100)
    (['bleu', 'chrf'], 'chrf')
    >>> from_link({"sort": "ter"}, ["bleu", "chrf", "ter"], LARGE + 1)  # TER is not shown: sorted by BLEU
    (['bleu', 'chrf'], 'bleu')
    """
    picked = set(str(params.get(METRICS_PARAM) or "").split(","))
    shown = [m for m in names if m in picked] or default_metrics(names, size) or ["bleu"]
    sort = params.get(SORT_PARAM)
    return shown, sort if sort in shown else shown[0]


def too_few_lines(n_lines: int) -> str:
    return (
        f"No significance tests: they need at least {MIN_TEST_LINES} lines, this test set has "
        f"{n_lines} (a resampling test over a handful of lines measures nothing)."
    )


def comparison(result: MetricResult, progress=None) -> Comparison:
    """The Rankings' test of one metric (:data:`TEST`, :data:`RESAMPLES`, :data:`SEED`, :data:`ALPHA`).

    A built-in metric's test is kept in this process by what it is computed from (:func:`_test_key`), in
    :data:`KEPT_TESTS`: the same set's quick view opened again, or by twenty visitors at once, resamples nothing twice
    (the resampling was a third of a quick view's time; docs/decisions.md, "Serving many visitors")."""
    from ..analysis.significance import compare

    key = _test_key(result)
    test = lambda: compare(result, test=TEST, n=RESAMPLES, seed=SEED, alpha=ALPHA, progress=progress)  # noqa: E731
    return test() if key is None else KEPT_TESTS.get_or_compute(key, test)


#: the tests :func:`comparison` keeps (one per set and sort metric a quick view shows; each a few kB)
KEPT_TESTS = BoundedCache(64)


def _test_key(result: MetricResult) -> tuple | None:
    """What a built-in metric's test depends on: the metric with its options (its signature), the systems in order and
    a digest of each one's per-segment statistics (the only data the test resamples). None for a metric read from a
    file or a check, whose scorer holds more than its statistics."""
    if result.metric not in REGISTRY:
        return None
    digests = []
    for system, stats in result.stats.items():
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{stats.dtype.str}{stats.shape}".encode())
        h.update(np.ascontiguousarray(stats).data)
        digests.append((system, h.hexdigest()))
    return (result.metric, result.signature, type(result.scorer).__qualname__, tuple(digests))


def table(
    results: dict[str, MetricResult], sort_by: str, cmp: Comparison | None = None, tuned_on: dict | None = None
) -> pd.DataFrame:
    """Systems in the order of ``sort_by`` with a rank, every metric, and (with a comparison) the cluster
    and the bootstrap interval of ``sort_by``; ``tuned_on`` (system -> families), when a system says what it was
    tuned on: a "tuned on" column."""
    order = report.ranked(results, sort_by)
    out = pd.DataFrame({"system": order, **{m: [r.scores[n] for n in order] for m, r in results.items()}})
    out.insert(0, "rank", range(1, len(order) + 1))
    if tuned_on and any(tuned_on.values()):
        from ..analysis.families import tuned_text

        out.insert(2, "tuned on", [tuned_text(tuned_on.get(n, ())) for n in order])
    if cmp is not None:
        cluster_of = {n: i + 1 for i, cl in enumerate(cmp.clusters) for n in cl}
        out.insert(2, f"cluster ({sort_by})", [cluster_of.get(n) for n in order])
        out.insert(3, f"{sort_by} 95% CI ±", [cmp.systems[n].ci for n in order])
    return out


@dataclass
class Rankings:
    """A set's Rankings as a link opens them: its metrics, options and sort (the set's defaults where the
    link names none)."""

    name: str
    set_id: str
    n_lines: int
    systems: int
    references: int
    language: str
    results: dict[str, MetricResult]
    sort_by: str
    comparison: Comparison | None
    notes: list[str] = field(default_factory=list)

    @property
    def table(self) -> pd.DataFrame:
        return table(self.results, self.sort_by, self.comparison)


def saved(store, set_id: str, params=None, visitor=None) -> Rankings:
    """The Rankings of a saved set (or the bundled sample) as the dashboard opens them from a link with the
    parameters ``params`` (options ``opt_*``, ``metrics``, ``sort``; none: the set's defaults): every
    metric's statistics read from the store (those missing are computed and stored as
    :func:`mtlens.service.evaluation.kept_options` allows ``visitor``; ``None``: the operator). Raises
    InputError for an unknown id or an unreadable store."""
    from ..metrics import metric_names
    from ..runtime.scoring import result_for, score_set
    from .evaluation import file_metrics, finished_neural, kept_options, options_for
    from .sets import open_set

    ev = open_set(store, set_id)
    corpus = ev.corpus
    params = params or {}
    opts, link_notes = read_link(params, options_for(ev.language, DEFAULTS))
    imported = {s.name: s for s in file_metrics(store, ev, finished_neural(store, ev))}
    builtin = list(metric_names()) if corpus.references else []
    shown, sort_by = from_link(params, [*builtin, *imported], corpus.n_lines * len(corpus.systems))
    todo = [m for m in shown if m in REGISTRY]
    keep_only = kept_options(store, set_id, ev.language, visitor)
    by_name = dict(zip(todo, score_set(store, set_id, corpus, todo, opts, keep_only), strict=True))
    results = {m: by_name[m] if m in by_name else result_for(corpus, imported[m]) for m in shown}
    testable = can_test(len(corpus.systems), corpus.n_lines)
    cmp = comparison(results[sort_by]) if testable else None
    notes = [] if testable or len(corpus.systems) < 2 else [too_few_lines(corpus.n_lines)]
    notes += [n[0].upper() + n[1:] + "." for n in (cmp.notes if cmp is not None else ())]
    return Rankings(
        ev.name or set_id,
        set_id,
        corpus.n_lines,
        len(corpus.systems),
        len(corpus.references),
        ev.language.describe(opts.tokenize) if ev.language is not None else "",
        results,
        sort_by,
        cmp,
        [*(n[0].upper() + n[1:] for n in link_notes), *notes, *store.notes],
    )


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem 2rem;color:#222;max-width:1400px}
h1{font-size:2rem;margin:.2rem 0 .5rem}table{border-collapse:collapse;margin:1rem 0}
th,td{border-bottom:1px solid #ddd;padding:4px 12px;text-align:right;font-variant-numeric:tabular-nums}
th{border-bottom:2px solid #999}td.t,th.t{text-align:left}.caption{color:#555;font-size:.9rem}
a.open{display:inline-block;padding:.45rem 1rem;border:1px solid #ff4b4b;border-radius:.5rem;color:#ff4b4b;
text-decoration:none;margin:.3rem 0}a.open:hover{background:#ff4b4b;color:#fff}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:.85rem}.note{color:#8a5a00}
"""


def _cell(value, places: int | None) -> str:
    if isinstance(value, str):
        return f"<td class='t'>{escape(value)}</td>"
    if value is None or (isinstance(value, float) and value != value):
        return "<td>-</td>"
    if places is not None:
        return f"<td>{value:.{places}f}</td>"
    return f"<td>{escape(str(value))}</td>"


def to_html(rk: Rankings, dashboard: str) -> str:
    """The Rankings as one page of plain HTML (no script): the table with the dashboard's decimals
    (:func:`mtlens.exports.numbers.decimals`), the clusters' rule, notes and signatures; ``dashboard`` is the
    address of the same Rankings in the dashboard. Every piece of user text is escaped."""
    df = rk.table
    places = column_decimals(df)
    head = "".join(f"<th{' class=t' if c == 'system' else ''}>{escape(str(c))}</th>" for c in df.columns)
    rows = "".join(
        "<tr>" + "".join(_cell(v, places.get(c)) for c, v in zip(df.columns, row, strict=True)) + "</tr>"
        for row in df.itertuples(index=False)
    )
    about = f"{rk.systems} systems, {rk.n_lines} lines, {rk.references} reference(s)"
    if rk.language:
        about += f" · {rk.language}"
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>mtlens · Rankings · {escape(rk.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Rankings</h1><p><b>{escape(rk.name)}</b> · {escape(about)}</p>",
        f"<p><a class='open' href='{escape(dashboard)}'>Open in the dashboard</a> "
        "<span class='caption'>(options, sentences, significance, charts, downloads)</span></p>",
        f"<table id='rankings'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>",
    ]
    if rk.comparison is not None:
        parts.append(f"<p class='caption'>{escape(clusters_note(list(rk.results), rk.comparison))}</p>")
    parts += [f"<p class='note'>{escape(n)}</p>" for n in rk.notes]
    signatures = "\n".join(f"{m}: {r.signature}" for m, r in rk.results.items())
    parts.append(f"<p><b>Signatures</b></p><pre>{escape(signatures)}</pre>")
    parts.append(
        "<p class='caption'>A quick view of the saved set, drawn by the server from its stored statistics "
        "with the options of its link (the set's defaults where the link names none).</p></body></html>"
    )
    return "".join(parts)

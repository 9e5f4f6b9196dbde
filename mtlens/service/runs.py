"""Runs and their history as the faces call them (issue 34): a system output added to a saved set with when it
was made, its family (lineage) and metadata; and per family and metric, the runs over time with their
bootstrap intervals and the significance of every step (docs/decisions.md, "Runs and history").

- A step is two consecutive runs of one family (time order); runs without a family are points, never steps.
- Each step is a paired bootstrap (the same resamples for every step and interval of a metric; a check's, McNemar's
  exact test): ``p`` two-sided, ``(#{k: |d_k - mean(d)| >= |delta|} + 1) / (n + 1)``; ``p_holm``: Holm's
  correction over the steps shown for that metric; a step is significant when ``p_holm < alpha``.
- Adding a run scores only what is new: stored statistics are per system, neural scores cached per segment.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analysis.policy import ALPHA
from ..core.errors import InputError
from ..core.names import clean_name, shown
from ..core.options import DEFAULTS
from ..exports.tables import computed_by_model
from ..storage.runs import Run, check_meta, clean_family, utc_iso
from .evaluation import options_for
from .run_facts import checked_facts, run_facts

__all__ = [
    "VIEW_RUNS",
    "History",
    "Run",
    "Step",
    "add_run",
    "add_systems",
    "families",
    "history",
    "history_to_dict",
    "parse_at",
    "parse_meta",
    "runs_key",
    "system_name",
    "windows",
]

#: the most runs one History view shows and tests (issue 51: a page of 520 runs tested 519 steps with 20,759
#: resamples, 71 s and 3.3 GB); older runs are the next views. The command line shows every run unless --last.
VIEW_RUNS = 50


def families(store, set_id: str | None) -> list[str]:
    """The families of the set's runs, in the order of their first run (none for an unsaved set)."""
    if not set_id:
        return []
    try:
        return list(dict.fromkeys(r.family for r in store.runs(set_id) if r.family))
    except InputError:
        return []


def runs_key(store, set_id: str | None) -> tuple:
    """What a cached history depends on besides the text: every run's name, family, time and metadata."""
    if not set_id:
        return ()
    try:
        return tuple((r.name, r.family, r.at, tuple(sorted(r.meta.items()))) for r in store.runs(set_id))
    except InputError:
        return ()


#: a run's name is cut to this many characters
MAX_RUN_NAME = 200


def parse_at(text: str | None) -> str | None:
    """A run's time as a user writes it (ISO-8601: ``2026-11-26``, ``2026-11-26T10:00``, with or without an
    offset; a time without one is UTC) -> the store's form; None for none given."""
    if text is None or not str(text).strip():
        return None
    try:
        when = dt.datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
        return utc_iso(when)
    except ValueError:
        raise InputError(f"--at '{shown(str(text))}' is not an ISO-8601 time (e.g. 2026-11-26T14:30:00Z)") from None
    except OverflowError:  # a time whose UTC falls outside years 1-9999 (9999-12-31T23:59:59-12:00)
        raise InputError(f"--at '{shown(str(text))}' falls outside the years 1 to 9999 in UTC") from None


def parse_meta(items: Sequence[str]) -> dict[str, str]:
    """``["checkpoint=step-42000", "commit=1a2b3c"]`` -> a dict (the first ``=`` splits; a key given twice
    keeps the last value)."""
    out = {}
    for item in items:
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise InputError(f"--meta takes KEY=VALUE, not '{str(item)[:80]}'")
        out[key.strip()] = value
    return check_meta(out)


def system_name(text: str, empty: str = "a system needs a name") -> str:
    """The one rule for the name of a system added to a saved set, on every path (``add``, the home page's
    form): white space folded to single spaces, at most :data:`MAX_RUN_NAME` characters; ``empty`` is the
    sentence for a name with nothing left."""
    return clean_name(text, "system", MAX_RUN_NAME, cut=True, empty=empty)


def add_systems(store, set_id: str, files: Sequence[tuple[str, bytes]], visitor=None) -> list[str]:
    """Add system outputs (``(file name, bytes)`` pairs, read as UTF-8 text) to a saved set, named by their
    file stems (:func:`~mtlens.readers.testset.unique_names` where stems collide) under :func:`system_name`'s
    rule, as a run is named; checked as :func:`add_run` checks a run. Returns the names."""
    from ..readers.lines import decode_lines
    from ..readers.testset import unique_names
    from .sets import require_change

    require_change(store, set_id, visitor, "add systems to it")
    names = [system_name(n) for n in unique_names([f for f, _ in files], "system")]
    if len(set(names)) < len(names):
        raise InputError("two of the files would get the same name; rename one of them")
    store.add_systems(set_id, {n: decode_lines(d, f) for n, (f, d) in zip(names, files, strict=True)}, visitor)
    return names


def add_run(
    store,
    set_id: str,
    data: bytes,
    file_name: str,
    name: str | None = None,
    family: str | None = None,
    at: str | None = None,
    meta: dict[str, str] | None = None,
    visitor=None,
) -> Run:
    """Add a system output (the bytes of a text file) to a saved set as a run. Checked before anything is
    saved: the visitor may change the set, the file reads as UTF-8 text, its line count is the set's, the
    name is new. Nothing is scored here: the next view scores the new run alone."""
    from ..readers.lines import decode_lines
    from ..readers.testset import stem
    from .sets import require_change

    require_change(store, set_id, visitor, "add runs to it")
    meta = checked_facts(meta)
    name = system_name(name or stem(file_name), "a run needs a name (--name)")
    lines = decode_lines(data, file_name)
    n_lines = store.load(set_id).info.lines
    if len(lines) != n_lines:
        raise InputError(f"'{file_name}' has {len(lines):,} lines; the set's references have {n_lines:,}")
    return store.add_run(set_id, name, lines, clean_family(family), parse_at(at) if at else None, meta, visitor)


@dataclass(frozen=True)
class Step:
    """A run compared with the previous run of its family, on one metric."""

    previous: str
    delta: float
    p: float
    p_holm: float
    significant: bool
    human_agreement: float | None


@dataclass(frozen=True)
class History:
    """The runs (time order) and, per metric, each run's score, 95% interval and step."""

    set_id: str
    runs: list[Run]
    metrics: list[str]
    scores: dict[str, dict[str, float]]
    low: dict[str, dict[str, float]]
    high: dict[str, dict[str, float]]
    steps: dict[str, dict[str, Step]]
    higher_is_better: dict[str, bool]
    baseline: str | None
    alpha: float
    n: int
    seed: int
    notes: list[str] = field(default_factory=list)
    resample: str = "segments"
    signatures: dict[str, str] = field(default_factory=dict)
    #: the metrics whose scores a registered neural checkpoint computed (their signature goes with them)
    computed: tuple[str, ...] = ()
    #: each run's cost and latency from its metadata (:class:`mtlens.analysis.costs.RunCost`)
    costs: dict = field(default_factory=dict)

    @property
    def fronts(self) -> dict[str, list[str]]:
        """Per metric, the runs on the Pareto front of quality against cost (none when under two runs have a cost)."""
        from ..analysis.costs import fronts

        return fronts(self.scores, {n: c.usd for n, c in self.costs.items()}, self.higher_is_better)

    def to_baseline(self, metric: str, run: str) -> float | None:
        if self.baseline is None or self.baseline not in self.scores[metric]:
            return None
        return self.scores[metric][run] - self.scores[metric][self.baseline]


def windows(store, set_id: str | None, family: str | None = None, size: int | None = None) -> list[tuple[int, str]]:
    """The views of a set's runs (one family's, or all), newest first: ``(skip, label)`` where ``skip`` is how
    many of the newest runs the view leaves out (``history(..., last=size, skip=skip)``); one view when the runs
    fit in one. ``size``: default :data:`VIEW_RUNS`."""
    size = VIEW_RUNS if size is None else size
    if not set_id:
        return [(0, "all runs")]
    try:
        total = sum(1 for r in store.runs(set_id) if family is None or r.family == family)
    except InputError:
        total = 0
    if total <= size:
        return [(0, "all runs")]
    out = []
    for skip in range(0, total, size):
        first, last = max(0, total - skip - size) + 1, total - skip
        out.append((skip, f"runs {first:,} to {last:,} of {total:,}" + (" (the newest)" if skip == 0 else "")))
    return out


def _steps(runs: Sequence[Run]) -> list[tuple[str, str]]:
    """(run, previous run of its family) for every run of a family but its first, in time order."""
    last: dict[str, str] = {}
    out = []
    for r in runs:
        if r.family is None:
            continue
        if r.family in last:
            out.append((r.name, last[r.family]))
        last[r.family] = r.name
    return out


def history(
    store,
    set_id: str,
    family: str | None = None,
    metrics: str | None = None,
    baseline: str | None = None,
    alpha: float = ALPHA,
    seed: int | None = None,
    visitor=None,
    options=None,
    resample: str = "segments",
    last: int | None = None,
    skip: int = 0,
) -> History:
    """The set's runs (one family's, or all) with their scores on ``metrics`` (default: BLEU and chrF, or the
    set's own metrics when it has no reference), intervals and steps. ``options``: the metric options
    (default: the set's language defaults, as sacrebleu would score it); ``resample``: ``documents`` draws
    whole documents for the intervals and the step tests (the set's documents). ``last``: only the ``last``
    runs before the ``skip`` newest (a view: the steps of those runs are tested, each against its previous run
    even when that run is older than the view, and Holm's correction is over those steps)."""
    from ..analysis.agreement import human_agreement
    from ..analysis.check_gate import exact_steps
    from ..analysis.policy import MIN_TEST_LINES, SEED, check_alpha, default_resamples
    from ..analysis.resampling import paired_deltas
    from ..analysis.significance import holm
    from .evaluation import file_metrics, kept_options
    from .results import named_results
    from .sets import open_set

    seed = SEED if seed is None else seed
    check_alpha(alpha)
    ev = open_set(store, set_id)
    every = store.runs(set_id) if ev.set_id else []
    runs = every
    if family is not None:
        runs = [r for r in every if r.family == family]
        if not runs:
            families = sorted({r.family for r in every if r.family})
            raise InputError(
                f"the set has no runs of family '{family}'"
                + (f"; its families: {', '.join(families)}" if families else "; it has no families yet")
            )
    total = len(runs)
    if last is not None or skip:
        if (last is not None and last < 1) or skip < 0:
            raise InputError(f"--last must be at least 1 and --skip at least 0, not {last} and {skip}")
        stop = max(0, total - skip)
        window = runs[max(0, stop - (last if last is not None else stop)) : stop]
    else:
        window = runs
    in_window = {r.name for r in window}
    steps = [(a, b) for a, b in _steps(runs) if a in in_window]
    runs = window
    names = [r.name for r in runs]
    if baseline is not None and baseline not in ev.corpus.systems:
        raise InputError(f"the baseline '{baseline}' is not a run of this set: {', '.join(ev.corpus.system_names)}")
    if metrics is None:
        metrics = "bleu,chrf" if ev.corpus.references else ",".join(m.name for m in file_metrics(store, ev)[:2])
    shown = [*names, *([baseline] if baseline and baseline not in names else [])]
    documents = None
    if resample == "documents":
        documents = ev.corpus.documents
        if documents is None:
            raise InputError("the set has no documents to resample (WMT XML, a doc column or a documents file)")
    opts = options if options is not None else options_for(ev.language, DEFAULTS)
    results = named_results(
        store, ev, metrics, opts, kept_options(store, set_id, ev.language, visitor), visitor=visitor
    )
    n = default_resamples(len(steps), ev.corpus.n_lines, alpha)
    scores: dict[str, dict] = {}
    low: dict[str, dict] = {}
    high: dict[str, dict] = {}
    out_steps: dict[str, dict] = {}
    notes: list[str] = []
    for m, r in results.items():
        scores[m] = {s: r.scores[s] for s in shown}
        low[m], high[m], out_steps[m] = {}, {}, {}
        if ev.corpus.n_lines < MIN_TEST_LINES:
            continue
        deltas, cis = paired_deltas(r, steps, n, seed, systems=shown, documents=documents)
        deltas = exact_steps(r, deltas, notes)  # a check's steps: McNemar's exact test (issue 60)
        for s, ci in cis.items():
            low[m][s], high[m][s] = ci.low, ci.high
        adjusted: list[float] = list(holm([d.p_value for d in deltas])) if deltas else []
        for d, ph in zip(deltas, adjusted, strict=True):
            out_steps[m][d.a] = Step(d.b, d.delta, d.p_value, float(ph), bool(ph < alpha), human_agreement(m, d.delta))
    if ev.corpus.n_lines < MIN_TEST_LINES:
        notes.append(
            f"{ev.corpus.n_lines} lines: too few for intervals and step tests (at least {MIN_TEST_LINES}); scores only"
        )
    if not steps and runs and len(runs) == total:
        notes.append("no family has two runs yet, so there is no step to test (give runs a family: --family)")
    if len(runs) < total:
        first = total - skip - len(runs) + 1
        notes.append(
            f"runs {first:,} to {first + len(runs) - 1:,} of {total:,} shown; their {len(steps):,} steps are tested "
            "(each against its previous run) and corrected together"
        )
    return History(
        set_id,
        runs,
        list(results),
        scores,
        low,
        high,
        out_steps,
        {m: r.higher_is_better for m, r in results.items()},
        baseline,
        alpha,
        n,
        seed,
        notes,
        resample,
        {m: r.signature for m, r in results.items()},
        tuple(m for m, r in results.items() if computed_by_model(r)),
        {n: f["cost"] for n, f in run_facts(store, set_id, ev.corpus).items() if n in {r.name for r in runs}},
    )


def _num(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def history_to_dict(h: History) -> dict:
    """The history as JSON (a contract: ``{"runs": [{"name", "family", "at", "meta", "scores"}]}`` in time
    order; each run also has its intervals, its step to the previous run of its family, its delta to
    the baseline and its cost; ``pareto_front``: per metric, the runs no other run beats on quality and cost)."""
    from ..analysis.costs import cost_dict

    runs = []
    for r in h.runs:
        runs.append(
            {
                "name": r.name,
                "family": r.family,
                "at": r.at,
                "meta": r.meta,
                "scores": {m: h.scores[m].get(r.name) for m in h.metrics},
                "ci95": {m: [_num(h.low[m].get(r.name)), _num(h.high[m].get(r.name))] for m in h.metrics},
                "step": {
                    m: {
                        "previous": s.previous,
                        "delta": s.delta,
                        "p": s.p,
                        "p_holm": s.p_holm,
                        "significant": s.significant,
                        "human_agreement": _num(s.human_agreement),
                    }
                    for m in h.metrics
                    if (s := h.steps[m].get(r.name)) is not None
                },
                "delta_to_baseline": {m: _num(h.to_baseline(m, r.name)) for m in h.metrics} if h.baseline else {},
                "cost": cost_dict(h.costs[r.name]) if r.name in h.costs else None,
            }
        )
    return {
        "set": h.set_id,
        "metrics": h.metrics,
        "signatures": h.signatures,
        "computed_by_model": list(h.computed),
        "baseline": h.baseline,
        "runs": runs,
        "test": f"test:paired-bootstrap|n:{h.n}|seed:{h.seed}|alpha:{h.alpha:g}|correction:holm-over-steps"
        + ("" if h.resample == "segments" else f"|resample:{h.resample}"),
        "notes": h.notes,
        "higher_is_better": h.higher_is_better,
        "pareto_front": h.fronts,
    }

"""Human judgments: reading them, pairing them with metric scores, correlating, meta-evaluating.

Correlation: Pearson, Spearman and Kendall's tau (scipy) between each metric and
each human score type, at system level (corpus scores vs system human scores)
and segment level (sentence scores vs rated lines, all systems pooled), with
percentile bootstrap 95% intervals (items resampled with replacement, seeded). System-level rows
also give the pairwise accuracy, segment-level rows acc_eq and its tie threshold
(:mod:`mtlens.analysis.meta`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..readers.lines import decode_lines
from ..scores.results import MetricResult
from .correlation import KINDS, bootstrap_ci, corr
from .meta import acc_eq, pairwise_accuracy, perm_both, segment_matrix, soft_pairwise_accuracy
from .policy import ALPHA, CI_RESAMPLES, SEED
from .significance import clusters_from_pairs, holm


@dataclass(frozen=True)
class HumanScores:
    """Human judgments read from one or more files.

    Attributes:
        system: human score type -> system -> score.
        segment: human score type -> system -> {line (0-based): score}.
        ignored: systems of the file that are not in the corpus.
        notes: what was done with the file (readable sentences).
    """

    system: dict[str, dict[str, float]]
    segment: dict[str, dict[str, dict[int, float]]]
    ignored: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _number(text: str, name: str, k: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"line {k} of '{name}': the score '{text[:40]}' is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"line {k} of '{name}': the score '{text[:40]}' is not a finite number")
    return value


def read_human(data: bytes, name: str, corpus: Corpus) -> HumanScores:
    """Read human scores: WMT-style TSV with a header (system level: ``system metric score``;
    segment level: ``system line metric score``, 1-based lines), or a plain column of
    per-line scores for a corpus with a single system.

    Fields are split on tabs only; quotes are ordinary characters (a field that starts
    with ``"`` never swallows the following rows). Scores must be finite numbers; a
    (system, metric[, line]) given twice is refused rather than one of them kept.

    Raises:
        InputError: unreadable file, bad or non-finite numbers, repeated rows, lines
            out of range, or no usable row.
    """
    lines = decode_lines(data, name)
    header = [h.strip().lower() for h in lines[0].split("\t")]
    systems = set(corpus.system_names)
    if "system" in header and "score" in header:
        col = {h: i for i, h in enumerate(header)}
        sys_lvl: dict[str, dict[str, float]] = {}
        seg_lvl: dict[str, dict[str, dict[int, float]]] = {}
        seen: dict[tuple, int] = {}
        ignored: set[str] = set()
        reader = csv.reader(io.StringIO("\n".join(lines[1:])), delimiter="\t", quoting=csv.QUOTE_NONE)
        for k, row in enumerate(reader, start=2):
            if not row or not any(x.strip() for x in row):
                continue
            try:
                sys_name = row[col["system"]]
                metric = row[col["metric"]] if "metric" in col else "human"
                raw_score = row[col["score"]]
                line = int(row[col["line"]]) if "line" in col else None
            except (IndexError, ValueError):
                raise InputError(f"line {k} of '{name}' is not 'system<TAB>[line<TAB>]metric<TAB>score'") from None
            value = _number(raw_score.strip(), name, k)
            key = (sys_name, metric, line)
            if key in seen:
                what = f"system '{sys_name}', {metric}" + (f", line {line}" if line is not None else "")
                raise InputError(f"'{name}' scores {what} twice (lines {seen[key]} and {k}); keep one of them")
            seen[key] = k
            if sys_name not in systems:
                ignored.add(sys_name)
                continue
            if line is None:
                sys_lvl.setdefault(metric, {})[sys_name] = value
            else:
                if not 1 <= line <= corpus.n_lines:
                    raise InputError(f"line {k} of '{name}' refers to line {line}; the corpus has {corpus.n_lines}")
                seg_lvl.setdefault(metric, {}).setdefault(sys_name, {})[line - 1] = value
        if not sys_lvl and not seg_lvl:
            raise InputError(f"'{name}' has no score for any of the systems {', '.join(sorted(systems))}")
        notes = []
        as_refs = sorted(ignored & set(corpus.references))  # WMT rates its human references like systems
        others = sorted(ignored - set(as_refs))
        if as_refs:
            notes.append(
                f"human scores of {', '.join(as_refs)} were not used: uploaded as reference(s), not as systems "
                "(upload a reference as a system file too to rank it against the systems)"
            )
        if others:
            notes.append(f"human scores of {len(others)} system(s) not uploaded were ignored: {', '.join(others)}")
        return HumanScores(sys_lvl, seg_lvl, tuple(sorted(ignored)), tuple(notes))
    # a plain column of numbers: one per line of a single-system corpus
    if len(systems) != 1:
        raise InputError(
            f"'{name}' has no header with 'system' and 'score' columns; a plain column of scores "
            f"needs a corpus with one system, not {len(systems)}"
        )
    values = [_number(x.strip(), name, k) for k, x in enumerate(lines, start=1)]
    if len(values) != corpus.n_lines:
        raise InputError(f"'{name}' has {len(values)} scores, the corpus has {corpus.n_lines} lines")
    only = corpus.system_names[0]
    return HumanScores({}, {"human": {only: dict(enumerate(values))}}, (), ())


def merge(parts: list[HumanScores]) -> HumanScores:
    """Several files' scores as one (a later file may add types or systems; a repeated value is refused)."""
    system: dict[str, dict[str, float]] = {}
    segment: dict[str, dict[str, dict[int, float]]] = {}
    ignored: set[str] = set()
    notes: list[str] = []
    for h in parts:
        for kind, items in h.system.items():
            dup = set(system.get(kind, {})) & set(items)
            if dup:
                raise InputError(f"two human files give {kind} for system '{sorted(dup)[0]}'")
            system.setdefault(kind, {}).update(items)
        for kind, by_sys in h.segment.items():
            for s, lines in by_sys.items():
                have = segment.setdefault(kind, {}).setdefault(s, {})
                if set(have) & set(lines):
                    raise InputError(f"two human files give segment-level {kind} for system '{s}' on the same lines")
                have.update(lines)
        ignored.update(h.ignored)
        notes += list(h.notes)
    return HumanScores(system, segment, tuple(sorted(ignored)), tuple(dict.fromkeys(notes)))


def read_human_files(files: list[tuple[str, bytes]], corpus: Corpus) -> HumanScores | None:
    """All human files of a dataset, read and merged (None when there are none)."""
    if not files:
        return None
    return merge([read_human(data, name, corpus) for name, data in files])


def segment_pairs(result: MetricResult, by_system: Mapping[str, Mapping[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Sentence scores of a metric and the human scores of the same (system, line) items, pooled over
    systems in the order of ``by_system``: (metric scores, human scores)."""
    xs, ys = [], []
    for s, lines in by_system.items():
        sent = result.sentence_scores(s)
        idx = np.fromiter(lines.keys(), dtype=np.int64, count=len(lines))
        xs.append(sent[idx])
        ys.append(np.fromiter(lines.values(), dtype=np.float64, count=len(lines)))
    if not xs:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(xs), np.concatenate(ys)


@dataclass(frozen=True)
class CorrelationRow:
    """One metric against one human score type at one level; intervals are (low, high)."""

    metric: str
    level: str
    human: str
    n: int
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]
    kendall: float
    kendall_ci: tuple[float, float]
    pairwise_accuracy: float | None = None
    acc_eq: float | None = None
    acc_eq_epsilon: float | None = None
    soft_pairwise_accuracy: float | None = None


@dataclass(frozen=True)
class HumanCorrelation:
    """Every metric against every human score type.

    Attributes:
        rows: one :class:`CorrelationRow` per metric, level and human score type.
        missing: ``"system:TYPE"`` / ``"segment:TYPE"`` -> systems without that score.
        notes: notes from reading the files.
    """

    rows: list[CorrelationRow]
    missing: dict[str, list[str]]
    notes: list[str]


def is_itself(metric: str, human_type: str) -> bool:
    """Whether ``metric`` is the human score ``human_type`` itself (``esa`` and ESA, ``mqm`` or ``mqm-2`` and MQM):
    such a pair is not a meta-evaluation (issue 58, D6: ``esa`` against ESA, r = 1.000, ranked first among metrics)."""
    from .families import HUMAN, family_of

    base = metric.lower().split("-", 1)[0]
    return family_of(metric) == HUMAN and base == human_type.lower()


def human_correlation(
    results: Mapping[str, MetricResult], human: HumanScores, n_boot: int = CI_RESAMPLES, seed: int = SEED
) -> HumanCorrelation:
    """Correlations of every metric with every human score type, system and segment level.

    Error rates (TER) are correlated as they are (expect negative values).
    """
    rows, missing = [], {}
    systems = list(next(iter(results.values())).scores)
    for h_name, by_sys in human.system.items():
        names = [s for s in systems if s in by_sys]
        missing[f"system:{h_name}"] = [s for s in systems if s not in by_sys]
        y = np.array([by_sys[s] for s in names])
        for m, r in results.items():
            if is_itself(m, h_name):
                continue
            x = np.array([r.scores[s] for s in names])
            acc, _ = pairwise_accuracy({s: r.scores[s] for s in names}, by_sys)
            rows.append(_row(m, "system", h_name, x, y, n_boot, seed, pairwise_accuracy=acc))
    for h_name, by_sys in human.segment.items():
        missing[f"segment:{h_name}"] = [s for s in systems if s not in by_sys]
        for m, r in results.items():
            if is_itself(m, h_name):
                continue
            x, y = segment_pairs(r, by_sys)
            mat_m, mat_h, _ = segment_matrix(r, by_sys, len(next(iter(r.stats.values()))))
            eq = acc_eq(mat_m, mat_h)
            sign = 1.0 if r.higher_is_better else -1.0  # an error rate's better system has the lower score
            spa, _ = soft_pairwise_accuracy(sign * mat_m, mat_h, n=n_boot, seed=seed)
            rows.append(
                _row(
                    m,
                    "segment",
                    h_name,
                    x,
                    y,
                    n_boot,
                    seed,
                    acc_eq=eq.acc,
                    acc_eq_epsilon=eq.epsilon,
                    soft_pairwise_accuracy=spa,
                )
            )
    return HumanCorrelation(rows, missing, list(human.notes))


def merge_correlations(parts: list[HumanCorrelation], metrics: list[str]) -> HumanCorrelation:
    """One table from tables of different metrics (each row has its own resamples, so this equals
    :func:`human_correlation` of all the metrics at once), rows in that function's order."""
    rows = [r for p in parts for r in p.rows]
    levels = []
    for r in rows:
        if (r.level, r.human) not in levels:
            levels.append((r.level, r.human))
    levels.sort(key=lambda lh: lh[0] != "system")  # system level first, as human_correlation
    pos = {m: k for k, m in enumerate(metrics)}
    rows.sort(key=lambda r: (levels.index((r.level, r.human)), pos.get(r.metric, len(pos))))
    return HumanCorrelation(rows, dict(parts[0].missing), list(parts[0].notes))


def _row(metric, level, human, x, y, n_boot, seed, **extra) -> CorrelationRow:
    # each row its own generator, seeded by the seed and the row's name: a metric's intervals are the same
    # whichever other metrics are in the table (the page shows the fast metrics' rows first)
    rng = np.random.default_rng([seed, zlib.crc32(f"{metric}|{level}|{human}".encode())])
    values = dict(extra)
    for kind in KINDS:
        values[kind] = corr(kind, x, y)
        values[f"{kind}_ci"] = bootstrap_ci(x, y, kind, n_boot, rng)
    return CorrelationRow(metric=metric, level=level, human=human, n=len(x), **values)


@dataclass(frozen=True)
class MetricClusters:
    """Metrics ordered by their (sign-adjusted) Pearson correlation with one human score type, in clusters.

    Attributes:
        level: readable description ("system level, DA_z, 4 scores").
        metrics: best first.
        pearson: metric -> Pearson's r with the human score, sign-adjusted (an error rate's r negated).
        cluster: metric -> cluster number (1 = best).
        p: (better, worse) -> Holm-corrected PERM-BOTH p-value that ``better`` correlates better.
    """

    level: str
    metrics: list[str]
    pearson: dict[str, float]
    cluster: dict[str, int]
    p: dict[tuple[str, str], float]


def metric_clusters(
    results: Mapping[str, MetricResult], human: HumanScores, level: str, n: int = CI_RESAMPLES, alpha: float = ALPHA
) -> MetricClusters:
    """Which metric agrees better with the humans (``level`` is ``"system:TYPE"`` or ``"segment:TYPE"``).

    Every pair of metrics is tested with PERM-BOTH (Deutsch et al. 2021; :func:`mtlens.analysis.meta.perm_both`,
    ``n`` permutations, one-sided: the better-ranked metric correlates better), Holm-corrected over the
    pairs; cluster boundaries only where every metric above is significantly better than every one below.
    """
    kind, h = level.split(":", 1)
    results = {m: r for m, r in results.items() if not is_itself(m, h)}  # D6: never the human score itself
    if not results:
        return MetricClusters(f"{kind} level, {h}: no metric but the human score itself", [], {}, {}, {})
    vectors = {}
    if kind == "system":
        systems = [s for s in next(iter(results.values())).scores if s in human.system[h]]
        gold = np.array([human.system[h][s] for s in systems], dtype=np.float64)
        for m, r in results.items():
            vectors[m] = np.array([r.scores[s] for s in systems], dtype=np.float64)
    else:
        first = next(iter(results.values()))
        n_lines = len(next(iter(first.stats.values())))
        gold = np.empty(0)
        for m, r in results.items():
            mat, gold_mat, _ = segment_matrix(r, human.segment[h], n_lines)
            vectors[m] = mat.ravel()
            gold = gold_mat.ravel()
    ok = ~np.isnan(gold)
    r_of = {m: corr("pearson", gold[ok], v[ok]) for m, v in vectors.items()}
    sign = {m: (1.0 if results[m].higher_is_better else -1.0) for m in vectors}
    order = sorted(vectors, key=lambda m: -(sign[m] * r_of[m]))
    raw = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:  # is a better than b?
            p, _ = perm_both(gold, sign[b] * vectors[b], sign[a] * vectors[a], "pearson", n=n)
            raw.append((a, b, p))
    adjusted = holm([p for _, _, p in raw])
    p_of = {(a, b): ph for (a, b, _), ph in zip(raw, adjusted, strict=True)}
    clusters = clusters_from_pairs(order, lambda x, y: p_of.get((x, y), 1.0) < alpha)
    return MetricClusters(
        level=f"{kind} level, {h}, {int(ok.sum())} scores",
        metrics=order,
        pearson={m: sign[m] * r_of[m] for m in order},
        cluster={m: k + 1 for k, g in enumerate(clusters) for m in g},
        p=p_of,
    )


def to_dict(res: HumanCorrelation) -> dict:
    """The ``analyze`` command's JSON part (intervals as two-element lists)."""
    rows = []
    for r in res.rows:
        d = dataclasses.asdict(r)
        for kind in KINDS:
            d[f"{kind}_ci"] = list(d[f"{kind}_ci"])
        rows.append(d)
    return {"human_correlation": rows, "missing": res.missing, "notes": res.notes}

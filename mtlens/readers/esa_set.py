"""A set's ESA ratings (issue 52): its rating files pooled (WMT's waves), every segment's and system's score as the
publisher computes them, the ``esa`` metric, and the raters a set leaves out. The files are read by
:mod:`mtlens.readers.esa`; the raters' quality is an analysis (:func:`mtlens.analysis.raters.rater_quality`)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from ..core.errors import InputError
from ..core.limits import load_json
from .esa import ESARating, ESARatings, is_esa, read_esa


def segment_scores(esa: ESARatings, systems: Sequence[str], n_lines: int) -> dict[str, list[float]]:
    """Each system's ESA score of every line: the mean of its raters' (latest) scores, NaN where unrated."""
    acc: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in esa.ratings:
        acc[(r.system, r.line)].append(r.score)
    return {
        s: [float(sum(v) / len(v)) if (v := acc.get((s, i))) else math.nan for i in range(n_lines)] for s in systems
    }


def domain_weights(scores: Sequence[float], domains: Sequence[str] | None) -> list[float]:
    """Weights that make the weighted mean of a system's rated lines the publisher's system score, the mean of
    its per-domain means: ``1 / (rated lines of the domain x domains rated)`` for a rated line, 0 for another;
    all 1 without domains (the plain mean)."""
    rated = [math.isfinite(x) for x in scores]
    if domains is None:
        return [1.0 if ok else 0.0 for ok in rated]
    per = Counter(d for d, ok in zip(domains, rated, strict=True) if ok)
    return [1.0 / (per[d] * len(per)) if ok else 0.0 for d, ok in zip(domains, rated, strict=True)]


def system_score(scores: Sequence[float], domains: Sequence[str] | None) -> float | None:
    """A system's ESA score from its segments' (NaN where unrated): the mean of its per-domain means, or the plain
    mean without ``domains`` (:func:`domain_weights`); None when no segment is rated.

    >>> system_score([80.0, 60.0, 90.0, float("nan")], ["news", "news", "social", "social"])
    80.0
    """
    w = domain_weights(scores, domains)
    total = sum(w)
    return sum(x * y for x, y in zip(scores, w, strict=True) if y) / total if total else None


def pooled(files: Sequence[ESARatings]) -> list[ESARating]:
    """The ratings of several files of one set (WMT's waves): the latest of each rater and item over all of them."""
    return _latest(r for f in files for r in f.ratings)


def pooled_controls(files: Sequence[ESARatings]) -> list[ESARating]:
    """The quality-control rows of several files, the latest of each rater, item and kind over all of them: a wave
    imported twice (under another file name) counts its attention checks once (issue 58, D15)."""
    return _latest(c for f in files for c in f.controls)


def _latest(rows) -> list[ESARating]:
    """The latest row of each (rater, system, line, kind)."""
    latest: dict[tuple, ESARating] = {}
    for r in rows:
        key = (r.rater, r.system, r.line, r.kind)
        if key not in latest or latest[key].end_time <= r.end_time:
            latest[key] = r
    return list(latest.values())


def esa_metric(files: Sequence[ESARatings], corpus, aggregate: str = "domains"):
    """The set's ESA ratings as a human metric ``esa`` (higher is better, 0-100): every segment's score the mean
    of its raters'; the system score the publisher's, the mean of the per-domain means (``aggregate="domains"``,
    when the set has domains), or the plain mean of the rated segments (``"segments"``); the raters' spans placed
    on the lines (omissions have no place: they are counted in the notes)."""
    import numpy as np

    from ..scores.results import ImportedScores

    if aggregate not in ("domains", "segments"):
        raise InputError(f"the ESA system score is the mean of 'domains' or of 'segments', not '{aggregate}'")
    merged = ESARatings("+".join(f.name for f in files), files[0].pair, tuple(pooled(files)))
    systems = list(corpus.system_names)
    seg = segment_scores(merged, systems, corpus.n_lines)
    by_domain = aggregate == "domains" and corpus.domains is not None
    weights = {s: np.asarray(domain_weights(seg[s], corpus.domains if by_domain else None)) for s in systems}
    spans: dict[str, list[list]] = {s: [[] for _ in range(corpus.n_lines)] for s in systems}
    omissions = 0
    for r in merged.ratings:
        if r.system not in spans:
            continue  # the reference rated as a system: in the ratings table, not a system of the set
        line = corpus.systems[r.system][r.line]
        for sp in r.spans:
            if sp.omission:
                omissions += 1
                continue
            spans[r.system][r.line].append(dataclasses.replace(sp, text=line[sp.start : sp.end]))
    notes = [f"{f.name}: {n}" for f in files for n in f.notes]
    if omissions:
        notes.append(
            f"{omissions:,} omissions (marked without a place in the text) are in the ratings, not on the lines"
        )
    if aggregate == "domains" and not by_domain:
        notes.append("the set has no domains: the ESA system score is the plain mean of the rated segments")
    unrated = [s for s in systems if not any(np.isfinite(seg[s]))]
    if unrated:
        notes.append(f"no ESA rating of {', '.join(unrated[:5])}" + (" ..." if len(unrated) > 5 else ""))
    return ImportedScores(
        "esa",
        True,
        {s: np.asarray(seg[s], dtype=np.float64) for s in systems},
        merged.name,
        spans,
        tuple(notes),
        weights=weights,
        mean="domains" if by_domain else "segments",
    )


#: the file a set keeps its left-out raters in, among its annotation files (a JSON list of rater ids): saved by
#: who may change the set, read by every face, carried by the set's bundle
LEFT_OUT = "mtlens-esa-left-out.json"
#: the most raters a set can leave out
MAX_LEFT_OUT = 10_000


def left_out_file(raters: Sequence[str]) -> tuple[str, bytes]:
    """The annotation file that says which raters a set leaves out."""
    raters = sorted({str(r) for r in raters})
    if len(raters) > MAX_LEFT_OUT:
        raise InputError(f"at most {MAX_LEFT_OUT:,} raters can be left out")
    return LEFT_OUT, json.dumps(raters, ensure_ascii=False).encode("utf-8")


def split_annotations(annotations) -> tuple[list, list, frozenset]:
    """A set's annotation files as ``(MQM files, ESA files, raters left out)`` (``(name, bytes)`` pairs)."""
    mqm, esa, left_out = [], [], frozenset()
    for name, data in annotations:
        if name == LEFT_OUT:
            try:
                value = load_json(bytes(data), name, name)
            except InputError:
                value = []
            left_out = frozenset(str(r) for r in value) if isinstance(value, list) else frozenset()
        elif is_esa(data, name):
            esa.append((name, data))
        else:
            mqm.append((name, data))
    return mqm, esa, left_out


def read_esa_files(annotations, corpus) -> list[ESARatings]:
    """A set's ESA files read and placed on its lines, the ratings of the raters it leaves out removed (their
    attention checks and repeats stay: their quality is still shown)."""
    _, esa, left_out = split_annotations(annotations)
    files = [read_esa(data, name, corpus) for name, data in esa]
    if left_out:
        import dataclasses

        files = [dataclasses.replace(f, ratings=tuple(r for r in f.ratings if r.rater not in left_out)) for f in files]
    return files

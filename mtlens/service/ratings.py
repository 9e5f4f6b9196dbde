"""A saved set's human ESA ratings as the faces show them (issue 52): every system's ESA score as the publisher
computes it (the mean of per-domain means, or the plain mean on request), the reference rated as a system beside
the systems, the raters' quality (attention checks, repeated items, agreement), and, on request, every rated
segment with its spans (an omission as an omission). Raters can be left out; the scores follow."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..core.errors import InputError
from ..core.names import clean_name, shown
from ..readers.esa import ESARatings, read_esa
from ..readers.esa_set import (
    pooled,
    pooled_controls,
    read_esa_files,
    segment_scores,
    split_annotations,
    system_score,
)
from .sets import open_set

__all__ = [
    "MEANS",
    "campaign",
    "esa_files",
    "esa_human_scores",
    "esa_report",
    "esa_report_of",
    "has_esa",
    "leave_out",
    "set_human_scores",
]

#: how each system score is averaged, as the report says it
MEANS = {
    "domains": "the mean of the per-domain means of its segments' scores (the publisher's, WMT24)",
    "segments": "the mean of its rated segments' scores",
}


def esa_files(ev) -> list[ESARatings]:
    """The set's ESA rating files, read and placed on its lines (none: an empty list)."""
    return [read_esa(data, name, ev.corpus) for name, data in split_annotations(ev.annotations)[1]]


def has_esa(ev) -> bool:
    """Whether a set (an evaluation) holds ESA ratings."""
    return bool(split_annotations(ev.annotations)[1])


def esa_report(store, set_id: str, exclude: Sequence[str] = (), mean: str = "domains", segments: bool = False) -> dict:
    """The set's ESA ratings as JSON (a contract: ``systems`` best first with ``score`` and ``segments`` rated,
    ``mean``, ``raters``; with ``segments``, every rated segment with its raters' scores and spans)."""
    return esa_report_of(open_set(store, set_id), exclude, mean, segments)


def esa_report_of(ev, exclude: Sequence[str] = (), mean: str = "domains", segments: bool = False) -> dict:
    """:func:`esa_report` of an evaluation (a saved set's, or a page's dataset); ``exclude``: raters left out of
    this report, besides those the set leaves out (:func:`leave_out`: every face follows those)."""
    from ..analysis.raters import rater_quality  # scipy, only when a report is asked for

    if mean not in MEANS:
        raise InputError(f"--mean takes {' or '.join(MEANS)}, not '{mean}'")
    set_id = ev.set_id
    files = esa_files(ev)
    if not files:
        raise InputError("the set has no ESA ratings: add them with python -m mtlens import --ratings FILE --set ID")
    raters = sorted({r.rater for f in files for r in (*f.ratings, *f.controls)})
    unknown = sorted(set(exclude) - set(raters))
    if unknown:
        raise InputError(f"no rater '{unknown[0]}' in the set's ESA ratings; its raters: {', '.join(raters[:20])}")
    saved = split_annotations(ev.annotations)[2]
    exclude = sorted(set(exclude) | saved)
    everyone = pooled(files)
    quality = rater_quality(
        ESARatings(
            "+".join(f.name for f in files),
            files[0].pair,
            tuple(everyone),
            tuple(pooled_controls(files)),
        )
    )
    kept = [r for r in everyone if r.rater not in set(exclude)]
    merged = ESARatings("+".join(f.name for f in files), files[0].pair, tuple(kept))
    c = ev.corpus
    systems = list(dict.fromkeys([*c.system_names, *(r.system for r in kept)]))
    seg = segment_scores(merged, systems, c.n_lines)
    by_domain = mean == "domains" and c.domains is not None
    rows = []
    for s in systems:
        score = system_score(seg[s], c.domains if by_domain else None)
        rated = sum(1 for x in seg[s] if math.isfinite(x))
        if rated:
            rows.append({"system": s, "score": score, "segments": rated, "reference": s not in c.systems})
    rows.sort(key=lambda r: -r["score"])
    doc = {
        "set": set_id,
        "files": [f.name for f in files],
        "language_pair": files[0].pair,
        "mean": MEANS["domains" if by_domain else "segments"],
        "excluded_raters": sorted(exclude),
        "left_out_by_the_set": sorted(saved),
        "systems": rows,
        "raters": [{**q, "excluded": q["rater"] in set(exclude)} for q in quality],
        "notes": [f"{f.name}: {n}" for f in files for n in f.notes]
        + ([] if by_domain or mean == "segments" else ["the set has no domains: the plain mean of the rated segments"]),
    }
    if segments:
        doc["segments"] = _segments(kept, c)
    return doc


def _segments(ratings, corpus) -> list[dict]:
    texts = {**corpus.systems}
    first_ref = next(iter(corpus.references.values()), None)
    out = []
    for r in sorted(ratings, key=lambda r: (r.system, r.line, r.rater)):
        line = (texts.get(r.system) or first_ref or [""] * corpus.n_lines)[r.line]
        spans = [
            {"omission": True, "severity": s.severity}
            if s.omission
            else {"start": s.start, "end": s.end, "text": line[s.start : s.end], "severity": s.severity}
            for s in r.spans
        ]
        # the line numbered from 1, as every output numbers it (issue 58, D5)
        out.append({"system": r.system, "line": r.line + 1, "rater": r.rater, "score": r.score, "spans": spans})
    return out


_CAMPAIGN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def check_campaign_id(text: str) -> str:
    """A campaign's id: the one name rule (:func:`mtlens.core.names.clean_name`), and, since Pearmut keeps a campaign
    under its id, letters, digits, ``.``, ``_`` and ``-`` only, not starting with a dot, at most 100 characters
    (issue 58, G9: ``../../etc/evil``, terminal escapes and a 10 KB id were written into the campaign).

    >>> check_campaign_id("wmt25-en-de_v2")
    'wmt25-en-de_v2'
    """
    name = clean_name(text, "campaign", limit=100)
    if not _CAMPAIGN_ID.fullmatch(name):
        raise InputError(
            f"the campaign id '{shown(name)}' may hold only letters, digits, '.', '_' and '-', and start with a letter "
            "or digit (Pearmut keeps a campaign under its id)"
        )
    return name


def campaign(
    store,
    set_id: str,
    systems: Sequence[str],
    segments: str = "all",
    count: int | None = None,
    seed: int = 0,
    by: str | None = None,
    spans_from: str | None = None,
    protocol: str = "ESA",
    campaign_id: str | None = None,
    say=None,
) -> dict:
    """A Pearmut campaign of a saved set (:func:`mtlens.exports.campaign.pearmut_campaign`): its ``systems`` on
    the segments chosen (all, a ``seed``-ed sample of ``count``, or the ``count`` where the systems' ``by`` scores
    are furthest apart), spans pre-filled from the metric ``spans_from`` (one that gives spans: xCOMET, a judge,
    the set's ESA raters)."""
    from ..core.options import DEFAULTS
    from ..exports.campaign import choose_lines, disagreement, pearmut_campaign
    from .evaluation import options_for
    from .results import named_results

    ev = open_set(store, set_id)
    c = ev.corpus
    opts = options_for(ev.language, DEFAULTS)
    scores = None
    if segments == "disagree":
        if not by:
            raise InputError("--segments disagree needs --by METRIC: whose segment scores the systems disagree on")
        result = named_results(store, ev, by, opts, say=say)[by]
        scores = disagreement({s: result.sentence_scores(s) for s in systems})
    lines = choose_lines(c.n_lines, segments, count, seed, scores)
    spans = None
    if spans_from:
        result = named_results(store, ev, spans_from, opts, say=say)[spans_from]
        spans = getattr(getattr(result.scorer, "imported", None), "spans", None)
        if not spans:
            raise InputError(
                f"'{spans_from}' gives no error spans to pre-fill (xCOMET, an LLM judge or ESA ratings do)"
            )
    name = f"mtlens-{set_id[:8]}-{segments}" if campaign_id is None else check_campaign_id(campaign_id)
    return pearmut_campaign(c, list(systems), lines, name, spans, spans_from, protocol)


def esa_human_scores(ev):
    """The set's ESA ratings as a human score type ``ESA`` for everything human scores feed (human correlation,
    the meta-evaluation of every metric and judge, the WMT-style ranking): segment scores on the rated lines, the
    system score the publisher's (the mean of per-domain means; the plain mean without domains). None without
    ESA ratings."""
    from ..analysis.human import HumanScores

    c = ev.corpus
    files = read_esa_files(ev.annotations, c)  # without the raters the set leaves out, as the esa metric
    if not files:
        return None
    merged = ESARatings("+".join(f.name for f in files), files[0].pair, tuple(pooled(files)))
    seg = segment_scores(merged, list(c.system_names), c.n_lines)
    system, segment = {}, {}
    for s in c.system_names:
        rated = {i: v for i, v in enumerate(seg[s]) if math.isfinite(v)}
        if rated:
            system[s] = system_score(seg[s], c.domains)
            segment[s] = rated
    return HumanScores({"ESA": system}, {"ESA": segment}) if system else None


def set_human_scores(ev, human_files=None):
    """Every human score of a set, merged: its human score files (``human_files``, default the set's own), the MQM
    of its annotation files and its ESA ratings."""
    from ..analysis.human import merge, read_human_files
    from ..analysis.mqm_summary import as_human_scores
    from .inputs import mqm_annotations

    files = list(ev.human if human_files is None else human_files)
    parts = [read_human_files(files, ev.corpus)] if files else []
    mqm = mqm_annotations(ev.annotations, ev.corpus)
    if mqm:
        parts.append(as_human_scores(mqm, ev.corpus))
    esa = esa_human_scores(ev)
    if esa is not None:
        parts.append(esa)
    parts = [p for p in parts if p is not None]
    return merge(parts) if parts else None


def leave_out(store, set_id: str, raters: Sequence[str], visitor=None) -> list[str]:
    """The raters whose ESA ratings the set leaves out from now on, on every face (the esa metric, the rankings,
    the meta-evaluation); an empty list takes every rater back. Who may change the set only. Returns them."""
    from ..readers.esa_set import left_out_file
    from .sets import require_change

    require_change(store, set_id, visitor, "leave raters out")
    ev = open_set(store, set_id)
    files = esa_files(ev)
    if not files:
        raise InputError("the set has no ESA ratings to leave raters out of")
    known = {r.rater for f in files for r in (*f.ratings, *f.controls)}
    unknown = sorted(set(raters) - known)
    if unknown:
        raise InputError(f"no rater '{unknown[0]}' in the set's ESA ratings")
    name, data = left_out_file(raters)
    store.add_annotations(set_id, name, data, visitor)
    return sorted(set(raters))

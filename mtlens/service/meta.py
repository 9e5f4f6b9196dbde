"""Which judge to trust, on a set's own ratings (issue 61): every score source of the set against each human score
type it has, measured as WMT25 measures it (:mod:`mtlens.analysis.meta_table`), with the human side's spans and
second ratings read from the set's ESA ratings and MQM annotations. The command line (``analyze``) and the Human
correlation page both call :func:`meta_of`."""

from __future__ import annotations

from ..analysis.meta_table import Rating, Ratings, meta_evaluation
from ..readers.esa_set import pooled, read_esa_files
from .inputs import mqm_annotations
from .ratings import set_human_scores

__all__ = ["meta_of", "set_ratings"]


def _add(first: dict, second: dict, system: str, line: int, rating: Rating) -> None:
    if line not in first.setdefault(system, {}):
        first[system][line] = rating
    elif line not in second.setdefault(system, {}):
        second[system][line] = rating


def set_ratings(ev) -> dict[str, Ratings]:
    """The set's ratings item by item, by human score type (``ESA``; ``MQM``, ``MQM-2``... one per annotation
    file): the first rating of each item (file order) and, where an item was rated again, the second."""
    from ..readers.mqm import rater_score

    out: dict[str, Ratings] = {}
    systems = set(ev.corpus.system_names)
    esa = read_esa_files(ev.annotations, ev.corpus)  # without the raters the set leaves out
    if esa:
        first: dict = {}
        second: dict = {}
        for r in pooled(esa):  # each rater's latest rating of each item, in file order
            if r.system in systems:
                _add(first, second, r.system, r.line, Rating(float(r.score), tuple(r.spans)))
        out["ESA"] = Ratings("ESA", first, second)
    for k, ann in enumerate(mqm_annotations(ev.annotations, ev.corpus)):
        kind = "MQM" if k == 0 else f"MQM-{k + 1}"
        line_of = {seg: i for i, seg in enumerate(ann.seg_ids)}
        first, second = {}, {}
        for (system, seg_id), seg in ann.segments.items():
            if system not in systems:
                continue
            for rater in seg.raters[:2]:  # the first two raters of the item, in file order
                errors = tuple(e for e in seg.errors if e.by == rater)
                _add(first, second, system, line_of[seg_id], Rating(float(rater_score(seg, rater)), errors))
        out[kind] = Ratings(kind, first, second)
    return out


def meta_of(ev, results, human=None, seed: int | None = None) -> list:
    """The meta-evaluation rows (:class:`mtlens.analysis.meta_table.MetaRow`) of ``results`` against the set's human
    scores (``human``, default the set's own), the spans and second ratings from its ESA and MQM; [] without
    human scores."""
    from ..analysis.policy import SEED

    human = set_human_scores(ev) if human is None else human
    if human is None:
        return []
    return meta_evaluation(results, human, ev.corpus.systems, set_ratings(ev), seed=SEED if seed is None else seed)

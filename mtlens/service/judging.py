"""LLM judges as the faces call them (issue 48): the operator's registry, and ``judge:NAME`` as a metric of a set
(its answers asked once each and cached: :mod:`mtlens.judges.compute`)."""

from __future__ import annotations

from ..core.errors import InputError
from ..core.secrets import redact
from ..judges.compute import PREFIX, Judge, add_judge, get_judge, judge_scores

__all__ = [
    "PREFIX",
    "Judge",
    "add_judge",
    "finished_judges",
    "get_judge",
    "judge_metric",
    "judges",
    "redact",
    "remove_judge",
]


def judges(store) -> list[Judge]:
    return [Judge(**{k: row[k] for k in Judge.__dataclass_fields__}) for row in store.judges()]


def remove_judge(store, name: str) -> None:
    store.remove_judge(name)


def judge_metric(store, corpus, item: str, say=None):
    """``judge:NAME``'s scores of ``corpus``, asking the judge what its cache lacks (``say``: progress sentences)."""
    judge = get_judge(store, item[len(PREFIX) :])
    shown = {"last": -1}

    def progress(done: int, total: int) -> None:
        pct = int(100 * done / total) if total else 100
        if say and pct != shown["last"] and (pct % 10 == 0 or done == total):
            shown["last"] = pct
            say(f"{item}: {done:,}/{total:,} answers")

    scores, tally = judge_scores(store, judge, corpus, progress)
    if say:
        say(
            f"{item}: {tally.asked:,} requests to {judge.model} (at most {tally.in_flight_peak} at once), "
            f"{tally.cached:,} answers from the cache, {tally.shared:,} segments sharing another's request"
        )
    return scores


def finished_judges(store, corpus) -> list:
    """The metrics of the registered judges whose every answer for ``corpus`` is cached (what a page offers
    without asking anything)."""
    out = []
    if store is None or corpus.source is None or not corpus.language_pair:
        return out
    for judge in judges(store):
        try:
            got = judge_scores(store, judge, corpus, cached_only=True)
        except InputError:
            continue
        if got is not None:
            out.append(got[0])
    return out

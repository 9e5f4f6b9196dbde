"""LLM judges as the faces call them (issue 48): ``judge:NAME`` as a metric of a set (its answers asked once each and
cached: :mod:`mtlens.judges.compute`), its usage and the errors it named. The registry is the workspace's
(:class:`mtlens.service.workspace.Workspace`), the jobs every scorer's (:mod:`mtlens.service.jobs`)."""

from __future__ import annotations

from ..core.amounts import usd
from ..core.errors import InputError
from ..judges.compute import PREFIX, judge_scores
from ..judges.registry import Judge, get_judge, identity
from ..judges.votes import signature as vote_fields
from ..scores.sources import source_of

__all__ = [
    "Judge",
    "before_run",
    "error_categories",
    "judge_metric",
    "unscored_segments",
    "usage_rows",
    "vote_fields",
]


def error_categories(metric, systems) -> list[dict]:
    """The errors a judge's metric (:class:`mtlens.scores.results.ImportedScores` with ``categories``) named in
    ``systems``' lines, by category and severity, side by side (:func:`mtlens.analysis.mqm_summary.category_table`)."""
    from ..analysis.mqm_summary import category_table

    return category_table(metric.categories, metric.rated, list(systems))


def usage_rows(metric) -> list[dict]:
    """A judge's metric's tokens and cost per system, as a table's rows (a shared answer counts for each system it
    scores; the metric's notes say the total, each answer once)."""
    return [
        {"system": s, "prompt tokens": u["prompt_tokens"], "completion tokens": u["completion_tokens"],
         "cost (US$)": u["cost_usd"]}
        for s, u in metric.usage.items()
    ]  # fmt: skip


def unscored_segments(store, set_id: str, name: str) -> int:
    """How many of a saved set's segments a judge's finished job left without a score (answers it could not read
    after its re-asks); 0 when every segment has one."""
    import numpy as np

    from .sets import open_set

    got = judge_scores(store, get_judge(store, name), open_set(store, set_id).corpus, cached_only=True)
    if got is None:
        return 0
    return int(sum(np.isnan(v).sum() for v in got[0].scores.values()))


def judge_metric(store, corpus, item: str, say=None, set_id: str | None = None):
    """``judge:NAME``'s scores of ``corpus``, asking the judge what its cache lacks (``say``: progress sentences).
    For a saved set (``set_id``) the asking is the set's job, as the dashboard runs it: a page shows its progress
    and may cancel it, and Ctrl-C leaves it cancelled, its answers saved."""
    judge = get_judge(store, source_of(item).registered)
    if set_id is not None:
        from ..runtime import jobs

        if jobs.run(store, set_id, PREFIX + judge.name, say=say) != "done":
            job = store.job(set_id, identity(judge)) or {}
            raise InputError(f"{item}: {job.get('message') or 'the job was cancelled; run the command again to go on'}")
        got = judge_scores(store, judge, corpus, cached_only=True)
        if got is not None:
            return got[0]
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


def before_run(store, judge: Judge, corpus) -> str:
    """What a run of ``judge`` on ``corpus`` will ask, said before it asks anything (issue 61): the requests its cache
    lacks (distinct segments x samples; GEMBA-ESA asks twice per sample) and, with the judge's prices, their cost:
    prompt tokens estimated at 4 characters a token of each prompt, completion tokens at the mean of the answers
    already cached for these prompts (none cached: not counted, and the sentence says so)."""
    from ..analysis.costs import CHARS_PER_TOKEN
    from ..judges.compute import plan

    p = plan(judge, corpus)
    keys = p.keys(judge)
    known = store.judge_answers(keys)
    per_request = 2 if judge.protocol == "gemba-esa" else 1
    missing = [i for i, k in enumerate(keys) if k not in known]
    chars = sum(len(m["content"]) for i in missing for m in p.first[i // judge.samples])
    prompt = per_request * chars / CHARS_PER_TOKEN
    done = [v["completion_tokens"] for v in known.values()]
    completion = per_request * len(missing) * (sum(done) / len(done)) if done else 0.0
    said = (
        f"{PREFIX}{judge.name}: {len(missing) * per_request:,} requests to ask "
        f"({len(p.requests):,} distinct segments x {judge.samples} samples"
        + (" x 2 requests (GEMBA-ESA)" if per_request == 2 else "")
        + f", {len(keys) - len(missing):,} answers cached)"
    )
    cost = judge.cost(prompt, completion)
    if missing and cost is not None:
        tokens = f"about {round(prompt):,} prompt tokens ({CHARS_PER_TOKEN:g} characters a token)"
        tokens += (
            f" and {round(completion):,} completion tokens (the cached answers' mean)"
            if done
            else (", completion tokens not counted (no answer cached yet to tell their length)")
        )
        said += f"; {tokens}: about {usd(cost)} at the judge's prices"
    return said

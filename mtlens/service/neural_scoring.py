"""Neural metrics for the faces: the registered checkpoints (:mod:`mtlens.neural.models`) and the
background jobs that score a saved set with one (:mod:`mtlens.runtime.jobs`).

Starting and cancelling a job change the set, so the faces go through :func:`start_job` and
:func:`cancel_job`, which ask the store's policy first: only who may change a set (its owner, an
administrator, the operator at the command line) may start or cancel its jobs; a link reader may watch.
"""

from __future__ import annotations

import re

from ..core.errors import InputError
from ..neural.environment import HOW_TO_ENABLE_SENTENCE, available, check_ray, ray_address, where_it_runs
from ..neural.models import EXACT, MODE_ENV, get_model, models
from ..scores.progress import Progress, duration_text
from .rights import is_judge_job, require_job

__all__ = [
    "OPERATORS",
    "cancel_job",
    "check_ray",
    "choose_exact",
    "model_scores",
    "private_removed",
    "progress_line",
    "start_job",
    "status_for",
    "unavailable",
    "where_it_runs_for",
]


def unavailable() -> str | None:
    """Why neural metrics cannot run here (the extra is not installed: how to enable it), or None when they can."""
    return None if available() else HOW_TO_ENABLE_SENTENCE


def choose_exact() -> None:
    """Score with registered models in the exact mode in this process and the jobs it starts (``--exact``: the
    reference tools' own batches, :data:`mtlens.neural.models.EXACT`)."""
    import os

    os.environ[MODE_ENV] = EXACT


def _require(store, set_id: str, visitor, what: str, job: str) -> None:
    """The right to start or cancel the set's job ``job`` (a model's name or digest): an LLM judge's job is the
    judges' right whichever path asks (issue 58, G4: a set owner started the operator's judge through this one)."""
    from .sets import require_change

    if is_judge_job(job):
        require_job(store, set_id, visitor, what)
    else:
        require_change(store, set_id, visitor, f"{what} its neural jobs", "score")


def start_job(store, set_id: str, model_name: str, visitor=None):
    """Start (or join) the set's job with the model, if ``visitor`` may (:func:`mtlens.runtime.jobs.start`)."""
    _require(store, set_id, visitor, "start", model_name)
    from ..runtime.jobs import start

    return start(store, set_id, model_name)


def cancel_job(store, set_id: str, digest: str, visitor=None) -> None:
    """Ask the set's running job with the model ``digest`` to stop, if ``visitor`` may."""
    _require(store, set_id, visitor, "cancel", digest)
    from ..runtime.jobs import cancel

    cancel(store, set_id, digest)


#: what a visitor who is not the operator reads in place of a server path or an address of the operator's
OPERATORS = "(the operator's)"
_PATH = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\|~/)[^\s'\"]+")


def status_for(store, set_id: str, visitor=None) -> list:
    """The set's jobs (:func:`mtlens.runtime.jobs.status`) as ``visitor`` may read them: the operator and an
    administrator read each job's sentence whole; anyone else reads it without the operator's checkpoint folders,
    tokenizers, judges' endpoints, the Ray address or any other server path (issue 58, G12: a link reader saw a
    checkpoint's server path in a failed MetricX job's sentence on Rankings)."""
    import dataclasses

    from ..runtime.jobs import status

    found = status(store, set_id)
    if visitor is None or getattr(visitor, "admin", False):
        return found
    return [dataclasses.replace(p, message=private_removed(store, p.message)) for p in found]


def where_it_runs_for(visitor=None) -> str:
    """Where the jobs run, as ``visitor`` may read it: the Ray cluster's address is the operator's and an
    administrator's (issue 58, G12)."""
    if visitor is None or getattr(visitor, "admin", False):
        return where_it_runs()
    return "on the team's Ray cluster"


def private_removed(store, text: str | None) -> str | None:
    """``text`` without the operator's paths and addresses (:func:`status_for`)."""
    if not text:
        return text
    from ..core.secrets import redact
    from ..judges.registry import registered

    scorers, judges = models(store), registered(store)
    private = [p for m in scorers for p in (m.path, m.tokenizer or "")] + [
        u for j in judges for u in (j.url, redact(j.url))
    ]
    address = ray_address()
    private += [address, redact(address)] if address else []
    for item in sorted({p for p in private if p}, key=len, reverse=True):
        text = text.replace(item, OPERATORS)
    return _PATH.sub(OPERATORS, text)


def model_scores(store, corpus, item: str, set_id: str | None = None, say=None):
    """A registered model's scores for ``corpus`` (``item``: ``comet:NAME``), computing only what its cache
    lacks. For a saved set (``set_id``) the work is the set's job, as the dashboard would run it, so that
    its scores are offered afterwards by both faces; ``say``: a callable taking one progress sentence."""
    from ..neural.compute import scores_for
    from ..neural.segments import cached_scores
    from ..runtime.jobs import run

    model = get_model(store, item)
    if set_id is not None:
        if cached_scores(store, model, corpus) is None and say:
            say(f"{item}: scoring the set's missing segments {where_it_runs()}")
        if run(store, set_id, model.job_name) != "done":  # recorded as the set's job (nothing new: at once)
            job = store.job(set_id, model.digest) or {}
            raise InputError(f"{item}: {job.get('message') or 'the job was cancelled; run the command again to go on'}")
        return scores_for(store, model, corpus)
    shown = {"last": -1}

    def progress(done: int, total: int) -> None:
        if say and total:
            pct = int(100 * done / total)
            if pct != shown["last"] and (pct % 10 == 0 or done == total):
                shown["last"] = pct
                say(f"{item}: {done}/{total} new segments scored")

    return scores_for(store, model, corpus, progress)


def progress_line(p: Progress, visitor=None) -> str:
    """One line about a job as ``visitor`` may read it (the Rankings panels'): its progress, speed and time left, or
    how it ended, and where it runs."""
    metric = p.metric
    if p.judge and p.state == "done":
        return f"{metric}: done, {p.total:,} segments judged" + (f". {p.message}" if p.message else ".")
    if p.judge and p.state in ("queued", "running") and not p.total:
        return f"{metric}: starting…"
    on_ray = ray_address() is not None
    if p.state == "done":  # a job on a Ray cluster says so
        return f"{metric}: done, {p.total:,} segments scored" + (f" {where_it_runs_for(visitor)}." if on_ray else ".")
    if p.state in ("failed", "cancelled"):
        why = p.message or ("cancelled" if p.state == "cancelled" else "stopped")
        return f"{metric}: {why} ({p.done:,} of {p.total:,} segments saved; start it again to go on)."
    if p.state == "queued" or not p.total:
        return f"{metric}: starting (loading the model)…"
    speed = f" · {p.rate:.1f} segments/s" if p.rate else ""
    left = f" · about {duration_text(p.eta)} left" if p.eta is not None else ""
    verb = "cancelling" if p.state == "cancelling" else ("judging" if p.judge else "scoring")
    where = f" {where_it_runs_for(visitor)}" if on_ray and not p.judge else ""  # "on the Ray cluster at ..."
    return f"{metric}: {verb} {p.done:,} / {p.total:,} segments{where}{speed}{left}"

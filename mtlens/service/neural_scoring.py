"""Neural metrics for the faces: the registered checkpoints (:mod:`mtlens.neural.models`) and the
background jobs that score a saved set with one (:mod:`mtlens.runtime.jobs`).

Starting and cancelling a job change the set, so the faces go through :func:`start_job` and
:func:`cancel_job`, which ask the store's policy first: only who may change a set (its owner, an
administrator, the operator at the command line) may start or cancel its jobs; a link reader may watch.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them (tests/test_architecture.py)
    from ..neural.compute import completed, scores_for
    from ..neural.environment import HOW_TO_ENABLE_SENTENCE, available, check_ray, ray_address, where_it_runs
    from ..neural.models import EXACT, FAST, MODE_ENV, PREFIX, add_model, get_model, mode, models
    from ..neural.segments import cached_scores
    from ..runtime.jobs import Progress, cancel, duration_text, run, start, status

_NAMES = {
    "HOW_TO_ENABLE_SENTENCE": "mtlens.neural.environment:HOW_TO_ENABLE_SENTENCE",
    "PREFIX": "mtlens.neural.models:PREFIX",
    "EXACT": "mtlens.neural.models:EXACT",
    "FAST": "mtlens.neural.models:FAST",
    "MODE_ENV": "mtlens.neural.models:MODE_ENV",
    "mode": "mtlens.neural.models:mode",
    "Progress": "mtlens.runtime.jobs:Progress",
    "add_model": "mtlens.neural.models:add_model",
    "check_ray": "mtlens.neural.environment:check_ray",
    "where_it_runs": "mtlens.neural.environment:where_it_runs",
    "duration_text": "mtlens.runtime.jobs:duration_text",
    "ray_address": "mtlens.neural.environment:ray_address",
    "available": "mtlens.neural.environment:available",
    "cached_scores": "mtlens.neural.segments:cached_scores",
    "cancel": "mtlens.runtime.jobs:cancel",
    "completed": "mtlens.neural.compute:completed",
    "get_model": "mtlens.neural.models:get_model",
    "models": "mtlens.neural.models:models",
    "run": "mtlens.runtime.jobs:run",
    "scores_for": "mtlens.neural.compute:scores_for",
    "start": "mtlens.runtime.jobs:start",
    "status": "mtlens.runtime.jobs:status",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = sorted(
    [*_NAMES, "cancel_job", "is_judge_job", "may_run_jobs", "may_start", "model_scores", "require_job", "start_job",
     "status_for", "where_it_runs_for"]
)  # fmt: skip


def may_run_jobs(store, set_id: str, visitor) -> bool:
    """Whether ``visitor`` (``None``: the operator) may start or cancel the set's neural jobs (the one rule,
    :func:`mtlens.service.sets.may_change` with ``action="score"``)."""
    from .sets import may_change

    return may_change(store, set_id, visitor, "score")


def may_start(store, set_id: str, visitor) -> bool:
    """Whether ``visitor`` (``None``: the operator) may start or cancel an LLM judge's job on the set: a judge
    spends the operator's money at the operator's endpoint, so on a shared server only an administrator may, and
    only where they may change the set (docs/decisions.md, "LLM judges")."""
    return (visitor is None or bool(getattr(visitor, "admin", False))) and may_run_jobs(store, set_id, visitor)


def require_job(store, set_id: str, visitor, what: str) -> None:
    """The judges' right (:func:`may_start`), or one sentence: every path that starts or cancels a job asks it."""
    if not may_start(store, set_id, visitor):
        raise InputError(f"only the operator or an administrator may {what} an LLM judge's job on this set")


def is_judge_job(job: str) -> bool:
    """Whether a job's name (``judge:NAME``) or digest (``judge-...``, the judge's identity) is an LLM judge's."""
    from ..judges.compute import PREFIX

    return job.startswith((PREFIX, "judge-"))


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
    return __getattr__("start")(store, set_id, model_name)


def cancel_job(store, set_id: str, digest: str, visitor=None) -> None:
    """Ask the set's running job with the model ``digest`` to stop, if ``visitor`` may."""
    _require(store, set_id, visitor, "cancel", digest)
    __getattr__("cancel")(store, set_id, digest)


#: what a visitor who is not the operator reads in place of a server path or an address of the operator's
OPERATORS = "(the operator's)"
_PATH = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\|~/)[^\s'\"]+")


def status_for(store, set_id: str, visitor=None) -> list:
    """The set's jobs (:func:`mtlens.runtime.jobs.status`) as ``visitor`` may read them: the operator and an
    administrator read each job's sentence whole; anyone else reads it without the operator's checkpoint folders,
    tokenizers, judges' endpoints, the Ray address or any other server path (issue 58, G12: a link reader saw a
    checkpoint's server path in a failed MetricX job's sentence on Rankings)."""
    import dataclasses

    found = __getattr__("status")(store, set_id)
    if visitor is None or getattr(visitor, "admin", False):
        return found
    return [dataclasses.replace(p, message=private_removed(store, p.message)) for p in found]


def where_it_runs_for(visitor=None) -> str:
    """Where the jobs run, as ``visitor`` may read it: the Ray cluster's address is the operator's and an
    administrator's (issue 58, G12)."""
    if visitor is None or getattr(visitor, "admin", False):
        return __getattr__("where_it_runs")()
    return "on the team's Ray cluster"


def private_removed(store, text: str | None) -> str | None:
    """``text`` without the operator's paths and addresses (:func:`status_for`)."""
    if not text:
        return text
    from ..core.secrets import redact
    from ..judges.registry import registered

    models, judges = __getattr__("models")(store), registered(store)
    private = [p for m in models for p in (m.path, m.tokenizer or "")] + [
        u for j in judges for u in (j.url, redact(j.url))
    ]
    address = __getattr__("ray_address")()
    private += [address, redact(address)] if address else []
    for item in sorted({p for p in private if p}, key=len, reverse=True):
        text = text.replace(item, OPERATORS)
    return _PATH.sub(OPERATORS, text)


def model_scores(store, corpus, item: str, set_id: str | None = None, say=None):
    """A registered model's scores for ``corpus`` (``item``: ``comet:NAME``), computing only what its cache
    lacks. For a saved set (``set_id``) the work is the set's job, as the dashboard would run it, so that
    its scores are offered afterwards by both faces; ``say``: a callable taking one progress sentence."""
    neural = __getattr__
    model = neural("get_model")(store, item)
    if set_id is not None:
        if neural("cached_scores")(store, model, corpus) is None and say:
            say(f"{item}: scoring the set's missing segments {neural('where_it_runs')()}")
        if neural("run")(store, set_id, model.job_name) != "done":  # recorded as the set's job (nothing new: at once)
            job = store.job(set_id, model.digest) or {}
            raise InputError(f"{item}: {job.get('message') or 'the job was cancelled; run the command again to go on'}")
        return neural("scores_for")(store, model, corpus)
    shown = {"last": -1}

    def progress(done: int, total: int) -> None:
        if say and total:
            pct = int(100 * done / total)
            if pct != shown["last"] and (pct % 10 == 0 or done == total):
                shown["last"] = pct
                say(f"{item}: {done}/{total} new segments scored")

    return neural("scores_for")(store, model, corpus, progress)

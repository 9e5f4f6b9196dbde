"""Every scorer's jobs, as the faces start, watch and cancel them (issue 59: one job module for models and judges
alike): a registered checkpoint's (``comet:NAME``, ``metricx:NAME``...) or an LLM judge's (``judge:NAME``) work over a
saved set, in its own process (:mod:`mtlens.runtime.jobs`), resumed where it stopped.

Starting and cancelling a job are rights (:mod:`mtlens.service.rights`): a model's job is who may change the set's; a
judge's is the operator's or an administrator's (it spends the operator's money), whichever path asks. Reading a job
is anyone's who may read the set, without the operator's paths and addresses (:func:`status_for`).
"""

from __future__ import annotations

import dataclasses
import re

from ..core.access import is_operator
from ..neural.environment import ray_address, where_it_runs
from ..neural.models import models
from ..scores.progress import Progress, duration_text
from ..scores.sources import JUDGE_PREFIX, is_judge_job, judge_name
from .rights import require_job

__all__ = [
    "OPERATORS",
    "cancel_job",
    "cancel_named",
    "judge_job",
    "private_removed",
    "progress_line",
    "run_job",
    "start_job",
    "status_for",
    "where_it_runs_for",
]


def _require(store, set_id: str, visitor, what: str, job: str) -> None:
    """The right to start or cancel the set's job ``job`` (a model's name or digest): an LLM judge's job is the
    judges' right whichever path asks (issue 58, G4: a set owner started the operator's judge through this one)."""
    from .sets import require_change

    if is_judge_job(job):
        require_job(store, set_id, visitor, what)
    else:
        require_change(store, set_id, visitor, f"{what} its neural jobs", "score")


def start_job(store, set_id: str, scorer: str, visitor=None) -> Progress:
    """Start (or join) the set's job of ``scorer`` (a model's job name, or ``judge:NAME``), if ``visitor`` may
    (:func:`mtlens.runtime.jobs.start`)."""
    _require(store, set_id, visitor, "start", scorer)
    from ..runtime.jobs import start

    return start(store, set_id, scorer)


def cancel_job(store, set_id: str, digest: str, visitor=None) -> None:
    """Ask the set's running job ``digest`` (a model's or a judge's, as its progress has it) to stop, if ``visitor``
    may."""
    _require(store, set_id, visitor, "cancel", digest)
    from ..runtime.jobs import cancel

    cancel(store, set_id, digest)


def cancel_named(store, set_id: str, judge: str, visitor=None) -> None:
    """:func:`cancel_job` of a registered judge by its name (``NAME`` or ``judge:NAME``: the command line's)."""
    from ..judges.registry import get_judge, identity

    cancel_job(store, set_id, identity(get_judge(store, judge_name(judge))), visitor)


def run_job(store, set_id: str, scorer: str, say=None) -> Progress:
    """Run the set's job of ``scorer`` here (the command line's, with progress sentences ``say``) and return how it
    ended. The operator's act: the command line is the operator's."""
    from ..runtime import jobs

    jobs.run(store, set_id, scorer, say=say)
    return next(p for p in jobs.status(store, set_id) if p.metric == jobs.metric_of(scorer))


def judge_job(name: str) -> str:
    """The job name of the registered judge ``name`` (``NAME`` or ``judge:NAME``)."""
    return JUDGE_PREFIX + judge_name(name)


#: what a visitor who is not the operator reads in place of a server path or an address of the operator's
OPERATORS = "(the operator's)"
_PATH = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\|~/)[^\s'\"]+")


def status_for(store, set_id: str, visitor=None) -> list:
    """The set's jobs (:func:`mtlens.runtime.jobs.status`) as ``visitor`` may read them: the operator and an
    administrator read each job's sentence whole; anyone else reads it without the operator's checkpoint folders,
    tokenizers, judges' endpoints, the Ray address or any other server path (issue 58, G12: a link reader saw a
    checkpoint's server path in a failed MetricX job's sentence on Rankings)."""
    from ..runtime.jobs import status

    found = status(store, set_id)
    if is_operator(visitor):
        return found
    return [dataclasses.replace(p, message=private_removed(store, p.message)) for p in found]


def where_it_runs_for(visitor=None) -> str:
    """Where the jobs run, as ``visitor`` may read it: the Ray cluster's address is the operator's and an
    administrator's (issue 58, G12)."""
    if is_operator(visitor):
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

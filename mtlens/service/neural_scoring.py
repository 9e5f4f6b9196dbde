"""Neural metrics for the faces: whether the extra can run here, the scoring mode, and a registered checkpoint's scores
of a corpus (:mod:`mtlens.neural.models`). Their jobs, like every scorer's, are :mod:`mtlens.service.jobs`'.
"""

from __future__ import annotations

from ..core.errors import InputError
from ..neural import environment
from ..neural.environment import HOW_TO_ENABLE_SENTENCE, check_ray, where_it_runs
from ..neural.kept import kept_workers
from ..neural.models import EXACT, MODE_ENV, get_model

__all__ = ["check_ray", "choose_exact", "kept_workers", "model_scores", "unavailable"]


def unavailable() -> str | None:
    """Why neural metrics cannot run here (the extra is not installed: how to enable it), or None when they can."""
    return None if environment.available() else HOW_TO_ENABLE_SENTENCE


def choose_exact() -> None:
    """Score with registered models in the exact mode in this process and the jobs it starts (``--exact``: the
    reference tools' own batches, :data:`mtlens.neural.models.EXACT`)."""
    import os

    os.environ[MODE_ENV] = EXACT


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

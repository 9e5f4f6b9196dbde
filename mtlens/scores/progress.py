"""A background job as every face reads it (the neural models' and the LLM judges' jobs, :mod:`mtlens.runtime.jobs`):
its states, its progress and how long it has left, in words."""

from __future__ import annotations

from dataclasses import dataclass

from .sources import COMET_PREFIX, JUDGE_KIND, JUDGE_PREFIX, METRICX_PREFIX, METRICX_QE_PREFIX, source_of

#: the states of a job that has not ended
ACTIVE = ("queued", "running", "cancelling")


@dataclass(frozen=True)
class Progress:
    """A job as a page shows it."""

    model: str
    state: str  # queued | running | cancelling | done | cancelled | failed
    done: int
    total: int
    rate: float | None  # segments per second in this run
    eta: float | None  # seconds left at that rate
    message: str | None
    digest: str

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def judge(self) -> bool:
        """An LLM judge's job (its ``model`` is ``judge:NAME``), not a neural model's."""
        return source_of(self.model).kind == JUDGE_KIND

    @property
    def metric(self) -> str:
        return metric_of(self.model)

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0


def metric_of(name: str) -> str:
    """The metric a job named ``name`` computes (``comet:NAME`` for a checkpoint, ``judge:NAME`` as it is)."""
    named = source_of(name).prefix in (JUDGE_PREFIX, METRICX_PREFIX, METRICX_QE_PREFIX)  # a checkpoint's: its bare name
    return name if named else COMET_PREFIX + name


def duration_text(seconds: float) -> str:
    """A time left as a job's line says it (the command line's and the Rankings panel's): ``40 s``, ``12 min``,
    ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

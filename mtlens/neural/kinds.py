"""The kinds of checkpoint mtlens scores with, one adapter each (issue 59: a new kind of checkpoint is one adapter and
its test, never a branch in every module). A kind says how a folder is recognised and registered, the metrics one
registration gives, how its files are fingerprinted and digested, the worker that scores it, how a line is fed to it,
its signature's fields and what its registration says. COMET's adapter is :class:`mtlens.neural.models.CometKind`,
MetricX-24's :class:`mtlens.neural.metricx.MetricXKind`; :func:`mtlens.neural.models.kind_of` picks a model's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Model(Protocol):
    """A registered checkpoint's metric as the kinds read it (:class:`mtlens.neural.models.Model` is one)."""

    name: str
    path: str
    digest: str
    kind: str
    inputs: tuple[str, ...]
    tokenizer: str | None
    dtype: str | None

    @property
    def metric(self) -> str: ...

    @property
    def needs_reference(self) -> bool: ...


class CheckpointKind:
    """What one kind of checkpoint does its own way (every method is the kind's; none has a default that guesses)."""

    #: the family its scores belong to (:mod:`mtlens.scores.sources`)
    family = ""
    #: the ``Model.kind`` values its metrics have (COMET's checkpoints say theirs: comet, cometkiwi, xcomet)
    model_kinds: tuple[str, ...] = ()

    def recognises(self, path: str | Path) -> bool:
        """Whether ``path`` holds a checkpoint of this kind (registration tries the kinds in order)."""
        raise NotImplementedError

    def row(self, name: str, path: str | Path, tokenizer: str | Path | None) -> dict:
        """The registry row of the checkpoint at ``path``, after checking that it loads without running code."""
        raise NotImplementedError

    def metrics(self, model: Model) -> list[Model]:
        """The metrics one registration gives (a MetricX checkpoint is hybrid: two)."""
        raise NotImplementedError

    def metric(self, model: Model) -> str:
        """The metric's name as ``--metrics`` writes it."""
        raise NotImplementedError

    def job_name(self, model: Model) -> str:
        """What names the metric's job (:mod:`mtlens.runtime.jobs`)."""
        raise NotImplementedError

    def higher_is_better(self, model: Model) -> bool:
        raise NotImplementedError

    def stat(self, model: Model) -> tuple[int, float]:
        """The checkpoint's files' size and latest modification time (a change is digested again); OSError when
        they are gone."""
        raise NotImplementedError

    def digest(self, model: Model) -> str:
        """The digest of everything that decides a score."""
        raise NotImplementedError

    def command(self, model: Model, verb: str, size: int, chunk: int) -> list[str]:
        """The worker's command line that scores the metric (``verb``: score or fast)."""
        raise NotImplementedError

    def clean(self, text: str) -> str:
        """A line as the reference tool feeds it to the model."""
        raise NotImplementedError

    def signature(self, model: Model, how: str) -> tuple[tuple[str, str], ...]:
        """The signature's fields: the model, its digest and kind, the versions that compute it, precision, batches."""
        raise NotImplementedError

    def registered(self, model: Model) -> str:
        """What the command line says of a registration (two lines: the checkpoint, then how to score with it)."""
        raise NotImplementedError

"""A metrics job cut into the engine's tasks (docs/decisions.md, "The engine"): every (metric, block of consecutive
segments) is one task (about :data:`~mtlens.metrics.base.BLOCK_CHARS` characters; a metric that is not blockwise,
NIST, is one task over the whole corpus), weighted by its characters times the metric's cost per character, and
:func:`mtlens.runtime.engine.map_tasks` shares them out; each task's arrays are copied into the metric's arrays for
the whole corpus as they arrive."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Sequence

import numpy as np

from ..metrics import Metric, base
from ..metrics.base import line_chars, segment_blocks
from . import kernels
from .engine import map_tasks


def statistics_many(
    metrics: Sequence[Metric], references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]]
) -> list[list[np.ndarray]]:
    """Per-segment statistics of several metrics: every (metric, block) an independent task, shared
    between processes where that is safe and worthwhile. Identical to each metric's own
    :meth:`~mtlens.metrics.base.Metric.statistics`."""
    streams = [*references, *hypotheses]
    n = len(streams[0]) if streams else 0
    pairs = n * len(references) * len(hypotheses)
    kernels.prepare(m.name for m in metrics if m.kernel_needed(pairs))  # compiled kernels first: workers load them
    if any(len(s) != n for s in streams):
        raise ValueError("all reference and hypothesis streams must have the same number of lines")
    per_line = line_chars(streams)
    blocks = list(itertools.pairwise(segment_blocks(streams, base.BLOCK_CHARS, per_line)))
    chars = np.concatenate(([0], np.cumsum(per_line)))
    tasks = []  # (metric index, first line, end line)
    for k, metric in enumerate(metrics):
        tasks += [(k, a, b) for a, b in blocks] if metric.blockwise else [(k, 0, n)]
    weights = [float(chars[b] - chars[a]) * metrics[k].cost_per_char for k, a, b in tasks]

    def inputs(t: int):
        k, a, b = tasks[t]
        if not metrics[k].blockwise:
            return metrics[k], references, hypotheses
        return metrics[k], [r[a:b] for r in references], [h[a:b] for h in hypotheses]

    def compute(t: int) -> list[np.ndarray]:
        metric, refs, hyps = inputs(t)
        return metric.block_statistics(refs, hyps)

    def describe(t: int) -> dict | None:
        metric, refs, hyps = inputs(t)
        if metric.spec is None:
            return None
        name, options = metric.spec
        return {"metric": name, "options": options, "references": refs, "hypotheses": hyps}

    out: list[list] = [[None] * len(hypotheses) for _ in metrics]

    def keep(t: int, arrays: list[np.ndarray]) -> None:
        """A task's arrays copied into their metric's arrays at once (none held until the end)."""
        k, a, b = tasks[t]
        for i, part in enumerate(arrays):
            if a == 0 and b == n:  # the whole corpus: the array itself
                out[k][i] = part
                continue
            if part.shape[0] != b - a:
                raise ValueError(f"{metrics[k].name} gave {part.shape[0]} rows for {b - a} lines")
            whole = out[k][i]
            if whole is None:
                whole = out[k][i] = np.empty((n, *part.shape[1:]), dtype=part.dtype)
            elif whole.shape[1:] != part.shape[1:]:  # blocks of different widths are a metric's bug
                raise ValueError(f"{metrics[k].name} gave blocks of different widths")
            elif whole.dtype != np.result_type(whole.dtype, part.dtype):
                whole = out[k][i] = whole.astype(np.result_type(whole.dtype, part.dtype))
            whole[a:b] = part

    _load_before_fork(metrics)
    map_tasks(compute, weights, describe, keep, threads=any(m.releases_gil for m in metrics))
    return out


def _load_before_fork(metrics: Sequence[Metric]) -> None:
    """The word tokenizers the metrics use (sacrebleu's package for BLEU's 13a, about 30 ms to import), made here once:
    forked workers inherit them instead of each loading them again on the job's critical path. A tokenizer that cannot
    be made (its library missing) says so when the tasks run."""
    from ..core.tokenizers import get_tokenizer

    for metric in metrics:
        name = getattr(metric, "tokenize", None)
        if isinstance(name, str):
            with contextlib.suppress(Exception):
                get_tokenizer(name)


def statistics(metric: Metric, references, hypotheses) -> list[np.ndarray]:
    """One metric's statistics through the engine (shared with workers when worthwhile)."""
    return statistics_many([metric], references, hypotheses)[0]

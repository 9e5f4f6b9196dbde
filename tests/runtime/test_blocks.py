"""Scoring in blocks of segments (bounded memory) gives exactly the statistics of one block."""

from __future__ import annotations

import numpy as np

import mtlens.metrics.base as base
from mtlens.metrics import make_metric, metric_names
from mtlens.metrics.base import segment_blocks


def test_segment_blocks_cover_every_line_once():
    streams = [["a" * 5] * 10, ["b" * 3] * 10]
    b = segment_blocks(streams, 25)  # (6 + 4) chars per line -> 2 lines per block
    assert b == [0, 2, 4, 6, 8, 10]
    assert segment_blocks([["x" * 100, "y"]], 10) == [0, 1, 2]  # a long line is a block of its own


def test_small_blocks_give_identical_statistics(sample, monkeypatch):
    refs, systems = sample
    hyps = list(systems.values())
    for name in metric_names():
        metric = make_metric(name)
        whole = metric.statistics(refs, hyps)
        monkeypatch.setattr(base, "BLOCK_CHARS", 3000)
        assert len(segment_blocks([*refs, *hyps], 3000)) > 20
        blocked = metric.statistics(refs, hyps)
        monkeypatch.undo()
        for a, b in zip(whole, blocked, strict=True):
            np.testing.assert_array_equal(a, b)

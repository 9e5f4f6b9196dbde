"""The workers' pure-Python parts, without the extra (mtlens/neural/worker_base.py, which the COMET and MetricX
workers share, imports only the standard library at module level): the out-of-memory halving and the blocks."""

from __future__ import annotations

import importlib.util

from ..conftest import ROOT


def _worker():
    path = ROOT / "mtlens" / "neural" / "worker_base.py"
    spec = importlib.util.spec_from_file_location("mtlens_worker_base_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeOOM(Exception):
    pass


def test_an_out_of_memory_batch_is_halved_and_retried_not_lost():
    worker = _worker()
    calls = []

    def run(part):
        calls.append(len(part))
        if len(part) > 3:  # a device that holds 3 at most
            raise FakeOOM
        return [x * 10 for x in part]

    out, size = worker.halving(run, list(range(10)), 16, (FakeOOM,))
    assert out == [x * 10 for x in range(10)]  # every item once, in order
    # 16 (the 10 items) fails, 8 fails, 4 fails, 2 fits: then the 10 items go 2 at a time
    assert size == 2 and calls == [10, 8, 4, 2, 2, 2, 2, 2]
    try:
        worker.halving(lambda part: (_ for _ in ()).throw(FakeOOM()), [1], 4, (FakeOOM,))
    except FakeOOM:
        pass  # one item that does not fit: the error is the worker's to report, not an endless loop
    else:
        raise AssertionError("a batch of one that does not fit must raise")


def test_blocks_are_whole_batches_of_about_a_32nd_of_the_work():
    """The fast path's blocks (both workers, and a Ray cluster): by hand, 1,000 rows in batches of 48 make blocks of
    ceil(1000 / 32) = 32 rows, raised to the minimum 128, rounded up to whole batches: 144 (3 batches); 6 blocks of
    144 and one of 136. An estimator's blocks (not whole batches) are 128; CHUNK 100 gives 100 (or 144 in whole
    batches)."""
    cut = _worker().cut
    order = list(range(1000))
    got = cut(order, 48, 0)
    assert [len(b) for b in got] == [144] * 6 + [136] and [i for b in got for i in b] == order
    assert [len(b) for b in cut(order, 48, 0, whole_batches=False)] == [128] * 7 + [104]
    assert {len(b) for b in cut(order, 48, 100)[:-1]} == {144}
    assert {len(b) for b in cut(order, 48, 100, whole_batches=False)[:-1]} == {100}
    big = list(range(200_000))  # ceil(200000 / 32) = 6250, capped at 4,096 rows (a multiple of 16 already)
    assert {len(b) for b in cut(big, 16, 0)[:-1]} == {4096}


def test_metricx_sizes_its_gpu_batches_from_free_memory(monkeypatch):
    """MetricX's default batch on a GPU (issue 62): half the free memory over one row's activations at the longest
    row's width, 2 x width x (8 d_model + 2 d_ff + heads x width) x bytes per value, kept within 16..512; 16 on a
    CPU. The expected sizes are worked out by hand for mT5-large's shape (d_model 1,024, d_ff 2,816, 16 heads) in
    float32 and rows of 100 tokens: one row needs 2 x 100 x (8,192 + 5,632 + 1,600) x 4 = 12,339,200 bytes."""
    import sys
    import types

    path = ROOT / "mtlens" / "neural" / "metricx_worker.py"
    spec = importlib.util.spec_from_file_location("mtlens_metricx_worker_under_test", path)
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    free = {"bytes": 0}
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(mem_get_info=lambda: (free["bytes"], 2 * free["bytes"])))
    monkeypatch.setitem(sys.modules, "torch", fake)

    def model(device: str):
        return types.SimpleNamespace(
            device=types.SimpleNamespace(type=device),
            config=types.SimpleNamespace(d_model=1024, d_ff=2816, num_heads=16),
            parameters=lambda: iter([types.SimpleNamespace(element_size=lambda: 4)]),
        )

    rows = [[5] * 40, [5] * 100, [5] * 7]  # the longest decides
    assert worker.auto_batch(model("cpu"), rows) == 16
    free["bytes"] = 8 * 2**30  # 4 GiB usable: 4,294,967,296 // 12,339,200 = 348
    assert worker.auto_batch(model("cuda"), rows) == 348
    free["bytes"] = 141 * 10**9  # an H200's: 5,713 rows fit, capped at 512
    assert worker.auto_batch(model("cuda"), rows) == 512
    free["bytes"] = 100 * 10**6  # 4 rows fit: never fewer than 16
    assert worker.auto_batch(model("cuda"), rows) == 16
    assert worker.auto_batch(model("cuda"), []) == 16

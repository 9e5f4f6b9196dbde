"""The COMET worker's pure-Python parts, without the extra (mtlens/neural/worker.py imports only the
standard library at module level): the out-of-memory halving, and the kind a model is given."""

from __future__ import annotations

import importlib.util

from ..conftest import ROOT


def _worker():
    spec = importlib.util.spec_from_file_location("mtlens_worker_under_test", ROOT / "mtlens" / "neural" / "worker.py")
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

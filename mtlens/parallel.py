"""Independent work on every core: tasks shared between this process and forked children.

Scoring is a list of independent tasks (one metric on one block of segments). When the process
is single-threaded (the command line, a script), :func:`map_tasks` forks one child per extra
core; each child computes its share of the tasks and sends the resulting arrays back through a
pipe in numpy's ``.npy`` format, read with ``allow_pickle=False`` (nothing is pickled). The
children inherit the data by ``fork``, so nothing is copied to start them (about 5 ms each).

Decisions (docs/decisions.md, "Parallel scoring"):
- Only a single-threaded process forks (forking a threaded process, such as the Streamlit server,
  can deadlock a child on a lock another thread held); elsewhere the tasks run in this process.
- Tasks are shared by weight (largest first, each to the least loaded process); small jobs (under
  :data:`MIN_PARALLEL_WEIGHT`) stay in one process, where forking would cost more than it saves.
- Results never depend on the sharing: every task is a pure function of its inputs, and the
  results come back in task order. A child that fails (an error, a signal, the memory killer)
  has its tasks computed again in this process, which then raises the error, if any, itself.
- ``MTLENS_WORKERS`` sets the number of processes (``1``: never fork); by default, the cores this
  process may run on.
"""

from __future__ import annotations

import io
import os
import signal
import threading
from collections.abc import Callable, Sequence

import numpy as np

#: environment variable: how many processes share the work (1 = this process only)
WORKERS_ENV = "MTLENS_WORKERS"
#: below this total weight (about characters of text), everything runs in this process
MIN_PARALLEL_WEIGHT = 400_000


def workers() -> int:
    """How many processes may share the work: ``MTLENS_WORKERS``, else the usable cores."""
    value = os.environ.get(WORKERS_ENV, "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """True where forking is safe: a POSIX system and a process with a single thread."""
    return hasattr(os, "fork") and threading.active_count() == 1


def share(weights: Sequence[float], n: int) -> list[list[int]]:
    """Task indices for ``n`` processes: largest first, each to the least loaded one.

    Example:
        >>> share([5, 1, 4, 2], 2)
        [[0, 1], [2, 3]]
    """
    loads = [0.0] * n
    shares: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(weights)), key=lambda i: -weights[i]):
        j = loads.index(min(loads))
        shares[j].append(i)
        loads[j] += weights[i]
    return shares


def map_tasks(compute: Callable[[int], list[np.ndarray]], weights: Sequence[float]) -> list[list[np.ndarray]]:
    """``[compute(i) for i in range(len(weights))]``, shared between processes when worthwhile.

    Args:
        compute: task index -> list of numeric arrays (no object arrays).
        weights: the expected cost of each task (characters of text).
    """
    n_proc = min(workers(), len(weights))
    if n_proc < 2 or sum(weights) < MIN_PARALLEL_WEIGHT or not can_fork():
        return [compute(i) for i in range(len(weights))]
    shares = share(weights, n_proc)
    children = [_fork(compute, tasks) for tasks in shares[1:]]
    results: dict[int, list[np.ndarray]] = {}
    try:
        for i in shares[0]:
            results[i] = compute(i)
    except BaseException:
        for pid, read_end in children:
            os.kill(pid, signal.SIGKILL)
            os.close(read_end)
            os.waitpid(pid, 0)
        raise
    received = [_collect(child) for child in children]
    for tasks, arrays in zip(shares[1:], received, strict=True):
        for i in tasks:  # a failed child: its tasks again, here
            results[i] = arrays.pop(i) if arrays is not None and i in arrays else compute(i)
    return [results[i] for i in range(len(weights))]


def _fork(compute, tasks):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's code
        status = 1
        try:
            os.close(read_end)
            buf = io.BytesIO()
            for i in tasks:
                arrays = compute(i)
                np.save(buf, np.array([i, len(arrays)], dtype=np.int64), allow_pickle=False)
                for a in arrays:
                    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
            with os.fdopen(write_end, "wb") as f:
                f.write(buf.getbuffer())
            status = 0
        except BaseException:  # the parent computes these tasks again
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(child) -> dict[int, list[np.ndarray]] | None:
    """The arrays a child sent (task index -> arrays), or None if it failed."""
    pid, read_end = child
    with os.fdopen(read_end, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    buf, out = io.BytesIO(data), {}
    while buf.tell() < len(data):
        i, count = np.load(buf, allow_pickle=False).tolist()
        out[i] = [np.load(buf, allow_pickle=False) for _ in range(count)]
    return out

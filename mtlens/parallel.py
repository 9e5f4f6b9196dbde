"""Independent work on every core: tasks shared between this process and helper processes.

Scoring is a list of independent tasks (one metric on one block of segments). :func:`map_tasks`
shares them out:

- in a single-threaded process (the command line, a script) it forks one child per extra core;
  the children inherit the data, so nothing is copied to start them (about 5 ms each);
- in a threaded process (the Streamlit server, where forking can deadlock a child on a lock
  another thread held) it starts fresh helper interpreters (``python -m mtlens.parallel``) for
  large jobs only (:data:`MIN_SPAWN_WEIGHT`: a helper needs about 0.3 s to start), and sends them
  their tasks as JSON (metric name, options, lines).

Either way the results come back through a pipe in numpy's ``.npy`` format, read with
``allow_pickle=False``: nothing is pickled or evaluated.

Decisions (docs/decisions.md, "Parallel scoring"):
- Tasks are shared by weight (largest first, each to the least loaded process); small jobs (under
  :data:`MIN_PARALLEL_WEIGHT`) stay in one process, where forking would cost more than it saves.
- Results never depend on the sharing: every task is a pure function of its inputs, and the
  results come back in task order. A child that fails (an error, a signal, the memory killer)
  has its tasks computed again in this process, which then raises the error, if any, itself.
- ``MTLENS_WORKERS`` sets the number of processes (``1``: never fork); by default, the cores this
  process may run on.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

import numpy as np

#: environment variable: how many processes share the work (1 = this process only)
WORKERS_ENV = "MTLENS_WORKERS"
#: below this total weight (about characters of text), everything runs in this process
MIN_PARALLEL_WEIGHT = 400_000
#: ... and below this one, when helpers must be started afresh (a threaded process)
MIN_SPAWN_WEIGHT = 4_000_000


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


def map_tasks(
    compute: Callable[[int], list[np.ndarray]],
    weights: Sequence[float],
    describe: Callable[[int], dict | None] | None = None,
) -> list[list[np.ndarray]]:
    """``[compute(i) for i in range(len(weights))]``, shared between processes when worthwhile.

    Args:
        compute: task index -> list of numeric arrays (no object arrays).
        weights: the expected cost of each task (characters of text).
        describe: task index -> a JSON description that a helper process turns into the same
            arrays (:func:`mtlens.metrics.base.compute_described`), or None when a task cannot be
            described; without it, a threaded process keeps every task.
    """
    n_proc = min(workers(), len(weights))
    total = sum(weights)
    if n_proc < 2 or total < MIN_PARALLEL_WEIGHT:
        return [compute(i) for i in range(len(weights))]
    if can_fork():
        start = lambda tasks: _fork(compute, tasks)  # noqa: E731
    elif describe is not None and total >= MIN_SPAWN_WEIGHT:
        start = lambda tasks: _spawn(describe, tasks)  # noqa: E731
    else:
        return [compute(i) for i in range(len(weights))]
    shares = share(weights, n_proc)
    children = [start(tasks) for tasks in shares[1:]]
    results: dict[int, list[np.ndarray]] = {}
    try:
        for i in shares[0]:
            results[i] = compute(i)
    except BaseException:
        for child in children:
            _stop(child)
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
            with os.fdopen(write_end, "wb") as f:
                _write_results(f, tasks, compute)
            status = 0
        except BaseException:  # the parent computes these tasks again
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _write_results(f, tasks, compute) -> None:
    """Send ``compute(i)`` for each task: ``[i, count]`` then the arrays, all in ``.npy`` format."""
    buf = io.BytesIO()
    for i in tasks:
        arrays = compute(i)
        np.save(buf, np.array([i, len(arrays)], dtype=np.int64), allow_pickle=False)
        for a in arrays:
            np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    f.write(buf.getbuffer())
    f.flush()


def start_module(module: str, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, workers: int | None = None):
    """``python -m <module>`` in a fresh interpreter (this one's), from the folder holding mtlens."""
    env = {**os.environ, WORKERS_ENV: str(workers)} if workers else None
    return subprocess.Popen(
        [sys.executable, "-m", module],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        env=env,
    )


def _spawn(describe, tasks):
    """A fresh helper interpreter for ``tasks`` (None if one cannot be described or started)."""
    described = [describe(i) for i in tasks]
    if any(d is None for d in described):
        return None
    try:
        proc = start_module("mtlens.parallel", stdin=subprocess.PIPE, stdout=subprocess.PIPE, workers=1)
    except OSError:
        return None
    try:
        payload = json.dumps({"tasks": dict(zip(map(str, tasks), described, strict=True))}, ensure_ascii=False)
        data = payload.encode("utf-8")
    except UnicodeEncodeError:  # text that is not valid Unicode (never from mtlens' readers): no helper
        proc.kill()
        proc.wait()
        return None

    def send():  # in a thread, so this process starts on its own share at once
        with contextlib.suppress(OSError):  # a helper that died: its tasks are computed here
            proc.stdin.write(data)
            proc.stdin.close()

    writer = threading.Thread(target=send, daemon=True)
    writer.start()
    return proc


def _stop(child) -> None:
    if child is None:
        return
    if isinstance(child, subprocess.Popen):
        child.kill()
        child.communicate()
        return
    pid, read_end = child
    os.kill(pid, signal.SIGKILL)
    os.close(read_end)
    os.waitpid(pid, 0)


def _collect(child) -> dict[int, list[np.ndarray]] | None:
    """The arrays a child sent (task index -> arrays), or None if it failed."""
    if child is None:
        return None
    if isinstance(child, subprocess.Popen):
        data = child.stdout.read()
        child.stdout.close()
        status = child.wait()
    else:
        pid, read_end = child
        with os.fdopen(read_end, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    buf, out = io.BytesIO(data), {}
    try:
        while buf.tell() < len(data):
            i, count = np.load(buf, allow_pickle=False).tolist()
            out[i] = [np.load(buf, allow_pickle=False) for _ in range(count)]
    except ValueError:  # a truncated answer: its tasks are computed again here
        return None
    return out


def _helper_main() -> None:
    """``python -m mtlens.parallel``: read described tasks (JSON) on stdin, answer on stdout."""
    from .metrics.base import compute_described

    tasks = {int(i): d for i, d in json.load(sys.stdin.buffer)["tasks"].items()}
    _write_results(sys.stdout.buffer, list(tasks), lambda i: compute_described(tasks[i]))


if __name__ == "__main__":
    _helper_main()

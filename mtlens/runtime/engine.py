"""The engine: scoring work cut into independent tasks and shared with worker processes (docs/decisions.md, "The
engine": the full account of each choice below, with its measurements).

A metric computes statistics for the lines it is given (:meth:`~mtlens.metrics.base.Metric.block_statistics`); the
engine decides the rest. **Tasks**: one metric on one block of consecutive segments (about
:data:`~mtlens.metrics.base.BLOCK_CHARS` characters; NIST is one task), each a pure function of its inputs, so results
never depend on the sharing. **Kernels** first (:func:`mtlens.runtime.kernels.prepare`). **Workers**
(``concurrent.futures.ProcessPoolExecutor``): a single-threaded process forks workers for the job (they inherit its
text), or above :data:`MAX_FORK_WEIGHT` uses the persistent pool; a threaded process (the server) has one persistent
``forkserver`` pool, its tasks pickled between it and its own workers (nothing from a user or the disk is unpickled).
**Shared as it goes**: tasks queued largest first for the workers, this process taking them smallest first from the
other end (claimed in shared flags with forked workers, cancelled in the pool's queue). Small jobs stay here
(:data:`MIN_PARALLEL_WEIGHT`; a threaded process starts its pool at :data:`MIN_SPAWN_WEIGHT`). **Threads**: in a
threaded process, a job below :data:`MIN_SPAWN_WEIGHT` with a metric whose compiled kernel releases the interpreter
lock (TER's) is shared by threads of this process, not the pool. **Failures**: a worker's failed task is computed
again here, which raises the error itself; an error in this process's own task stops the job's forked workers.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from ..core.options import DEFAULTS, Options
from ..metrics import REGISTRY, Metric, make_metric
from . import kernels
from .processes import can_fork, workers

#: below this total weight (about characters of text), everything runs in this process
MIN_PARALLEL_WEIGHT = 400_000
#: ... and below this one, a threaded process does not start its worker pool (about 0.5 s)
MIN_SPAWN_WEIGHT = 4_000_000

#: above this total weight, a single-threaded process uses the pool too instead of forking: a forked
#: worker shares the text only until either process touches a line (its reference count), after which
#: the operating system copies the page; the pool's workers hold only their task's lines (a million
#: lines, BLEU + chrF: 2,038 MB forked, 1,899 MB pooled, the same time)
MAX_FORK_WEIGHT = 100_000_000

#: what the last shared job did: ``{"mode": "here" | "fork" | "pool" | "threads", "pids": [...]}`` (tests read it)
LAST_RUN: dict = {"mode": "here", "pids": []}

#: set when :func:`start_pool`'s warming is over (benchmarks and tests wait for it)
WARMED = threading.Event()

_warming = False  # start_pool began warming the pool
_start_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()
_helpers_registered = False  # stop_helpers is registered to run at exit
_job: Callable[[int], list[np.ndarray]] | None = None  # inherited by forked workers
_claims = None  # a forked job's shared flags, one per task: 1 once a process has claimed the task


def _claim(i: int) -> bool:
    """Claim task ``i`` of the forked job for the calling process (False: another process has it)."""
    with _claims.get_lock():
        if _claims[i]:
            return False
        _claims[i] = 1
        return True


# --------------------------------------------------------------------------- in the workers
def _run_inherited(tasks: list[int]):
    """A forked worker: the job's tasks from the function it inherited, each one it can claim."""
    return {i: _job(i) for i in tasks if _claim(i)}, os.getpid()


_built: dict[str, Metric] = {}


def compute_described(task: dict) -> list[np.ndarray]:
    """A task described as metric name, options and lines, or as a translation check with its lines
    (:func:`mtlens.runtime.checking.check_scores_many`), computed here (a pool worker's work)."""
    if "check" in task:
        from ..checks import failing_described

        return failing_described(task)
    key = json.dumps([task["metric"], task["options"]], sort_keys=True)
    metric = _built.get(key)
    if metric is None:
        metric = _built[key] = make_metric(task["metric"], Options.from_mapping(task["options"]))
    return metric.block_statistics(task["references"], task["hypotheses"])


def _run_described(described: dict[int, dict]):
    return {i: compute_described(d) for i, d in described.items()}, os.getpid()


def _warm() -> int:
    """A pool worker loads what every metric's scoring imports on first use (modules, tokenizers)."""
    for name, cls in REGISTRY.items():
        for module in cls.modules:
            importlib.import_module(module)
        with contextlib.suppress(Exception):  # e.g. a tokenizer whose library is missing: reported when used
            make_metric(name, DEFAULTS).block_statistics([["A test."]], [["A test."]])
    return os.getpid()


def loaded(prefixes: tuple[str, ...]) -> list[str]:
    """The modules this process has loaded whose names start with one of ``prefixes`` (what a pool
    worker has warmed: tests and diagnostics ask it)."""
    return sorted(m for m in list(sys.modules) if m.startswith(prefixes))


def start_pool(page_weight: float | None = None) -> None:
    """Start this process's worker pool ahead of its first job, warmed (the dashboard calls it for an upload): the
    worker imports every metric's modules and tokenizers now, and, once the kernels' warm-up has compiled them, the
    kernels, as this process does (a thread), so the first page that scores pays for none of it. With ``page_weight``
    (every metric's cost on the upload: characters, all streams, times costs per character), only when a page's
    jobs are large enough to use the pool."""
    global _warming
    size = workers() - 1
    if page_weight is not None and page_weight < MIN_SPAWN_WEIGHT:
        return
    with _start_lock:
        if size < 1 or _warming or pool_running():
            return
        _warming = True
    ex = _persistent_pool(size)
    try:
        for _ in range(size):
            ex.submit(_warm)
    except (BrokenProcessPool, RuntimeError):
        _drop_pool(ex)
        return

    def kernels_everywhere():
        try:
            names = list(kernels.kernel_modules())  # the metrics with a kernel
            kernels.prepare(names)  # waits for the warm-up, then loads them here
            with contextlib.suppress(Exception):  # a broken pool: its first job says so, and recovers
                # workers load what is there and never build (the warm-up or this process does)
                for fut in [ex.submit(kernels.prepare, names, False) for _ in range(size)]:
                    fut.result()
        finally:
            WARMED.set()

    threading.Thread(target=kernels_everywhere, name="mtlens-kernels", daemon=True).start()


# --------------------------------------------------------------------------- in this process
def _persistent_pool(size: int) -> ProcessPoolExecutor:
    """This process's worker pool (forkserver), started once; a broken one is replaced."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size != size:
            if _pool is not None:
                _pool.shutdown(wait=False, cancel_futures=True)
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["mtlens.runtime.engine"])
            _pool, _pool_size = ProcessPoolExecutor(size, mp_context=ctx), size
            _stop_helpers_at_exit()
        return _pool


def _stop_helpers_at_exit() -> None:
    """Stop, when this process ends normally, every process it started for its pool: the workers, the forkserver and
    multiprocessing's resource tracker, which outlived the server under PID 1 (issue 38). A server stopped by a
    signal does not run ``atexit``, so ``app.py`` also calls :func:`stop_helpers` when its application stops."""
    global _helpers_registered
    if not _helpers_registered:
        _helpers_registered = True
        atexit.register(stop_helpers)


def stop_helpers() -> None:
    """Stop this process's pool, its workers, the forkserver and the resource tracker (idempotent)."""
    global _pool
    with _pool_lock:
        ex, _pool = _pool, None
    if ex is not None:
        _kill(ex)
        with contextlib.suppress(Exception):
            ex.shutdown(wait=True, cancel_futures=True)
    from multiprocessing import forkserver, resource_tracker

    for helper in (getattr(forkserver, "_forkserver", None), getattr(resource_tracker, "_resource_tracker", None)):
        stop = getattr(helper, "_stop", None)  # the standard library's own stop (private, so guarded)
        if stop is not None:
            with contextlib.suppress(Exception):
                stop()


def _drop_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool.shutdown(wait=False, cancel_futures=True)
            _pool = None


def pool_ready() -> bool:
    """The pool runs and is not warming up (start_pool): a small job is worth sending to it."""
    return pool_running() and (WARMED.is_set() or not _warming)


def pool_running() -> bool:
    return _pool is not None


def _kill(ex: ProcessPoolExecutor) -> None:
    """Stop a job's forked workers now (Python 3.14 has ``kill_workers``; before, its process table)."""
    kill = getattr(ex, "kill_workers", None)
    if kill is not None:
        kill()
        return
    for proc in list((getattr(ex, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            proc.kill()


def map_tasks(
    compute: Callable[[int], list[np.ndarray]],
    weights: Sequence[float],
    describe: Callable[[int], dict | None] | None = None,
    keep: Callable[[int, list[np.ndarray]], object] | None = None,
    threads: bool = False,
) -> list:
    """``[keep(i, compute(i)) for i in range(len(weights))]``, shared with worker processes when
    worthwhile.

    Args:
        compute: task index -> list of numeric arrays.
        weights: the expected cost of each task (characters of text).
        describe: task index -> a description a pool worker turns into the same arrays
            (:func:`compute_described`), or None when a task cannot be described; without it, a
            threaded process keeps every task.
        keep: called with each task's arrays as soon as they are computed (in this process, whichever
            process computed them); what it returns stands for them in the list returned. By default
            the arrays themselves. A caller that copies them into its own arrays and returns None
            holds no task's arrays longer than it needs (a million lines' statistics are 450 MB).
        threads: most of the tasks' time is compiled code that releases the interpreter lock: in a threaded
            process, a job below :data:`MIN_SPAWN_WEIGHT` (or one without ``describe``) is shared by threads of
            this process, whether or not the pool is ready.
    """
    if keep is None:
        keep = _arrays
    n_proc = min(workers(), len(weights))
    total = sum(weights)
    LAST_RUN.update(mode="here", pids=[os.getpid()])
    if n_proc < 2 or total < MIN_PARALLEL_WEIGHT:
        return [keep(i, compute(i)) for i in range(len(weights))]
    order = sorted(range(len(weights)), key=lambda i: -weights[i])  # largest first
    if can_fork() and (describe is None or total < MAX_FORK_WEIGHT):
        return _forked(compute, order, n_proc - 1, keep)
    # below MIN_SPAWN_WEIGHT a job whose kernel releases the lock is faster in this process's threads, whose
    # tokenizers' caches hold the lines of the page's earlier jobs, than shared with the ready pool
    if describe is not None and (total >= MIN_SPAWN_WEIGHT or (pool_ready() and not threads)):
        described = {i: describe(i) for i in order}
        if all(d is not None for d in described.values()):
            return _pooled(compute, order, described, n_proc - 1, keep)
    if threads:
        return _threaded(compute, order, n_proc, keep)
    return [keep(i, compute(i)) for i in range(len(weights))]


def _arrays(i: int, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return arrays


def _forked(compute, order, size, keep):
    """Forked workers take the tasks largest first and this process smallest first; each task goes to
    the first process that claims it (shared flags the workers inherit), so this process can take any
    task no worker has begun, including those already handed to a worker's queue (a queued task cannot
    be cancelled: ``ProcessPoolExecutor`` hands each worker one more than it runs)."""
    global _job, _claims
    ctx = multiprocessing.get_context("fork")
    _job, _claims = compute, ctx.Array("b", max(order) + 1)
    ex = ProcessPoolExecutor(size, mp_context=ctx)
    try:
        try:
            futures = {i: ex.submit(_run_inherited, [i]) for i in order}
        except BrokenProcessPool:  # a worker died while the job was being handed out: all of it here
            return [keep(i, compute(i)) for i in range(len(order))]
        results = _take_from_the_end(compute, order, futures, size, lambda: _kill(ex), keep, _claim)
        return _gather(compute, futures, results, len(order), "fork", keep)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        _job = _claims = None


def _pooled(compute, order, described, size, keep):
    ex = _persistent_pool(size)
    try:
        futures = {i: ex.submit(_run_described, {i: described[i]}) for i in order}
    except (BrokenProcessPool, RuntimeError):
        _drop_pool(ex)
        return [keep(i, compute(i)) for i in range(len(order))]

    def cancel_queued():  # an error here: the worker's queued tasks of this job are not wanted
        for fut in futures.values():
            fut.cancel()

    results = _take_from_the_end(compute, order, futures, size, cancel_queued, keep, lambda i: futures[i].cancel())
    out = _gather(compute, futures, results, len(order), "pool", keep)
    if any(f.exception() is not None and isinstance(f.exception(), BrokenProcessPool) for f in futures.values()):
        _drop_pool(ex)
    return out


def _threaded(compute, order, size, keep):
    """The tasks computed by ``size`` threads of this process, largest first; each task's arrays kept in this thread
    as it finishes (``keep`` is never called from two threads at once). An error stops the tasks not begun and is
    raised here."""
    results = {}
    with ThreadPoolExecutor(size, thread_name_prefix="mtlens-task") as ex:
        futures = {ex.submit(compute, i): i for i in order}
        try:
            for fut in as_completed(futures):
                results[futures[fut]] = keep(futures[fut], fut.result())
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
    LAST_RUN.update(mode="threads", pids=[os.getpid()])
    return [results[i] for i in range(len(order))]


def _take_from_the_end(compute, order, futures, size, on_error, keep, take) -> dict:
    """This process's tasks: from the smallest up, each one ``take(i)`` gets for it (a queued task
    cancelled, or a task claimed before any worker), until one it cannot get; the first ``size`` tasks
    (one per worker) stay theirs. Removes the tasks it takes from ``futures`` (cancelling a claimed
    task's future, which a worker that has not fetched it then never sees)."""
    results = {}
    for i in reversed(order[size:]):
        if not take(i):
            break  # a worker has it, and every larger task (they were queued, and are claimed, first)
        futures.pop(i).cancel()
        try:
            results[i] = keep(i, compute(i))
        except BaseException:
            on_error()
            raise
    return results


def _gather(compute, futures, results, n_tasks, mode, keep):
    pids = {os.getpid()}
    for i, fut in futures.items():
        try:
            arrays, pid = fut.result()
        except Exception:  # a worker that failed or died: the task again, here (raising its error)
            results[i] = keep(i, compute(i))
        else:
            if arrays:
                pids.add(pid)
            results.update((j, keep(j, a)) for j, a in arrays.items())
    LAST_RUN.update(mode=mode, pids=sorted(pids))
    return [results[i] for i in range(n_tasks)]

"""How many processes may work, whether this one may fork, and starting a helper interpreter: the
facts the engine (:mod:`mtlens.runtime.engine`) and the kernel preparation (:mod:`mtlens.runtime.kernels`) share."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

#: environment variable: how many processes share the work (1 = this process only)
WORKERS_ENV = "MTLENS_WORKERS"


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
    """True where forking is safe: a POSIX system and a process with a single thread (forking a
    threaded process can leave a child blocked on a lock another thread held)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def start_module(
    module: str,
    *args: str,
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
    workers: int | None = None,
    group: bool = False,
):
    """``python -m <module> [args]`` in a fresh interpreter (this one's), from the folder holding mtlens. With
    ``group``, in a process group of its own, so that it and every process it starts stop together
    (:func:`stop_group`)."""
    env = {**os.environ, WORKERS_ENV: str(workers)} if workers else None
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        env=env,
        start_new_session=group,
    )


def stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a process started with ``group=True`` and every process of its group (SIGTERM; SIGKILL after
    ``timeout`` seconds), and collect its exit status; nothing if it has ended."""
    import signal

    if proc.poll() is not None:  # ended by itself, after its own children (its id may be another's by now)
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(timeout)
            break
        except subprocess.TimeoutExpired:
            continue

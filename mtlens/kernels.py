"""The compiled kernels (numba): compiled once, on every core, ahead of their first use.

TER and tolerant BLEU run compiled loops (``metrics/_ter_kernel.py``, ``metrics/_tbleu_kernel.py``).
Their functions carry explicit signatures, so numba compiles each exactly once (no extra versions
for literal arguments) when its module is imported, and caches the machine code on disk
(``__pycache__`` beside the source, or ``NUMBA_CACHE_DIR``): only the very first use after
installation compiles, every later process loads the code in a fraction of a second.

That first compilation is what this module shortens (docs/decisions.md, "Compiled kernels"):
- :func:`prepare` loads the kernels some metrics need; when there are two and the process may fork
  (:func:`mtlens.parallel.can_fork`), a child compiles the second one while this process compiles
  the first, and this process then loads the second from the disk cache.
- :func:`start_warmup` (the dashboard calls it when its server starts) compiles every kernel in a
  separate process (``python -m mtlens.kernels``) while the user uploads files; :func:`prepare`
  waits for that process instead of compiling the same code a second time.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterable

#: metric name -> the module holding its compiled kernel
KERNELS = {"ter": "mtlens.metrics._ter_kernel", "tbleu": "mtlens.metrics._tbleu_kernel"}

_warmup: subprocess.Popen | bool | None = None  # False: could not be started
_lock = threading.Lock()


def prepare(metrics: Iterable[str]) -> None:
    """Import (compiling if needed) the kernel modules of ``metrics`` (names such as ``ter``)."""
    from .parallel import can_fork, workers

    modules = list(dict.fromkeys(KERNELS[m] for m in metrics if m in KERNELS))
    missing = [m for m in modules if m not in sys.modules]
    if not missing:
        return
    _wait_for_warmup()
    children = []
    if len(missing) > 1 and workers() > 1 and can_fork():
        for module in missing[1:]:
            pid = os.fork()
            if pid == 0:  # the child compiles (or loads) one module and leaves
                status = 1
                try:
                    importlib.import_module(module)
                    status = 0
                finally:
                    os._exit(status)
            children.append(pid)
    try:
        importlib.import_module(missing[0])
    finally:
        for pid in children:
            os.waitpid(pid, 0)
    for module in missing[1:]:  # from the cache the children wrote (or compiled here if they failed)
        importlib.import_module(module)


def start_warmup() -> None:
    """Compile every kernel in a background process, once per server process (no-op if running or done)."""
    global _warmup
    with _lock:
        if _warmup is not None or all(m in sys.modules for m in KERNELS.values()):
            return
        from .parallel import start_module

        try:
            _warmup = start_module("mtlens.kernels")
        except OSError:  # no process to spare: the kernels compile at first use instead
            _warmup = False


def _wait_for_warmup(timeout: float = 120.0) -> None:
    """Let a running warm-up finish (it is ahead of us); never fails: we compile ourselves otherwise."""
    proc = _warmup
    if not proc or proc.poll() is not None:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=timeout)


if __name__ == "__main__":  # python -m mtlens.kernels: compile (or load) every kernel
    prepare(KERNELS)

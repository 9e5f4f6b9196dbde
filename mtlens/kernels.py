"""The compiled kernels (numba): compiled once, on every core, ahead of their first use.

TER and tolerant BLEU run compiled loops (``metrics/_ter_kernel.py``, ``metrics/_tbleu_kernel.py``).
Their functions carry explicit signatures, so numba compiles each exactly once (no extra versions
for literal arguments) when its module is imported, and caches the machine code on disk
(``__pycache__`` beside the source, or ``NUMBA_CACHE_DIR``): only the very first use after
installation compiles, every later process loads the code in a fraction of a second.

That first compilation is what this module shortens (docs/decisions.md, "Compiled kernels"):
- :func:`prepare` loads the kernels some metrics need (each metric names its kernel module:
  :attr:`mtlens.metrics.base.Metric.kernel`); when there are two and the process may fork
  (:func:`mtlens.processes.can_fork`), a child process (the standard library's ``multiprocessing``)
  compiles the second one while this process compiles the first, and this process then loads the
  second from the disk cache.
- :func:`start_warmup` (the dashboard calls it when its server starts) compiles every kernel in a
  separate process (``python -m mtlens.kernels``) while the user uploads files; :func:`prepare`
  waits for that process instead of compiling the same code a second time.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import subprocess
import sys
import threading
from collections.abc import Iterable

from .metrics import REGISTRY
from .processes import can_fork, start_module, workers


def kernel_modules() -> dict[str, str]:
    """Metric name -> the module holding its compiled kernel (from the metrics' own declarations)."""
    return {name: cls.kernel for name, cls in REGISTRY.items() if cls.kernel}


_warmup: subprocess.Popen | bool | None = None  # False: could not be started
_lock = threading.Lock()


def prepare(metrics: Iterable[str]) -> None:
    """Import (compiling if needed) the kernel modules of ``metrics`` (names such as ``ter``)."""
    known = kernel_modules()
    modules = list(dict.fromkeys(known[m] for m in metrics if m in known))
    missing = [m for m in modules if m not in sys.modules]
    if not missing:
        return
    _wait_for_warmup()
    children = []
    if len(missing) > 1 and workers() > 1 and can_fork():
        ctx = multiprocessing.get_context("fork")
        for module in missing[1:]:  # a child compiles (or loads) one module and leaves
            child = ctx.Process(target=importlib.import_module, args=(module,), daemon=True)
            child.start()
            children.append(child)
    try:
        importlib.import_module(missing[0])
    finally:
        for child in children:
            child.join()
    for module in missing[1:]:  # from the cache the children wrote (or compiled here if they failed)
        importlib.import_module(module)


def start_warmup() -> None:
    """Compile every kernel in a background process, once per server process (no-op if running or done)."""
    global _warmup
    with _lock:
        if _warmup is not None or all(m in sys.modules for m in kernel_modules().values()):
            return
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
    prepare(kernel_modules())

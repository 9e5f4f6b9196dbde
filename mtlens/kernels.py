"""The compiled kernels: built once, ahead of their first use, and loaded in a millisecond after.

TER and tolerant BLEU run compiled loops (``metrics/_ter_kernel.py``, ``metrics/_tbleu_kernel.py``),
numba functions with explicit signatures. Each is used in one of two forms (:mod:`mtlens.metrics._compiled`):

- **ahead of time**: the same source compiled by ``numba.pycc`` into an extension module that loads
  without numba (a fraction of a millisecond, instead of numba's 0.3 s), where a C compiler is there;
- **numba's**, compiled on import and cached on disk by numba (``__pycache__`` beside the source, or
  ``NUMBA_CACHE_DIR``), otherwise or with ``MTLENS_AOT=0``.

- :func:`prepare` makes the kernels some metrics need ready before a job (each metric names its
  kernel module: :attr:`mtlens.metrics.base.Metric.kernel`): an ahead-of-time build is loaded; one not
  built yet for this installation is built first, each module in its own child process (side by side
  when there are two: ``python -m mtlens.metrics._aot MODULE``); a build that fails (no C
  compiler) leaves a marker, and numba's kernel is used from then on. numba's kernels, when two must
  be compiled and the process may fork (:func:`mtlens.processes.can_fork`), compile side by side too:
  a child compiles the second while this process compiles the first, then loads it from the cache.
- :func:`start_warmup` (the dashboard calls it when its server starts) prepares every kernel in a
  separate process (``python -m mtlens.kernels``) while the user uploads files; :func:`prepare`
  waits for that process instead of building the same code a second time.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import subprocess
import sys
import threading
from collections.abc import Iterable

from .metrics import REGISTRY, _compiled
from .processes import can_fork, start_module, workers


def kernel_modules() -> dict[str, str]:
    """Metric name -> the module holding its compiled kernel (from the metrics' own declarations)."""
    return {name: cls.kernel for name, cls in REGISTRY.items() if cls.kernel}


_warmup: subprocess.Popen | bool | None = None  # False: could not be started
_lock = threading.Lock()


def prepare(metrics: Iterable[str]) -> None:
    """Load (building or compiling first if needed) the kernels of ``metrics`` (names such as ``ter``)."""
    known = kernel_modules()
    modules = list(dict.fromkeys(known[m] for m in metrics if m in known))
    missing = [m for m in modules if _compiled.loaded(m) is None]
    if not missing:
        return
    _wait_for_warmup()
    _build_ahead(m for m in missing if not _compiled.built(m))
    jit_only = [m for m in missing if not _compiled.built(m)]
    children = []
    if len(jit_only) > 1 and workers() > 1 and can_fork():
        ctx = multiprocessing.get_context("fork")
        for module in jit_only[1:]:  # a child compiles (or loads) one module and leaves
            child = ctx.Process(target=importlib.import_module, args=(module,), daemon=True)
            child.start()
            children.append(child)
    try:
        _compiled.load(missing[0])
    finally:
        for child in children:
            child.join()
    for module in missing[1:]:  # from the cache the children wrote (or compiled here if they failed)
        _compiled.load(module)


def _build_ahead(modules: Iterable[str]) -> None:
    """Build the ahead-of-time modules not built yet (each in a child process, side by side); a build
    that fails leaves its marker with the reason (:func:`mtlens.metrics._compiled.failed`)."""
    if not _compiled.enabled():
        return
    todo = [m for m in modules if not _compiled.failed(m).exists()]
    procs = []
    for module in todo:
        try:
            procs.append((module, start_module("mtlens.metrics._aot", module, stderr=subprocess.PIPE)))
        except OSError as e:  # no process to spare: numba's kernel, this time
            procs.append((module, e))
    for module, proc in procs:
        if isinstance(proc, OSError):
            continue
        _, err = proc.communicate()
        if proc.returncode != 0 or not _compiled.aot_path(module).is_file():
            reason = err.decode("utf-8", "replace")[-4000:] or f"exit status {proc.returncode}"
            marker = _compiled.failed(module)
            with contextlib.suppress(OSError):
                marker.write_text(reason, encoding="utf-8")
            print(  # once per installation: the marker stops later attempts
                f"mtlens: {module} could not be built ahead of time (a C compiler is needed); numba's kernel "
                f"is used instead, about 0.3 s more per process. Why: {marker}",
                file=sys.stderr,
            )


def start_warmup() -> None:
    """Compile every kernel in a background process, once per server process (no-op if running or done)."""
    global _warmup
    with _lock:
        if _warmup is not None or all(_compiled.ready(m) for m in kernel_modules().values()):
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


if __name__ == "__main__":  # python -m mtlens.kernels: build (or compile, or load) every kernel
    prepare(kernel_modules())

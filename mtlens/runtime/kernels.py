"""The compiled kernels: built once, ahead of their first use, and loaded in a millisecond after.

TER, tolerant BLEU, the clipped n-gram counts, the language identification and the line checks' candidates run
compiled loops (``metrics/_ter_kernel.py``, ``metrics/_tbleu_kernel.py``, ``metrics/_ngram_kernel.py``,
``metrics/_langid_kernel.py``, ``metrics/_candidates_kernel.py``), numba functions with explicit signatures.
Each is used in one of two forms (:mod:`mtlens.metrics._compiled`):

- **ahead of time**: the same source compiled by ``numba.pycc`` into an extension module that loads
  without numba (a fraction of a millisecond, instead of numba's 0.3 s), where a C compiler is there;
- **numba's**, compiled on import and cached on disk by numba (``__pycache__`` beside the source, or
  ``NUMBA_CACHE_DIR``), otherwise or with ``MTLENS_AOT=0``.

- :func:`prepare` makes the kernels some metrics need ready before a job (each metric names its
  kernel module: :attr:`mtlens.metrics.base.Metric.kernel`): an ahead-of-time build is loaded; one not
  built yet for this installation is built first, each module in its own child process (side by side:
  ``python -m mtlens.metrics._aot MODULE``); a build that fails (no C compiler) leaves a marker, and
  numba's kernel is used from then on. numba's kernels, when several must be compiled and the process
  may fork (:func:`mtlens.runtime.processes.can_fork`), compile side by side too: children compile the others
  while this process compiles the first, then loads them from the cache.
- :func:`start_warmup` (the dashboard calls it when its server starts) prepares every kernel in a
  separate process (``python -m mtlens.runtime.kernels``) while the user uploads files, in two stages: numba's
  kernels, then the ahead-of-time builds. :func:`prepare` waits for the first stage only and loads
  numba's kernels while the second runs (the server's later processes load the builds), instead of
  building the same code a second time or waiting for it.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import multiprocessing
import subprocess
import sys
import threading
from collections.abc import Iterable

from ..metrics import REGISTRY, _compiled
from .processes import can_fork, start_module, stop_group, workers

#: the translation check whose compiled loop is built like the metrics' kernels (:mod:`mtlens.checks.langid_batch`)
LANGUAGE_CHECK = "check:language"
#: the translation checks whose candidate lines come from compiled loops (:mod:`mtlens.checks.candidates`): the
#: repetition and untranslated checks
LINE_CHECKS = "check:lines"


def kernel_modules() -> dict[str, str]:
    """Metric name -> the module holding its compiled kernel (from the metrics' own declarations), and the language
    identification's (:data:`LANGUAGE_CHECK`: the language check, the references' and the COMET pitfalls') and the line
    checks' (:data:`LINE_CHECKS`)."""
    from ..checks import candidates, langid_batch

    kernels = {name: cls.kernel for name, cls in REGISTRY.items() if cls.kernel}
    return {**kernels, LANGUAGE_CHECK: langid_batch.KERNEL, LINE_CHECKS: candidates.KERNEL}


_warmup: subprocess.Popen | bool | None = None  # False: could not be started
_warmup_compiled = threading.Event()  # the warm-up has numba's kernels compiled (or has ended)
_lock = threading.Lock()
#: what the warm-up prints once numba's kernels are compiled, before it builds them ahead of time
COMPILED = "numba-kernels-compiled"


def prepare(metrics: Iterable[str], build: bool = True) -> None:
    """Load the kernels of ``metrics`` (names such as ``ter``): built ahead of time, or numba's.

    With ``build``, the ahead-of-time modules missing for this installation are built first, unless
    this process's warm-up is building them (then numba's kernels, which it has compiled, are loaded:
    nobody waits for the second stage). Without, only what is there is loaded (or numba's compiled)."""
    known = kernel_modules()
    modules = list(dict.fromkeys(known[m] for m in metrics if m in known))
    missing = [m for m in modules if _compiled.loaded(m) is None]
    if not missing:
        return
    if _wait_for_warmup():
        build = False
    if build:
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
    """Prepare every kernel in a background process, once per server process (no-op if running or
    done): numba's kernels first, then the ahead-of-time builds (``python -m mtlens.runtime.kernels``)."""
    global _warmup
    with _lock:
        if _warmup is not None or all(_compiled.built(m) for m in set(kernel_modules().values())):
            return
        try:
            _warmup = start_module("mtlens.runtime.kernels", stdout=subprocess.PIPE, group=True)
        except OSError:  # no process to spare: the kernels are built at first use instead
            _warmup = False
            return
        atexit.register(stop_warmup)
        threading.Thread(target=_follow_warmup, args=(_warmup,), name="mtlens-warmup", daemon=True).start()


def stop_warmup() -> None:
    """Stop the warm-up and the builders it started, if still running: when this process ends (``atexit``) or a
    server stops (:func:`mtlens.service.results.stop_workers`; a signal skips ``atexit``). A warm-up left behind
    went on compiling for half a minute after its server had stopped (issue 38: every process a server starts stops
    with it). What it had finished stays in the cache; a builder stopped midway removes its temporary folder
    (:mod:`mtlens.metrics._aot`), and the next warm-up builds the rest."""
    proc = _warmup
    if isinstance(proc, subprocess.Popen):
        stop_group(proc)


def _follow_warmup(proc: subprocess.Popen) -> None:
    """Note when the warm-up has numba's kernels compiled (its line :data:`COMPILED`) or has ended."""
    try:
        for line in proc.stdout:
            if line.strip() == COMPILED.encode():
                _warmup_compiled.set()
        proc.wait()
    finally:
        _warmup_compiled.set()


def _wait_for_warmup(timeout: float = 120.0) -> bool:
    """Wait until a running warm-up has numba's kernels compiled (it is ahead of us); True while it is
    still building the ahead-of-time modules, so this process does not build them a second time.
    Never fails: after ``timeout``, or without a warm-up, we build or compile ourselves."""
    proc = _warmup
    if not proc:
        return False
    _warmup_compiled.wait(timeout)
    return proc.poll() is None


def build_all() -> list[str]:
    """Compile every kernel now and build its ahead-of-time module (the installation's step,
    ``python -m mtlens build``); returns the kernel modules that are built ahead of time afterwards."""
    modules = sorted(set(kernel_modules().values()))
    prepare(kernel_modules(), build=True)
    return [m for m in modules if _compiled.built(m)]


def _warm_everything() -> None:
    """The warm-up's work: numba's kernels first (a page waiting for a kernel can then load them from
    numba's cache), then every ahead-of-time module not built yet (later processes load those)."""
    modules = sorted(set(kernel_modules().values()))
    prepare(kernel_modules(), build=False)
    print(COMPILED, flush=True)
    _build_ahead(m for m in modules if not _compiled.built(m))


if __name__ == "__main__":  # python -m mtlens.runtime.kernels
    _warm_everything()

"""Build one kernel module ahead of time: ``python -m mtlens.metrics._aot mtlens.metrics._ter_kernel``.

numba's ahead-of-time compiler (``numba.pycc``) compiles the functions the kernel module exports
(``AOT_EXPORTS``), each with the one signature numba compiled it for, from the same Python source
numba's just-in-time compiler uses, into an extension module (:mod:`._compiled` says where, and when
it is used). :func:`mtlens.runtime.kernels.prepare` runs this in a child process, so that a failure (no C
compiler) only leaves a marker and the process that asked keeps numba's kernel.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import os
import sys
import tempfile
import warnings
from pathlib import Path

from . import _compiled


@contextlib.contextmanager
def _releasing_the_gil(pycc_compiler):
    """While ``cc.compile()`` runs, every exported function's Python wrapper releases the interpreter lock around
    the compiled call, as numba's ``nogil=True`` makes its just-in-time wrapper do: the kernels touch no Python
    object, so another thread of the process (the dashboard's, sharing a job) runs beside them. ``numba.pycc``
    builds its compile flags itself (``Flags()`` in ``_cull_exports``) and has no option for it, so its module's
    ``Flags`` is this subclass for the build. A numba whose flags lack the option raises here, and the build's
    marker says so (numba's kernels, with ``nogil``, are used)."""
    base = pycc_compiler.Flags

    class Flags(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = Flags
    try:
        yield
    finally:
        pycc_compiler.Flags = base


#: a build's temporary folder older than this (seconds) belongs to a builder that ended without removing it
STALE_BUILD_S = 3600


def _remove_stale_builds(folder: Path) -> None:
    """Remove the temporary folders of builds that ended without removing them: a builder killed outright
    (SIGKILL), or stopped before builders turned SIGTERM into an exit (a server stopped during its warm-up). A build
    takes under a minute, so a folder untouched for an hour is no running build's."""
    import shutil
    import time

    cutoff = time.time() - STALE_BUILD_S
    for old in folder.glob(".build-*"):
        with contextlib.suppress(OSError):
            if old.is_dir() and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)


def build(module: str) -> Path:
    """Compile ``module``'s ``AOT_EXPORTS`` into :func:`._compiled.aot_path` (written whole, then
    renamed, so a reader never sees half a file) and remove this module's files of other keys
    (older sources or versions); raises if it cannot (no C compiler, ...)."""
    path = _compiled.aot_path(module)
    _remove_stale_builds(path.parent)
    jit = importlib.import_module(module)  # numba's kernel: each function's one compiled signature
    system_tmp = tempfile.tempdir
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".build-") as tmp:
        # numba.pycc's temporary files go in here too, and so are removed with it: its probe of the C compiler never
        # removes its folder (numba 0.68's _gentmpfile), and its build folder is removed only when the build succeeds
        tempfile.tempdir = tmp
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numba.pycc announces its own pending deprecation
                from numba.pycc import CC
                from numba.pycc import compiler as pycc_compiler

                cc = CC(_compiled.short_name(module))
            cc.verbose = False
            cc.output_dir = tmp
            for name in jit.AOT_EXPORTS:
                dispatcher = getattr(jit, name)
                (signature,) = dispatcher.nopython_signatures
                cc.export(name, signature)(dispatcher.py_func)
            with _releasing_the_gil(pycc_compiler):
                cc.compile()
        finally:
            tempfile.tempdir = system_tmp
        os.replace(Path(tmp) / cc.output_file, path)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]  # another interpreter's files are its own
    for old in path.parent.glob(f"{_compiled.short_name(module)}-*{suffix}*"):
        if old.is_file() and not old.name.startswith(path.name):
            with contextlib.suppress(OSError):  # another process may hold it (Windows): left for later
                old.unlink()
    return path


def _exit_on_sigterm(signum, frame) -> None:
    """SIGTERM (a server stopping its warm-up: :func:`mtlens.runtime.kernels.stop_warmup`) ends the build as an
    exception does, so its temporary folder is removed instead of left in the cache."""
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    build(sys.argv[1])

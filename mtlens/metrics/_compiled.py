"""Which compiled kernel a process uses: built ahead of time (a C extension module), or numba's.

The kernels (:mod:`._ter_kernel`, :mod:`._tbleu_kernel`) are numba functions with explicit signatures,
cached on disk by numba. Loading them costs a process about 0.3 s (importing numba, setting up its
CPU target, linking the cached code), more than all of TER's work on a WMT test set shares between two
cores. So the same functions are also compiled *ahead of time* by numba's own ahead-of-time compiler
(``numba.pycc``), from the same source, into an ordinary extension module that needs neither numba
nor LLVM to load (a fraction of a millisecond) and computes the same numbers (tests/runtime/test_kernels.py
compares the two on real data).

- :func:`load` gives the kernel a metric computes with: the ahead-of-time module when one is built for
  this exact source and these versions (:func:`aot_path`), otherwise numba's (which compiles, or loads
  its disk cache, on import). Nothing here builds anything: :mod:`mtlens.runtime.kernels` does, before a job.
- :mod:`._aot` builds one (``python -m mtlens.metrics._aot MODULE``, a child process
  :func:`mtlens.runtime.kernels.prepare` starts): the kernel module's exported functions (its
  ``AOT_EXPORTS``, each with the signature it is declared with), for a generic CPU of this
  architecture, so the file suits any machine that can run this interpreter. It needs a C compiler
  (numba writes the code; setuptools drives the C compiler for the module's glue); without one, a
  marker file says so (:func:`failed`) and numba's kernel is used.

Files live beside numba's cache: ``$NUMBA_CACHE_DIR/mtlens-aot``, else the ``__pycache__`` beside the
sources when it can be written to, else ``~/.cache/mtlens/kernels``. The file name holds a hash of
every source the code is compiled from (``mtlens/metrics/_*.py``), of numba's and numpy's versions and
of the interpreter's extension suffix (its version and architecture), so a change to any of them
builds a new file instead of loading a stale one. A file that does not load (truncated, built for
another numpy) is set aside as ``.broken`` and numba's kernel is used. ``MTLENS_AOT=0`` turns the
ahead-of-time modules off (numba's kernels only). docs/decisions.md, "Compiled kernels".
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from pathlib import Path
from types import ModuleType

#: environment variable: ``0`` uses numba's kernels only (no ahead-of-time module is built or loaded)
AOT_ENV = "MTLENS_AOT"

_HERE = Path(__file__).resolve().parent
_key: str | None = None
_load_lock = threading.Lock()


def enabled() -> bool:
    """Ahead-of-time modules are built and loaded (``MTLENS_AOT`` is not ``0``)."""
    return os.environ.get(AOT_ENV, "").strip() != "0"


def _version_file(package: str, relative: str) -> bytes:
    """The bytes of a package's version file, found without importing the package (numba's import
    alone costs 0.1 s); empty when the package is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        return b""
    try:
        return (Path(spec.origin).parent / relative).read_bytes()
    except OSError:
        return b""


def key() -> str:
    """The hash that names this installation's ahead-of-time modules (sources, versions, interpreter)."""
    global _key
    if _key is None:
        import numpy

        h = hashlib.sha256()
        for path in sorted(_HERE.glob("_*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        h.update(_version_file("numba", "_version.py"))
        h.update(numpy.__version__.encode() + b"\0" + importlib.machinery.EXTENSION_SUFFIXES[0].encode())
        _key = h.hexdigest()[:16]
    return _key


_dirs: dict[str, Path] = {}


def cache_dir() -> Path:
    """Where the ahead-of-time modules are written (created if missing; looked up once per setting)."""
    env = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if env not in _dirs:
        candidates = [Path(env) / "mtlens-aot"] if env else [_HERE / "__pycache__"]
        candidates.append(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mtlens" / "kernels")
        _dirs[env] = candidates[0]
        for folder in candidates:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            if os.access(folder, os.W_OK):
                _dirs[env] = folder
                break
    return _dirs[env]


def short_name(module: str) -> str:
    """The ahead-of-time module's own name (``_ter_kernel_aot``): its file starts with it."""
    return module.rsplit(".", 1)[-1] + "_aot"


def aot_path(module: str) -> Path:
    """The file of ``module``'s ahead-of-time build for this installation (it may not exist)."""
    return cache_dir() / f"{short_name(module)}-{key()}{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def failed(module: str) -> Path:
    """The marker a failed build leaves (its text is the build's error): no new attempt for this key."""
    return aot_path(module).with_name(aot_path(module).name + ".failed")


def loaded(module: str) -> ModuleType | None:
    """The kernel of ``module`` this process has loaded already (ahead-of-time or numba's), if any."""
    return sys.modules.get(f"{module}_aot") or sys.modules.get(module)


def built(module: str) -> bool:
    """An ahead-of-time build of ``module`` is on disk for this installation (and may be used)."""
    return enabled() and aot_path(module).is_file()


def ready(module: str) -> bool:
    """A compiled kernel is at hand without compiling: loaded already, or built ahead of time."""
    return loaded(module) is not None or built(module)


def load(module: str) -> ModuleType:
    """The kernel a metric computes with: loaded already, else the ahead-of-time build, else numba's
    (importing it compiles it or loads numba's disk cache)."""
    kernel = loaded(module)
    if kernel is not None:
        return kernel
    with _load_lock:  # two threads of a job: one loads, the other finds it loaded
        return loaded(module) or _load(module)


def _load(module: str) -> ModuleType:
    if built(module):
        path = aot_path(module)
        name = f"{module}_aot"
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            kernel = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(kernel)
        except (ImportError, OSError):  # unreadable or built for something else: set aside, use numba's
            with contextlib.suppress(OSError):
                os.replace(path, path.with_name(path.name + ".broken"))
        else:
            sys.modules[name] = kernel
            return kernel
    return importlib.import_module(module)

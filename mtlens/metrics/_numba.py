"""numba's ``njit`` for the kernel modules, with numba's CPU target set up without two optional imports.

The first compiled function a process loads (from numba's disk cache, or compiled) makes numba set up
its CPU target: it then imports ``scipy.linalg`` (to see whether BLAS is there, for ``np.dot`` and
``np.linalg``) and ``cffi`` (to type cffi functions). Our kernels use neither, and the two imports took
about 0.18 s of the 0.34 s that loading the TER kernel cost a ``python -m mtlens score --metrics ter``
process (``scipy.linalg`` pulls in ``numpy.f2py`` through scipy's array-API layer).

:func:`_set_up_target` sets the target up once, while the two modules, if not imported yet, read as
missing (``sys.modules[name] = None``, the import system's own way to say "not installed"); then they
are importable again as usual. What changes in this process: numba's ``np.correlate`` and
``np.convolve`` on floats use a plain loop instead of BLAS for their inner products (numba decides that
once, when the target is set up), and numba cannot type cffi functions; ``np.dot`` and ``np.linalg`` in
numba code still use BLAS (they import scipy themselves when such a function is compiled).
docs/decisions.md, "Compiled kernels".
"""

from __future__ import annotations

import functools
import sys

import numba
import numpy.ma  # noqa: F401  numba's first call with an array imports it (typeof); here, a forked worker inherits it

#: numba's ``njit`` with ``nogil=True``: a compiled call releases the interpreter lock (the kernels touch no
#: Python object), so another thread can work beside it; :mod:`._aot` builds the same into its modules
njit = functools.partial(numba.njit, nogil=True)

__all__ = ["LEFT_OUT", "njit"]

#: modules numba's CPU target imports for features the kernels do not use
LEFT_OUT = ("scipy.linalg.cython_blas", "cffi")


def _set_up_target() -> None:
    from numba.core.registry import cpu_target

    blocked = [name for name in LEFT_OUT if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


_set_up_target()

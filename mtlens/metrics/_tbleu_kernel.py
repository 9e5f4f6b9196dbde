"""Compiled affix distance for tolerant BLEU (numba): :func:`._affix.affix_distances`, compiled.

Used when many word pairs need their distance (a sweep over large epsilons, sentences full of
near-identical long words); a few pairs are computed by the same function as plain Python.

Every function is compiled with ``nogil`` (:mod:`._numba`; the ahead-of-time build's wrappers likewise): a call
releases the interpreter lock, so threads of a process can share a job (docs/decisions.md, "The engine").
"""

from __future__ import annotations

from ._affix import affix_distances as _plain
from ._numba import njit

#: the functions the ahead-of-time module holds (:mod:`._compiled`)
AOT_EXPORTS = ("affix_distances",)

affix_distances = njit("(int64[:, ::1], int64[::1], int64[:, ::1])", cache=True)(_plain)

"""Significance tests between systems (:mod:`mtlens.analysis.significance`): the paired bootstrap and
approximate randomisation, their settings checked, and the statistics policy every face shares
(:mod:`mtlens.analysis.policy`: the level, the seed, the resample counts and the words that describe a test).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis import policy
from ..analysis.policy import (
    ALPHA,
    ALPHA_CHOICES,
    CI_RESAMPLES,
    MAX_SAMPLES,
    MIN_TEST_LINES,
    P_DEFINITIONS,
    SEED,
    check_test_settings,
    counts_text,
    test_wording,
)
from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them (tests/test_architecture.py)
    from ..analysis.significance import compare

_NAMES = {
    "compare": "mtlens.analysis.significance:compare",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = [
    "ALPHA",
    "ALPHA_CHOICES",
    "CI_RESAMPLES",
    "MAX_SAMPLES",
    "MIN_TEST_LINES",
    "P_DEFINITIONS",
    "SEED",
    "check_test_settings",
    "compare",
    "counts_text",
    "policy",
    "test_wording",
]

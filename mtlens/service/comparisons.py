"""Significance tests between systems (:mod:`mtlens.analysis.significance`): the paired bootstrap and
approximate randomisation, their settings checked, and the defaults every face shares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them
    pass

_NAMES = {
    "DEFAULT_SEED": "mtlens.analysis.significance:DEFAULT_SEED",
    "MAX_SAMPLES": "mtlens.analysis.significance:MAX_SAMPLES",
    "MIN_TEST_LINES": "mtlens.analysis.significance:MIN_TEST_LINES",
    "check_test_settings": "mtlens.analysis.significance:check_test_settings",
    "compare": "mtlens.analysis.significance:compare",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = sorted([*_NAMES])

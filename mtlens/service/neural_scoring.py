"""Neural metrics for the faces: the registered checkpoints (:mod:`mtlens.neural.models`) and the
background jobs that score a saved set with one (:mod:`mtlens.runtime.jobs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them
    pass

_NAMES = {
    "HOW_TO_ENABLE_SENTENCE": "mtlens.neural.models:HOW_TO_ENABLE_SENTENCE",
    "PREFIX": "mtlens.neural.models:PREFIX",
    "Progress": "mtlens.runtime.jobs:Progress",
    "add_model": "mtlens.neural.models:add_model",
    "available": "mtlens.neural.models:available",
    "cached_scores": "mtlens.neural.models:cached_scores",
    "cancel": "mtlens.runtime.jobs:cancel",
    "completed": "mtlens.neural.models:completed",
    "get_model": "mtlens.neural.models:get_model",
    "models": "mtlens.neural.models:models",
    "run": "mtlens.runtime.jobs:run",
    "scores_for": "mtlens.neural.models:scores_for",
    "start": "mtlens.runtime.jobs:start",
    "status": "mtlens.runtime.jobs:status",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = sorted([*_NAMES])

"""The workspace as the faces see it: the store of saved sets (:mod:`mtlens.storage`), the bundled
sample's id, pins, and who may do what (:mod:`mtlens.core.access`)."""

from __future__ import annotations

import contextlib
import dataclasses

from ..core.access import (
    COOKIE,
    OPERATOR,
    Visitor,
    browser_visitor,
    host_allowed,
    is_loopback,
    mode,
    user_visitor,
)
from ..core.errors import InputError
from ..storage.copy import copy_store
from ..storage.store import SAMPLE_ID, Pin, Store
from ..version import __version__
from .evaluation import Evaluation

__all__ = [
    "COOKIE",
    "OPERATOR",
    "SAMPLE_ID",
    "Pin",
    "Store",
    "Visitor",
    "__version__",
    "browser_visitor",
    "copy_store",
    "host_allowed",
    "is_loopback",
    "mode",
    "open_sample",
    "open_set",
    "user_visitor",
]


def open_set(store: Store, set_id: str) -> Evaluation:
    """A saved set as it was decided (:func:`~mtlens.service.evaluation.open_saved`). The bundled sample is
    a read-only set of every workspace (:func:`open_sample`): the one place its id is told apart."""
    from .evaluation import open_saved

    if set_id == SAMPLE_ID:
        return open_sample(store)
    return open_saved(store, set_id)


def open_sample(store: Store) -> Evaluation:
    """The bundled sample (WMT21 en-de, 200 lines, its human scores) as a read-only set of ``store``, saved
    into it the first time it is opened, so that its statistics are stored and reused as any set's. A
    workspace that cannot take it (read-only, full) gets it unsaved: scored, nothing stored."""
    from .evaluation import SAMPLE_NAME, open_saved, sample_evaluation, save

    with contextlib.suppress(InputError):
        return open_saved(store, SAMPLE_ID)
    ev = sample_evaluation()
    try:
        save(store, ev, SAMPLE_NAME, set_id=SAMPLE_ID)
    except InputError:  # read-only or full, or another process saved it a moment ago
        with contextlib.suppress(InputError):
            return open_saved(store, SAMPLE_ID)
        return dataclasses.replace(ev, read_only=True)
    return open_saved(store, SAMPLE_ID)

"""The workspace as the faces see it: the store of saved sets (:mod:`mtlens.storage`), the bundled sample (the one
place its id is told apart), pins, and who may change a set (:func:`may_change`, on :mod:`mtlens.core.access`'s
visitors)."""

from __future__ import annotations

import contextlib
import dataclasses

from ..core.access import (
    Visitor,
    is_operator,
)
from ..core.errors import InputError
from ..storage.copy import copy_store
from ..storage.store import SAMPLE_ID, Pin, Store
from .evaluation import Evaluation

__all__ = ["ACTIONS", "Pin", "Store", "copy_store", "may_change", "open_sample", "open_set", "require_change"]


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


#: what a visitor may do with a saved set, the one rule both faces ask (docs/decisions.md, "Who may change a set"):
#: ``edit`` (rename, re-project, add systems, runs, scores or annotations, pin, delete) and ``score`` (start or
#: cancel its neural jobs, which add scores computed from its texts and change none of them)
ACTIONS = ("edit", "score")


def may_change(store: Store, set_id: str | None, visitor: Visitor | None, action: str = "edit") -> bool:
    """Whether ``visitor`` (``None``: the operator at the command line) may ``action`` the set: its owner and
    whoever may change every set (the operator, an administrator, everyone in local mode) may; the bundled
    sample is never edited, but those who may change every set may score it. False for a set that is gone or
    unreadable, and for no set at all."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    if not set_id:
        return False
    try:
        if set_id == SAMPLE_ID:
            return action == "score" and is_operator(visitor)
        store.project_of(set_id)  # a set that is not there: InputError (the store's own check lets the operator)
        return store.may_change(set_id, visitor)
    except InputError:
        return False


def require_change(store: Store, set_id: str, visitor: Visitor | None, what: str, action: str = "edit") -> None:
    """Refuse in one sentence what :func:`may_change` does not allow: ``what`` says what was asked (e.g. "add
    runs to it")."""
    if may_change(store, set_id, visitor, action):
        return
    if set_id == SAMPLE_ID:
        raise InputError(f"the bundled sample is read-only; save your own set to {what}")
    store.project_of(set_id)  # a set that is not there is said as such (the store's sentence), not as a refusal
    raise InputError(f"only the owner of this set can {what}; upload your own copy to change it")

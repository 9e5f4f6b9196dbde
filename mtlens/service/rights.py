"""Who may do what, decided once for every face (issue 59: the service knows who asks). ``visitor`` is who asks:
``None`` for the operator at the command line, else a dashboard visitor (an administrator, a set's owner, a project's
member, a link reader: :class:`mtlens.core.access.Visitor`). Each right is table-tested here without a face
(tests/service/test_rights.py).

- Change a set (rename, delete, add systems, ratings, scores; pins): :func:`mtlens.service.sets.may_change`.
- Start or cancel a set's neural jobs (the server's time): who may change the set (:func:`may_run_jobs`).
- Start or cancel an LLM judge's job (the operator's money at the operator's endpoint): the operator or an
  administrator, and only where they may change the set (:func:`may_start`).
- Register or remove a scorer (a checkpoint, a judge: the server then reads that path or calls that URL), list or
  grant projects' members: the operator or an administrator (:func:`require_operator`).
"""

from __future__ import annotations

from ..core.access import is_operator
from ..core.errors import InputError

__all__ = ["is_operator", "may_run_jobs", "may_start", "require_job", "require_operator"]


def require_operator(visitor, what: str) -> None:
    """The operator's rights (:func:`is_operator`), or one sentence naming what was refused."""
    if not is_operator(visitor):
        raise InputError(f"only the operator can {what}")


def may_run_jobs(store, set_id: str, visitor) -> bool:
    """Whether ``visitor`` (``None``: the operator) may start or cancel the set's neural jobs (the one rule,
    :func:`mtlens.service.sets.may_change` with ``action="score"``)."""
    from .sets import may_change

    return may_change(store, set_id, visitor, "score")


def may_start(store, set_id: str, visitor) -> bool:
    """Whether ``visitor`` (``None``: the operator) may start or cancel an LLM judge's job on the set: a judge
    spends the operator's money at the operator's endpoint, so on a shared server only an administrator may, and
    only where they may change the set (docs/decisions.md, "LLM judges")."""
    return is_operator(visitor) and may_run_jobs(store, set_id, visitor)


def require_job(store, set_id: str, visitor, what: str) -> None:
    """The judges' right (:func:`may_start`), or one sentence: every path that starts or cancels a job asks it."""
    if not may_start(store, set_id, visitor):
        raise InputError(f"only the operator or an administrator may {what} an LLM judge's job on this set")

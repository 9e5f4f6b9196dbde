"""The workspace as the faces hold it: the store with the visitor bound, so that every change a face asks for
goes through the one access rule (:func:`mtlens.service.sets.may_change`) and the checks the service makes
(a name's rule, a file read as the readers read it) before anything is saved.

The command line's workspace is the operator's (``visitor=None``); a dashboard session's is its visitor's.
The faces call these methods instead of the store's: the store keeps its own guard under them, and the service
functions that compute (scoring, history, the gate) take :attr:`Workspace.store`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.access import Visitor
from ..storage.store import Pin, SavedSet, SetInfo, Store
from .rights import require_operator
from .sets import require_change

__all__ = [
    "Workspace",
]


@dataclass(frozen=True)
class Workspace:
    """A store and who asks (``None``: the operator at the command line)."""

    store: Store
    visitor: Visitor | None = None

    # --- reading
    def sets(self, project: str | None = None) -> list[SetInfo]:
        """The saved sets this visitor sees (their own and their projects'; every set for the operator)."""
        return self.store.list(project, visitor=self.visitor)

    def load(self, set_id: str) -> SavedSet:
        """A saved set as stored (anyone with its id may read it)."""
        return self.store.load(set_id)

    def pins(self, set_id: str) -> list[Pin]:
        """The sentences pinned for the set's presentation."""
        return self.store.pins(set_id)

    @property
    def notes(self) -> list[str]:
        """What the store noticed while scoring (damaged statistics computed again)."""
        return self.store.notes

    # --- changing a set: the one rule first, then the store
    def rename(self, set_id: str, name: str) -> None:
        require_change(self.store, set_id, self.visitor, "rename it")
        self.store.rename(set_id, name, self.visitor)

    def set_project(self, set_id: str, project: str | None) -> None:
        require_change(self.store, set_id, self.visitor, "move it to a project")
        self.store.set_project(set_id, (project or "").strip() or None, self.visitor)

    def delete(self, set_id: str) -> None:
        require_change(self.store, set_id, self.visitor, "delete it")
        self.store.delete(set_id, self.visitor)

    def add_scores(self, set_id: str, files: Sequence[tuple[str, bytes]]) -> None:
        """Add metric score files (``(name, bytes)``) to a set, read first with the set's own score files as
        the readers read them (every line of every system, no metric name twice): nothing is saved unless all
        of them read."""
        from ..readers.scores import read_score_files

        require_change(self.store, set_id, self.visitor, "add scores to it")
        saved = self.store.load(set_id)
        read_score_files([*saved.scores, *files], saved.corpus)
        for name, data in files:
            self.store.add_scores(set_id, name, data, self.visitor)

    def add_annotations(self, set_id: str, name: str, data: bytes):
        """Add an MQM annotation file of the set's own hypotheses (:func:`mtlens.service.evaluation.add_annotations`)."""
        from .evaluation import add_annotations

        require_change(self.store, set_id, self.visitor, "add annotations to it")
        return add_annotations(self.store, set_id, name, data, self.visitor)

    def leave_out(self, set_id: str, raters: Sequence[str]) -> list[str]:
        """The ESA raters the set leaves out on every face (:func:`mtlens.service.ratings.leave_out`)."""
        from .ratings import leave_out

        return leave_out(self.store, set_id, raters, self.visitor)

    def add_systems(self, set_id: str, files: Sequence[tuple[str, bytes]]) -> list[str]:
        """Add system outputs, named as runs are (:func:`mtlens.service.runs.add_systems`)."""
        from .runs import add_systems

        return add_systems(self.store, set_id, files, self.visitor)

    def pin(self, set_id: str, pin: Pin) -> None:
        require_change(self.store, set_id, self.visitor, "pin its sentences")
        self.store.pin(set_id, pin, self.visitor)

    def unpin(self, set_id: str, line: int, systems: Sequence[str]) -> None:
        require_change(self.store, set_id, self.visitor, "unpin its sentences")
        self.store.unpin(set_id, line, systems, self.visitor)

    # --- the operator's
    def _operator(self, what: str) -> None:
        require_operator(self.visitor, what)

    def members(self) -> list[tuple[str, str]]:
        self._operator("list the projects' members")
        return self.store.members()

    def grant(self, project: str, member: str) -> None:
        self._operator("grant a project")
        self.store.grant(project, member)

    def revoke(self, project: str, member: str) -> None:
        self._operator("revoke a project")
        self.store.revoke(project, member)

    # --- the scorers: registered models and LLM judges (one set of verbs: add, list, remove)
    def models(self) -> list:
        """The registered checkpoints (:func:`mtlens.neural.models.models`); anyone may list them."""
        from ..neural.models import models

        return models(self.store)

    def judges(self) -> list:
        """The registered LLM judges (:func:`mtlens.judges.registry.registered`); anyone may list them."""
        from ..judges.registry import registered

        return registered(self.store)

    def judge(self, name: str):
        """The registered judge ``name`` (``NAME`` or ``judge:NAME``, as ``--metrics`` writes it)."""
        from ..judges.registry import get_judge
        from ..scores.sources import judge_name

        return get_judge(self.store, judge_name(name))

    def remove_model(self, name: str) -> None:
        """Forget a checkpoint (its cached scores stay), if the visitor is the operator."""
        self._operator("remove a model")
        self.store.remove_model(name)

    # registering a scorer makes the server read a path or call a URL, and spend: the operator's and an
    # administrator's alone, decided here for every face (issue 59, first part; the pages called the core directly)
    def add_model(self, name: str, path, tokenizer=None):
        """Register a checkpoint (:func:`mtlens.neural.models.add_model`), if the visitor is the operator."""
        from ..neural.models import add_model

        self._operator("register a model")
        return add_model(self.store, name, path, tokenizer)

    def add_judge(self, judge):
        """Register an LLM judge (:func:`mtlens.judges.compute.add_judge`), if the visitor is the operator."""
        from ..judges.registry import add_judge

        self._operator("register a judge")
        return add_judge(self.store, judge)

    def remove_judge(self, name: str) -> None:
        """Forget a judge (its cached answers stay), if the visitor is the operator."""
        self._operator("remove a judge")
        self.store.remove_judge(name)

    def child_env(self) -> dict[str, str]:
        """The environment a process this workspace starts needs to open the same store."""
        return self.store.child_env()

"""Who may change a set (its owner, the operator, an administrator; nobody for the bundled sample), and projects with their members."""

from __future__ import annotations

from ..core.access import Visitor, is_operator
from ..core.errors import InputError
from .database import Database, Missing
from .names import SAMPLE_ID, clean_name


class Owners(Database):
    """Who may change a set (its owner, the operator, an administrator; nobody for the bundled sample), and projects with their members."""

    def may_change(self, set_id: str, visitor: Visitor | None) -> bool:
        """Whether ``visitor`` may rename, re-project, add to or delete the set (its owner, or the operator:
        ``None`` or an administrator). Anyone with the set's id may read it."""
        if set_id == SAMPLE_ID:
            return False
        if is_operator(visitor):
            return True
        return self._owner_of(set_id) == visitor.id

    def _owner_of(self, set_id: str) -> str | None:
        return self._set_field(set_id, "owner")

    def _set_field(self, set_id: str, column: str):
        """One column of the set's row, without loading the set; InputError if there is no such set.
        ``column`` is always a name written in this file, never user input."""
        assert column in ("owner", "project", "n_lines"), column
        try:
            with self._db() as con:
                row = con.execute(f"SELECT {column} FROM sets WHERE id = ?", (set_id,)).fetchone()
        except Missing:
            row = None
        if row is None:
            raise InputError(f"no saved set has the id '{set_id}'")
        return row[0]

    def _check_change(self, set_id: str, visitor: Visitor | None) -> None:
        if not self.may_change(set_id, visitor):
            if set_id == SAMPLE_ID:
                raise InputError("the bundled sample is read-only")
            raise InputError(
                "only the owner of this set can change or delete it; your link lets you read it "
                "(upload or import your own copy to change it)"
            )

    def projects_of(self, member: str) -> list[str]:
        """The projects ``member`` (a visitor id) belongs to."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT project FROM members WHERE member = ? ORDER BY project", (member,)
                ).fetchall()
        except Missing:
            return []
        return [r[0] for r in rows]

    def members(self, project: str | None = None) -> list[tuple[str, str]]:
        """(project, member) pairs, optionally of one project."""
        try:
            with self._db() as con:
                rows = con.execute("SELECT project, member FROM members ORDER BY project, member").fetchall()
        except Missing:
            return []
        return [(p, m) for p, m in rows if project is None or p == project]

    def grant(self, project: str, member: str) -> None:
        """Make ``member`` (a visitor id: ``browser:...`` or ``user:...``) a member of ``project``: they see
        its sets in their list and may put their own sets in it. The operator's command (CLI)."""
        project, member = clean_name(project), member.strip()
        if not member or ":" not in member:
            raise InputError(f"'{member}' is not a visitor id (the dashboard shows yours: 'user:...' or 'browser:...')")
        with self._db(write=True) as con:
            con.execute("INSERT INTO members (project, member) VALUES (?, ?) ON CONFLICT DO NOTHING", (project, member))

    def revoke(self, project: str, member: str) -> None:
        with self._db(write=True) as con:
            if con.execute("DELETE FROM members WHERE project = ? AND member = ?", (project, member)).rowcount == 0:
                raise InputError(f"'{member}' is not a member of project '{project}'")

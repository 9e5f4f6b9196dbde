"""The rows of background jobs: claimed once (a row lock on PostgreSQL, the write lock on SQLite), progress, heartbeat, state."""

from __future__ import annotations

from ..core.errors import InputError
from .database import Database, Missing, dict_rows, timestamp
from .names import SAMPLE_ID


class JobRows(Database):
    """The rows of background jobs: claimed once (a row lock on PostgreSQL, the write lock on SQLite), progress, heartbeat, state."""

    def job(self, set_id: str, digest: str) -> dict | None:
        try:
            with self._db() as con:
                cur = con.execute("SELECT * FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest))
                rows = dict_rows(cur)
                return _checked(rows[0]) if rows else None
        except Missing:
            return None

    def jobs(self, set_id: str) -> list[dict]:
        try:
            with self._db() as con:
                cur = con.execute("SELECT * FROM jobs WHERE set_id = ? ORDER BY model", (set_id,))
                return [_checked(row) for row in dict_rows(cur)]
        except Missing:
            return []

    def claim_job(self, set_id: str, digest: str, model: str, alive) -> tuple[bool, dict]:
        """Create the job of (set, checkpoint) or take over a dead one, atomically (under the write lock):
        ``(True, row)`` when the caller now owns it and must start it, ``(False, row)`` when a live job
        (``alive(row)``) already runs it. A finished job is claimed again (it computes only what is new)."""
        now = timestamp()
        with self._db(write=True) as con:
            if set_id != SAMPLE_ID and con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            # a new job is created here, or the row already there is locked (PostgreSQL: a row lock, so that
            # two servers deciding together decide once; SQLite: its write lock, held by this transaction)
            made = con.execute(
                "INSERT INTO jobs (set_id, digest, model, state, done, total, resumed_at, started, updated, pid, "
                "message) VALUES (?, ?, ?, 'queued', 0, 0, 0, ?, ?, NULL, NULL) ON CONFLICT DO NOTHING RETURNING set_id",
                (set_id, digest, model, now, now),
            ).fetchone()
            if made is None:
                cur = con.execute(
                    "SELECT * FROM jobs WHERE set_id = ? AND digest = ?" + self._row_lock, (set_id, digest)
                )
                job = dict_rows(cur)[0]
                if job["state"] in ("queued", "running", "cancelling") and alive(job):
                    return False, job
                con.execute(
                    "UPDATE jobs SET model = ?, state = 'queued', done = 0, total = 0, resumed_at = 0, started = ?, "
                    "updated = ?, pid = NULL, message = NULL WHERE set_id = ? AND digest = ?",
                    (model, now, now, set_id, digest),
                )
            cur = con.execute("SELECT * FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest))
            return True, dict_rows(cur)[0]

    def update_job(self, set_id: str, digest: str, **fields) -> str | None:
        """Change a job's fields; returns its state as it is now (None when the job or its set is gone)."""
        allowed = {"state", "done", "total", "resumed_at", "started", "pid", "message"}
        fields = {k: v for k, v in fields.items() if k in allowed}
        with self._db(write=True) as con:
            sets = ", ".join(f"{k} = ?" for k in fields)
            con.execute(
                f"UPDATE jobs SET {sets + ', ' if sets else ''}updated = ? WHERE set_id = ? AND digest = ?",
                (*fields.values(), timestamp(), set_id, digest),
            )
            row = con.execute("SELECT state FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest)).fetchone()
        return row[0] if row else None


#: a job row's numbers (SQLite keeps whatever a damaged file holds in them)
_NUMBERS = {"done": int, "total": int, "resumed_at": int, "started": float, "updated": float}


def _checked(row: dict) -> dict:
    """A job row as its readers may trust it: a row whose numbers are not numbers (a damaged store, issue 51)
    reads as a failed job that says so, to be started again, instead of breaking every command on its set."""
    try:
        pid = row.get("pid")
        return {**row, **{k: kind(row[k]) for k, kind in _NUMBERS.items()}, "pid": None if pid is None else int(pid)}
    except (TypeError, ValueError, KeyError):
        return {
            **row,
            **{k: kind(0) for k, kind in _NUMBERS.items()},
            "pid": None,
            "state": "failed",
            "message": "this job's record in the store was damaged; start it again",
        }

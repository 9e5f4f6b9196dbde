"""Sentences pinned for a set's presentation."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.access import Visitor
from ..core.errors import InputError
from .database import _Missing

#: at most this many pins per set (a presentation, not a copy of the test set)
MAX_PINS = 50


#: a pin's note is cut to this many characters
MAX_PIN_NOTE = 500


@dataclass(frozen=True)
class Pin:
    """A sentence pinned for the presentation: line (0-based), the systems shown, the metric, a note."""

    line: int
    systems: tuple[str, ...]
    metric: str
    note: str


class Pins:
    """Sentences pinned for a set's presentation."""

    def pins(self, set_id: str) -> list[Pin]:
        """The set's pinned sentences, in the order they were pinned (none for the sample)."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT line, systems, metric, note FROM pins WHERE set_id = ? ORDER BY created, rowid", (set_id,)
                ).fetchall()
        except _Missing:
            return []
        return [Pin(int(r[0]), tuple(json.loads(r[1])), str(r[2]), str(r[3])) for r in rows]

    def pin(self, set_id: str, pin: Pin, visitor: Visitor | None = None) -> None:
        """Pin a sentence (again: its metric and note are replaced). Only who may change the set may pin."""
        self._check_change(set_id, visitor)
        n_lines = int(self._set_field(set_id, "n_lines"))
        if not 0 <= pin.line < n_lines:
            raise InputError(f"line {pin.line + 1} is not in this set (it has {n_lines} lines)")
        note = " ".join(pin.note.split())[:MAX_PIN_NOTE]
        key = json.dumps(list(pin.systems))
        with self._db(write=True) as con:
            exists = con.execute(
                "SELECT 1 FROM pins WHERE set_id = ? AND line = ? AND systems = ?", (set_id, pin.line, key)
            ).fetchone()
            if (
                not exists
                and con.execute("SELECT count(*) FROM pins WHERE set_id = ?", (set_id,)).fetchone()[0] >= MAX_PINS
            ):
                raise InputError(f"a set holds at most {MAX_PINS} pinned sentences; unpin one first")
            con.execute(
                "INSERT INTO pins (set_id, line, systems, metric, note, created) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (set_id, line, systems) DO UPDATE SET metric = excluded.metric, note = excluded.note",
                (set_id, pin.line, key, pin.metric, note, time.time()),
            )

    def unpin(self, set_id: str, line: int, systems: Sequence[str], visitor: Visitor | None = None) -> None:
        self._check_change(set_id, visitor)
        with self._db(write=True) as con:
            con.execute(
                "DELETE FROM pins WHERE set_id = ? AND line = ? AND systems = ?",
                (set_id, line, json.dumps(list(systems))),
            )

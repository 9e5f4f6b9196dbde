"""Sentences pinned for a set's presentation."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.access import Visitor
from ..core.errors import InputError
from .database import Missing
from .owners import Owners

log = logging.getLogger(__name__)

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


def _pin_from_row(row) -> Pin | None:
    """A stored pin, or None for a row that is damaged (a line that is not a number in the set, systems
    that are not a JSON list of names): such a row is left out, never a crash (docs/security.md)."""
    line, systems, metric, note = row
    try:
        names = json.loads(systems) if isinstance(systems, (str, bytes)) else None
    except (ValueError, RecursionError):
        return None
    if (
        type(line) is not int
        or line < 0
        or not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) for n in names)
        or not isinstance(metric, str)
        or not isinstance(note, str)
    ):
        return None
    return Pin(line, tuple(names), metric, note)


class Pins(Owners):
    """Sentences pinned for a set's presentation."""

    def pins(self, set_id: str) -> list[Pin]:
        """The set's pinned sentences, in the order they were pinned (none for the sample)."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT line, systems, metric, note FROM pins WHERE set_id = ? ORDER BY created, rowid", (set_id,)
                ).fetchall()
        except Missing:
            return []
        try:
            n_lines = int(self._set_field(set_id, "n_lines"))
        except (InputError, TypeError, ValueError):
            n_lines = 0
        out = [p for p in map(_pin_from_row, rows) if p is not None and p.line < n_lines]
        if len(out) < len(rows):
            log.warning("set %s: %d damaged pin rows left out", set_id, len(rows) - len(out))
        return out

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

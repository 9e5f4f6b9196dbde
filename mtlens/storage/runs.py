"""Runs: when a set's system output was made, its family (lineage) and free metadata (issue 34).

Every system of a set is a run. A system saved without run facts (an upload, an import) is a run of no
family made when its set was saved, with no metadata; ``add_run`` stores a new system output and its
facts in one transaction. A damaged row (metadata that is not a JSON object of strings) reads as no
metadata, never a crash (docs/security.md).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core import names
from ..core.access import Visitor
from ..core.errors import InputError
from .database import Database, Missing

#: at most this many metadata entries per run, keys of at most MAX_META_KEY characters, values of at most
#: MAX_META_VALUE (a checkpoint path, a commit, a data version: not a file)
MAX_META_ITEMS = 50
MAX_META_KEY = 64
MAX_META_VALUE = 500
#: a family's name is cut to this many characters
MAX_FAMILY = 200


@dataclass(frozen=True)
class Run:
    """A system output of a set as a run: its name, family (None: none), when it was made (ISO-8601, UTC),
    metadata, and its position among the set's systems (the order they were added)."""

    name: str
    family: str | None
    at: str
    meta: dict[str, str] = field(default_factory=dict)
    position: int = 0


def utc_iso(when: dt.datetime) -> str:
    """A time as the store keeps it: ISO-8601 in UTC, to the second (a naive time is taken as UTC)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def no_facts() -> tuple[None, str, str]:
    """The run facts of a system given without any: no family, made now, no metadata."""
    return (None, utc_iso(dt.datetime.now(dt.timezone.utc)), "{}")


def clean_family(family: str | None) -> str | None:
    """A run's family under the one name rule (:mod:`mtlens.core.names`), cut to :data:`MAX_FAMILY`; None for
    none."""
    return names.optional_name(family, "family", MAX_FAMILY, cut=True)


def check_meta(meta: Mapping[str, str]) -> dict[str, str]:
    """Metadata as stored: strings only, bounded; an InputError names what is wrong."""
    if len(meta) > MAX_META_ITEMS:
        raise InputError(f"a run takes at most {MAX_META_ITEMS} metadata entries, not {len(meta)}")
    out = {}
    for key, value in meta.items():
        key, value = str(key).strip(), " ".join(str(value).split())
        if not key or len(key) > MAX_META_KEY:
            raise InputError(f"a metadata key must have 1 to {MAX_META_KEY} characters: '{names.shown(key)}'")
        key = names.clean_name(key, "metadata key", MAX_META_KEY)
        if len(value) > MAX_META_VALUE:
            raise InputError(f"the metadata value of '{key}' is longer than {MAX_META_VALUE} characters")
        if value and names.problem(value, MAX_META_VALUE):
            raise InputError(
                f"the metadata value of '{key}' ('{names.shown(value)}') holds a control or format character"
            )
        out[key] = value
    return out


def _meta_from_row(text) -> dict[str, str]:
    try:
        meta = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        return {}
    return meta


class Runs(Database):
    """The runs of a set: its systems with their time, family and metadata."""

    def runs(self, set_id: str) -> list[Run]:
        """The set's systems as runs, in time order (then the order they were added)."""
        try:
            with self._db() as con:
                created = con.execute("SELECT created FROM sets WHERE id = ?", (set_id,)).fetchone()
                systems = con.execute(
                    "SELECT name, position FROM streams WHERE set_id = ? AND kind = 'sys' ORDER BY position",
                    (set_id,),
                ).fetchall()
                facts = {
                    r[0]: r[1:]
                    for r in con.execute("SELECT system, family, at, meta FROM runs WHERE set_id = ?", (set_id,))
                }
        except Missing:
            return []
        if created is None:
            raise InputError(f"no saved set has the id '{set_id}'")
        out = []
        for name, position in systems:
            family, at, meta = facts.get(name, (None, created[0], "{}"))
            at = at if isinstance(at, str) else created[0]
            out.append(Run(name, family if isinstance(family, str) else None, at, _meta_from_row(meta), position))
        return sorted(out, key=lambda r: (_sort_key(r.at), r.position))

    def add_run(
        self,
        set_id: str,
        name: str,
        lines: Sequence[str],
        family: str | None = None,
        at: str | None = None,
        meta: Mapping[str, str] | None = None,
        visitor: Visitor | None = None,
    ) -> Run:
        """Add one system output to a saved set with its run facts, in one transaction (the line count
        and the name are checked: :meth:`add_systems`). ``at``: ISO-8601 (default: now)."""
        at = at or utc_iso(dt.datetime.now(dt.timezone.utc))
        meta = check_meta(meta or {})
        family = clean_family(family)
        self.add_systems(set_id, {name: lines}, visitor, runs={name: (family, at, json.dumps(meta))})
        return next(r for r in self.runs(set_id) if r.name == name)


def _sort_key(at: str) -> float:
    try:
        return dt.datetime.fromisoformat(at).timestamp()
    except (TypeError, ValueError):
        return 0.0

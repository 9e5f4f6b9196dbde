"""``mtlens store copy FROM TO``: a whole workspace moved between stores (SQLite file <-> PostgreSQL server),
every table's rows as they are (text, statistics with their checksums, cached neural scores, jobs, pins,
runs), in one read snapshot of the source and one transaction in the target: a copy that fails leaves
the target as it was."""

from __future__ import annotations

from ..core.errors import InputError
from .database import Missing
from .schema import ORDERED, TABLES

#: rows read and written at a time (statistics and neural caches can be large)
CHUNK = 500


def copy_store(source, target) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` (both :class:`~mtlens.storage.store.Store`); returns
    table -> rows copied. The target must hold no set, model or cached score yet (nothing is overwritten)."""
    if source.location == target.location:
        raise InputError("the source and the target are the same store")
    if target.list() or target.models() or target.judges():
        raise InputError(
            f"the target store '{target.location}' is not empty; copy into a new data directory or an empty database"
        )
    counts: dict[str, int] = {}
    try:
        with source._db() as src, target._db(write=True) as dst:
            for table in TABLES:
                if dst.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                    raise InputError(f"the target store already holds rows of '{table}'; copy into an empty store")
                order = " ORDER BY rowid" if table in ORDERED else ""
                cur = src.execute(f"SELECT * FROM {table}{order}")
                cols = [c[0] for c in cur.description if c[0] != "rowid"]
                keep = [k for k, c in enumerate(cur.description) if c[0] != "rowid"]
                sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
                n = 0
                while rows := cur.fetchmany(CHUNK):
                    dst.executemany(sql, [tuple(r[k] for k in keep) for r in rows])
                    n += len(rows)
                counts[table] = n
    except Missing:
        raise InputError(f"the source store '{source.location}' holds nothing yet") from None
    return counts

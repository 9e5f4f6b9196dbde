"""The registry of neural checkpoints and their cached segment scores."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from ..core.errors import InputError
from .database import Database, Missing, dict_rows, in_chunks


class Registry(Database):
    """The registry of neural checkpoints and their cached segment scores."""

    def put_model(self, row: Mapping) -> None:
        """Register (or replace) a neural model: ``name, path, digest, kind, inputs, size, mtime`` and, for MetricX,
        ``tokenizer`` and ``dtype``."""
        with self._db(write=True) as con:
            con.execute(
                "INSERT INTO models (name, path, digest, kind, inputs, size, mtime, added, tokenizer, dtype) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET path = excluded.path, "
                "digest = excluded.digest, kind = excluded.kind, inputs = excluded.inputs, size = excluded.size, "
                "mtime = excluded.mtime, added = excluded.added, tokenizer = excluded.tokenizer, dtype = excluded.dtype",
                (
                    row["name"],
                    row["path"],
                    row["digest"],
                    row["kind"],
                    row["inputs"],
                    row["size"],
                    row["mtime"],
                    dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    row.get("tokenizer"),
                    row.get("dtype"),
                ),
            )

    def models(self) -> list[dict]:
        """The registered neural models, by name."""
        try:
            with self._db() as con:
                cur = con.execute(
                    "SELECT name, path, digest, kind, inputs, size, mtime, added, tokenizer, dtype FROM models "
                    "ORDER BY name"
                )
                return dict_rows(cur)
        except Missing:
            return []

    def remove_model(self, name: str) -> None:
        """Forget a model (its cached scores stay: they belong to the checkpoint's digest)."""
        with self._db(write=True) as con:
            if con.execute("DELETE FROM models WHERE name = ?", (name,)).rowcount == 0:
                raise InputError(f"no model is registered as '{name}'")

    def get_neural(self, digest: str, segments: Sequence[str]) -> dict[str, tuple[float, str | None]]:
        """Cached neural scores of a checkpoint: segment key -> (score, spans JSON or None)."""
        out: dict[str, tuple[float, str | None]] = {}
        try:
            with self._db() as con:
                for chunk, marks in in_chunks(segments):
                    for seg, score, spans in con.execute(
                        f"SELECT segment, score, spans FROM neural WHERE digest = ? AND segment IN ({marks})",
                        (digest, *chunk),
                    ):
                        out[seg] = (float(score), spans)
        except Missing:
            pass
        return out

    def put_neural(self, digest: str, rows: Sequence[tuple[str, float, str | None]]) -> None:
        """Save neural scores ``(segment key, score, spans JSON)`` of a checkpoint, in one transaction."""
        self._check_size(sum(len(r[0]) + 8 + len(r[2] or "") for r in rows))
        with self._db(write=True) as con:
            con.executemany(
                "INSERT INTO neural (digest, segment, score, spans) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (digest, segment) DO UPDATE SET score = excluded.score, spans = excluded.spans",
                [(digest, k, float(v), sp) for k, v, sp in rows],
            )

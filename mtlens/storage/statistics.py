"""Per-segment statistics of a set's metrics, checksummed: a damaged array is dropped and computed again, never read."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping

import numpy as np

from ..core.errors import InputError
from .database import Database, Missing


def _checksum(metric: str, options_key: tuple, system: str, dtype: str, shape: str, data: bytes) -> str:
    """A digest of a statistics row and what it belongs to: a flipped byte, a shape or dtype changed, or a
    blob moved to another system or metric no longer matches."""
    h = hashlib.blake2b(digest_size=16)
    for part in (metric, _key_text(options_key), system, dtype, shape):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    h.update(bytes(data))
    return h.hexdigest()


def _stats_array(metric, options_key, system, dtype, shape_text, data, checksum) -> np.ndarray | None:
    """A stored statistics array, or None when anything about it is not what was written."""
    if dtype not in ("int64", "float64") or not isinstance(data, bytes) or not isinstance(shape_text, str):
        return None  # never interpret anything else
    if checksum != _checksum(metric, options_key, system, dtype, shape_text, data):
        return None
    try:
        shape = json.loads(shape_text)
        if not (isinstance(shape, list) and len(shape) == 2 and all(type(x) is int and x >= 0 for x in shape)):
            return None
        arr = np.frombuffer(data, dtype=np.dtype(dtype))
        if arr.size != shape[0] * shape[1]:
            return None
        return arr.reshape(shape).copy()
    except ValueError:
        return None


def _key_text(options_key: tuple) -> str:
    return json.dumps([list(kv) for kv in options_key])


class Statistics(Database):
    """Per-segment statistics of a set's metrics, checksummed: a damaged array is dropped and computed again, never read."""

    def get_stats(self, set_id: str, metric: str, options_key: tuple) -> dict[str, np.ndarray]:
        """Stored per-segment statistics of a metric and option set: system -> array."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT system, dtype, shape, data, checksum FROM stats "
                    "WHERE set_id = ? AND metric = ? AND options = ?",
                    (set_id, metric, _key_text(options_key)),
                ).fetchall()
        except Missing:
            return {}
        out, damaged = {}, []
        for system, dtype, shape_text, data, checksum in rows:
            arr = _stats_array(metric, options_key, system, dtype, shape_text, data, checksum)
            if arr is None:
                damaged.append(system)
            else:
                out[system] = arr
        if damaged:
            self.notes.append(
                f"the stored {metric} statistics of {', '.join(repr(s) for s in damaged)} were damaged; "
                "they were recomputed from the set's text"
            )
            with contextlib.suppress(InputError), self._db(write=True) as con:
                con.executemany(
                    "DELETE FROM stats WHERE set_id = ? AND metric = ? AND options = ? AND system = ?",
                    [(set_id, metric, _key_text(options_key), s) for s in damaged],
                )
        return out

    def put_stats(self, set_id: str, metric: str, options_key: tuple, stats: Mapping[str, np.ndarray]) -> None:
        rows = []
        for system, arr in stats.items():
            a = np.ascontiguousarray(arr)
            if a.dtype not in (np.int64, np.float64):
                a = a.astype(np.float64)
            shape, data = json.dumps(a.shape), a.tobytes()
            rows.append(
                (
                    set_id,
                    metric,
                    _key_text(options_key),
                    system,
                    a.dtype.name,
                    shape,
                    data,
                    _checksum(metric, options_key, system, a.dtype.name, shape, data),
                )
            )
        self._check_size(sum(len(r[6]) for r in rows))  # the arrays' bytes
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                return  # deleted meanwhile: nothing to attach the statistics to
            con.executemany(
                "INSERT INTO stats (set_id, metric, options, system, dtype, shape, data, checksum) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (set_id, metric, options, system) DO UPDATE SET "
                "dtype = excluded.dtype, shape = excluded.shape, data = excluded.data, checksum = excluded.checksum",
                rows,
            )

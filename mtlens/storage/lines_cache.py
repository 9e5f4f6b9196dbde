"""The lines of saved streams, read once and shared by every reader in this process.

A stream (a reference, a system's output, the source) is written once, when its set is saved or gains a system, and
leaves the store only with its set: nothing updates it. So its lines, once read, can be handed to the next reader of
the same set. The dashboard's server opens a set for every session that shows it: twenty visitors of one set held
twenty copies of the same texts (about 3.6 MB each for WMT22 en-de), and parsed the same JSON twenty times
(docs/speed.md, "Load"). Now they share one tuple of lines per stream.

A stream is known by its store (its file or URL), its set's id and creation time, its kind and name, and the length of
its stored text. A set's id is 128 random bits, or the bundled sample's (whose text is that of this installation), so
no two sets of a store share an id; a set deleted in this process is forgotten at once (:func:`forget`), and one
deleted by another process and saved again under the same id would have another creation time. So a reader is only
ever handed the text the store holds. At most :data:`MAX_CHARS` characters of lines are kept, those read longest ago
leaving first.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from ..core.errors import InputError

#: characters of lines kept at most (the least recently read streams leave first)
MAX_CHARS = 20_000_000

_kept: OrderedDict[tuple, tuple[str, ...]] = OrderedDict()
_sizes: dict[tuple, int] = {}
_total = 0
_lock = threading.Lock()


def get(key: tuple) -> tuple[str, ...] | None:
    """The lines of the stream ``key`` names (the tuple :func:`streams` makes), if kept."""
    with _lock:
        lines = _kept.get(key)
        if lines is not None:
            _kept.move_to_end(key)
        return lines


def put(key: tuple, lines: tuple[str, ...]) -> None:
    """Keep a stream's lines (a stream longer than :data:`MAX_CHARS` is not kept)."""
    global _total
    size = sum(len(x) if isinstance(x, str) else 1 for x in lines) + len(lines)
    if size > MAX_CHARS:
        return
    with _lock:
        if key in _kept:
            return
        _kept[key], _sizes[key] = lines, size
        _total += size
        while _total > MAX_CHARS:
            old, _ = _kept.popitem(last=False)
            _total -= _sizes.pop(old)


def forget(set_id: str) -> None:
    """Forget the streams of a set (it is being deleted), in every store."""
    global _total
    with _lock:
        for key in [k for k in _kept if k[1] == set_id]:
            del _kept[key]
            _total -= _sizes.pop(key)


def clear() -> None:
    """Forget every kept stream."""
    global _total
    with _lock:
        _kept.clear()
        _sizes.clear()
        _total = 0


def streams(con, where: str, set_id: str, created: str) -> list[tuple[str, str, tuple]]:
    """The streams ``(kind, name, lines)`` of the set ``set_id`` (created at ``created``) in the store ``where`` (its
    file or URL), read on ``con`` (one transaction): the lines kept from an earlier read; the others read, parsed and
    kept."""
    out = []
    for kind, name, size in con.execute(
        "SELECT kind, name, length(lines) FROM streams WHERE set_id = ? ORDER BY kind, position", (set_id,)
    ).fetchall():
        key = (where, set_id, created, kind, name, size)
        lines = get(key)
        if lines is None:
            (text,) = con.execute(
                "SELECT lines FROM streams WHERE set_id = ? AND kind = ? AND name = ?", (set_id, kind, name)
            ).fetchone()
            try:
                lines = json.loads(text)
            except ValueError:
                raise InputError(f"set '{set_id}' in the workspace is damaged (its text is not readable)") from None
            if isinstance(lines, list):  # anything else is refused by Corpus.build, and not kept
                lines = tuple(lines)
                put(key, lines)
        out.append((kind, name, lines))
    return out

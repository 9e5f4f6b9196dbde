"""The workspace: saved evaluation sets in an embedded SQLite database (Python's ``sqlite3``, WAL mode).

A *set* holds what an evaluation needs to be opened again anywhere: its name, language pair,
references, systems, source, human score files, project, creation date, and the per-segment
statistics of every metric and option set already computed (so reopening a set draws its Rankings
without rescoring, and adding a system scores only that system).

Safety decisions (docs/decisions.md, "Workspace"):
- one file, ``mtlens.sqlite3``, in the data directory (``MTLENS_DATA_DIR``, ``--data-dir``, or the
  per-user data directory); nothing is written anywhere else;
- text is stored as JSON arrays of lines, arrays as raw bytes with their dtype and shape: nothing
  read from the store is ever unpickled or evaluated;
- a set is written in one transaction, so a process killed half-way leaves no half-written set;
- set ids are 128 random bits (``secrets.token_hex(16)``), so a link cannot be guessed;
- a schema version in the database and migrations from version 1 on; a newer or foreign file is
  refused with a sentence, never modified;
- every database error (corrupt file, read-only directory, full disk) becomes one
  :class:`~mtlens.errors.InputError` sentence; the store's size is bounded (``MTLENS_MAX_STORE_MB``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import json
import os
import secrets
import sqlite3
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .corpus import Corpus
from .errors import InputError

SCHEMA_VERSION = 1
FILE_NAME = "mtlens.sqlite3"
#: the id of the bundled sample, a read-only set that is always there
SAMPLE_ID = "sample"
#: the whole store's size limit, MB (``MTLENS_MAX_STORE_MB`` changes it)
DEFAULT_MAX_MB = 4096
_APP_ID = 0x6D746C73  # "mtls": PRAGMA application_id, to recognise our own files

#: version -> statements that bring a database from version - 1 to version
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE sets (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            language_pair TEXT,
            project TEXT,
            created TEXT NOT NULL,
            n_lines INTEGER NOT NULL
        )""",
        """CREATE TABLE streams (
            set_id TEXT NOT NULL REFERENCES sets(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('ref', 'sys', 'src')),
            name TEXT NOT NULL,
            position INTEGER NOT NULL,
            lines TEXT NOT NULL,
            PRIMARY KEY (set_id, kind, name)
        )""",
        """CREATE TABLE files (
            set_id TEXT NOT NULL REFERENCES sets(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (set_id, kind, name)
        )""",
        """CREATE TABLE stats (
            set_id TEXT NOT NULL REFERENCES sets(id) ON DELETE CASCADE,
            metric TEXT NOT NULL,
            options TEXT NOT NULL,
            system TEXT NOT NULL,
            dtype TEXT NOT NULL,
            shape TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (set_id, metric, options, system)
        )""",
    ),
}


def default_data_dir() -> Path:
    """``MTLENS_DATA_DIR``, else the per-user data directory (XDG on Linux, Application Support on
    macOS, APPDATA on Windows) + ``mtlens``."""
    env = os.environ.get("MTLENS_DATA_DIR")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming")) / "mtlens"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "mtlens"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "mtlens"


@dataclass(frozen=True)
class SetInfo:
    """A saved set as listed (the CLI's ``list --format json`` rows)."""

    id: str
    name: str
    language_pair: str | None
    project: str | None
    systems: list[str]
    references: list[str]
    lines: int
    created: str


@dataclass(frozen=True)
class SavedSet:
    """A set read back: its info, the corpus, and its human score files ``(name, bytes)``."""

    info: SetInfo
    corpus: Corpus
    human: tuple[tuple[str, bytes], ...]
    scores: tuple[tuple[str, bytes], ...] = ()


def new_id() -> str:
    """128 random bits as 32 hex digits (URL-safe, and never taken for a command-line option)."""
    return secrets.token_hex(16)


def _dumps_lines(lines: Sequence[str]) -> str:
    return json.dumps(list(lines), ensure_ascii=True)  # ASCII JSON: lone surrogates survive too


class Store:
    """The workspace database in ``data_dir`` (created on first write).

    Example:
        >>> import tempfile
        >>> st = Store(tempfile.mkdtemp())
        >>> c = Corpus.build({"ref": ["a b", "c"]}, {"A": ["a b", "d"]})
        >>> sid = st.save(c, "demo")
        >>> [s.name for s in st.list()], st.load(sid).corpus.systems["A"]
        (['demo'], ('a b', 'd'))
    """

    def __init__(self, data_dir: str | Path | None = None, max_mb: float | None = None):
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.data_dir / FILE_NAME
        env_mb = os.environ.get("MTLENS_MAX_STORE_MB")
        self.max_bytes = int(float(max_mb if max_mb is not None else env_mb or DEFAULT_MAX_MB) * 1024 * 1024)

    # ------------------------------------------------------------------ connection
    @contextlib.contextmanager
    def _db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection inside one transaction (committed on success, rolled back on any error), with
        every database error turned into a sentence."""
        where = f"the workspace store '{self.path}'"
        try:
            if write:
                self.data_dir.mkdir(parents=True, exist_ok=True)
            elif not self.path.exists():
                raise _Missing
            con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except _Missing:
            raise
        except (OSError, sqlite3.Error) as err:
            raise InputError(f"cannot open {where}: {_why(err)}") from None
        try:
            con.execute("PRAGMA busy_timeout = 30000")
            con.execute("PRAGMA foreign_keys = ON")
            self._check_or_create(con, write)
            con.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            yield con
            con.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise InputError(f"{where} could not be {'written' if write else 'read'}: {_why(err)}") from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        finally:
            con.close()

    @staticmethod
    def _header(con: sqlite3.Connection) -> tuple[int, int, int]:
        # one statement, so the three come from one snapshot even while another writer commits
        row = con.execute(
            "SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id), "
            "(SELECT count(*) FROM sqlite_master)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _check_header(self, version: int, app: int, tables: int) -> None:
        if tables and app != _APP_ID:
            raise InputError(
                f"'{self.path}' is not an mtlens workspace (another program's database); "
                "move it away or choose another data directory"
            )
        if version > SCHEMA_VERSION:
            raise InputError(
                f"the workspace '{self.path}' was written by a newer mtlens (schema {version}, this one "
                f"reads up to {SCHEMA_VERSION}); upgrade mtlens"
            )

    def _check_or_create(self, con: sqlite3.Connection, write: bool) -> None:
        """Refuse foreign and newer files; create or migrate the schema under the write lock, so that
        writers starting together never both create it."""
        version, app, tables = self._header(con)
        if version == 0 and tables == 0 and not write:
            raise _Missing
        self._check_header(version, app, tables)
        if version == SCHEMA_VERSION:
            return
        if tables == 0:
            con.execute("PRAGMA journal_mode = WAL")
        con.execute("BEGIN IMMEDIATE")
        try:
            version, app, tables = self._header(con)  # again, now that this connection holds the lock
            self._check_header(version, app, tables)
            if version == 0:
                con.execute(f"PRAGMA application_id = {_APP_ID}")
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for stmt in MIGRATIONS[v]:
                    con.execute(stmt)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _check_size(self, adding: int) -> None:
        used = sum(p.stat().st_size for p in self.data_dir.glob(FILE_NAME + "*") if p.is_file())
        if used + adding > self.max_bytes:
            raise InputError(
                f"the workspace is full: it holds {used / 2**20:.0f} MB and this needs {adding / 2**20:.1f} MB more, "
                f"over its limit of {self.max_bytes / 2**20:.0f} MB (MTLENS_MAX_STORE_MB); delete sets you no longer need"
            )

    # ------------------------------------------------------------------ sets
    def save(
        self,
        corpus: Corpus,
        name: str,
        human: Sequence[tuple[str, bytes]] = (),
        project: str | None = None,
        set_id: str | None = None,
        scores: Sequence[tuple[str, bytes]] = (),
    ) -> str:
        """Save a corpus (with its human files and imported metric score files) as a new set in one
        transaction; returns its id."""
        name = _clean_name(name)
        set_id = set_id or new_id()
        rows = [("ref", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.references.items())]
        rows += [("sys", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.systems.items())]
        if corpus.source is not None:
            rows.append(("src", "source", 0, _dumps_lines(corpus.source)))
        self._check_size(sum(len(r[3]) for r in rows) + sum(len(d) for _, d in [*human, *scores]))
        created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        with self._db(write=True) as con:
            con.execute(
                "INSERT INTO sets (id, name, language_pair, project, created, n_lines) VALUES (?, ?, ?, ?, ?, ?)",
                (set_id, name, corpus.language_pair, project, created, corpus.n_lines),
            )
            con.executemany(
                "INSERT INTO streams (set_id, kind, name, position, lines) VALUES (?, ?, ?, ?, ?)",
                [(set_id, *r) for r in rows],
            )
            con.executemany(
                "INSERT INTO files (set_id, kind, name, data) VALUES (?, ?, ?, ?)",
                [(set_id, "human", n, bytes(d)) for n, d in human]
                + [(set_id, "scores", n, bytes(d)) for n, d in scores],
            )
        return set_id

    def add_scores(self, set_id: str, name: str, data: bytes) -> None:
        """Add an imported metric scores file to a saved set (checked by the caller against the corpus)."""
        self._check_size(len(data))
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute("INSERT OR REPLACE INTO files VALUES (?, 'scores', ?, ?)", (set_id, name, bytes(data)))

    def add_systems(self, set_id: str, systems: Mapping[str, Sequence[str]]) -> None:
        """Add system outputs to a saved set (same line count; a name already there is refused)."""
        saved = self.load(set_id)
        clash = sorted(set(systems) & set(saved.corpus.systems))
        if clash:
            raise InputError(f"set '{saved.info.name}' already has a system named '{clash[0]}'")
        merged = Corpus.build(dict(saved.corpus.references), {**saved.corpus.systems, **systems})  # checks lines
        rows = [(n, len(saved.corpus.systems) + k, _dumps_lines(merged.systems[n])) for k, n in enumerate(systems)]
        self._check_size(sum(len(r[2]) for r in rows))
        with self._db(write=True) as con:
            con.executemany(
                "INSERT INTO streams (set_id, kind, name, position, lines) VALUES (?, 'sys', ?, ?, ?)",
                [(set_id, *r) for r in rows],
            )

    def list(self, project: str | None = None) -> list[SetInfo]:
        """Every saved set, newest first (optionally one project's)."""
        try:
            with self._db() as con:
                sets = con.execute(
                    "SELECT id, name, language_pair, project, created, n_lines FROM sets ORDER BY created DESC, id"
                ).fetchall()
                streams = con.execute(
                    "SELECT set_id, kind, name FROM streams ORDER BY set_id, kind, position"
                ).fetchall()
        except _Missing:
            return []
        names: dict[tuple[str, str], list[str]] = {}
        for sid, kind, n in streams:
            names.setdefault((sid, kind), []).append(n)
        out = [
            SetInfo(sid, n, lp, pr, names.get((sid, "sys"), []), names.get((sid, "ref"), []), lines, created)
            for sid, n, lp, pr, created, lines in sets
        ]
        return [s for s in out if project is None or s.project == project]

    def load(self, set_id: str) -> SavedSet:
        """A saved set, or an InputError naming the id."""
        try:
            with self._db() as con:
                row = con.execute(
                    "SELECT id, name, language_pair, project, created, n_lines FROM sets WHERE id = ?", (set_id,)
                ).fetchone()
                streams = con.execute(
                    "SELECT kind, name, lines FROM streams WHERE set_id = ? ORDER BY kind, position", (set_id,)
                ).fetchall()
                files = con.execute(
                    "SELECT kind, name, data FROM files WHERE set_id = ? ORDER BY rowid", (set_id,)
                ).fetchall()
        except _Missing:
            row = None
        if row is None:
            raise InputError(f"no saved set has the id '{set_id}' (see 'python -m mtlens list')")
        try:
            parsed = [(k, n, json.loads(lines)) for k, n, lines in streams]
        except ValueError:
            raise InputError(f"set '{set_id}' in the workspace is damaged (its text is not readable)") from None
        refs = {n: v for k, n, v in parsed if k == "ref"}
        syss = {n: v for k, n, v in parsed if k == "sys"}
        src = next((v for k, _, v in parsed if k == "src"), None)
        corpus = Corpus.build(refs, syss, src, language_pair=row[2])
        info = SetInfo(row[0], row[1], row[2], row[3], list(syss), list(refs), row[5], row[4])
        human = tuple((n, bytes(d)) for k, n, d in files if k == "human")
        scores = tuple((n, bytes(d)) for k, n, d in files if k == "scores")
        return SavedSet(info, corpus, human, scores)

    def rename(self, set_id: str, name: str) -> None:
        with self._db(write=True) as con:
            if con.execute("UPDATE sets SET name = ? WHERE id = ?", (_clean_name(name), set_id)).rowcount == 0:
                raise InputError(f"no saved set has the id '{set_id}'")

    def set_project(self, set_id: str, project: str | None) -> None:
        with self._db(write=True) as con:
            con.execute("UPDATE sets SET project = ? WHERE id = ?", (project or None, set_id))

    def delete(self, set_id: str) -> None:
        """Delete a set and everything stored with it (text, files, statistics)."""
        if set_id == SAMPLE_ID:
            raise InputError("the bundled sample is read-only and cannot be deleted")
        try:
            with self._db(write=True) as con:
                if con.execute("DELETE FROM sets WHERE id = ?", (set_id,)).rowcount == 0:
                    raise InputError(f"no saved set has the id '{set_id}'")
        finally:
            with contextlib.suppress(InputError, sqlite3.Error), self._db(write=True) as con:
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # ------------------------------------------------------------------ statistics
    def get_stats(self, set_id: str, metric: str, options_key: tuple) -> dict[str, np.ndarray]:
        """Stored per-segment statistics of a metric and option set: system -> array."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT system, dtype, shape, data FROM stats WHERE set_id = ? AND metric = ? AND options = ?",
                    (set_id, metric, _key_text(options_key)),
                ).fetchall()
        except _Missing:
            return {}
        out = {}
        for system, dtype, shape, data in rows:
            if dtype not in ("int64", "float64"):
                continue  # never interpret anything else
            out[system] = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(json.loads(shape)).copy()
        return out

    def put_stats(self, set_id: str, metric: str, options_key: tuple, stats: Mapping[str, np.ndarray]) -> None:
        rows = []
        for system, arr in stats.items():
            a = np.ascontiguousarray(arr)
            if a.dtype not in (np.int64, np.float64):
                a = a.astype(np.float64)
            rows.append(
                (set_id, metric, _key_text(options_key), system, a.dtype.name, json.dumps(a.shape), a.tobytes())
            )
        self._check_size(sum(len(r[-1]) for r in rows))
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                return  # deleted meanwhile: nothing to attach the statistics to
            con.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    # ------------------------------------------------------------------ bundles
    def export_bundle(self, set_id: str) -> bytes:
        """One file holding a set (gzip'd JSON: text, names, human files as hex), to import elsewhere."""
        s = self.load(set_id)
        c = s.corpus
        doc = {
            "format": "mtlens-set",
            "version": 1,
            "name": s.info.name,
            "language_pair": c.language_pair,
            "project": s.info.project,
            "references": dict(c.references),
            "systems": dict(c.systems),
            "source": list(c.source) if c.source is not None else None,
            "human": [[n, d.hex()] for n, d in s.human],
            "scores": [[n, d.hex()] for n, d in s.scores],
        }
        return gzip.compress(json.dumps(doc, ensure_ascii=True).encode("ascii"), mtime=0)

    def import_bundle(self, data: bytes, name: str | None = None) -> str:
        """Save a bundle from :meth:`export_bundle` as a new set; returns its id."""
        try:
            doc = json.loads(gzip.decompress(data).decode("ascii"))
            if not isinstance(doc, dict) or doc.get("format") != "mtlens-set":
                raise ValueError
            human = [(str(n), bytes.fromhex(h)) for n, h in doc.get("human") or []]
            scores = [(str(n), bytes.fromhex(h)) for n, h in doc.get("scores") or []]
            corpus = Corpus.build(
                doc["references"], doc["systems"], doc.get("source"), language_pair=doc.get("language_pair")
            )
        except InputError:
            raise
        except (OSError, EOFError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise InputError("that file is not an mtlens set bundle (export one with 'Download this set')") from None
        return self.save(corpus, name or doc.get("name") or "imported set", human, doc.get("project"), scores=scores)


class _Missing(Exception):
    """The store file does not exist yet (reading finds nothing)."""


def _key_text(options_key: tuple) -> str:
    return json.dumps([list(kv) for kv in options_key])


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())[:200]
    if not name:
        raise InputError("a set needs a name")
    return name


def _why(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    low = text.lower()
    if "readonly" in low or "read-only" in low or "permission" in low:
        return f"{text} (the data directory is read-only: choose another with MTLENS_DATA_DIR or --data-dir)"
    if "full" in low or "no space" in low:
        return f"{text} (the disk is full: free space or choose another data directory)"
    if "not a database" in low or "malformed" in low or "file is encrypted" in low:
        return f"{text} (the file is damaged or not a database: move it away; a new workspace is created then)"
    return text


def score_saved(store: Store, set_id: str, corpus: Corpus, name: str, options):
    """One metric's results for a saved set: stored statistics are reused, only systems without
    them (a system added later, a new option set) are scored, and their statistics are stored.
    A store that cannot take them (full, read-only) only costs the reuse next time."""
    from .metrics import make_metric
    from .scoring import result_from_stats

    metric = make_metric(name, options)
    key = options.key(name)
    have = store.get_stats(set_id, name, key)
    missing = [s for s in corpus.system_names if s not in have or have[s].shape[0] != corpus.n_lines]
    if missing:
        fresh = metric.statistics(corpus.reference_streams(), [corpus.systems[s] for s in missing])
        new = dict(zip(missing, fresh, strict=True))
        with contextlib.suppress(InputError):
            store.put_stats(set_id, name, key, new)
        have.update(new)
    return result_from_stats(corpus, metric, {s: have[s] for s in corpus.system_names})

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
  :class:`~mtlens.core.errors.InputError` sentence; the store's size is bounded (``MTLENS_MAX_STORE_MB``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import hashlib
import json
import os
import secrets
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.access import Visitor
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import env_number

SCHEMA_VERSION = 4
FILE_NAME = "mtlens.sqlite3"
#: the id of the bundled sample, a read-only set that is always there
SAMPLE_ID = "sample"
#: the whole store's size limit, MB (``MTLENS_MAX_STORE_MB`` changes it)
DEFAULT_MAX_MB = 4096
#: what one visitor's sets may hold on a shared server, MB (``MTLENS_MAX_OWNER_MB``)
DEFAULT_OWNER_MB = 512
#: a file of this many bytes kept beside the store and removed when a delete meets a full disk, so that
#: deleting (which writes to the journal) can always free space
BALLAST_BYTES = 4 * 2**20
BALLAST_NAME = "mtlens.ballast"
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
    # 2: owners and project members (docs/security.md); statistics carry a checksum, so the
    # statistics of version 1 (which have none) are dropped: they are recomputed from the stored text
    2: (
        "ALTER TABLE sets ADD COLUMN owner TEXT",
        """CREATE TABLE members (
            project TEXT NOT NULL,
            member TEXT NOT NULL,
            PRIMARY KEY (project, member)
        )""",
        "DELETE FROM stats",
        "ALTER TABLE stats ADD COLUMN checksum TEXT NOT NULL DEFAULT ''",
        # how the language pair was decided (declared or detected) and the data notes found when the set
        # was read: reopening a set says the same as the upload did (mtlens/service/evaluation.py)
        "ALTER TABLE sets ADD COLUMN language_how TEXT",
        "ALTER TABLE sets ADD COLUMN notes TEXT",
    ),
    3: (
        # the neural-model registry (mtlens/neural/models.py): local checkpoints, by name, with their digest
        """CREATE TABLE models (
            name TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            digest TEXT NOT NULL,
            kind TEXT NOT NULL,
            inputs TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            added TEXT NOT NULL
        )""",
        # neural segment scores, keyed by what determines them: the checkpoint's digest and the digest of
        # the segment's inputs (source, hypothesis, reference); shared by every set and every visitor
        """CREATE TABLE neural (
            digest TEXT NOT NULL,
            segment TEXT NOT NULL,
            score REAL NOT NULL,
            spans TEXT,
            PRIMARY KEY (digest, segment)
        ) WITHOUT ROWID""",
        # background scoring jobs, one per (set, checkpoint digest): two visitors share one (no foreign key:
        # the bundled sample, which is not stored, has jobs too; deleting a set deletes its jobs)
        """CREATE TABLE jobs (
            set_id TEXT NOT NULL,
            digest TEXT NOT NULL,
            model TEXT NOT NULL,
            state TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            total INTEGER NOT NULL DEFAULT 0,
            resumed_at INTEGER NOT NULL DEFAULT 0,
            started REAL NOT NULL,
            updated REAL NOT NULL,
            pid INTEGER,
            message TEXT,
            PRIMARY KEY (set_id, digest)
        )""",
    ),
    4: (
        # sentences pinned for the presentation view and the report, in the order they were pinned
        """CREATE TABLE pins (
            set_id TEXT NOT NULL REFERENCES sets(id) ON DELETE CASCADE,
            line INTEGER NOT NULL,
            systems TEXT NOT NULL,
            metric TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            created REAL NOT NULL,
            PRIMARY KEY (set_id, line, systems)
        )""",
    ),
}

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


def _expand(path) -> Path:
    try:
        return Path(path).expanduser()
    except RuntimeError:
        raise InputError(f"the data directory '{path}' names a home folder that does not exist") from None


def default_data_dir() -> Path:
    """``MTLENS_DATA_DIR``, else the per-user data directory (XDG on Linux, Application Support on
    macOS, APPDATA on Windows) + ``mtlens``."""
    env = os.environ.get("MTLENS_DATA_DIR")
    if env:
        try:
            path = Path(env).expanduser()
        except RuntimeError:  # "~nouser/x": no such user
            path = Path(env)
        if str(path).startswith("~"):
            raise InputError(f"MTLENS_DATA_DIR={env!r} names a home folder that does not exist; give an existing path")
        return path
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
    owner: str | None = None
    language_how: str | None = None


@dataclass(frozen=True)
class SavedSet:
    """A set read back: its info, the corpus, and its human score files ``(name, bytes)``."""

    info: SetInfo
    corpus: Corpus
    human: tuple[tuple[str, bytes], ...]
    scores: tuple[tuple[str, bytes], ...] = ()
    annotations: tuple[tuple[str, bytes], ...] = ()


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
        self.data_dir = _expand(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.data_dir / FILE_NAME
        mb = max_mb if max_mb is not None else env_number("MTLENS_MAX_STORE_MB", DEFAULT_MAX_MB)
        self.max_bytes = int(mb * 1024 * 1024)
        self.owner_max_bytes = int(env_number("MTLENS_MAX_OWNER_MB", DEFAULT_OWNER_MB) * 1024 * 1024)
        #: sentences about damaged stored statistics found (and dropped) by this Store, for the caller to show
        self.notes: list[str] = []

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
            con.execute("PRAGMA busy_timeout = 30000")
            if not write:
                con = self._readable(con)
        except _Missing:
            raise
        except (OSError, sqlite3.Error) as err:
            why = _why(err)
            if write and "read-only" not in why and self.data_dir.is_dir() and not os.access(self.data_dir, os.W_OK):
                why += " (the data directory is read-only: choose another with MTLENS_DATA_DIR or --data-dir)"
            raise InputError(f"cannot open {where}: {why}") from None
        try:
            con.execute("PRAGMA foreign_keys = ON")
            self._check_or_create(con, write)
            con.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            yield con
            con.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            why = _why(err)
            if write and "read-only" not in why and not os.access(self.data_dir, os.W_OK):
                why += " (the data directory is read-only: choose another with MTLENS_DATA_DIR or --data-dir)"
            raise InputError(f"{where} could not be {'written' if write else 'read'}: {why}") from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        finally:
            con.close()

    def _readable(self, con: sqlite3.Connection) -> sqlite3.Connection:
        """The connection if it can read; on a read-only file system (where a WAL database cannot make
        its shared-memory file) a read-only one, else an immutable one: listing and opening sets work."""
        try:
            self._header(con)
            return con
        except sqlite3.OperationalError as err:
            if not _read_only_error(err):
                raise
        con.close()
        uri = self.path.resolve().as_uri()
        for mode in ("mode=ro", "immutable=1"):
            try:
                ro = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=30, isolation_level=None)
                self._header(ro)
                return ro
            except sqlite3.OperationalError as err:
                last = err
        raise last

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

    def _used(self) -> int:
        used = 0
        for p in self.data_dir.glob(FILE_NAME + "*"):
            with contextlib.suppress(OSError):  # a WAL file may vanish between glob and stat (another checkpoint)
                used += p.stat().st_size
        return used

    def _check_size(self, adding: int, owner: str | None = None) -> None:
        used = self._used()
        if owner is not None:
            mine = self._owner_bytes(owner)
            if mine + adding > self.owner_max_bytes:
                raise InputError(
                    f"your sets hold {mine / 2**20:.0f} MB and this needs {adding / 2**20:.1f} MB more, over the "
                    f"limit of {self.owner_max_bytes / 2**20:.0f} MB for one visitor (MTLENS_MAX_OWNER_MB); delete "
                    "sets you no longer need"
                )
        if used + adding > self.max_bytes:
            raise InputError(
                f"the workspace is full: it holds {used / 2**20:.0f} MB and this needs {adding / 2**20:.1f} MB more, "
                f"over its limit of {self.max_bytes / 2**20:.0f} MB (MTLENS_MAX_STORE_MB); delete sets you no longer need"
            )

    def _owner_bytes(self, owner: str) -> int:
        try:
            with self._db() as con:
                row = con.execute(
                    "SELECT (SELECT coalesce(sum(length(lines)), 0) FROM streams JOIN sets ON sets.id = set_id "
                    "WHERE owner = ?) + (SELECT coalesce(sum(length(data)), 0) FROM files JOIN sets ON sets.id = "
                    "set_id WHERE owner = ?)",
                    (owner, owner),
                ).fetchone()
        except _Missing:
            return 0
        return int(row[0] or 0)

    # ------------------------------------------------------------------ access
    def may_change(self, set_id: str, visitor: Visitor | None) -> bool:
        """Whether ``visitor`` may rename, re-project, add to or delete the set (its owner, or the operator:
        ``None`` or an administrator). Anyone with the set's id may read it."""
        if set_id == SAMPLE_ID:
            return False
        if visitor is None or visitor.admin:
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
        except _Missing:
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
        except _Missing:
            return []
        return [r[0] for r in rows]

    def members(self, project: str | None = None) -> list[tuple[str, str]]:
        """(project, member) pairs, optionally of one project."""
        try:
            with self._db() as con:
                rows = con.execute("SELECT project, member FROM members ORDER BY project, member").fetchall()
        except _Missing:
            return []
        return [(p, m) for p, m in rows if project is None or p == project]

    def grant(self, project: str, member: str) -> None:
        """Make ``member`` (a visitor id: ``browser:...`` or ``user:...``) a member of ``project``: they see
        its sets in their list and may put their own sets in it. The operator's command (CLI)."""
        project, member = _clean_name(project), member.strip()
        if not member or ":" not in member:
            raise InputError(f"'{member}' is not a visitor id (the dashboard shows yours: 'user:...' or 'browser:...')")
        with self._db(write=True) as con:
            con.execute("INSERT OR IGNORE INTO members VALUES (?, ?)", (project, member))

    def revoke(self, project: str, member: str) -> None:
        with self._db(write=True) as con:
            if con.execute("DELETE FROM members WHERE project = ? AND member = ?", (project, member)).rowcount == 0:
                raise InputError(f"'{member}' is not a member of project '{project}'")

    # ------------------------------------------------------------------ sets
    def save(
        self,
        corpus: Corpus,
        name: str,
        human: Sequence[tuple[str, bytes]] = (),
        project: str | None = None,
        set_id: str | None = None,
        scores: Sequence[tuple[str, bytes]] = (),
        owner: str | None = None,
        language_how: str | None = None,
        annotations: Sequence[tuple[str, bytes]] = (),
    ) -> str:
        """Save a corpus (with its human files, imported metric score files and data notes) as a new set
        in one transaction; returns its id. ``owner``: the visitor id that may change it (None: the
        operator); ``language_how``: ``declared`` or ``detected`` (how the language pair was decided)."""
        name = _clean_name(name)
        set_id = set_id or new_id()
        rows = [("ref", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.references.items())]
        rows += [("sys", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.systems.items())]
        if corpus.source is not None:
            rows.append(("src", "source", 0, _dumps_lines(corpus.source)))
        side = [*human, *scores, *annotations]
        self._check_size(sum(len(r[3]) for r in rows) + sum(len(d) for _, d in side), owner)
        created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        with self._db(write=True) as con:
            con.execute(
                "INSERT INTO sets (id, name, language_pair, project, created, n_lines, owner, language_how, notes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    set_id,
                    name,
                    corpus.language_pair,
                    project,
                    created,
                    corpus.n_lines,
                    owner,
                    language_how,
                    json.dumps(list(corpus.warnings)),
                ),
            )
            con.executemany(
                "INSERT INTO streams (set_id, kind, name, position, lines) VALUES (?, ?, ?, ?, ?)",
                [(set_id, *r) for r in rows],
            )
            con.executemany(
                "INSERT INTO files (set_id, kind, name, data) VALUES (?, ?, ?, ?)",
                [(set_id, "human", n, bytes(d)) for n, d in human]
                + [(set_id, "scores", n, bytes(d)) for n, d in scores]
                + [(set_id, "annotations", n, bytes(d)) for n, d in annotations],
            )
        return set_id

    def add_scores(self, set_id: str, name: str, data: bytes, visitor: Visitor | None = None) -> None:
        """Add an imported metric scores file to a saved set (checked by the caller against the corpus)."""
        self._check_change(set_id, visitor)
        self._check_size(len(data), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute("INSERT OR REPLACE INTO files VALUES (?, 'scores', ?, ?)", (set_id, name, bytes(data)))

    def add_annotations(self, set_id: str, name: str, data: bytes, visitor: Visitor | None = None) -> None:
        """Add an annotation file to a saved set (checked by the caller against its hypotheses)."""
        self._check_change(set_id, visitor)
        self._check_size(len(data), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute("INSERT OR REPLACE INTO files VALUES (?, 'annotations', ?, ?)", (set_id, name, bytes(data)))

    def add_systems(self, set_id: str, systems: Mapping[str, Sequence[str]], visitor: Visitor | None = None) -> None:
        """Add system outputs to a saved set (same line count; a name already there is refused)."""
        self._check_change(set_id, visitor)
        saved = self.load(set_id)
        clash = sorted(set(systems) & set(saved.corpus.systems))
        if clash:
            raise InputError(f"set '{saved.info.name}' already has a system named '{clash[0]}'")
        merged = Corpus.build(dict(saved.corpus.references), {**saved.corpus.systems, **systems})  # checks lines
        rows = [(n, len(saved.corpus.systems) + k, _dumps_lines(merged.systems[n])) for k, n in enumerate(systems)]
        self._check_size(sum(len(r[2]) for r in rows), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            con.executemany(
                "INSERT INTO streams (set_id, kind, name, position, lines) VALUES (?, 'sys', ?, ?, ?)",
                [(set_id, *r) for r in rows],
            )

    def list(self, project: str | None = None, visitor: Visitor | None = None) -> list[SetInfo]:
        """Every saved set, newest first (optionally one project's). A ``visitor`` who is not an
        administrator sees only their own sets and those of the projects they are a member of."""
        try:
            with self._db() as con:
                sets = con.execute(
                    "SELECT id, name, language_pair, project, created, n_lines, owner FROM sets WHERE id != ? "
                    "ORDER BY created DESC, id",
                    (SAMPLE_ID,),  # the bundled sample is every workspace's, nobody's saved set
                ).fetchall()
                mine = (
                    None
                    if visitor is None or visitor.admin
                    else {r[0] for r in con.execute("SELECT project FROM members WHERE member = ?", (visitor.id,))}
                )
                streams = con.execute(
                    "SELECT set_id, kind, name FROM streams ORDER BY set_id, kind, position"
                ).fetchall()
        except _Missing:
            return []
        names: dict[tuple[str, str], list[str]] = {}
        for sid, kind, n in streams:
            names.setdefault((sid, kind), []).append(n)
        out = [
            SetInfo(sid, n, lp, pr, names.get((sid, "sys"), []), names.get((sid, "ref"), []), lines, created, ow)
            for sid, n, lp, pr, created, lines, ow in sets
            if mine is None or ow == visitor.id or pr in mine
        ]
        return [s for s in out if project is None or s.project == project]

    def load(self, set_id: str) -> SavedSet:
        """A saved set, or an InputError naming the id."""
        try:
            with self._db() as con:
                row = con.execute(
                    "SELECT id, name, language_pair, project, created, n_lines, owner, language_how, notes "
                    "FROM sets WHERE id = ?",
                    (set_id,),
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
        if not row[5] or not any(k == "sys" for k, _, _ in streams):
            raise InputError(
                f"set '{row[1]}' ({set_id}) has no lines (an older mtlens saved it from a bundle); delete it "
                f"with 'python -m mtlens delete {set_id}'"
            )
        refs = {n: v for k, n, v in parsed if k == "ref"}
        syss = {n: v for k, n, v in parsed if k == "sys"}
        src = next((v for k, _, v in parsed if k == "src"), None)
        try:
            notes = json.loads(row[8]) if row[8] else []
            notes = [str(n) for n in notes] if isinstance(notes, list) else []
        except ValueError:
            notes = []
        corpus = Corpus.build(refs, syss, src, notes, language_pair=row[2], allow_no_reference=True)
        info = SetInfo(row[0], row[1], row[2], row[3], list(syss), list(refs), row[5], row[4], row[6], row[7])
        human = tuple((n, bytes(d)) for k, n, d in files if k == "human")
        scores = tuple((n, bytes(d)) for k, n, d in files if k == "scores")
        annotations = tuple((n, bytes(d)) for k, n, d in files if k == "annotations")
        return SavedSet(info, corpus, human, scores, annotations)

    def rename(self, set_id: str, name: str, visitor: Visitor | None = None) -> None:
        self._check_change(set_id, visitor)
        with self._db(write=True) as con:
            if con.execute("UPDATE sets SET name = ? WHERE id = ?", (_clean_name(name), set_id)).rowcount == 0:
                raise InputError(f"no saved set has the id '{set_id}'")

    def set_project(self, set_id: str, project: str | None, visitor: Visitor | None = None) -> None:
        """Put a set in a project (None: none). A visitor may choose only projects they are a member of."""
        self._check_change(set_id, visitor)
        project = " ".join(str(project or "").split())[:200] or None
        if project and visitor is not None and not visitor.admin and project not in self.projects_of(visitor.id):
            raise InputError(
                f"you are not a member of project '{project}'; the server's operator adds members "
                f"('python -m mtlens access grant \"{project}\" {visitor.id}')"
            )
        with self._db(write=True) as con:
            con.execute("UPDATE sets SET project = ? WHERE id = ?", (project, set_id))

    def delete(self, set_id: str, visitor: Visitor | None = None) -> None:
        """Delete a set and everything stored with it (text, files, statistics). On a full disk the
        ballast file beside the store is given up first, so a delete can always free space."""
        if set_id == SAMPLE_ID:
            raise InputError("the bundled sample is read-only and cannot be deleted")
        self._check_change(set_id, visitor)
        try:
            try:
                self._delete(set_id)
            except InputError as err:
                if "disk is full" not in str(err) or not self._drop_ballast():
                    raise
                self._delete(set_id)
        finally:
            with contextlib.suppress(InputError, sqlite3.Error), self._db(write=True) as con:
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._keep_ballast()

    # ------------------------------------------------------------------ pins
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

    def project_of(self, set_id: str) -> str | None:
        """The set's project (None: none), read without loading the set; InputError if it is not there."""
        return self._set_field(set_id, "project")

    def _delete(self, set_id: str) -> None:
        with self._db(write=True) as con:
            if con.execute("DELETE FROM sets WHERE id = ?", (set_id,)).rowcount == 0:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute("DELETE FROM jobs WHERE set_id = ?", (set_id,))

    def _drop_ballast(self) -> bool:
        try:
            (self.data_dir / BALLAST_NAME).unlink()
            return True
        except OSError:
            return False

    def _keep_ballast(self) -> None:
        """(Re)create the ballast file where there is room; never an error."""
        p = self.data_dir / BALLAST_NAME
        with contextlib.suppress(OSError):
            if self.data_dir.is_dir() and not p.exists():
                with p.open("wb") as f:
                    f.write(b"\0" * BALLAST_BYTES)

    # ------------------------------------------------------------------ statistics
    def get_stats(self, set_id: str, metric: str, options_key: tuple) -> dict[str, np.ndarray]:
        """Stored per-segment statistics of a metric and option set: system -> array."""
        try:
            with self._db() as con:
                rows = con.execute(
                    "SELECT system, dtype, shape, data, checksum FROM stats "
                    "WHERE set_id = ? AND metric = ? AND options = ?",
                    (set_id, metric, _key_text(options_key)),
                ).fetchall()
        except _Missing:
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
                "INSERT OR REPLACE INTO stats (set_id, metric, options, system, dtype, shape, data, checksum) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    # ------------------------------------------------------------------ neural models, scores, jobs
    def put_model(self, row: Mapping) -> None:
        """Register (or replace) a neural model: ``name, path, digest, kind, inputs, size, mtime``."""
        with self._db(write=True) as con:
            con.execute(
                "INSERT OR REPLACE INTO models (name, path, digest, kind, inputs, size, mtime, added) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row["name"],
                    row["path"],
                    row["digest"],
                    row["kind"],
                    row["inputs"],
                    row["size"],
                    row["mtime"],
                    dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                ),
            )

    def models(self) -> list[dict]:
        """The registered neural models, by name."""
        try:
            with self._db() as con:
                cur = con.execute(
                    "SELECT name, path, digest, kind, inputs, size, mtime, added FROM models ORDER BY name"
                )
                return _dicts(cur)
        except _Missing:
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
                keys = list(dict.fromkeys(segments))
                for k in range(0, len(keys), 500):
                    chunk = keys[k : k + 500]
                    marks = ",".join("?" * len(chunk))
                    for seg, score, spans in con.execute(
                        f"SELECT segment, score, spans FROM neural WHERE digest = ? AND segment IN ({marks})",
                        (digest, *chunk),
                    ):
                        out[seg] = (float(score), spans)
        except _Missing:
            pass
        return out

    def put_neural(self, digest: str, rows: Sequence[tuple[str, float, str | None]]) -> None:
        """Save neural scores ``(segment key, score, spans JSON)`` of a checkpoint, in one transaction."""
        self._check_size(sum(len(r[0]) + 8 + len(r[2] or "") for r in rows))
        with self._db(write=True) as con:
            con.executemany(
                "INSERT OR REPLACE INTO neural (digest, segment, score, spans) VALUES (?, ?, ?, ?)",
                [(digest, k, float(v), sp) for k, v, sp in rows],
            )

    def job(self, set_id: str, digest: str) -> dict | None:
        try:
            with self._db() as con:
                cur = con.execute("SELECT * FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest))
                rows = _dicts(cur)
                return rows[0] if rows else None
        except _Missing:
            return None

    def jobs(self, set_id: str) -> list[dict]:
        try:
            with self._db() as con:
                cur = con.execute("SELECT * FROM jobs WHERE set_id = ? ORDER BY model", (set_id,))
                return _dicts(cur)
        except _Missing:
            return []

    def claim_job(self, set_id: str, digest: str, model: str, alive) -> tuple[bool, dict]:
        """Create the job of (set, checkpoint) or take over a dead one, atomically (under the write lock):
        ``(True, row)`` when the caller now owns it and must start it, ``(False, row)`` when a live job
        (``alive(row)``) already runs it. A finished job is claimed again (it computes only what is new)."""
        now = _now()
        with self._db(write=True) as con:
            if set_id != SAMPLE_ID and con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            cur = con.execute("SELECT * FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest))
            for job in _dicts(cur):
                if job["state"] in ("queued", "running", "cancelling") and alive(job):
                    return False, job
            con.execute(
                "INSERT OR REPLACE INTO jobs (set_id, digest, model, state, done, total, resumed_at, started, updated, "
                "pid, message) VALUES (?, ?, ?, 'queued', 0, 0, 0, ?, ?, NULL, NULL)",
                (set_id, digest, model, now, now),
            )
            cur = con.execute("SELECT * FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest))
            return True, _dicts(cur)[0]

    def update_job(self, set_id: str, digest: str, **fields) -> str | None:
        """Change a job's fields; returns its state as it is now (None when the job or its set is gone)."""
        allowed = {"state", "done", "total", "resumed_at", "started", "pid", "message"}
        fields = {k: v for k, v in fields.items() if k in allowed}
        with self._db(write=True) as con:
            sets = ", ".join(f"{k} = ?" for k in fields)
            con.execute(
                f"UPDATE jobs SET {sets + ', ' if sets else ''}updated = ? WHERE set_id = ? AND digest = ?",
                (*fields.values(), _now(), set_id, digest),
            )
            row = con.execute("SELECT state FROM jobs WHERE set_id = ? AND digest = ?", (set_id, digest)).fetchone()
        return row[0] if row else None

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
            "language_how": s.info.language_how,
            "project": s.info.project,
            "references": dict(c.references),
            "systems": dict(c.systems),
            "source": list(c.source) if c.source is not None else None,
            "human": [[n, d.hex()] for n, d in s.human],
            "scores": [[n, d.hex()] for n, d in s.scores],
            "annotations": [[n, d.hex()] for n, d in s.annotations],
        }
        return gzip.compress(json.dumps(doc, ensure_ascii=True).encode("ascii"), mtime=0)


def _dicts(cur: sqlite3.Cursor) -> list[dict]:
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _now() -> float:
    return dt.datetime.now(dt.timezone.utc).timestamp()


class _Missing(Exception):
    """The store file does not exist yet (reading finds nothing)."""


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


def _read_only_error(err: BaseException) -> bool:
    low = str(err).lower()
    return "readonly" in low or "read-only" in low or "unable to open" in low


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

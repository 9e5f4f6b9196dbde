"""The connection, the schema check and the size bounds every part of the store shares: one transaction a call, every database error one sentence, the ballast that lets a delete free space on a full disk."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

from ..core.errors import InputError
from ..core.limits import env_number
from ..core.secrets import redact, scrub
from . import postgres
from .schema import APP_ID, FILE_NAME, MIGRATIONS, SCHEMA_VERSION

#: the store: a PostgreSQL URL, or a data directory (the SQLite file in it); ``--store`` on the command line
STORE_ENV = "MTLENS_STORE"


def _where(url: str | None, data_dir):
    """(PostgreSQL URL or None, data directory or None) from the arguments, else ``MTLENS_STORE``."""
    for given in (url, data_dir):
        if isinstance(given, str):
            postgres.check_address(given)
    if url is not None and not postgres.is_url(url):
        return None, url  # a path: the data directory
    if url is None and data_dir is None:
        env = os.environ.get(STORE_ENV) or None
        if env is not None:
            postgres.check_address(env)
        if env is not None and not postgres.is_url(env):
            return None, env
        url = env
    return url, data_dir


#: the whole store's size limit, MB (``MTLENS_MAX_STORE_MB`` changes it)
DEFAULT_MAX_MB = 4096


#: what one visitor's sets may hold on a shared server, MB (``MTLENS_MAX_OWNER_MB``)
DEFAULT_OWNER_MB = 512


#: a file of this many bytes kept beside the store and removed when a delete meets a full disk, so that
#: deleting (which writes to the journal) can always free space
BALLAST_BYTES = 4 * 2**20


BALLAST_NAME = "mtlens.ballast"


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


def dict_rows(cur: sqlite3.Cursor) -> list[dict]:
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


#: keys per ``IN (...)`` of a lookup (SQLite's default limit of variables is far above it)
IN_CHUNK = 500


def in_chunks(keys):
    """The distinct ``keys`` in chunks for ``... IN (marks)`` lookups: ``(chunk, marks)`` pairs.

    >>> [(c, m) for c, m in in_chunks(["a", "b", "a"])]
    [(['a', 'b'], '?,?')]
    """
    unique = list(dict.fromkeys(keys))
    for k in range(0, len(unique), IN_CHUNK):
        chunk = unique[k : k + IN_CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def timestamp() -> float:
    """Seconds since the epoch, UTC (the job rows' times)."""
    return dt.datetime.now(dt.timezone.utc).timestamp()


class Missing(Exception):
    """The store file does not exist yet (reading finds nothing)."""


def _read_only_error(err: BaseException) -> bool:
    """An error that reading without writing can avoid: a read-only file system, or a full disk where
    SQLite cannot create its write-ahead log or shared-memory file ("disk I/O error")."""
    low = str(err).lower()
    return any(w in low for w in ("readonly", "read-only", "unable to open", "disk i/o error", "disk is full"))


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


class Database:
    """The connection, the schema check and the size bounds every part of the store shares: one transaction a call, every database error one sentence, the ballast that lets a delete free space on a full disk."""

    def __init__(
        self,
        data_dir: str | Path | None = None,
        max_mb: float | None = None,
        reveal_path: bool = True,
        url: str | None = None,
    ):
        #: ``postgresql://...`` (a server's store, :mod:`mtlens.storage.postgres`) or None: the SQLite file
        #: in the data directory. ``url`` or ``MTLENS_STORE`` (a URL, or a data directory) choose it.
        self.url, data_dir = _where(url, data_dir)
        self.data_dir = _expand(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.data_dir / FILE_NAME
        #: what a claim appends to lock a row it reads (SQLite's write lock is already the transaction's)
        self._row_lock = " FOR UPDATE" if self.url else ""
        #: whether sentences name the store's file (the operator's command line, the local dashboard); a
        #: shared server's visitors and the quick view read "the workspace store" instead
        self.reveal_path = reveal_path
        mb = max_mb if max_mb is not None else env_number("MTLENS_MAX_STORE_MB", DEFAULT_MAX_MB)
        self.max_bytes = int(mb * 1024 * 1024)
        self.owner_max_bytes = int(env_number("MTLENS_MAX_OWNER_MB", DEFAULT_OWNER_MB) * 1024 * 1024)
        #: sentences about damaged stored statistics found (and dropped) by this Store, for the caller to show
        self.notes: list[str] = []

    @property
    def location(self) -> str:
        """Where the store is, as it may be shown to the operator: the file, or the URL without its password."""
        return redact(self.url) if self.url else str(self.path)

    def check(self) -> None:
        """Read the store now: an unreachable server or a damaged file is said at start, in one sentence, not
        on the first page (an empty store is fine: it is created on the first write)."""
        with contextlib.suppress(Missing), self._db():
            pass

    def child_env(self) -> dict[str, str]:
        """What points a process this one starts (a job, the dashboard) at this same store."""
        return {STORE_ENV: self.url or os.path.abspath(self.data_dir)}  # the child may start in another folder

    def _named(self, what: str) -> str:
        """``what`` and the store's file (or server) where it may be shown."""
        return f"{what} '{self.location}'" if self.reveal_path else what

    def _hidden(self, text: str) -> str:
        """An error's text without the data directory's path where it may not be shown."""
        return text if self.reveal_path else text.replace(str(self.data_dir), "the data directory")

    @contextlib.contextmanager
    def _db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection inside one transaction (committed on success, rolled back on any error), with
        every database error turned into a sentence."""
        if self.url:
            with self._pg(write) as con:
                yield con
            return
        where = self._named("the workspace store")
        try:
            if write:
                self.data_dir.mkdir(parents=True, exist_ok=True)
            elif not self.path.exists():
                raise Missing
            con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            con.execute("PRAGMA busy_timeout = 30000")
            if not write:
                con = self._readable(con)
        except Missing:
            raise
        except (OSError, sqlite3.Error) as err:
            why = _why(err)
            if write and "read-only" not in why and self.data_dir.is_dir() and not os.access(self.data_dir, os.W_OK):
                why += " (the data directory is read-only: choose another with MTLENS_DATA_DIR or --data-dir)"
            raise InputError(f"cannot open {where}: {self._hidden(why)}") from None
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
            raise InputError(f"{where} could not be {'written' if write else 'read'}: {self._hidden(why)}") from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        finally:
            con.close()

    @contextlib.contextmanager
    def _pg(self, write: bool) -> Iterator:
        """A transaction on the PostgreSQL store; its errors are sentences as SQLite's are."""
        where = self._named("the workspace database")
        try:
            import psycopg
        except ImportError:
            raise InputError(
                f"{where} is a PostgreSQL server (MTLENS_STORE), which needs psycopg: pip install 'psycopg[binary]' "
                "(or mtlens[postgres])"
            ) from None
        try:
            with postgres.transaction(self.url, write, self._check_header, Missing) as con:
                yield con
        except psycopg.OperationalError as err:
            why = scrub(" ".join(str(err).split()), self.url) or type(err).__name__  # the driver may quote the URL
            raise InputError(f"cannot reach {where}: {why} (is the server running, and MTLENS_STORE right?)") from None
        except psycopg.Error as err:
            why = scrub(" ".join(str(err).split()), self.url) or type(err).__name__
            raise InputError(f"{where} could not be {'written' if write else 'read'}: {why}") from None

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
            ro = None
            try:
                ro = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=30, isolation_level=None)
                self._header(ro)
                return ro
            except sqlite3.OperationalError as err:
                last = err
                if ro is not None:
                    ro.close()  # a failed connection may hold a lock a delete then waits for
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
        if tables and app != APP_ID:
            raise InputError(
                f"{self._named('the file')} is not an mtlens workspace (another program's database); "
                "move it away or choose another data directory"
            )
        if version > SCHEMA_VERSION:
            raise InputError(
                f"{self._named('the workspace')} was written by a newer mtlens (schema {version}, this one "
                f"reads up to {SCHEMA_VERSION}); upgrade mtlens"
            )

    def _check_or_create(self, con: sqlite3.Connection, write: bool) -> None:
        """Refuse foreign and newer files; create or migrate the schema under the write lock, so that
        writers starting together never both create it."""
        version, app, tables = self._header(con)
        if version == 0 and tables == 0 and not write:
            raise Missing
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
                con.execute(f"PRAGMA application_id = {APP_ID}")
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for stmt in MIGRATIONS[v]:
                    con.execute(stmt)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _used(self) -> int:
        if self.url:
            try:
                return postgres.used_bytes(self.url)
            except Exception:  # the size check never fails a write the database itself would take
                return 0
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
        except Missing:
            return 0
        return int(row[0] or 0)

    def _drop_ballast(self) -> bool:
        if self.url:
            return False
        try:
            (self.data_dir / BALLAST_NAME).unlink()
            return True
        except OSError:
            return False

    def _keep_ballast(self) -> None:
        """(Re)create the ballast file where there is room; never an error."""
        if self.url:
            return  # a server's disk is its operator's
        p = self.data_dir / BALLAST_NAME
        with contextlib.suppress(OSError):
            if self.data_dir.is_dir() and not p.exists():
                with p.open("wb") as f:
                    f.write(b"\0" * BALLAST_BYTES)

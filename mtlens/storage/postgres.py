"""The store on a PostgreSQL server (``MTLENS_STORE=postgresql://...``), for several dashboard servers that
share one workspace (docs/deploy.md).

The store's modules write one SQL for both engines (``?`` parameters, ``ON CONFLICT`` upserts,
``RETURNING``, ``FOR UPDATE``); this module turns it into PostgreSQL's (``%s`` parameters) and SQLite's
migrations into PostgreSQL's types, keeps the schema's version in a table of its own (PostgreSQL has no
``user_version``), and keeps a few idle connections per process (psycopg 3). Decisions
(docs/decisions.md, "A PostgreSQL store"):

- a write is one READ COMMITTED transaction; what must be decided once across servers (claiming a
  job) locks its row (``SELECT ... FOR UPDATE``); a read is one REPEATABLE READ transaction, so a set is
  read from one snapshot, as SQLite's reads are;
- the schema is created or upgraded under a transaction-level advisory lock, so servers starting
  together never both create it; a newer schema or another program's tables are refused with a sentence;
- a server that cannot be reached within :data:`CONNECT_TIMEOUT` seconds is one sentence, never a hang;
  a connection that broke is dropped and the next call connects again; nothing is acknowledged before
  its transaction committed;
- the password of a URL is never shown (:func:`redact`).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator

from ..core.errors import InputError
from ..core.secrets import check_one_at, redact
from .schema import APP_ID, MIGRATIONS, ORDERED, SCHEMA_VERSION

#: seconds to wait for the server to answer a connection
CONNECT_TIMEOUT = 5
#: seconds a statement may wait for a lock (a job's row, a schema upgrade) before it is an error
LOCK_TIMEOUT_MS = 30_000
#: idle connections kept per URL in one process
MAX_IDLE = 8

SCHEMA_TABLE = "mtlens_schema"


def is_url(text: str | os.PathLike | None) -> bool:
    """A PostgreSQL URL, as libpq reads one (its scheme in any case)."""
    return isinstance(text, str) and "://" in text and text.split("://", 1)[0].lower() in ("postgresql", "postgres")


#: libpq's keyword/value connection strings (``host=... password=...``): not a folder, and not taken as a URL
_DSN_KEYWORD = re.compile(r"(^|\s)(host|hostaddr|port|dbname|user|password|passfile|sslmode|service)\s*=", re.I)


def check_address(text: str) -> None:
    """Refuse, in one sentence that shows no secret, a store address that is neither a PostgreSQL URL nor a
    plain folder: another scheme, or libpq's keyword form (whose folder would be named after its password)."""
    if is_url(text):
        check_one_at(text)
        return
    if "://" in text or _DSN_KEYWORD.search(text):
        raise InputError(
            f"the store '{redact(text) if '://' in text else '(a connection string)'}' is neither a postgresql:// URL "
            "nor a folder: give the server as postgresql://user@host/db (its password in PGPASSWORD or ~/.pgpass)"
        )


def translate(sql: str) -> str:
    """The store's SQL for psycopg: ``?`` parameters become ``%s`` (outside quoted text), ``%`` is doubled."""
    out, quote = [], None
    for ch in sql:
        if quote:
            if ch == quote:
                quote = None
            out.append("%%" if ch == "%" else ch)
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch)
    return "".join(out)


def ddl(stmt: str) -> str:
    """A migration statement in PostgreSQL's types: 8-byte integers and floats (SQLite's are), BYTEA for
    BLOB, no ``WITHOUT ROWID``, and a ``rowid`` for the tables read back in insertion order."""
    stmt = re.sub(r"\bBLOB\b", "BYTEA", stmt)
    stmt = re.sub(r"\bREAL\b", "DOUBLE PRECISION", stmt)
    stmt = re.sub(r"\bINTEGER\b", "BIGINT", stmt)
    stmt = re.sub(r"\)\s*WITHOUT ROWID\s*$", ")", stmt)
    for table in ORDERED:
        stmt = re.sub(rf"^(\s*CREATE TABLE {table} \()", r"\1rowid BIGSERIAL NOT NULL, ", stmt)
    return stmt


class Connection:
    """A psycopg connection that takes the store's SQL (``?`` parameters)."""

    def __init__(self, con):
        self._con = con

    def execute(self, sql: str, params=()):
        return self._con.execute(translate(sql), tuple(params))

    def executemany(self, sql: str, rows):
        rows = [tuple(r) for r in rows]
        cur = self._con.cursor()
        if rows:
            cur.executemany(translate(sql), rows)
        return cur


_idle: dict[str, list] = {}
_idle_pid = os.getpid()
_idle_lock = threading.Lock()


def _connect(url: str):
    import psycopg

    con = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT, autocommit=True, application_name="mtlens")
    con.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
    return con


def _take(url: str):
    """(connection, reused): an idle connection of this process, else a new one."""
    global _idle_pid
    with _idle_lock:
        if _idle_pid != os.getpid():  # a forked child never uses its parent's sockets
            _idle.clear()
            _idle_pid = os.getpid()
        pool = _idle.setdefault(url, [])
        while pool:
            con = pool.pop()
            if not con.closed and not con.broken:
                return con, True
    return _connect(url), False


def _give(url: str, con) -> None:
    import psycopg.pq

    if con.closed or con.broken or con.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        with contextlib.suppress(Exception):
            con.close()
        return
    with _idle_lock:
        pool = _idle.setdefault(url, [])
        if len(pool) < MAX_IDLE and _idle_pid == os.getpid():
            pool.append(con)
            return
    con.close()


def close_idle() -> None:
    """Close this process's idle connections (a test before it drops its database)."""
    with _idle_lock:
        pools = list(_idle.values())
        _idle.clear()
    for pool in pools:
        for con in pool:
            with contextlib.suppress(Exception):
                con.close()


def header(con) -> tuple[int, int, int]:
    """(schema version, application id, tables in the schema) as SQLite's header reads them: whether mtlens's
    own table is there and how many tables are, in one statement (one view of what other servers have
    committed), then the version."""
    exists, tables = con.execute(
        "SELECT to_regclass(%s) IS NOT NULL, (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = "
        "c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'f'))",
        (SCHEMA_TABLE,),
    ).fetchone()
    if not exists:
        return 0, 0, int(tables)
    row = con.execute(f"SELECT version, app_id FROM {SCHEMA_TABLE}").fetchone()
    return (int(row[0]), int(row[1]), int(tables)) if row else (0, 0, int(tables))


def migrate(con, check) -> None:
    """Create or upgrade the schema in one transaction under an advisory lock; ``check(version, app,
    tables)`` refuses a foreign or newer database (the caller's sentences)."""
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (APP_ID,))
        version, app, tables = header(con)  # again, now that this connection holds the lock
        check(version, app, tables)
        if version == SCHEMA_VERSION:
            return
        if version == 0:
            con.execute(f"CREATE TABLE {SCHEMA_TABLE} (app_id BIGINT NOT NULL, version INTEGER NOT NULL)")
            con.execute(f"INSERT INTO {SCHEMA_TABLE} VALUES (%s, 0)", (APP_ID,))
        for v in range(version + 1, SCHEMA_VERSION + 1):
            for stmt in MIGRATIONS[v]:
                con.execute(ddl(stmt))
        con.execute(f"UPDATE {SCHEMA_TABLE} SET version = %s", (SCHEMA_VERSION,))


@contextlib.contextmanager
def transaction(url: str, write: bool, check, missing: type[Exception]) -> Iterator[Connection]:
    """One transaction on a pooled connection. ``check`` refuses foreign and newer schemas; a read of a
    database without the schema raises ``missing`` (reading finds nothing, as with no SQLite file)."""
    import psycopg

    con, reused = _take(url)
    try:
        try:
            version, app, tables = header(con)
        except psycopg.OperationalError:
            if not reused:
                raise
            # an idle connection the server closed meanwhile (a restart): nothing was sent in a
            # transaction yet, so a new connection asks again
            with contextlib.suppress(Exception):
                con.close()
            con = _connect(url)
            version, app, tables = header(con)
        if version == 0 and not write:
            raise missing
        check(version, app, tables)
        if version != SCHEMA_VERSION:
            migrate(con, check)
        with con.transaction():
            if not write:
                con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield Connection(con)
    finally:
        _give(url, con)


def used_bytes(url: str) -> int:
    """What the store's tables hold on the server, bytes (indexes and TOAST included)."""
    con, _ = _take(url)
    try:
        row = con.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        ).fetchone()
        return int(row[0])
    finally:
        _give(url, con)

"""Saved sets: their text, side files, name and project; listing, loading, deleting, the bundle of a set."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core import names
from ..core.access import Visitor, is_operator
from ..core.corpus import Corpus
from ..core.errors import InputError
from . import lines_cache
from .database import Missing
from .names import SAMPLE_ID, clean_name, new_id
from .owners import Owners

#: the id of the bundled sample, a read-only set that is always there


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
    terms: tuple[tuple[str, bytes, str], ...] = ()


def _dumps_lines(lines: Sequence[str]) -> str:
    return json.dumps(list(lines), ensure_ascii=True)  # ASCII JSON: lone surrogates survive too


def _dumps_segments(corpus: Corpus) -> str | None:
    if corpus.documents is None:
        return None
    return json.dumps({"documents": list(corpus.documents), "domains": list(corpus.domains or [])}, ensure_ascii=True)


def _loads_segments(text, n_lines: int) -> tuple[list[str] | None, list[str] | None]:
    """A set's document ids and domains; a damaged value reads as none (the set still opens)."""
    try:
        doc = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None, None
    if not isinstance(doc, dict):
        return None, None
    documents, domains = doc.get("documents"), doc.get("domains") or None
    ok = lambda v: isinstance(v, list) and len(v) == n_lines and all(isinstance(x, str) for x in v)  # noqa: E731
    if not ok(documents):
        return None, None
    return documents, domains if ok(domains) else None


def _no_room(err: InputError) -> bool:
    """An error of a full disk (SQLite says "disk is full", or "disk I/O error" when it cannot create
    its write-ahead log or shared-memory file)."""
    text = str(err)
    return "disk is full" in text or "disk I/O error" in text or "No space" in text


#: a side file, put again under the same name: replaced where it was (portable SQL: SQLite and PostgreSQL)
_PUT_FILE = (
    "INSERT INTO files (set_id, kind, name, data) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (set_id, kind, name) DO UPDATE SET data = excluded.data"
)


def _delete_rows(con, set_id: str) -> None:
    if con.execute("DELETE FROM sets WHERE id = ?", (set_id,)).rowcount == 0:
        raise InputError(f"no saved set has the id '{set_id}'")
    con.execute("DELETE FROM jobs WHERE set_id = ?", (set_id,))
    lines_cache.forget(set_id)


#: the kind of a set's glossary file, followed by its JSONL key (issue 60)
TERMS_KIND = "terms:"


class Sets(Owners):
    """Saved sets: their text, side files, name and project; listing, loading, deleting, the bundle of a set."""

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
        runs: Mapping[str, tuple[str | None, str, str]] | None = None,
        terms: Sequence[tuple[str, bytes, str]] = (),
    ) -> str:
        """Save a corpus (with its human files, imported metric score files and data notes) as a new set
        in one transaction; returns its id. ``runs``: system -> (family, ISO time, metadata JSON) for
        systems that are runs of a family (a bundle's). ``owner``: the visitor id that may change it (None: the
        operator); ``language_how``: ``declared`` or ``detected`` (how the language pair was decided); ``terms``:
        its glossary ``(name, bytes, JSONL key)`` (issue 60), kept as a file of kind ``terms:KEY``."""
        name = clean_name(name)
        set_id = set_id or new_id()
        rows = [("ref", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.references.items())]
        rows += [("sys", n, k, _dumps_lines(v)) for k, (n, v) in enumerate(corpus.systems.items())]
        if corpus.source is not None:
            rows.append(("src", "source", 0, _dumps_lines(corpus.source)))
        side = [*human, *scores, *annotations, *((n, d) for n, d, _ in terms)]
        self._check_size(sum(len(r[3]) for r in rows) + sum(len(d) for _, d in side), owner)
        created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        with self._db(write=True) as con:
            con.execute(
                "INSERT INTO sets (id, name, language_pair, project, created, n_lines, owner, language_how, notes, "
                "segments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    _dumps_segments(corpus),
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
                + [(set_id, "annotations", n, bytes(d)) for n, d in annotations]
                + [(set_id, TERMS_KIND + key, n, bytes(d)) for n, d, key in terms],
            )
            con.executemany(
                "INSERT INTO runs (set_id, system, family, at, meta) VALUES (?, ?, ?, ?, ?)",
                [(set_id, n, *facts) for n, facts in (runs or {}).items() if n in corpus.systems],
            )
        self._keep_ballast()  # room a delete can free on a disk that fills up later
        return set_id

    def add_scores(self, set_id: str, name: str, data: bytes, visitor: Visitor | None = None) -> None:
        """Add an imported metric scores file to a saved set (checked by the caller against the corpus)."""
        self._check_change(set_id, visitor)
        self._check_size(len(data), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute(_PUT_FILE, (set_id, "scores", name, bytes(data)))

    def add_annotations(self, set_id: str, name: str, data: bytes, visitor: Visitor | None = None) -> None:
        """Add an annotation file to a saved set (checked by the caller against its hypotheses)."""
        self._check_change(set_id, visitor)
        self._check_size(len(data), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            if con.execute("SELECT 1 FROM sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise InputError(f"no saved set has the id '{set_id}'")
            con.execute(_PUT_FILE, (set_id, "annotations", name, bytes(data)))

    def add_systems(
        self,
        set_id: str,
        systems: Mapping[str, Sequence[str]],
        visitor: Visitor | None = None,
        runs: Mapping[str, tuple[str | None, str, str]] | None = None,
    ) -> None:
        """Add system outputs to a saved set (same line count; a name already there is refused), with
        their run facts ``runs``: name -> (family, ISO time, metadata JSON), in the same transaction."""
        self._check_change(set_id, visitor)
        saved = self.load(set_id)

        def refuse_taken(names) -> None:
            if clash := sorted(set(systems) & set(names)):
                raise InputError(f"set '{saved.info.name}' already has a system named '{clash[0]}'")

        refuse_taken(saved.corpus.systems)  # before any work; checked again under the lock below
        merged = Corpus.build(dict(saved.corpus.references), {**saved.corpus.systems, **systems})  # checks lines
        if visitor is not None and not visitor.admin:  # issue 51: a visitor grows a set within the visitors' bound
            from ..core.limits import check_visitor_size

            streams = len(merged.references) + len(merged.systems) + (saved.corpus.source is not None)
            check_visitor_size(merged.n_lines, streams, what=f"set '{saved.info.name}' with the new runs")
        rows = [(n, _dumps_lines(merged.systems[n])) for n in systems]
        self._check_size(sum(len(r[1]) for r in rows), None if visitor is None else visitor.id)
        with self._db(write=True) as con:
            # issue 51: decided under the set's row lock (PostgreSQL; SQLite's write lock), so concurrent adds take
            # distinct positions in the order they commit, and a name another add took meanwhile is a sentence
            if con.execute("SELECT id FROM sets WHERE id = ?" + self._row_lock, (set_id,)).fetchone() is None:
                raise InputError(f"set '{saved.info.name}' was deleted meanwhile; nothing was added")
            taken = {
                r[0]: r[1]
                for r in con.execute("SELECT name, position FROM streams WHERE set_id = ? AND kind = 'sys'", (set_id,))
            }
            refuse_taken(taken)  # another add may have taken a name since the set was read
            first = max(taken.values(), default=-1) + 1
            con.executemany(
                "INSERT INTO streams (set_id, kind, name, position, lines) VALUES (?, 'sys', ?, ?, ?)",
                [(set_id, n, first + k, lines) for k, (n, lines) in enumerate(rows)],
            )
            con.executemany(
                "INSERT INTO runs (set_id, system, family, at, meta) VALUES (?, ?, ?, ?, ?)",
                [(set_id, n, *facts) for n, facts in (runs or {}).items() if n in systems],
            )
            name = names.renumbered(saved.info.name, len(taken), len(taken) + len(rows))
            if name != saved.info.name:  # an automatic name says the systems it has now
                con.execute("UPDATE sets SET name = ? WHERE id = ? AND name = ?", (name, set_id, saved.info.name))

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
                    if is_operator(visitor)
                    else {r[0] for r in con.execute("SELECT project FROM members WHERE member = ?", (visitor.id,))}
                )
                streams = con.execute(
                    "SELECT set_id, kind, name FROM streams ORDER BY set_id, kind, position"
                ).fetchall()
        except Missing:
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
                    "SELECT id, name, language_pair, project, created, n_lines, owner, language_how, notes, "
                    "segments FROM sets WHERE id = ?",
                    (set_id,),
                ).fetchone()
                where = self.location if self.url else str(self.path.resolve())  # the address without secrets
                streams = lines_cache.streams(con, where, set_id, row[4]) if row is not None else []
                files = con.execute(
                    "SELECT kind, name, data FROM files WHERE set_id = ? ORDER BY rowid", (set_id,)
                ).fetchall()
        except Missing:
            row = None
        if row is None:
            raise InputError(f"no saved set has the id '{set_id}' (see 'python -m mtlens list')")
        if not row[5] or not any(k == "sys" for k, _, _ in streams):
            raise InputError(
                f"set '{row[1]}' ({set_id}) has no lines (an older mtlens saved it from a bundle); delete it "
                f"with 'python -m mtlens delete {set_id}'"
            )
        refs = {n: v for k, n, v in streams if k == "ref"}
        syss = {n: v for k, n, v in streams if k == "sys"}
        src = next((v for k, _, v in streams if k == "src"), None)
        try:
            notes = json.loads(row[8]) if row[8] else []
            notes = [str(n) for n in notes] if isinstance(notes, list) else []
        except ValueError:
            notes = []
        corpus = Corpus.build(refs, syss, src, notes, language_pair=row[2], allow_no_reference=True)
        documents, domains = _loads_segments(row[9], corpus.n_lines)
        if documents is not None:
            corpus = corpus.with_documents(documents, domains)
        info = SetInfo(row[0], row[1], row[2], row[3], list(syss), list(refs), row[5], row[4], row[6], row[7])
        human = tuple((n, bytes(d)) for k, n, d in files if k == "human")
        scores = tuple((n, bytes(d)) for k, n, d in files if k == "scores")
        annotations = tuple((n, bytes(d)) for k, n, d in files if k == "annotations")
        terms = tuple((n, bytes(d), k[len(TERMS_KIND) :]) for k, n, d in files if k.startswith(TERMS_KIND))
        return SavedSet(info, corpus, human, scores, annotations, terms)

    def rename(self, set_id: str, name: str, visitor: Visitor | None = None) -> None:
        self._check_change(set_id, visitor)
        with self._db(write=True) as con:
            if con.execute("UPDATE sets SET name = ? WHERE id = ?", (clean_name(name), set_id)).rowcount == 0:
                raise InputError(f"no saved set has the id '{set_id}'")

    def set_project(self, set_id: str, project: str | None, visitor: Visitor | None = None) -> None:
        """Put a set in a project (None: none). A visitor may choose only projects they are a member of."""
        self._check_change(set_id, visitor)
        project = names.optional_name(project, "project", cut=True)
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
                if not _no_room(err):
                    raise
                try:
                    if not self._drop_ballast():
                        raise
                    self._delete(set_id)
                except InputError as again:
                    if not _no_room(again):
                        raise
                    self._delete_in_place(set_id)
        finally:
            if not self.url:  # SQLite: give the freed pages of the write-ahead log back
                with contextlib.suppress(InputError, sqlite3.Error), self._db(write=True) as con:
                    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._keep_ballast()

    def project_of(self, set_id: str) -> str | None:
        """The set's project (None: none), read without loading the set; InputError if it is not there."""
        return self._set_field(set_id, "project")

    def _delete(self, set_id: str) -> None:
        with self._db(write=True) as con:
            _delete_rows(con, set_id)

    def _delete_in_place(self, set_id: str) -> None:
        """The delete of last resort on a full disk without ballast: SQLite's write-ahead log and its
        shared-memory index need new files, so the rows are deleted in the database file itself
        (exclusive lock, rollback journal in memory), then the file is set back to WAL mode. A crash in
        these milliseconds could damage the file, which is why the ballast is tried first."""
        try:
            con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as err:
            raise InputError(f"{self._named('the workspace store')} could not be written: {err}") from None
        try:
            con.execute("PRAGMA locking_mode = EXCLUSIVE")
            con.execute("PRAGMA journal_mode = MEMORY")
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("BEGIN IMMEDIATE")
            try:
                _delete_rows(con, set_id)
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            con.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error as err:
            raise InputError(
                f"{self._named('the workspace store')} could not be written even in place: {err}; free space on "
                "its disk"
            ) from None
        finally:
            con.close()

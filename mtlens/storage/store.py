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

The store is split by concern (one module each, :mod:`mtlens.storage`): :mod:`.database` (connection,
schema check, sizes), :mod:`.schema`, :mod:`.sets`, :mod:`.runs`, :mod:`.owners`, :mod:`.pins`, :mod:`.statistics`,
:mod:`.registry` (neural checkpoints and cached scores), :mod:`.judges` (LLM judges and their cached answers) and
:mod:`.job_rows`; :class:`Store` is all of them.
"""

from __future__ import annotations

from ..core.corpus import Corpus  # noqa: F401  (the doctest below)
from .database import BALLAST_BYTES, BALLAST_NAME, DEFAULT_MAX_MB, DEFAULT_OWNER_MB, Database, default_data_dir
from .job_rows import JobRows
from .judges import Judges
from .names import SAMPLE_ID, new_id
from .owners import Owners
from .pins import MAX_PIN_NOTE, MAX_PINS, Pin, Pins
from .registry import Registry
from .runs import Run, Runs
from .schema import APP_ID, FILE_NAME, MIGRATIONS, SCHEMA_VERSION
from .sets import SavedSet, SetInfo, Sets
from .statistics import Statistics

__all__ = [
    "APP_ID",
    "BALLAST_BYTES",
    "BALLAST_NAME",
    "DEFAULT_MAX_MB",
    "DEFAULT_OWNER_MB",
    "FILE_NAME",
    "MAX_PINS",
    "MAX_PIN_NOTE",
    "MIGRATIONS",
    "SAMPLE_ID",
    "SCHEMA_VERSION",
    "Pin",
    "Run",
    "SavedSet",
    "SetInfo",
    "Store",
    "default_data_dir",
    "new_id",
]


class Store(Sets, Runs, Pins, Owners, Statistics, Registry, Judges, JobRows, Database):
    """The workspace database in ``data_dir`` (created on first write).

    Example:
        >>> import tempfile
        >>> st = Store(tempfile.mkdtemp())
        >>> c = Corpus.build({"ref": ["a b", "c"]}, {"A": ["a b", "d"]})
        >>> sid = st.save(c, "demo")
        >>> [s.name for s in st.list()], st.load(sid).corpus.systems["A"]
        (['demo'], ('a b', 'd'))
    """

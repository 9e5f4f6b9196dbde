"""The store's schema: its version, the file name, the application id that marks our own files, and the
migrations that bring a database from each version to the next."""

from __future__ import annotations

SCHEMA_VERSION = 9

FILE_NAME = "mtlens.sqlite3"

APP_ID = 0x6D746C73  # "mtls": PRAGMA application_id, to recognise our own files

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
    5: (
        # runs (issue 34): when a system output was made, its family (lineage) and free metadata; a system
        # without a row is a run of no family made when its set was saved (mtlens/storage/runs.py)
        """CREATE TABLE runs (
            set_id TEXT NOT NULL REFERENCES sets(id) ON DELETE CASCADE,
            system TEXT NOT NULL,
            family TEXT,
            at TEXT NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (set_id, system)
        )""",
        # every line's document id and domain (issue 35), as JSON {"documents": [...], "domains": [...]}
        "ALTER TABLE sets ADD COLUMN segments TEXT",
    ),
    6: (
        # LLM judges (issue 48): an OpenAI-compatible endpoint, its model and GEMBA protocol, registered by the
        # operator; the key is never here, only the name of the environment variable that holds it
        """CREATE TABLE judges (
            name TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            model TEXT NOT NULL,
            protocol TEXT NOT NULL,
            key_env TEXT,
            samples INTEGER NOT NULL,
            concurrency INTEGER NOT NULL,
            price_in REAL,
            price_out REAL,
            added TEXT NOT NULL
        )""",
        # a judge's answers, keyed by what determines them: the endpoint, the model, the protocol's version, the
        # prompt's digest and the sample's index (mtlens/judges/compute.py); shared by every set and visitor
        """CREATE TABLE judge_answers (
            key TEXT PRIMARY KEY,
            answer TEXT NOT NULL,
            finish TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            temperature REAL NOT NULL,
            created REAL NOT NULL
        )""",
    ),
    # 7: a judge may score the references too (issue 50: is the reference the problem?), at the operator's choice
    7: ("ALTER TABLE judges ADD COLUMN score_references INTEGER NOT NULL DEFAULT 0",),
    # 8: a MetricX-24 checkpoint (issue 49) names its mT5 tokenizer's folder and the dtype its weights compute in
    8: ("ALTER TABLE models ADD COLUMN tokenizer TEXT", "ALTER TABLE models ADD COLUMN dtype TEXT"),
    # 9: judges that vote (issue 61): every sample's temperature (NULL: the first at 0, the others at 1) and how a
    # segment's samples become its score
    9: (
        "ALTER TABLE judges ADD COLUMN temperature REAL",
        "ALTER TABLE judges ADD COLUMN aggregate TEXT NOT NULL DEFAULT 'mean'",
    ),
}

#: every table, parents before the tables that refer to them (what ``mtlens store copy`` copies, in order)
TABLES = (
    "sets",
    "streams",
    "files",
    "stats",
    "members",
    "models",
    "neural",
    "jobs",
    "pins",
    "runs",
    "judges",
    "judge_answers",
)
#: the tables read back in insertion order (``ORDER BY rowid``; on PostgreSQL they get a ``rowid`` column)
ORDERED = ("files", "pins")

"""A real PostgreSQL server on loopback for the tests and the load benchmark: ``initdb`` and ``pg_ctl`` (Debian's
``postgresql`` package) in a temporary folder, a free port on 127.0.0.1, trust authentication, removed at
the end. As root (CI's containers) the server runs as the ``postgres`` user, which initdb requires."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .ports import free_port


class Unavailable(RuntimeError):
    """No PostgreSQL binaries or psycopg here (the sentence says what to install)."""


def binary(name: str) -> str:
    """``name`` on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest version)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    if candidates:
        return candidates[-1]
    raise Unavailable(f"PostgreSQL's {name} is missing (Debian: apt-get install postgresql)")


class Server:
    """One server; :meth:`database` makes a fresh database and returns its URL."""

    def __init__(self):
        try:
            import psycopg  # noqa: F401
        except ImportError as err:
            raise Unavailable(f"psycopg is missing ({err}); pip install -r requirements-dev.txt") from None
        self.initdb, self.pg_ctl = binary("initdb"), binary("pg_ctl")
        self.home = Path(tempfile.mkdtemp(prefix="mtlens-pg-"))
        self.data = self.home / "data"
        self.port = free_port()
        self.user = "mtlens"
        self._as = []
        if os.geteuid() == 0:  # initdb refuses root
            os.chmod(self.home, 0o755)
            shutil.chown(self.home, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._n = 0
        self._run(
            self.initdb, "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8", "--locale=C", "--no-sync"
        )
        self.start()
        self.admin = f"postgresql://{self.user}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        # fsync off: the operating system's cache survives a killed server (what the tests do), and the
        # tests need no power-loss safety; commits are still written to the log before they are
        # acknowledged (synchronous_commit stays on), so an immediate stop loses nothing acknowledged
        opts = f"-p {self.port} -k {self.home} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(
            self.pg_ctl, "-D", str(self.data), "-o", opts, "-l", str(self.home / "log"), "-w", "-t", "60", "start"
        )

    def _run(self, *args: str) -> None:
        proc = subprocess.run([*self._as, *args], capture_output=True, text=True)
        if proc.returncode:
            log = self.home / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed: {proc.stderr[-2000:]} {tail}")

    def database(self, name: str | None = None) -> str:
        """A new empty database; its URL."""
        import psycopg

        self._n += 1
        name = name or f"t{self._n}_{os.getpid()}"
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{name}"

    def drop(self, url: str) -> None:
        """Drop a database (its connections closed first)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def restart(self) -> None:
        """Stop and start again (a database that goes away and comes back)."""
        self.stop(remove=False)
        time.sleep(0.2)
        self.start()

    def stop(self, remove: bool = True) -> None:
        """Stop at once (``immediate``: as a crash; the next start recovers from the log)."""
        with contextlib.suppress(Exception):
            self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop")
        if remove:
            shutil.rmtree(self.home, ignore_errors=True)

"""What a browser test's server was doing when the test took far longer than it should.

A browser test takes about ten seconds alone; in full CI runs one of them now and then took two or three minutes, a
different one each time, and once ran out of time. To say why, every dashboard server the browser tests start
(:func:`tests.app.test_browser.running_server`) registers Python's ``faulthandler`` on ``SIGUSR1``; while a test has
run longer than :data:`STALL_S`, a watcher thread asks each live server for its threads' stacks every
:data:`EVERY_S` seconds (they go to the server's log). Such a test's report then carries what its servers logged during
it (a section "stalled servers"), and the run's summary prints it, failed or passed (``tests/conftest.py``).

Diagnostics only: nothing here decides whether a test passes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

#: a test running longer than this (seconds) has its servers' stacks dumped
STALL_S = float(os.environ.get("MTLENS_TEST_STALL_S", "60"))
#: and again every this many seconds while it runs
EVERY_S = min(30.0, STALL_S)
#: at most this many characters of a server's log go into a report
MAX_CHARS = 40_000
#: the Python code a test server runs: Streamlit's command line, with the stacks on SIGUSR1
LAUNCH = (
    "import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
    "sys.argv[0] = 'streamlit'; from streamlit.web.cli import main; sys.exit(main())"
)

_servers: dict[int, tuple[subprocess.Popen, Path]] = {}
_lock = threading.Lock()
_test = {"since": None, "offsets": {}}


def started(proc: subprocess.Popen, log: Path) -> None:
    """A server is running (its log at ``log``): watch it while it lives."""
    with _lock:
        _servers[proc.pid] = (proc, log)
        _test["offsets"].setdefault(proc.pid, 0)
    _ensure_watcher()


def stopped(proc: subprocess.Popen) -> None:
    with _lock:
        _servers.pop(proc.pid, None)


def test_begins() -> None:
    with _lock:
        _test["since"] = time.monotonic()
        _test["offsets"] = {pid: _size(log) for pid, (_, log) in _servers.items()}


def test_ends(duration: float) -> str | None:
    """The servers' log lines written during a test longer than :data:`STALL_S` (None otherwise)."""
    with _lock:
        _test["since"] = None
        servers = dict(_servers)
        offsets = dict(_test["offsets"])
    if duration < STALL_S:
        return None
    parts = []
    for pid, (_, log) in servers.items():
        try:
            with open(log, "rb") as f:
                f.seek(offsets.get(pid, 0))
                text = f.read().decode("utf-8", "replace")
        except OSError as e:
            text = f"(log unreadable: {e})"
        parts.append(f"--- server {pid} ({log.name}), during the test:\n{text[-MAX_CHARS:]}")
    return f"the test took {duration:.0f} s\n" + "\n".join(parts)


def _size(log: Path) -> int:
    try:
        return log.stat().st_size
    except OSError:
        return 0


_watcher: threading.Thread | None = None


def _ensure_watcher() -> None:
    global _watcher
    with _lock:
        if _watcher is None:
            _watcher = threading.Thread(target=_watch, name="stall-watcher", daemon=True)
            _watcher.start()


def _machine() -> str:
    """The load average and the busiest processes now (what else had the cores)."""
    try:
        load = Path("/proc/loadavg").read_text().strip()
        top = subprocess.run(
            ["ps", "-eo", "pid,ppid,pcpu,rss,etimes,args", "--sort=-pcpu"], capture_output=True, text=True, timeout=10
        ).stdout.splitlines()[:12]
    except (OSError, subprocess.SubprocessError) as e:
        return f"(load unknown: {e})"
    return f"load {load}; the busiest processes:\n" + "\n".join(line[:200] for line in top)


def _watch() -> None:
    last = 0.0
    while True:
        time.sleep(2.0)
        with _lock:
            since = _test["since"]
            servers = list(_servers.values())
        now = time.monotonic()
        if since is None or now - since < STALL_S or now - last < EVERY_S:
            continue
        last = now
        for proc, log in servers:
            if proc.poll() is not None:
                continue
            try:
                with open(log, "a", encoding="utf-8") as f:
                    f.write(f"\n=== {time.strftime('%H:%M:%S')}: the test has run {now - since:.0f} s; {_machine()}")
                    f.write("\nthe server's threads:\n")
                os.kill(proc.pid, signal.SIGUSR1)
            except OSError:
                pass

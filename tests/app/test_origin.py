"""The dashboard's WebSocket from another local web page (issue 38, item 10): a real server started as
the README's command does (app.py, loopback), and WebSocket handshakes with the Origin header a
browser would send from each page."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import websockets

from mtlens.ui.origin import refused

from .test_browser import running_server


def _handshake(url: str, origin: str) -> str:
    async def go():
        try:
            async with websockets.connect(url, origin=origin, open_timeout=20):
                return "accepted"
        except websockets.exceptions.InvalidStatus as err:
            return f"refused {err.response.status_code}"

    return asyncio.run(go())


def test_a_page_on_another_local_port_cannot_open_the_dashboards_stream(tmp_path):
    env = dict(os.environ, MTLENS_DATA_DIR=str(tmp_path / "ws"))
    with running_server(tmp_path, env=env) as url:
        port = url.rsplit(":", 1)[1]
        stream = f"ws://127.0.0.1:{port}/_stcore/stream"
        assert _handshake(stream, f"http://127.0.0.1:{port}") == "accepted"  # the dashboard's own page
        for other in (
            "http://localhost:3000",
            "http://127.0.0.1:8888",
            f"http://localhost:{port}",
            f"http://0.0.0.0:{port}",
        ):
            assert _handshake(stream, other) == "refused 403", other
        assert _handshake(stream, "https://evil.example") == "refused 403"  # Streamlit's own check


@pytest.mark.parametrize(
    ("origin", "host", "out"),
    [
        ("http://localhost:8501", "localhost:8501", False),
        ("http://[::1]:8501", "[::1]:8501", False),
        ("http://127.0.0.1:8501", "LOCALHOST:8501", True),
        ("http://127.0.0.2:9000", "127.0.0.1:9000", True),
        ("http://[::1]:3000", "[::1]:8501", True),
        ("http://mtlens.example.org", "mtlens.example.org", False),  # left to Streamlit and the proxy
        ("http://[bad", "localhost:8501", True),
        ("http://0.0.0.0:8501", "127.0.0.1:8501", True),  # browsers send 0.0.0.0 to this machine (issue 51)
        ("http://[::]:8501", "localhost:8501", True),
    ],
)
def test_which_origins_are_refused(origin, host, out):
    assert refused(origin, host) is out


def _server_pid(port: str) -> int:
    from ..memory import _descendants

    for pid in _descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(cmd) and port.encode() in cmd:
            return pid
    raise AssertionError("the server's process was not found")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_stopping_the_server_stops_every_process_it_started(tmp_path):
    """Issue 38, item 9: after SIGTERM to a server that had scored a set, its forkserver, a pool worker and
    multiprocessing's resource tracker kept running under PID 1. The server now stops them when it
    stops."""
    import random
    import signal
    import time
    import urllib.request

    from mtlens import Corpus
    from mtlens.storage.store import Store

    from ..memory import _descendants, process_exists

    rng = random.Random(0)
    words = [f"w{k}" for k in range(900)]
    lines = [[" ".join(rng.choices(words, k=30)) for _ in range(6000)] for _ in range(4)]
    data = tmp_path / "ws"
    sid = Store(data).save(Corpus.build({"r": lines[0]}, {f"S{k}": lines[k] for k in (1, 2, 3)}), "big")
    env = dict(os.environ, MTLENS_DATA_DIR=str(data), MTLENS_WORKERS="2")
    with running_server(tmp_path, env=env) as url:
        port = url.rsplit(":", 1)[1]
        with urllib.request.urlopen(f"{url}/quick/rankings?set={sid}&metrics=chrf,ter", timeout=600) as r:
            assert r.status == 200
        server = _server_pid(port)
        started = [p for p in _descendants(server) if p != server]
        kinds = " ".join(_cmdline(p) for p in started)
        assert "forkserver" in kinds and "resource_tracker" in kinds, kinds  # it did start helpers
        os.kill(server, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(process_exists(p) for p in [server, *started]):
            time.sleep(0.2)
        left = [f"{p}: {_cmdline(p)[:100]}" for p in started if process_exists(p) and _cmdline(p)]
        assert not left, left

"""The dashboard's WebSocket from another local web page (issue 38, item 10): a real server started as
the README's command does (app.py, loopback), and WebSocket handshakes with the Origin header a
browser would send from each page."""

from __future__ import annotations

import asyncio
import os

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
        for other in ("http://localhost:3000", "http://127.0.0.1:8888", f"http://localhost:{port}"):
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
    ],
)
def test_which_origins_are_refused(origin, host, out):
    assert refused(origin, host) is out

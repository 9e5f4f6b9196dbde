"""Streamlit's own scripts, style sheets and fonts answered from memory (docs/decisions.md, "Serving many visitors").

A new browser session asks for about 60 files the page names (2.4 MB) before its first message. Streamlit answers
each through its whole stack of middleware and a file response that opens, reads and streams the file in worker
threads: about 50 ms of the server's CPU per new visitor, as much as drawing the Rankings themselves, and all of it
under the interpreter lock the pages' scripts share. This ASGI middleware, in front of Streamlit's, answers a plain
``GET`` or ``HEAD`` of one of those files (``/static/...`` under the server's base path) from a copy kept in memory,
with the headers Streamlit's own answer has (type, length, last-modified, ETag, cache control); a test holds the two
equal.

Only the files of Streamlit's own static folder are answered, looked up by their exact relative name in the list made
when the server starts: no path from a request ever reaches the file system. Everything else, and any request with a
``Range`` or a conditional header, goes on to Streamlit unchanged. The copies are bounded (:data:`MAX_BYTES`); past
the bound a file is answered by Streamlit as before.
"""

from __future__ import annotations

import hashlib
import os
import threading
from email.utils import formatdate
from mimetypes import guess_type
from pathlib import Path

#: at most this many bytes of files kept (a page's scripts are about 2.4 MB; a chart's or a table's add a few MB)
MAX_BYTES = 48 * 1024 * 1024
#: a request with any of these goes on to Streamlit (partial and conditional answers are its to give)
_PASS_HEADERS = (b"range", b"if-none-match", b"if-modified-since", b"if-range", b"if-match", b"if-unmodified-since")


def static_folder() -> Path:
    """Streamlit's folder of built front-end files (``index.html`` and ``static/``)."""
    from streamlit import file_util

    return Path(file_util.get_static_dir())


class KeptAssets:
    """ASGI middleware: ``GET``/``HEAD`` of Streamlit's ``static/`` files answered from memory (module docstring)."""

    def __init__(self, app, folder: Path | None = None, base_url: str | None = None):
        self.app = app
        root = folder or static_folder()
        if base_url is None:
            import streamlit as st

            base_url = st.get_option("server.baseUrlPath") or ""
        base = base_url.strip("/")
        self.prefix = f"/{base}/" if base else "/"
        # every file Streamlit would serve under static/, by its exact relative name (no request path is ever joined)
        self.files: dict[str, Path] = {}
        for path in (root / "static").rglob("*"):
            if path.is_file() and not path.is_symlink():
                self.files[path.relative_to(root).as_posix()] = path
        self._kept: dict[str, tuple[list[tuple[bytes, bytes]], bytes]] = {}
        self._size = 0
        self._lock = threading.Lock()

    def _answer(self, name: str) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        """The headers and body of ``name`` (a key of :attr:`files`), read once; None past the bound."""
        kept = self._kept.get(name)
        if kept is not None:
            return kept
        path = self.files[name]
        try:
            stat = path.stat()
            with self._lock:
                if self._size + stat.st_size > MAX_BYTES:
                    return None
            body = path.read_bytes()
        except OSError:  # gone or unreadable since the server started (Streamlit upgraded under it): Streamlit answers
            return None
        if len(body) != stat.st_size:  # changed while read: let Streamlit answer
            return None
        headers = _headers(name, stat, len(body))
        with self._lock:
            if name not in self._kept and self._size + len(body) <= MAX_BYTES:
                self._kept[name] = (headers, body)
                self._size += len(body)
        return headers, body

    async def __call__(self, scope, receive, send):
        if scope.get("type") == "http" and scope.get("method") in ("GET", "HEAD"):
            path = scope.get("path", "")
            name = path[len(self.prefix) :] if path.startswith(self.prefix) else None
            if name in self.files and not any(k in _PASS_HEADERS for k, _ in scope.get("headers", ())):
                answer = self._answer(name)
                if answer is not None:
                    headers, body = answer
                    await send({"type": "http.response.start", "status": 200, "headers": headers})
                    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
                    return
        await self.app(scope, receive, send)


def _headers(name: str, stat: os.stat_result, size: int) -> list[tuple[bytes, bytes]]:
    """The headers of Streamlit's answer for a hashed asset: Starlette's file response's (type, length,
    last-modified, ETag, ranges accepted) and Streamlit's cache control."""
    from streamlit.web.server.starlette.starlette_server_config import STATIC_ASSET_CACHE_MAX_AGE_SECONDS

    media_type = guess_type(name)[0] or "application/octet-stream"
    if media_type.startswith("text/"):
        media_type += "; charset=utf-8"
    etag = hashlib.md5(f"{stat.st_mtime}-{stat.st_size}".encode(), usedforsecurity=False).hexdigest()
    return [
        (b"content-type", media_type.encode("latin-1")),
        (b"accept-ranges", b"bytes"),
        (b"content-length", str(size).encode("latin-1")),
        (b"last-modified", formatdate(stat.st_mtime, usegmt=True).encode("latin-1")),
        (b"etag", f'"{etag}"'.encode("latin-1")),
        (b"cache-control", f"public, immutable, max-age={STATIC_ASSET_CACHE_MAX_AGE_SECONDS}".encode("latin-1")),
    ]

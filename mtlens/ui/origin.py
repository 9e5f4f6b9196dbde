"""The server's WebSocket origin check for loopback origins (docs/security.md, "Origins").

Streamlit accepts the dashboard's WebSocket from any page served by ``localhost`` or ``127.0.0.1``,
whatever its port, so another local web application (a development server, a notebook, a page a
local tool serves) could open the dashboard's stream and act as its visitor: in local mode, the
operator. This ASGI middleware, which ``app.py`` puts in front of Streamlit, refuses a WebSocket whose
``Origin`` names a loopback host other than the one the request was addressed to (host and port).
Origins of other hosts are left to Streamlit's own check (``server.enableCORS``,
``server.corsAllowedOrigins``) and to the reverse proxy of a shared server.
"""

from __future__ import annotations

import ipaddress
import logging
from urllib.parse import urlsplit

from ..core.access import is_loopback

_LOG = logging.getLogger(__name__)


def refused(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket from ``origin`` to a request addressed to ``host`` is refused: a loopback
    origin on another host or port.

    >>> refused("http://localhost:3000", "localhost:8501"), refused("http://localhost:8501", "localhost:8501")
    (True, False)
    >>> refused("https://example.org", "localhost:8501"), refused(None, "localhost:8501")
    (False, False)
    >>> refused("http://0.0.0.0:8501", "localhost:8501"), refused("http://[::]:3000", "127.0.0.1:8501")
    (True, True)
    """
    if not origin:
        return False  # not a browser: nothing a page could abuse
    try:
        parts = urlsplit(origin)
        origin_host = parts.hostname or ""
    except ValueError:
        return True
    if not (is_loopback(origin_host.strip("[]")) or _unspecified(origin_host.strip("[]"))):
        return False
    return parts.netloc.lower() != (host or "").strip().lower()


def _unspecified(host: str) -> bool:
    """``0.0.0.0`` or ``::``: browsers send such a page's requests to this machine ("0.0.0.0 day"), so its
    origin is a local one (issue 51: Streamlit's own check let ``http://0.0.0.0:PORT`` through)."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


class SameOriginWebSockets:
    """ASGI middleware: closes, before accepting it, a WebSocket :func:`refused` refuses (HTTP 403)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") == "websocket":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
            if refused(headers.get("origin"), headers.get("host")):
                _LOG.warning(
                    "refused a WebSocket from origin %r to host %r", headers.get("origin"), headers.get("host")
                )
                await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)

"""What ``app.py`` gives Streamlit's ASGI application besides the pages: the quick view's routes
(:mod:`.quick`), the WebSocket origin check (:mod:`.origin`) and a lifespan that stops, when the server
stops, every process it started to score (docs/security.md, "Processes")."""

from __future__ import annotations

import contextlib

from starlette.middleware import Middleware

from ..service.results import stop_workers
from .origin import SameOriginWebSockets
from .quick import routes


@contextlib.asynccontextmanager
async def lifespan(_app):
    """When the server stops (SIGTERM, Ctrl-C), the processes it started to score stop with it: uvicorn
    re-raises the signal once it has shut down, so ``atexit`` would never run."""
    try:
        yield
    finally:
        stop_workers()


def app_parts() -> dict:
    """The keyword arguments of ``st.App`` for mtlens."""
    return {"routes": routes(), "middleware": [Middleware(SameOriginWebSockets)], "lifespan": lifespan}

"""What ``app.py`` gives Streamlit's ASGI application besides the pages: the quick view's routes (:mod:`.quick`), the
WebSocket origin check (:mod:`.origin`), Streamlit's own front-end files answered from memory (:mod:`.assets`) and a
lifespan that stops, when the server stops, every process it started to score (docs/security.md, "Processes")."""

from __future__ import annotations

import contextlib
import gc
import importlib
import pkgutil

from starlette.middleware import Middleware

from ..service.results import stop_workers
from .assets import KeptAssets
from .origin import SameOriginWebSockets
from .quick import routes


def freeze_imports() -> None:
    """Import every page's code now, then move every object the server holds to Python's permanent
    generation (``gc.freeze``). Python's own full collections then skip every object of the imported libraries
    (pandas, plotly, numpy, mtlens). Streamlit's full collection after each script run (``runner.postScriptGC``)
    walked them all, about a quarter of the server's CPU time under load; with them frozen still a sixth, so the
    dashboard's configuration turns it off. Measured with 20 light visitors (docs/decisions.md, "Serving many
    visitors")."""
    from . import screens

    for module in pkgutil.iter_modules(screens.__path__):
        importlib.import_module(f"{screens.__name__}.{module.name}")
    importlib.import_module("plotly.graph_objects")
    gc.collect()
    gc.freeze()


@contextlib.asynccontextmanager
async def lifespan(_app):
    """Before the server answers, the pages' code is imported and frozen (:func:`freeze_imports`). When the
    server stops (SIGTERM, Ctrl-C), the processes it started to score stop with it: uvicorn re-raises the
    signal once it has shut down, so ``atexit`` would never run."""
    freeze_imports()
    try:
        yield
    finally:
        stop_workers()


def app_parts() -> dict:
    """The keyword arguments of ``st.App`` for mtlens."""
    return {
        "routes": routes(),
        "middleware": [Middleware(SameOriginWebSockets), Middleware(KeptAssets)],
        "lifespan": lifespan,
    }

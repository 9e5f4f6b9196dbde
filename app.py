"""mtlens: the dashboard's entry point (``streamlit run app.py``).

Streamlit runs this file in two roles:

- as every session's home page (the script, ``__name__ == "__main__"``): load references and system
  outputs, or the bundled sample (:func:`mtlens.ui.home.page`);
- once per server, imported as a module, because it holds an ``st.App``: Streamlit then serves the
  dashboard and, beside it, the quick views of saved sets (plain HTML drawn on the server,
  :mod:`mtlens.ui.quick`; docs/decisions.md, "Reopening a set"), with the WebSocket origin check of
  :mod:`mtlens.ui.origin` in front.
"""

from __future__ import annotations

import streamlit as st

if __name__ == "__main__":
    from mtlens.ui.home import page

    page()
else:
    import contextlib

    from starlette.middleware import Middleware

    from mtlens.service.results import stop_workers
    from mtlens.ui.origin import SameOriginWebSockets
    from mtlens.ui.quick import routes

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        """When the server stops (SIGTERM, Ctrl-C), the processes it started to score stop with it."""
        try:
            yield
        finally:
            stop_workers()

    app = st.App(__file__, routes=routes(), middleware=[Middleware(SameOriginWebSockets)], lifespan=lifespan)

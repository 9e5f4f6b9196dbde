"""The quick view of a saved set: its Rankings as plain HTML drawn on the server, beside the dashboard.

A link to a set's Rankings in the dashboard opens a Streamlit page: the browser first loads and runs
Streamlit's scripts, which alone takes about 1.6 s in a new browser session on a 2-core machine
(docs/decisions.md, "Reopening a set"). ``/quick/rankings?set=ID`` answers with the same table as one
page of HTML with no script (:func:`mtlens.service.rankings.saved`, :func:`mtlens.service.rankings.to_html`), and a
link to the dashboard for everything else. ``app.py`` serves it through Streamlit's own server
(``st.App(..., routes=routes())``).

Who may see it is decided as for the dashboard (docs/security.md): a set's link lets anyone read the
set; a server that listens on loopback answers only requests addressed to a loopback name; a server
with a login sends the visitor to the dashboard's page, which asks them to sign in.
"""

from __future__ import annotations

import logging
import threading
from html import escape
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..core.access import OPERATOR, Visitor, host_allowed
from ..core.errors import InputError
from ..service import rankings
from ..service.sets import Store

PATH = rankings.QUICK_PATH
#: a set id longer than this is no set id (ids are short digests or "sample")
MAX_ID = 64
#: a link longer than this (its query, in characters) is refused: every parameter of a view fits many times
MAX_QUERY = 4096
_LOG = logging.getLogger(__name__)
#: quick views drawn at once; the others wait for a turn. Drawing one is Python work that holds the interpreter lock,
#: so twenty drawn side by side finish no sooner than one after another (the last about when all twenty would), while
#: each holds its set's texts, statistics and resamples meanwhile: twenty visitors arriving together made the
#: server's largest peak of memory (docs/speed.md, "Load"). A view that must first score its set (its first visit)
#: keeps its turn while the engine's processes score, so there are a few turns, not one.
AT_ONCE = 4
_turns = threading.BoundedSemaphore(AT_ONCE)
_HEADERS = {
    # nothing but the page's own inline style: no script, no frame, no outside request
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",  # a set can gain systems: the page is drawn anew each time
}


def dashboard_link(params) -> str:
    """The dashboard's Rankings with the same parameters, relative to the quick view's address."""
    return f"../Rankings?{urlencode(rankings.view_params(params))}"


def _page(status: int, title: str, message: str) -> HTMLResponse:
    body = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>mtlens · {escape(title)}</title></head>"
        f"<body style='font-family:system-ui,sans-serif;margin:2rem'><h1>{escape(title)}</h1><p>{escape(message)}</p>"
        "<p><a href='../'>Open the dashboard</a></p></body></html>"
    )
    return HTMLResponse(body, status_code=status, headers=_HEADERS)


def rankings_view(request: Request) -> Response:
    """``GET /quick/rankings?set=ID``: the set's Rankings (a plain function: Starlette runs it in a worker
    thread, so scoring never holds up the server's other requests)."""
    from . import identity

    host = request.headers.get("host")
    if not host_allowed(host, identity.address()):
        return _page(400, "Wrong address", "This dashboard listens on this machine only; open it at http://localhost.")
    if len(request.url.query) > MAX_QUERY:
        return _page(414, "Link too long", "That link is longer than any link mtlens makes.")
    params = rankings.view_params(request.query_params)
    set_id = params.get("set", "").strip()
    if not set_id:
        return RedirectResponse("../", status_code=303)
    if identity.login_configured():  # the dashboard's page asks the visitor to sign in first
        return RedirectResponse(dashboard_link(params), status_code=303)
    if len(set_id) > MAX_ID:
        return _page(404, "No such set", "That link does not name a saved set.")
    try:
        # anyone with a link: no paths, and statistics stored only for the set's own options
        reader = OPERATOR if identity.mode() == "local" else LINK_READER
        with _turns:
            rk = rankings.saved(Store(reveal_path=False), set_id, params, reader)
    except InputError as err:
        return _page(404, "Cannot show this set", str(err))
    except Exception:  # the visitor gets one sentence; the server's log gets the details
        _LOG.exception("quick view of set %r failed", set_id)
        return _page(500, "Not available", "This view could not be drawn; the dashboard may still open the set.")
    return HTMLResponse(rankings.to_html(rk, dashboard_link(params)), headers=_HEADERS)


#: who asks for a quick view on a shared server: anyone with the link (no cookie is read), who may
#: read the set and change nothing
LINK_READER = Visitor("link:anyone", "anyone with the link")


def routes() -> list[Route]:
    """The routes ``app.py`` serves beside the dashboard, under the server's ``server.baseUrlPath`` as the
    dashboard's pages are (Streamlit serves an app's own routes from the root)."""
    import streamlit as st

    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return [Route(f"/{base}{PATH}" if base else PATH, rankings_view, methods=["GET"])]

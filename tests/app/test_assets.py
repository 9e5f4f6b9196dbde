"""Streamlit's front-end files answered from memory (mtlens/ui/assets.py): the same answer as Streamlit's own, on a
real server started as the README's command does; only exact names of Streamlit's static folder, only plain GET and
HEAD; everything else goes on to Streamlit."""

from __future__ import annotations

import asyncio
import re
import urllib.request

from mtlens.ui import assets
from mtlens.ui.assets import KeptAssets

from .test_browser import running_server

#: an answer's headers that differ between two answers of the same file (uvicorn's own)
_PER_ANSWER = {"date", "connection", "server"}


def _named_by_index() -> list[str]:
    """The files Streamlit's page names (what a new browser session asks for first)."""
    html = (assets.static_folder() / "index.html").read_text(encoding="utf-8")
    return re.findall(r'(?:src|href)="\./(static/[^"]+)"', html)


def _get(url: str, headers: dict | None = None, method: str = "GET") -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    with urllib.request.urlopen(request, timeout=60) as r:
        kept = {k.lower(): v for k, v in r.headers.items() if k.lower() not in _PER_ANSWER}
        return r.status, kept, r.read()


def test_a_kept_file_is_answered_as_streamlit_answers_it(tmp_path):
    """Each file the page names, and one a table loads later, from a server with the middleware: the answer from
    memory equals Streamlit's own answer of the same server (asked with a conditional header, which goes on to
    Streamlit), header for header, and the file's bytes on disk."""
    names = _named_by_index()
    assert len(names) > 20 and any(n.endswith(".css") for n in names) and any(n.endswith(".woff2") for n in names)
    later = next(p for p in (assets.static_folder() / "static" / "js").glob("DataFrame.*.js"))
    names.append(later.relative_to(assets.static_folder()).as_posix())
    with running_server(tmp_path) as url:
        for name in names:
            status, headers, body = _get(f"{url}/{name}")
            old = {"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"}  # modified since: Streamlit's full answer
            s_status, s_headers, s_body = _get(f"{url}/{name}", old)
            assert (status, headers) == (s_status, s_headers), name
            assert body == s_body == (assets.static_folder() / name).read_bytes(), name
            h_status, h_headers, h_body = _get(f"{url}/{name}", method="HEAD")
            assert (h_status, h_headers, h_body) == (status, headers, b""), name
        assert _get(f"{url}/{names[0]}", {"Range": "bytes=0-9"})[2] == body_of(names[0])[:10]  # Streamlit's ranges


def body_of(name: str) -> bytes:
    return (assets.static_folder() / name).read_bytes()


class _Inner:
    """The application behind the middleware: records each request that reached it."""

    def __init__(self):
        self.reached: list[str] = []

    async def __call__(self, scope, receive, send):
        self.reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b"inner"})


def _ask(app, path: str, method: str = "GET", headers=()) -> tuple[int, bytes]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": list(headers)}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_only_exact_names_of_streamlits_static_folder_are_answered_and_the_rest_goes_on():
    inner = _Inner()
    app = KeptAssets(inner, base_url="")
    name = _named_by_index()[0]
    assert _ask(app, f"/{name}") == (200, body_of(name))
    assert _ask(app, f"/{name}", "HEAD") == (200, b"")
    assert not inner.reached
    passed = [
        f"/{name}/",  # not the name
        f"//{name}",
        f"/static/js/../../{name.removeprefix('static/')}",  # no path is ever resolved
        "/static/js/missing.js",
        "/index.html",  # the page itself: Streamlit's (no-cache, and every page's address)
        "/Rankings",
        "/app.py",
    ]
    for path in passed:
        assert _ask(app, path) == (404, b"inner"), path
    assert _ask(app, f"/{name}", "POST") == (404, b"inner")
    for header in (b"range", b"if-none-match", b"if-modified-since"):
        assert _ask(app, f"/{name}", headers=[(header, b"x")]) == (404, b"inner"), header
    assert inner.reached == [*passed, f"/{name}", f"/{name}", f"/{name}", f"/{name}"]


def test_under_a_base_path_and_past_the_bound_streamlit_answers(monkeypatch):
    inner = _Inner()
    app = KeptAssets(inner, base_url="/team/")
    first, second = sorted(_named_by_index(), key=lambda n: len(body_of(n)))[-2:]  # the two largest
    assert _ask(app, f"/team/{first}") == (200, body_of(first))
    assert _ask(app, f"/{first}") == (404, b"inner")
    monkeypatch.setattr(assets, "MAX_BYTES", len(body_of(first)) + len(body_of(second)) - 1)
    bounded = KeptAssets(inner, base_url="")
    assert _ask(bounded, f"/{first}") == (200, body_of(first))
    assert _ask(bounded, f"/{second}") == (404, b"inner")  # it would pass the bound: Streamlit answers
    assert _ask(bounded, f"/{first}") == (200, body_of(first))
    assert inner.reached == [f"/{first}", f"/{second}"]


def test_the_dashboard_server_puts_it_in_front_of_streamlit():
    from mtlens.ui.server import app_parts

    assert [m.cls for m in app_parts()["middleware"]][-1] is KeptAssets


def test_a_websocket_goes_on():
    inner = _Inner()
    app = KeptAssets(inner, base_url="")
    scope = {"type": "websocket", "path": f"/{_named_by_index()[0]}", "headers": []}

    async def go():
        await app(scope, None, lambda message: asyncio.sleep(0))

    asyncio.run(go())
    assert inner.reached == [scope["path"]]


def test_a_file_gone_since_the_server_started_goes_on_to_streamlit(tmp_path):
    """Streamlit upgraded under a running server: a listed file that is no longer there is Streamlit's to answer."""
    (tmp_path / "static" / "js").mkdir(parents=True)
    gone = tmp_path / "static" / "js" / "gone.js"
    gone.write_text("x")
    inner = _Inner()
    app = KeptAssets(inner, folder=tmp_path, base_url="")
    gone.unlink()
    assert _ask(app, "/static/js/gone.js") == (404, b"inner")

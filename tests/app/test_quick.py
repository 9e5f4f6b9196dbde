"""The quick view of a saved set (mtlens.ui.quick): the route's answers (Starlette's test client, the same
application object Streamlit serves), and the same table, cell by cell, as the dashboard's Rankings page
(AppTest) for the same set."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sacrebleu.metrics import BLEU
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit.testing.v1 import AppTest

from mtlens import Corpus
from mtlens.service import rankings
from mtlens.ui import identity, quick

from ..conftest import ROOT
from .conftest import TIMEOUT, no_errors, plain, shown

LOCAL = "http://localhost:8501"
REFS = [f"the cat sat on mat number {k}" for k in range(60)]
SYSTEMS = {
    "A <i>": [f"the cat sat on the mat {k}" for k in range(60)],
    "B": [f"a cat sits on mat number {k}" for k in range(60)],
    "C": [f"cat on mat {k}" for k in range(60)],
}


@pytest.fixture
def store_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def client():
    with TestClient(Starlette(routes=quick.routes()), base_url=LOCAL, follow_redirects=False) as c:
        yield c


def _saved(name="Q3 <b>run</b>") -> str:
    from mtlens.ui import state

    return state.store().save(Corpus.build({"ref": REFS}, SYSTEMS), name)


def _table(html: str) -> tuple[list[str], list[list[str]]]:
    head = re.findall(r"<th(?: [^>]*)?>(.*?)</th>", html[html.index("<thead>") : html.index("</thead>")])
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    rows = [[unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in body.split("</tr>")[:-1]]
    return [unescape(h) for h in head], rows


def _dashboard(sid: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=TIMEOUT)
    at.query_params.update({"set": sid, **params})
    at.run()
    no_errors(at)
    return at


def test_the_quick_view_shows_the_dashboards_table_cell_for_cell(store_dir, client):
    sid = _saved()
    at = _dashboard(sid)
    dashboard = shown(at.dataframe[0])
    page = client.get(f"/quick/rankings?set={sid}")
    assert page.status_code == 200
    head, rows = _table(page.text)
    assert head == [str(c) for c in dashboard.columns]
    assert rows == [[str(v) for v in r] for r in dashboard.itertuples(index=False)]
    bleu = {n: BLEU().corpus_score(lines, [REFS]).score for n, lines in SYSTEMS.items()}
    assert [r[1] for r in rows] == sorted(bleu, key=bleu.get, reverse=True)  # sacrebleu's order
    assert [r[head.index("bleu")] for r in rows] == [f"{bleu[r[1]]:.1f}" for r in rows]
    # the dashboard's own link back, and the page's promise of what it is
    assert f"href='../Rankings?set={sid}'" in page.text
    assert "Q3 &lt;b&gt;run&lt;/b&gt;" in page.text and "<b>run" not in page.text
    rule = next(c.value for c in at.caption if c.value.startswith("Clusters:"))  # the dashboard's, with its count
    assert "paired bootstrap, 1,000 resamples" in rule and rule.replace("<", "&lt;") in page.text
    # the Rankings page offers the quick view's link
    assert any(f"quick/rankings?set={sid})" in c.value for c in at.caption)


def test_a_link_with_options_metrics_and_sort_shows_the_same_view_in_both(store_dir, client):
    sid = _saved()
    params = {"opt_tokenize": "char", "opt_lowercase": "1", "opt_char_order": "999", "metrics": "chrf,bleu,ter"}
    at = _dashboard(sid, **params, sort="chrf")
    dashboard = shown(at.dataframe[0])
    offered = next(c.value for c in at.caption if "quick/rankings?" in c.value)
    url = offered[offered.index("(quick/rankings?") + 1 : offered.index(")")]
    # what the page wrote into its address: the options that differ (char_order 999 did not fit: dropped)
    assert url == f"quick/rankings?set={sid}&opt_tokenize=char&opt_lowercase=1&metrics=bleu%2Cchrf%2Cter&sort=chrf"
    page = client.get("/" + url)
    head, rows = _table(page.text)
    assert head == [str(c) for c in dashboard.columns] == [
        "rank", "system", "cluster (chrf)", "chrf 95% CI ±", "bleu", "chrf", "ter"
    ]  # fmt: skip
    assert rows == [[str(v) for v in r] for r in dashboard.itertuples(index=False)]
    bleu = {n: BLEU(tokenize="char", lowercase=True).corpus_score(lines, [REFS]).score for n, lines in SYSTEMS.items()}
    assert {r[1]: r[head.index("bleu")] for r in rows} == {n: f"{b:.1f}" for n, b in bleu.items()}
    assert "tok:char" in page.text and "case:lc" in page.text
    assert (
        "href='../Rankings?set=" + sid + "&amp;opt_tokenize=char&amp;opt_lowercase=1&amp;metrics=bleu%2Cchrf%2Cter"
        in page.text
    )


def test_the_quick_view_is_a_page_without_script(store_dir, client):
    sid = _saved()
    page = client.get(f"/quick/rankings?set={sid}")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp
    assert page.headers["cache-control"] == "no-store" and page.headers["x-content-type-options"] == "nosniff"
    assert "<script" not in page.text.lower()


def test_what_the_quick_view_answers_to_bad_links(store_dir, client, monkeypatch):
    r = client.get("/quick/rankings?set=" + "0" * 32)
    assert r.status_code == 404 and "no saved set has the id" in r.text and "Traceback" not in r.text
    r = client.get("/quick/rankings?set=" + "x" * 500)
    assert r.status_code == 404 and "does not name a saved set" in r.text
    r = client.get("/quick/rankings?set=%3Cscript%3E")
    assert r.status_code == 404 and "<script>" not in r.text
    r = client.get(f"/quick/rankings?set=sample&opt_tokenize=nonsense&sort={'x' * 5000}")
    assert r.status_code == 414 and "too long" in r.text
    r = client.get("/quick/rankings")
    assert r.status_code == 303 and r.headers["location"] == "../"
    assert client.post(f"/quick/rankings?set={_saved()}").status_code == 405

    def broken(store, set_id):
        raise RuntimeError("secret internals /home/someone/.cache")

    monkeypatch.setattr(rankings, "saved", broken)
    r = client.get("/quick/rankings?set=sample")
    assert r.status_code == 500 and "could not be drawn" in r.text and "secret" not in r.text


def test_a_request_to_another_host_name_is_refused_on_loopback(store_dir):
    """DNS rebinding: the server listens on 127.0.0.1 (.streamlit/config.toml), so a page asked for by
    another host name is refused, as the dashboard's pages are (mtlens.core.access.host_allowed)."""
    with TestClient(Starlette(routes=quick.routes()), base_url="http://evil.example:8501") as c:
        r = c.get("/quick/rankings?set=sample")
    assert r.status_code == 400 and "Wrong address" in r.text and "Bundled sample" not in r.text


def test_a_server_with_a_login_sends_the_visitor_to_the_dashboard(store_dir, client, monkeypatch):
    sid = _saved()
    monkeypatch.setattr(identity, "login_configured", lambda: True)
    r = client.get(f"/quick/rankings?set={sid}")
    assert r.status_code == 303 and r.headers["location"] == f"../Rankings?set={sid}"
    assert "Q3" not in r.text


def test_app_py_is_served_as_streamlits_asgi_app_with_the_quick_view():
    """``streamlit run app.py`` finds the st.App in app.py (Streamlit's own discovery) and serves its routes."""
    import importlib.util

    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.app_name == "app"
    spec = importlib.util.spec_from_file_location("mtlens_app_module", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imported, not run as a script: it draws nothing
    assert [r.path for r in module.app._user_routes] == [quick.PATH]


def test_the_quick_view_lives_under_the_servers_base_path(store_dir):
    """With ``server.baseUrlPath`` the dashboard's pages move under it; so does the quick view, and its
    relative links (the dashboard, the home page) stay right."""
    from streamlit import config

    before = config.get_option("server.baseUrlPath")
    config.set_option("server.baseUrlPath", "/team/mt/")
    try:
        routes = quick.routes()
    finally:
        config.set_option("server.baseUrlPath", before)
    assert [r.path for r in routes] == ["/team/mt/quick/rankings"]
    with TestClient(Starlette(routes=routes), base_url=LOCAL) as c:
        r = c.get("/team/mt/quick/rankings?set=sample")
        assert r.status_code == 200 and "href='../Rankings?set=sample'" in r.text
        assert c.get("/quick/rankings?set=sample").status_code == 404


def test_a_damaged_store_is_one_sentence_without_the_stores_path(store_dir, client):
    """Issue 38, item 8: the quick view (anyone with a link) said where the store lies on the server."""
    sid = _saved()
    (store_dir / "mtlens.sqlite3").write_bytes(b"this is not a database at all" * 100)
    for name in ("mtlens.sqlite3-wal", "mtlens.sqlite3-shm"):
        (store_dir / name).unlink(missing_ok=True)
    r = client.get(f"/quick/rankings?set={sid}")
    assert r.status_code in (404, 500, 503) and "Traceback" not in r.text
    assert "workspace store" in r.text or "could not be drawn" in r.text
    assert str(store_dir) not in r.text and "sqlite3" not in r.text


def _stats_rows(store_dir) -> int:
    import sqlite3

    with sqlite3.connect(store_dir / "mtlens.sqlite3") as con:
        return con.execute("SELECT count(*) FROM stats").fetchone()[0]


def test_on_a_shared_server_quick_view_readers_cannot_fill_the_store(store_dir, client, monkeypatch):
    """Issue 38, item 2: ``/quick/rankings?set=ID&opt_char_order=N`` with a new N each time stored a new
    set of statistics for anyone with the link (a store limited to 80 MB was full in 17 s). On a shared
    server a reader's visit stores only the set's own options' statistics (once, whoever asks); other
    options are computed, shown and forgotten. In local mode the operator's views are kept."""
    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    sid = _saved()
    base = client.get(f"/quick/rankings?set={sid}&metrics=bleu-c")
    assert base.status_code == 200
    after_defaults = _stats_rows(store_dir)
    assert after_defaults >= 1  # the set's own options: kept
    seen = set()
    for n in (2, 3, 4, 5, 7):
        r = client.get(f"/quick/rankings?set={sid}&metrics=bleu-c&opt_char_order={n}")
        assert r.status_code == 200
        head, rows = _table(r.text)
        seen.add(tuple(row[head.index("bleu-c")] for row in rows))
    assert len(seen) == 5  # each option set was computed and shown
    assert _stats_rows(store_dir) == after_defaults  # ... and none of them stored
    monkeypatch.setenv("MTLENS_ACCESS", "local")
    client.get(f"/quick/rankings?set={sid}&metrics=bleu-c&opt_char_order=2")
    assert _stats_rows(store_dir) > after_defaults  # the operator's own views are kept


def test_link_options_that_cannot_be_used_are_said_in_both_views(store_dir, client):
    """Issue 37, item 5: ``opt_char_order=999`` or ``opt_tokenize=bogus`` showed the default numbers with no
    notice; the quick view's header said "word BLEU tokenizer 13a" while its signature said tok:intl."""
    sid = _saved()
    page = client.get(f"/quick/rankings?set={sid}&opt_char_order=999&opt_tokenize=bogus&metrics=bleu,bleu-c").text
    assert "The link&#x27;s opt_char_order=999 was ignored" in page and "opt_tokenize=bogus was ignored" in page
    page = client.get(f"/quick/rankings?set={sid}&opt_tokenize=intl&metrics=bleu").text
    assert "tok:intl" in page and "word BLEU tokenizer intl (chosen" in page and "tokenizer 13a;" not in page
    at = _dashboard(sid, opt_char_order="999", opt_tokenize="bogus")
    said = " ".join(plain(w.value) for w in at.warning)
    assert "The link's opt_char_order=999 was ignored" in said and "opt_tokenize=bogus was ignored" in said, said


def test_an_empty_set_in_a_link_says_the_sample_is_shown(store_dir):
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=TIMEOUT)
    at.query_params["set"] = ""
    at.run()
    no_errors(at)
    assert any("names no set, so the bundled sample is shown" in w.value for w in at.warning)


def test_at_most_at_once_quick_views_are_drawn_together_and_every_one_is_answered(store_dir, client, monkeypatch):
    """Twelve visitors at once: the views are drawn at most :data:`quick.AT_ONCE` at a time (each waits for a turn),
    and every visitor gets the set's table."""
    import threading
    import time

    sid = _saved()
    real = rankings.saved
    lock, now, most = threading.Lock(), [0], [0]

    def counted(*args, **kwargs):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        try:
            time.sleep(0.3)  # long enough for the others to arrive while this one is drawn, even on a busy machine
            return real(*args, **kwargs)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(rankings, "saved", counted)
    client.get(f"/quick/rankings?set={sid}")  # the first visit stores the set's statistics
    answers: list[int] = []

    def visit():
        r = client.get(f"/quick/rankings?set={sid}")
        answers.append(r.status_code if "<table" in r.text else -1)

    threads = [threading.Thread(target=visit) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [200] * 12
    assert 1 < most[0] <= quick.AT_ONCE  # side by side, but never more than the turns

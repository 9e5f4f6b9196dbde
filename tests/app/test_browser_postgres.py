"""Two dashboard servers on one PostgreSQL database (issue 36), in real headless Chromium: a set uploaded
through one server opens on the other with the same Rankings, and its quick view is served by both."""

from __future__ import annotations

import os
import urllib.request

from mtlens.storage import postgres

from ..conftest import SAMPLE
from .test_browser import (  # noqa: F401 (the fixture)
    SYSTEMS,
    _rankings_csv,
    _set_of,
    _upload,
    browser,
    running_server,
)


def test_two_servers_on_one_database_show_a_set_saved_in_the_other(browser, pg_server, tmp_path):  # noqa: F811
    url = pg_server.database()
    env = {**os.environ, "MTLENS_STORE": url}
    try:
        with running_server(tmp_path, env=env) as a, running_server(tmp_path, env=env) as b:
            ctx = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
            page = ctx.new_page()
            page.goto(a)
            page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
            _upload(page, [SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], [SAMPLE / f"{n}.txt" for n in SYSTEMS])
            page.get_by_text("your upload").first.wait_for(timeout=60_000)
            sid = _set_of(page)
            page.goto(f"{a}/Rankings?set={sid}")
            on_a = _rankings_csv(page, tmp_path, "a")
            ctx.close()
            other = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
            page_b = other.new_page()
            page_b.goto(f"{b}/Rankings?set={sid}")
            assert _rankings_csv(page_b, tmp_path, "b") == on_a
            assert set(on_a) == set(SYSTEMS)
            other.close()
            # the upload's visitor owns the set; the operator's loopback quick view reads it on either server
            for server in (a, b):
                html = urllib.request.urlopen(f"{server}/quick/rankings?set={sid}", timeout=60).read().decode()
                assert all(name in html for name in SYSTEMS)
    finally:
        postgres.close_idle()
        pg_server.drop(url)

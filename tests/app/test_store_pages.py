"""A dashboard whose PostgreSQL store cannot be reached (issue 36): the page says so in a sentence
(the password hidden) and shows no traceback."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ..conftest import ROOT
from ..ports import free_port
from .conftest import TIMEOUT, errors


def test_an_unreachable_database_is_a_sentence_on_the_page(monkeypatch):
    port = free_port()  # a port nobody listens on
    monkeypatch.setenv("MTLENS_STORE", f"postgresql://mtlens:secret@127.0.0.1:{port}/db")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    said = errors(at)
    assert said and all(e.startswith("cannot reach the workspace database") for e in said), said
    assert not any("secret" in e for e in said) and "mtlens:***@" in said[0]

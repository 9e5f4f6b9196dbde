"""AppTest fixtures.

The pages' caches (st.cache_*, mtlens.ui.cached) are shared by every test of this process, as by every
session of one server: a page test gets what an earlier test computed for the same data and options,
exactly what a later visitor gets. A test about the caches themselves (what is computed, and when)
starts from empty ones with :func:`fresh_caches`."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT

TIMEOUT = 60


@pytest.fixture
def fresh_caches():
    """Every cache of this process emptied (before the test, and after it: it may have spied on them)."""
    from mtlens.ui import cached

    cached.clear()
    yield
    cached.clear()


@pytest.fixture
def app():
    """A fresh session on the home page (sample data loaded)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def no_errors(at):
    assert not at.exception, [e.value for e in at.exception]


def plain(markdown: str) -> str:
    """Displayed text of markdown whose punctuation was backslash-escaped (``render.md``)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # escapes, and the invisible word joiners


def errors(at) -> list[str]:
    return [plain(e.value) for e in at.error]


def lines_with(ann, system: str, category: str) -> set[int]:
    """Lines (1-based) where ``system`` has an annotated error of ``category`` (what the filter must keep)."""
    return {
        k
        for k, seg_id in enumerate(ann.seg_ids, start=1)
        if any(e.category == category for e in ann.segments[(system, seg_id)].errors)
    }


def shown(element):
    """What a table shows in the browser: the display strings of its pandas Styler (Arrow IPC in the
    element's proto), as a DataFrame of strings with the table's columns."""
    import pyarrow as pa

    styler = element.proto.arrow_data.styler
    assert styler.display_values, "this table has no display values (no Styler)"
    return pa.ipc.open_stream(styler.display_values).read_pandas()

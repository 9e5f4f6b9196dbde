"""No cell of any table on any page reads "None" or "nan" (issue 37, item 3): the sample, a set made from
an MQM file alone, and an uploaded en-zh set, every page as it first draws. Cells are read as the browser
gets them (the Styler's display strings; tables too large for a Styler are read as sent)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT, SAMPLE, TESTDATA
from .conftest import TIMEOUT, no_errors, shown

PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))
BAD = {"None", "nan", "NaN", "<NA>", "NaT", "none"}


def _bad_cells(at: AppTest) -> list[str]:
    found = []
    for k, df in enumerate(at.dataframe):
        try:
            cells = shown(df)
        except AssertionError:  # no Styler (a very large table): the values themselves
            cells = df.value.astype(str)
        for col in cells.columns:
            for i, v in enumerate(cells[col]):
                if str(v).strip() in BAD:
                    found.append(f"table {k}, column {col!r}, row {i}: {v!r}")
    return found


def _uploaded(kind: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run()
    if kind == "mqm":
        mqm = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
        at.file_uploader(key="up_annotations").set_value([(mqm.name, mqm.read_bytes(), "text/plain")]).run()
    elif kind == "en-zh":
        folder = TESTDATA / "en-zh"
        at.file_uploader(key="up_refs").set_value([("ref.txt", (folder / "ref.txt").read_bytes(), "text/plain")])
        at.file_uploader(key="up_systems").set_value(
            [(n, (folder / n).read_bytes(), "text/plain") for n in ("HappyNewYear.txt", "SMU.txt")]
        )
        at.run()
    else:
        assert (SAMPLE / "ref.txt").exists()
    no_errors(at)
    return at


@pytest.mark.parametrize("kind", ["sample", "mqm", "en-zh"])
def test_no_cell_on_any_page_reads_none_or_nan(kind):
    at = _uploaded(kind)
    bad = {}
    for page in PAGES:
        at.switch_page(f"pages/{page}").run()
        no_errors(at)
        found = _bad_cells(at)
        if found:
            bad[page] = found[:5]
    assert not bad, bad


def test_text_columns_with_gaps_read_a_dash_and_numbers_keep_their_decimals():
    """The one formatting path (mtlens.ui.export.numbers): a gap in a text column reads "-", as in a
    number column (a text column with a gap made the page fail before)."""

    def page():
        import pandas as pd

        from mtlens.ui import export

        export.table(pd.DataFrame({"p": [0.01234, None], "name": ["x", None], "bleu": [None, 3.0]}), name="t", key="t")

    at = AppTest.from_function(page, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert shown(at.dataframe[0]).values.tolist() == [["0.012", "x", "-"], ["-", "-", "3.0"]]

"""Issue 61 on the Human correlation page (AppTest): the table "Which judge to trust, as WMT25 measures it" holds
the same rows as ``analyze --format json``'s ``meta_evaluation`` for the same set, with the sentinel's row and the
human ceiling's (a second rater on every item of the MQM excerpt), and a chart of one measure."""

from __future__ import annotations

import json

import pytest

from mtlens.cli.main import main
from mtlens.storage.store import Store

from ..analysis.test_meta_table import _two_raters
from .conftest import no_errors


def test_the_page_shows_the_cli_rows_with_the_sentinel_and_the_human_ceiling(app, tmp_path, capsys):
    path = _two_raters(tmp_path)
    app.file_uploader(key="up_annotations").set_value([(path.name, path.read_bytes(), "text/plain")]).run()
    no_errors(app)
    app.switch_page("pages/5_Human_correlation.py").run(timeout=120)
    no_errors(app)
    table = next(d.value for d in app.dataframe if "span_f1" in d.value.columns)
    rows = {(r["metric"], r["human"]): r for r in table.to_dict("records")}
    ceiling = rows[("human:MQM (second of 2 raters)", "MQM")]
    assert ceiling["role"] == "human ceiling" and ceiling["span_f1"] == pytest.approx(0.5)
    assert rows[("sentinel:length", "MQM")]["role"] == "sentinel"
    # the command line says the same of the same file
    ws = tmp_path / "ws"
    assert main(["import", "--ratings", str(path), "--data-dir", str(ws)]) == 0
    capsys.readouterr()
    assert main(["analyze", "--set", Store(ws).list()[0].id, "--format", "json", "--data-dir", str(ws)]) == 0
    for r in json.loads(capsys.readouterr().out)["meta_evaluation"]:
        page_row = rows[(r["metric"], r["human"])]
        for k in ("pairwise_accuracy", "spa", "acc_eq", "pdp", "span_f1"):
            if r[k] is None:
                assert page_row[k] != page_row[k]  # NaN on the page: does not apply
            else:
                assert page_row[k] == pytest.approx(r[k], abs=1e-12), (r["metric"], k)
    assert app.selectbox(key="hc_wmt25_measure").options  # a chart of one measure, chosen

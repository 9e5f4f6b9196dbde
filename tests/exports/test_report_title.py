"""The HTML report is titled with the set's name (escaped), from the command line and the dashboard."""

from __future__ import annotations

import subprocess
import sys

from mtlens import Corpus
from mtlens.storage.store import Store

from ..conftest import ROOT


def test_the_report_of_a_saved_set_is_titled_with_its_name(tmp_path):
    store = Store(tmp_path)
    sid = store.save(Corpus.build({"ref": ["a b c"] * 40}, {"A": ["a b d"] * 40, "B": ["a c"] * 40}), "Q3 <review>")
    out = tmp_path / "r.html"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mtlens",
            "report",
            "--set",
            sid,
            "--metrics",
            "bleu",
            "--output",
            str(out),
            "--data-dir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    html = out.read_text(encoding="utf-8")
    assert "<title>Q3 &lt;review&gt;</title>" in html and "<h1>Q3 &lt;review&gt;</h1>" in html

"""Adding a metric touches its own file and its test: a toy metric registered here (and nowhere else)
appears in the command line's choices, its scores and comparisons, the Rankings page, and every export."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mtlens.cli import main
from mtlens.metrics import Metric, Signature, metric_names, register, unregister

from ..conftest import ROOT, SAMPLE


class LengthRatio(Metric):
    """Toy metric: 100 x (shorter length / longer length) over words, summed statistics ``[hyp, ref]``."""

    name = "lenratio"
    label = "LenRatio"
    latex = r"Len$_{r}$"
    option_fields = ("lowercase",)
    cost_per_char = 0.2  # word counts only: cheaper than BLEU (a toy's guess; nothing measures it)
    slow = False
    score_range = (0.0, 100.0)

    def __init__(self, lowercase: bool = False):
        self.lowercase = lowercase

    @classmethod
    def from_options(cls, o):
        return cls(o.lowercase)

    def block_statistics(self, references, hypotheses):
        ref = np.array([len(r.split()) for r in references[0]], dtype=np.int64)
        return [np.column_stack([np.array([len(h.split()) for h in hyp], dtype=np.int64), ref]) for hyp in hypotheses]

    def score_from_totals(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        hi, lo = np.maximum(t[..., 0], t[..., 1]), np.minimum(t[..., 0], t[..., 1])
        return np.where(hi > 0, 100.0 * lo / np.where(hi > 0, hi, 1), 100.0)

    def signature(self, n_refs):
        return Signature(
            (("nrefs", str(n_refs)), ("metric", "lenratio"), ("case", "lc" if self.lowercase else "mixed"))
        )


def _by_hand(hyp_path, ref_path) -> float:
    hyp = sum(len(x.split()) for x in hyp_path.read_text(encoding="utf-8").splitlines())
    ref = sum(len(x.split()) for x in ref_path.read_text(encoding="utf-8").splitlines())
    return 100.0 * min(hyp, ref) / max(hyp, ref)


@pytest.fixture
def toy():
    register(LengthRatio)
    yield LengthRatio
    unregister("lenratio")


def _cli(capsys, *args) -> str:
    assert main(list(args)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


FILES = ["--ref", str(SAMPLE / "ref.txt"), "--sys", str(SAMPLE / "UEdin.txt"), str(SAMPLE / "Online-W.txt")]


def test_the_toy_metric_is_a_command_line_choice_and_scores(toy, capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "lenratio" in capsys.readouterr().out
    doc = json.loads(_cli(capsys, "score", *FILES, "--metrics", "bleu,lenratio", "--format", "json"))
    got = {row["name"]: row["scores"]["lenratio"] for row in doc["systems"]}
    assert got["UEdin"] == pytest.approx(_by_hand(SAMPLE / "UEdin.txt", SAMPLE / "ref.txt"), abs=1e-9)
    assert "metric:lenratio" in doc["signatures"]["lenratio"]


def test_the_toy_metric_is_tested_for_significance(toy, capsys):
    doc = json.loads(_cli(capsys, "compare", *FILES, "--metrics", "lenratio", "--n", "200", "--format", "json"))
    text = json.dumps(doc)
    assert "lenratio" in text and "p_value" in text


def test_the_toy_metric_is_in_every_export(toy, capsys, tmp_path):
    csv = _cli(capsys, "score", *FILES, "--metrics", "lenratio", "--format", "csv")
    assert csv.splitlines()[0] == "rank,system,lenratio"
    latex = _cli(capsys, "score", *FILES, "--metrics", "lenratio", "--format", "latex")
    assert r"Len$_{r}$" in latex  # the metric's own LaTeX label
    out = tmp_path / "r.html"
    _cli(capsys, "report", *FILES, "--metrics", "bleu,lenratio", "--output", str(out))
    assert "lenratio" in out.read_text(encoding="utf-8")
    import mtlens
    from mtlens.exports.excel import result_sheets, to_xlsx

    corpus = mtlens.load_corpus([SAMPLE / "ref.txt"], [SAMPLE / "UEdin.txt", SAMPLE / "Online-W.txt"])
    results = mtlens.score(corpus, ["lenratio"])
    book = __import__("openpyxl").load_workbook(io.BytesIO(to_xlsx(result_sheets(corpus, results))))
    header = [c.value for c in next(book["sentences"].iter_rows(max_row=1))]
    assert "lenratio" in header  # sentence-level, as it declares


def test_the_toy_metric_is_a_rankings_column(toy):
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["UEdin", "lenratio"] == pytest.approx(
        100.0
        * min(
            sum(len(x.split()) for x in (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()),
            sum(len(x.split()) for x in (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()),
        )
        / max(
            sum(len(x.split()) for x in (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()),
            sum(len(x.split()) for x in (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()),
        ),
        abs=1e-9,
    )


def test_a_metric_that_does_not_state_its_cost_is_refused():
    """Issue 47: a new metric's cost per character (how the engine shares work; WER was measured at 23 times
    BLEU's), whether it is slow and its score range must be its own, never Metric's silent defaults."""

    class Undeclared(LengthRatio):
        name = "undeclared"

    register(Undeclared)  # its facts inherited from a metric class that states them: allowed
    unregister("undeclared")

    class Bare(Metric):
        name = "bare"

        def block_statistics(self, references, hypotheses):
            return []

        def score_from_totals(self, totals):
            return totals

        def signature(self, n_refs):
            return Signature(())

    with pytest.raises(ValueError, match="Bare must declare cost_per_char, slow, score_range"):
        register(Bare)
    assert "bare" not in metric_names()

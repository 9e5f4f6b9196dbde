"""WMT-style rankings from human scores, AutoRank, and the Excel export (read back with openpyxl)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy.stats import wilcoxon

from mtlens import Corpus, score
from mtlens.analysis.autorank import autorank, human_ranking
from mtlens.analysis.significance import compare
from mtlens.exports.excel import result_sheets, to_xlsx

from ..conftest import SAMPLE, pair_files


def test_human_ranking_with_clear_and_unclear_differences():
    rng = np.random.default_rng(0)
    base = rng.normal(size=100)
    by = {
        "best": {i: base[i] + 1.0 for i in range(100)},
        "twin": {i: base[i] + 0.99 + rng.normal(scale=0.3) for i in range(100)},
        "worst": {i: base[i] - 1.0 for i in range(100)},
        "few": {i: base[i] + 5 for i in range(10)},  # shares 10 segments with the others: never tested
    }
    ranks, pairs = human_ranking(by)
    r = {x.system: x for x in ranks}
    assert [x.system for x in ranks] == ["few", "best", "twin", "worst"]
    bw = next(p for p in pairs if {p.a, p.b} == {"best", "worst"})
    d = np.array([by["best"][i] - by["worst"][i] for i in range(100)])
    assert bw.p_value == pytest.approx(wilcoxon(d).pvalue) and bw.winner == "best"
    assert all(p.p_value is None and p.winner is None for p in pairs if "few" in (p.a, p.b))
    tested = sorted((p for p in pairs if p.p_value is not None), key=lambda p: p.p_value)
    running = 0.0
    for k, p in enumerate(tested):  # Holm by hand
        running = max(running, min(1.0, (len(tested) - k) * p.p_value))
        assert p.p_holm == pytest.approx(running)
    # worst is beaten by best and twin: rank range 3..4; 'few' beats nobody (untested): 1..4
    assert (r["worst"].rank_low, r["worst"].rank_high) == (3, 4)
    assert (r["few"].rank_low, r["few"].rank_high) == (1, 4)
    assert r["best"].wins >= 1 and r["worst"].losses == 2


def test_autorank_by_hand():
    scores = {"bleu": {"a": 30.0, "b": 20.0, "c": 25.0}, "ter": {"a": 50.0, "b": 40.0, "c": 60.0}}
    out = autorank(scores, {"bleu": True, "ter": False})
    # bleu: a 1, b 3, c 1 + 2 * 5/10 = 2; ter (lower better): b 1, a 1 + 2 * 10/20 = 2, c 3
    assert out["a"] == {"bleu": 1.0, "ter": 2.0, "autorank": 1.5}
    assert out["b"] == {"bleu": 3.0, "ter": 1.0, "autorank": 2.0}
    assert out["c"] == {"bleu": 2.0, "ter": 3.0, "autorank": 2.5}


def test_xlsx_workbook_reads_back_with_openpyxl():
    import openpyxl

    refs, systems = pair_files(SAMPLE)
    evil = dict(systems)
    evil["UEdin"] = ['=HYPERLINK("http://x","click")', *systems["UEdin"][1:]]
    corpus = Corpus.build({"ref": refs[0]}, evil)
    results = score(corpus, "bleu,chrf,nist")
    cmp = compare(results["bleu"], n=200)
    wb = openpyxl.load_workbook(io.BytesIO(to_xlsx(result_sheets(corpus, results, {"bleu": cmp}))))
    assert wb.sheetnames == ["scores", "signatures", "sentences", "intervals"]
    rows = list(wb["scores"].iter_rows(values_only=True))
    assert rows[0] == ("rank", "system", "bleu", "chrf", "nist")
    assert [r[1] for r in rows[1:]] == sorted(systems, key=lambda s: -results["bleu"].scores[s])  # ranked
    assert [r[0] for r in rows[1:]] == [1, 2, 3, 4]
    got = {r[1]: r[2:] for r in rows[1:]}
    for s in systems:
        assert got[s] == pytest.approx(tuple(results[m].scores[s] for m in ("bleu", "chrf", "nist")), abs=1e-12)
    sent = wb["sentences"]
    header = [c.value for c in sent[1]]
    assert header == ["system", "line", "bleu", "chrf", "nist", "hypothesis"]
    first_uedin = next(r for r in sent.iter_rows(min_row=2) if r[0].value == "UEdin" and r[1].value == 1)
    assert first_uedin[5].data_type == "s" and first_uedin[5].value.startswith("=HYPERLINK")  # text, not a formula
    assert first_uedin[2].value == pytest.approx(float(results["bleu"].sentence_scores("UEdin")[0]), abs=1e-12)
    assert sent.max_row == 1 + 4 * 200


def test_sheet_names_are_made_valid_and_unique():
    import openpyxl
    import pandas as pd

    df = pd.DataFrame({"a": [1]})
    data = to_xlsx({"a/b:c" * 10: df, "A/B:C" * 10: df})
    names = openpyxl.load_workbook(io.BytesIO(data)).sheetnames
    assert len(names) == 2 and len(set(n.lower() for n in names)) == 2 and all(len(n) <= 31 for n in names)

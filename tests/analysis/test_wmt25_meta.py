"""Issue 61: the meta-evaluation as WMT25 measures it. On WMT24 ESA en-ja ratings with a span source imported from a
comet-score JSON file (xCOMET's ``errors``; the spans made by tests/golden/wmt25/span_source.py's fixed rule),
``analyze --set ID --format json`` prints the PDP, span precision/recall/F1 and criticality F1 that the sources' own
code computes on the same ratings, spans and scores: mt-metrics-eval's ``Pearson(average_by='item', pdp=True)`` and
WMT25's ``scoring_esa.get_char_f1`` and ``21-metrics_criticality.f1`` (golden values made by
tests/golden/wmt25/make_meta_golden.sh, which fetches both repositories at pinned commits)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mtlens.cli.main import main
from mtlens.storage.store import Store

from ..conftest import ROOT, SHARED

GOLDEN = ROOT / "tests" / "golden" / "wmt25"
sys.path.insert(0, str(GOLDEN))
from span_source import write  # noqa: E402

EXCERPT = ROOT / "tests" / "data" / "esa"


def _analyze(tmp_path, texts: Path, systems: list[str], ratings: list[Path], capsys) -> dict:
    folder = tmp_path / "set"
    folder.mkdir()
    for name in ["src", "ref", *systems]:
        (folder / f"{name}.txt").symlink_to(texts / f"{name}.txt")
    ws = tmp_path / "ws"
    assert main(["import", str(folder), "-l", "en-ja", "--data-dir", str(ws), "--name", "esa"]) == 0
    set_id = Store(ws).list()[0].id
    for r in ratings:
        assert main(["import", "--ratings", str(r), "--set", set_id, "--data-dir", str(ws)]) == 0
    spans = write(texts, systems, tmp_path / "xcomet-style.json")
    capsys.readouterr()
    args = ["analyze", "--set", set_id, "--scores", str(spans), "--metrics", "chrf,xcomet", "--format", "json"]
    assert main([*args, "--data-dir", str(ws)]) == 0
    return json.loads(capsys.readouterr().out)


def _check(doc: dict, golden: dict) -> dict:
    rows = {(r["metric"], r["human"]): r for r in doc["meta_evaluation"]}
    row = rows[("xcomet", "ESA")]
    assert row["items"] == golden["items"] and row["systems"] == len(golden["systems"])
    assert row["pdp"] == pytest.approx(golden["pdp"], abs=1e-9)
    for k in ("span_precision", "span_recall", "span_f1"):
        assert row[k] == pytest.approx(golden[k], abs=1e-12), k
    if golden["criticality_f1"] is None:  # no item below 10 in the excerpt: undefined, never a number
        assert row["criticality_f1"] is None
    else:
        assert row["criticality_f1"] == pytest.approx(golden["criticality_f1"], abs=1e-12)
    # a metric without spans has none; the sentinel's row is there, beside the metrics
    assert rows[("chrf", "ESA")]["span_f1"] is None and rows[("chrf", "ESA")]["pdp"] is not None
    assert rows[("sentinel:length", "ESA")]["role"] == "sentinel"
    for key in ("spa", "acc_eq", "pdp", "span_precision", "span_recall", "span_f1", "criticality_f1"):
        assert key in row
    return rows


def test_the_bundled_excerpt_equals_wmt25s_and_mt_metrics_evals_own_code(tmp_path, capsys):
    golden = json.loads((GOLDEN / "meta_excerpt.json").read_text())
    doc = _analyze(tmp_path, EXCERPT / "en-ja", golden["systems"], [EXCERPT / "esa_en-ja.excerpt.csv"], capsys)
    _check(doc, golden)


@pytest.mark.shared
def test_both_en_ja_waves_equal_wmt25s_and_mt_metrics_evals_own_code(tmp_path, capsys):
    golden = json.loads((GOLDEN / "meta_en-ja.json").read_text())
    data = SHARED / "wmt24-esa"
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "src.txt").symlink_to(data / "en-ja.src.txt")
    (texts / "ref.txt").symlink_to(data / "en-ja.refA.txt")
    for s in golden["systems"]:
        (texts / f"{s}.txt").symlink_to(data / "system-outputs" / "en-ja" / f"{s}.txt")
    waves = [data / "esa_generalMT2024_wave2.csv", data / "esa_generalMT2024_wave3.csv"]
    _check(_analyze(tmp_path, texts, golden["systems"], waves, capsys), golden)

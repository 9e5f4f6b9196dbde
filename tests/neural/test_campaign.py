"""Issue 52: an annotation campaign out and its results back. mtlens exports a Pearmut campaign of two systems on
the segments where they disagree most, with error spans pre-filled from a tiny xCOMET checkpoint (built offline,
ESA-AI); Pearmut itself (its own command line and web API, in its own environment: Python 3.12+) accepts it, one
annotator works through it, and the annotations Pearmut wrote are read back: every score as given, every span as
Pearmut served it, and each system's score equal to Pearmut's own ``compute_model_scores``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mtlens.core.corpus import Corpus
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE

N = 48


def _mtlens(*args, ws):
    proc = subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_campaign_with_xcomet_spans_is_loaded_by_pearmut_and_its_annotations_read_back(
    neural_python, tiny_models, pearmut_python, tmp_path
):
    ws, root = tmp_path / "ws", tmp_path / "pearmut"
    root.mkdir()
    lines = {
        n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]
        for n in ("src", "ref", "UEdin", "HuaweiTSC")
    }
    corpus = Corpus.build(
        {"ref": lines["ref"]}, {"UEdin": lines["UEdin"], "HuaweiTSC": lines["HuaweiTSC"]}, lines["src"]
    )
    set_id = Store(ws).save(corpus, "campaign test")
    _mtlens("models", "add", "xc", str(tiny_models["tiny-xcomet"]), ws=ws)
    scored = json.loads(_mtlens("score", "--set", set_id, "--metrics", "comet:xc", "--format", "json", ws=ws))
    assert {s["name"] for s in scored["systems"]} == {"UEdin", "HuaweiTSC"}
    campaign = root / "campaign.json"
    _mtlens("campaign", "--set", set_id, "--systems", "UEdin,HuaweiTSC", "--segments", "disagree", "--count", "12",
            "--by", "chrf", "--spans", "comet:xc", "--id", "mtlens-test", "-o", str(campaign), ws=ws)  # fmt: skip
    doc = json.loads(campaign.read_text(encoding="utf-8"))
    items = [item for d in doc["data"] for item in d]
    assert len(items) == 12 and all(item["item_id"].startswith("mtlens-line:") for item in items)
    prefilled = sum(len(v) for item in items for v in item["error_spans"].values())
    assert prefilled > 0  # the tiny xCOMET marks spans
    env = {**os.environ, "PEARMUT_ROOT": str(root), "PYTHONWARNINGS": "ignore"}
    added = subprocess.run([str(ROOT / ".venv-pearmut" / "bin" / "pearmut"), "add", str(campaign)],
                           capture_output=True, text=True, cwd=root, env=env)  # fmt: skip
    assert added.returncode == 0 and "Error" not in added.stdout, added.stdout + added.stderr
    session = subprocess.run([pearmut_python, str(ROOT / "tests" / "neural" / "pearmut_session.py"), "mtlens-test"],
                             capture_output=True, text=True, cwd=root, env=env)  # fmt: skip
    assert session.returncode == 0, session.stderr[-3000:]
    out = json.loads(session.stdout.strip().splitlines()[-1])
    assert len(out["given"]) == 24  # 12 segments x 2 systems, every one annotated through Pearmut's API
    # the spans Pearmut served are the ones mtlens pre-filled (end_i inclusive)
    for item in items:
        for system, spans in item["error_spans"].items():
            assert out["served"][f"{item['item_id']}|{system}"] == spans
    # read back
    log = root / "data" / "annotations" / "mtlens-test.jsonl"
    _mtlens("import", "--ratings", str(log), "--set", set_id, ws=ws)
    back = json.loads(_mtlens("ratings", "--set", set_id, "--format", "json", "--segments", ws=ws))
    for s in back["segments"]:
        key = f"mtlens-line:{s['line']}|{s['system']}"  # both number the lines from 1
        assert s["score"] == out["given"][key] and s["rater"] == out["user"]
        served = [(sp["start_i"], sp["end_i"] + 1, sp["severity"]) for sp in out["served"][key]]
        assert [(sp["start"], sp["end"], sp["severity"]) for sp in s["spans"]] == served
        assert all(
            sp["text"] == corpus.systems[s["system"]][s["line"] - 1][sp["start"] : sp["end"]] for sp in s["spans"]
        )
    assert len(back["segments"]) == 24
    pearmut = {r["model"]: r["score"] for r in out["pearmut"]}
    mine = {r["system"]: r["score"] for r in back["systems"]}
    assert mine == pytest.approx(pearmut, abs=1e-9)  # Pearmut's own mean of its annotations
    assert "mean of its rated segments" in back["mean"]  # the set has no domains

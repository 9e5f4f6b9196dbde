"""Is the reference the problem? (issue 50) On real WMT21 en-de outputs (the bundled sample; the full data when
present): a reference replaced by a copy of the source, or by one system's output, gets the note on the command
line (JSON and text), in the gate's verdict, in the report and on Rankings; the real reference gets none. A judge
that scores the references (``--score-references``) and finds the reference worse than most systems says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT, SAMPLE, SHARED
from ..judges.stub import Stub

FOLDERS = [
    pytest.param(SAMPLE, ("UEdin", "Online-W", "HuaweiTSC"), id="sample"),
    pytest.param(SHARED / "wmt" / "en-de", ("UEdin", "Online-W", "HuaweiTSC", "Facebook-AI"), id="wmt21-en-de",
                 marks=pytest.mark.shared),
]  # fmt: skip


def _mtlens(*args, ws):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ}, timeout=900,
    )  # fmt: skip


def _text(folder: Path, name: str) -> str:
    return (folder / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(("folder", "systems"), FOLDERS)
@pytest.mark.parametrize("reference", ["ref", "src", "Online-W"])
def test_a_reference_that_is_the_source_or_a_system_gets_the_note(folder, systems, reference, tmp_path):
    (tmp_path / "ref.txt").write_text(_text(folder, reference), encoding="utf-8")
    args = ["--ref", str(tmp_path / "ref.txt"), "--src", str(folder / "src.txt"), "-l", "en-de"]
    hyps = [str(folder / f"{s}.txt") for s in systems]
    out = _mtlens("score", *args, "--sys", *hyps, "--metrics", "bleu,chrf", "--format", "json", ws=tmp_path)
    assert out.returncode == 0, out.stderr
    notes = json.loads(out.stdout)["reference_notes"]
    n = len(_text(folder, "ref").rstrip("\n").split("\n"))
    if reference == "ref":
        assert notes == [] and "the reference" not in out.stderr
        return
    (note,) = notes
    if reference == "src":
        assert note.startswith(f"the reference 'ref' has {n:,} copies of the source of {n:,} lines")
    else:
        assert note.startswith(f"the reference 'ref' equals system 'Online-W' on {n:,} of {n:,} lines (100%)")
    assert note in out.stderr  # said on the command line too
    gate = _mtlens("gate", *args, "--baseline", hyps[0], "--candidate", hyps[1], "--metrics", "chrf", "--format",
                   "json", ws=tmp_path)  # fmt: skip
    assert note in json.loads(gate.stdout)["notes"], gate.stderr
    html = tmp_path / "report.html"
    rep = _mtlens("report", *args, "--sys", *hyps, "--metrics", "chrf", "-o", str(html), ws=tmp_path)
    assert rep.returncode == 0, rep.stderr
    page = html.read_text(encoding="utf-8")
    assert "<h2>Reference quality</h2>" in page and note[0].upper() + note[1:].replace("'", "&#x27;") in page


def test_a_judge_that_scores_the_references_finds_a_worse_reference(tmp_path):
    """A judge finding a critical error in every line it has seen as a reference line and none elsewhere: under it
    every system beats the reference; a judge finding none in the reference is silent."""
    ws = tmp_path / "ws"
    ref = _text(SAMPLE, "ref").rstrip("\n").split("\n")
    refs = set(ref)

    def harsh(messages):
        target = messages[-1]["content"].split("translation:\n```", 1)[1].split("```", 1)[0].strip()
        bad = 'Critical:\nnon-translation - "x"\nMajor:\nno-error\nMinor:\nno-error'
        return bad if target in refs else "Critical:\nno-error\nMajor:\nno-error\nMinor:\nno-error"

    args = ["--ref", str(SAMPLE / "ref.txt"), "--src", str(SAMPLE / "src.txt"), "-l", "en-de", "--sys",
            *(str(SAMPLE / f"{s}.txt") for s in ("UEdin", "Online-W", "HuaweiTSC"))]  # fmt: skip
    with Stub(answer=harsh) as stub:
        for name, extra in (("harsh", ["--score-references"]), ("blind", [])):
            added = _mtlens("judges", "add", name, "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                            "--concurrency", "16", *extra, ws=ws)  # fmt: skip
            assert added.returncode == 0, added.stderr
        out = _mtlens("score", *args, "--metrics", "chrf,judge:harsh,judge:blind", "--format", "json", ws=ws)
    assert out.returncode == 0, out.stderr
    notes = json.loads(out.stdout)["reference_notes"]
    assert any(n.startswith("under judge:harsh, 3 of 3 systems score better than the reference 'ref'") for n in notes)
    assert not any("judge:blind" in n for n in notes)  # it did not score the reference: it says nothing of it


def test_rankings_says_when_the_reference_is_a_copy_of_the_source(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    ws, folder = tmp_path / "ws", tmp_path / "set"
    folder.mkdir()
    for name, text in (("ref", _text(SAMPLE, "src")), ("src", _text(SAMPLE, "src")), ("UEdin", _text(SAMPLE, "UEdin")),
                       ("Online-W", _text(SAMPLE, "Online-W"))):  # fmt: skip
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    set_id = _mtlens("import", str(folder), "-l", "en-de", ws=ws).stdout.strip()
    monkeypatch.setenv("MTLENS_DATA_DIR", str(ws))
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=180)
    at.query_params["set"] = set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    warned = [w.value.replace("\\", "") for w in at.warning if "Is the reference the problem?" in w.value]
    assert warned and "The reference 'ref' has 200 copies of the source of 200 lines (100%)" in warned[0]

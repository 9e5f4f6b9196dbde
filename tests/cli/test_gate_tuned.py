"""The release gate that a system tuned on a metric cannot fool, and its cost clause (issue 50), on real WMT21 en-de
outputs (the bundled 200-line sample; the full 1,002 lines of ../shared/data when present).

- A candidate that wins only on COMET-family scores (imported: the baseline's own text, its COMET raised), tagged as
  tuned on COMET, is not passed (exit 1, one sentence, in JSON, Markdown and JUnit); untagged, the same gate passes
  it; with COMET alone, nothing held out was computed and the gate says so.
- A candidate that is really better (a third of the baseline's lines replaced by the reference: chrF better) and
  that an LLM judge also scores better (a loopback judge that finds no error in a line equal to a reference line and
  one major error elsewhere) passes although tuned on COMET.
- In a saved set, the runs carry it: ``add --tuned-on`` and ``add --cost``; ``--max-cost-increase`` fails a
  candidate that costs more than allowed, and says both costs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from ..conftest import ROOT, SAMPLE, SHARED
from ..judges.stub import Stub

FOLDERS = [
    pytest.param(SAMPLE, id="sample"),
    pytest.param(SHARED / "wmt" / "en-de", id="wmt21-en-de", marks=pytest.mark.shared),
]


def _mtlens(*args, ws):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ}, timeout=900,
    )  # fmt: skip


def _lines(path: Path) -> list[str]:
    return (
        path.read_text(encoding="utf-8").split("\n")[:-1]
        if path.read_text(encoding="utf-8").endswith("\n")
        else path.read_text(encoding="utf-8").split("\n")
    )


def _files(folder: Path, tmp: Path) -> dict:
    """The baseline (UEdin), the COMET-tuned copy of it, the really better candidate, and COMET-family scores for
    the three: the baseline's drawn around 0.80, the tuned copy's and the better one's 0.03 higher."""
    ref, src, base = (_lines(folder / f"{n}.txt") for n in ("ref", "src", "UEdin"))
    better = [r if i % 3 == 0 else b for i, (b, r) in enumerate(zip(base, ref, strict=True))]
    out = {"ref": tmp / "ref.txt", "src": tmp / "src.txt", "UEdin": tmp / "UEdin.txt", "tuned": tmp / "tuned.txt",
           "better": tmp / "better.txt"}  # fmt: skip
    for key, lines in (("ref", ref), ("src", src), ("UEdin", base), ("tuned", base), ("better", better)):
        out[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    rng = np.random.default_rng(7)
    comet = [float(v) for v in rng.normal(0.80, 0.05, len(base))]
    for name, other in (("tuned", "UEdin"), ("better", "UEdin")):
        rows = ["system\tline\tcomet"]
        rows += [f"{other}\t{i + 1}\t{v!r}" for i, v in enumerate(comet)]
        rows += [f"{name}\t{i + 1}\t{v + 0.03!r}" for i, v in enumerate(comet)]
        out[f"comet-{name}"] = tmp / f"comet-{name}.tsv"
        out[f"comet-{name}"].write_text("\n".join(rows) + "\n", encoding="utf-8")
    out["refs"] = set(ref)
    return out


def _judge(refs: set[str]):
    """A judge that names no error in a line equal to a reference line, and one major error elsewhere."""

    def answer(messages):
        last = messages[-1]["content"]
        target = last.split("translation:\n```", 1)[1].split("```", 1)[0].strip()
        if target in refs:
            return "Critical:\nno-error\nMajor:\nno-error\nMinor:\nno-error"
        return 'Critical:\nno-error\nMajor:\naccuracy/mistranslation - "x"\nMinor:\nno-error'

    return answer


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_candidate_tuned_on_comet_is_not_passed_by_comet_alone(folder, tmp_path):
    f = _files(folder, tmp_path)
    common = ["gate", "--ref", str(f["ref"]), "--src", str(f["src"]), "-l", "en-de", "--baseline", str(f["UEdin"]),
              "--candidate", str(f["tuned"]), "--scores", str(f["comet-tuned"])]  # fmt: skip
    untagged = _mtlens(*common, "--metrics", "chrf,comet", "--format", "json", ws=tmp_path / "ws")
    assert untagged.returncode == 0, untagged.stderr  # COMET better, chrF the same: a plain gate passes it
    doc = json.loads(untagged.stdout)
    quality = [m for m in doc["metrics"] if m["family"] != "checks"]  # the checks run too: the source is given
    assert doc["verdict"] == "pass" and [m["improvement"] for m in quality] == [False, True]
    tagged = [*common, "--metrics", "chrf,comet", "--candidate-tuned-on", "comet"]
    js = _mtlens(*tagged, "--format", "json", ws=tmp_path / "ws")
    assert js.returncode == 1, js.stderr
    doc = json.loads(js.stdout)
    assert doc["verdict"] == "unconfirmed" and doc["tuned_on"] == ["comet"]
    assert [(m["metric"], m["family"], m["tainted"]) for m in doc["metrics"] if m["family"] != "checks"] == [
        ("chrf", "surface", False),
        ("comet", "comet", True),
    ]
    assert not any(m["tainted"] for m in doc["metrics"] if m["family"] == "checks")  # defects are not tuned on
    (sentence,) = [n for n in doc["notes"] if n.startswith("the candidate was tuned on comet")]
    assert "comet" in sentence and "not confirmed by a held-out metric (chrf" in sentence
    md = _mtlens(*tagged, "--format", "markdown", ws=tmp_path / "ws")
    assert md.returncode == 1 and "**unconfirmed**" in md.stdout and ":x:" in md.stdout
    assert "| comet | comet (tuned on) |" in md.stdout and sentence in md.stdout
    junit = _mtlens(*tagged, "--format", "junit", ws=tmp_path / "ws")
    assert junit.returncode == 1
    suite = ET.fromstring(junit.stdout).find("testsuite")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["held-out metric agrees"] and suite.get("failures") == "1"
    alone = _mtlens(*common, "--metrics", "comet", "--candidate-tuned-on", "comet", "--format", "json",
                    ws=tmp_path / "ws")  # fmt: skip
    assert alone.returncode == 1
    (note,) = [n for n in json.loads(alone.stdout)["notes"] if "none of a held-out family" in n]
    # the held-out families are named as those the COMET tuning does not inflate (issue 58, D14)
    assert "(surface metrics such as chrF, an LLM judge, human scores) was tested" in note
    # MetricX is a relative: tuning on COMET inflates it too (Kovacs et al. 2024), so it does not confirm either
    relative = _mtlens(*common, "--metrics", "comet", "--candidate-tuned-on", "metricx", "--format", "json",
                       ws=tmp_path / "ws")  # fmt: skip
    assert relative.returncode == 1 and json.loads(relative.stdout)["verdict"] == "unconfirmed"


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_same_claim_with_chrf_and_a_judge_better_passes(folder, tmp_path):
    f = _files(folder, tmp_path)
    ws = tmp_path / "ws"
    with Stub(answer=_judge(f["refs"])) as stub:
        added = _mtlens("judges", "add", "j", "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                        "--concurrency", "16", ws=ws)  # fmt: skip
        assert added.returncode == 0, added.stderr
        out = _mtlens("gate", "--ref", str(f["ref"]), "--src", str(f["src"]), "-l", "en-de", "--baseline",
                      str(f["UEdin"]), "--candidate", str(f["better"]), "--scores", str(f["comet-better"]),
                      "--metrics", "chrf,comet,judge:j", "--candidate-tuned-on", "comet", "--format", "json", ws=ws)  # fmt: skip
    assert out.returncode == 0, out.stderr + out.stdout
    doc = json.loads(out.stdout)
    assert doc["verdict"] == "pass" and doc["tuned_on"] == ["comet"]
    by = {m["metric"]: m for m in doc["metrics"]}
    assert by["chrf"]["improvement"] and by["judge:j"]["improvement"] and by["comet"]["tainted"]
    assert (by["judge:j"]["family"], by["judge:j"]["tainted"]) == ("llm-judge", False)


def test_runs_carry_what_they_were_tuned_on_and_cost_and_the_cost_clause(tmp_path):
    f = _files(SAMPLE, tmp_path)
    ws = tmp_path / "ws"
    folder = tmp_path / "set"
    folder.mkdir()
    for n in ("ref", "src"):
        (folder / f"{n}.txt").write_bytes(f[n].read_bytes())
    (folder / "first.txt").write_bytes(f["UEdin"].read_bytes())
    made = _mtlens("import", str(folder), "--name", "tuned", "-l", "en-de", ws=ws)
    assert made.returncode == 0, made.stderr
    set_id = made.stdout.strip()
    base = _mtlens("add", "--set", set_id, str(f["UEdin"]), "--name", "base", "--cost", "2.5", ws=ws)
    cand = _mtlens("add", "--set", set_id, str(f["better"]), "--name", "cand", "--tuned-on", "chrF,xcomet",
                   "--price-in", "10", "--price-out", "30", "--tokens-in", "100000", "--tokens-out", "120000",
                   "--format", "json", ws=ws)  # fmt: skip
    assert base.returncode == 0 and cand.returncode == 0, base.stderr + cand.stderr
    assert json.loads(cand.stdout)["meta"]["tuned_on"] == "comet,surface"  # as families, sorted
    # chrF is of a family it was tuned on: its improvement is not confirmed without a held-out metric
    g = _mtlens("gate", "--set", set_id, "--baseline", "base", "--candidate", "cand", "--metrics", "chrf",
                "--format", "json", ws=ws)  # fmt: skip
    assert g.returncode == 1 and json.loads(g.stdout)["verdict"] == "unconfirmed", g.stderr
    # the cost: 100,000 x 10 + 120,000 x 30 per million = US$ 4.60 against 2.50 (+84%)
    cost = _mtlens("gate", "--set", set_id, "--baseline", "base", "--candidate", "base", "--metrics", "chrf",
                   "--max-cost-increase", "50", ws=ws)  # fmt: skip
    assert cost.returncode == 2  # the same system twice: bad input, said
    rev = _mtlens("gate", "--set", set_id, "--baseline", "cand", "--candidate", "base", "--metrics", "chrf",
                  "--max-cost-increase", "10", "--format", "json", ws=ws)  # fmt: skip
    doc = json.loads(rev.stdout)  # base is cheaper: the cost clause holds; chrF regresses (base is worse)
    assert doc["cost"]["baseline"] == pytest.approx(4.6) and doc["cost"]["candidate"] == pytest.approx(2.5)
    assert doc["cost"]["exceeded"] is False and doc["verdict"] == "regression" and rev.returncode == 1
    costly = _mtlens("gate", "--set", set_id, "--baseline", "base", "--candidate", "cand", "--metrics", "chrf",
                     "--max-cost-increase", "50", "--format", "junit", ws=ws)  # fmt: skip
    assert costly.returncode == 1
    suite = ET.fromstring(costly.stdout).find("testsuite")
    failed = {
        c.get("name"): c.find("failure").get("message") for c in suite.iter("testcase") if c.find("failure") is not None
    }
    assert set(failed) == {"held-out metric agrees", "cost"} and "+84.0%" in failed["cost"]
    missing = _mtlens("gate", "--set", set_id, "--baseline", "first", "--candidate", "cand", "--metrics", "chrf",
                      "--max-cost-increase", "50", ws=ws)  # fmt: skip
    assert missing.returncode == 2 and "first has none" in missing.stderr
    bad = _mtlens("add", "--set", set_id, str(f["UEdin"]), "--name", "x", "--tuned-on", "blue", ws=ws)
    assert bad.returncode == 2 and "tuned on takes metric families" in bad.stderr
